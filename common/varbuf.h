/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Growable byte buffers with LEB128 varints, for the local files
 * (localfile.h): a writer appends, a reader takes from a bounded span and
 * turns every overrun into a flag checked once at the end, so a damaged
 * block can never be read past its end.
 */
#ifndef VPATH_VARBUF_H
#define VPATH_VARBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct vp_wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static inline bool vp_wbuf__room(struct vp_wbuf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 4096;

	while (cap < b->len + n)
		cap *= 2;
	uint8_t *np = realloc(b->p, cap);

	if (!np) {
		b->oom = true;
		return false;
	}
	b->p = np;
	b->cap = cap;
	return true;
}

static inline void vp_wbuf__bytes(struct vp_wbuf *b, const void *v, size_t n)
{
	if (n && vp_wbuf__room(b, n)) {
		memcpy(b->p + b->len, v, n);
		b->len += n;
	}
}

static inline void vp_wbuf__u8(struct vp_wbuf *b, uint8_t v)
{
	vp_wbuf__bytes(b, &v, 1);
}

static inline void vp_wbuf__var(struct vp_wbuf *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;

	do {
		t[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		t[n++] |= v ? 0x80 : 0;
	} while (v);
	vp_wbuf__bytes(b, t, n);
}

/* Signed differences: small magnitudes either way stay short. */
static inline void vp_wbuf__svar(struct vp_wbuf *b, int64_t v)
{
	vp_wbuf__var(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* A string as its length and bytes (no NUL), at most max bytes of s. */
static inline void vp_wbuf__str(struct vp_wbuf *b, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	vp_wbuf__var(b, n);
	vp_wbuf__bytes(b, s, n);
}

static inline void vp_wbuf__free(struct vp_wbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/*
 * Room for one more element of size bytes in *v (n used of *cap): the
 * address of the new element, NULL when out of memory.
 */
static inline void *vp_grow(void **v, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		void *nv = realloc(*v, c * size);

		if (!nv)
			return NULL;
		*v = nv;
		*cap = c;
	}
	return memset((char *)*v + (*n)++ * size, 0, size);
}

struct vp_rbuf {
	const uint8_t *p, *end;
	bool bad; /* read past the end, or a value out of range */
};

static inline void vp_rbuf__bytes(struct vp_rbuf *b, void *v, size_t n)
{
	if ((size_t)(b->end - b->p) < n) {
		b->bad = true;
		b->p = b->end;
		memset(v, 0, n);
		return;
	}
	memcpy(v, b->p, n);
	b->p += n;
}

static inline uint8_t vp_rbuf__u8(struct vp_rbuf *b)
{
	uint8_t v;

	vp_rbuf__bytes(b, &v, 1);
	return v;
}

static inline uint64_t vp_rbuf__var(struct vp_rbuf *b)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t c;

		if (b->p >= b->end) {
			b->bad = true;
			return 0;
		}
		c = *b->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	b->bad = true;
	return 0;
}

static inline int64_t vp_rbuf__svar(struct vp_rbuf *b)
{
	uint64_t v = vp_rbuf__var(b);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* A varint that must fit max: beyond it the buffer is bad and 0 is returned. */
static inline uint64_t vp_rbuf__varmax(struct vp_rbuf *b, uint64_t max)
{
	uint64_t v = vp_rbuf__var(b);

	if (v > max) {
		b->bad = true;
		return 0;
	}
	return v;
}

/* A string into dst[cap] (NUL-terminated, cut to cap - 1). */
static inline void vp_rbuf__str(struct vp_rbuf *b, char *dst, size_t cap)
{
	size_t n = vp_rbuf__var(b);

	if (n > (size_t)(b->end - b->p)) {
		b->bad = true;
		b->p = b->end;
		dst[0] = 0;
		return;
	}
	memcpy(dst, b->p, n < cap ? n : cap - 1);
	dst[n < cap ? n : cap - 1] = 0;
	b->p += n;
}

#endif
