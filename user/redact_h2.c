// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nghttp2/nghttp2.h>

#include "redact.h"
#include "redact_h2.h"
#include "vpath/record.h"

#define H2_FRAME_HDR 9
#define H2_HEADERS 1
#define H2_CONTINUATION 9
#define H2_PADDED 0x8
#define H2_PRIORITY 0x20

/* HPACK's static table (RFC 7541 Appendix A) holds 61 fields; these name secrets. */
#define HPACK_STATIC 61
static const uint8_t secret_static[] = {23 /* authorization */, 32 /* cookie */,
					49 /* proxy-authorization */, 55 /* set-cookie */};
static const char *const secret_names[] = {"authorization", "cookie", "proxy-authorization",
					   "set-cookie"};

/*
 * Fields inserted into a dynamic table that are remembered: a 4096-byte
 * table (every peer's default) holds at most 128 (32 bytes each at least);
 * an index past these is taken for a secret.
 */
#define RING 512
/* Directions followed at once; one that loses its slot is read as unknown. */
#define SLOTS 4096

struct dir_state {
	uint64_t cookie;
	uint8_t dir;
	bool used;
	bool known;	  /* every block so far was read: the ring is the sender's table */
	bool boundary;	  /* the last fragment ended between fields: a CONTINUATION may be read */
	uint32_t inserts; /* fields inserted so far */
	uint64_t secret[RING / 64]; /* by insertion number mod RING: its name was a secret's */
};

struct redact_h2 {
	struct dir_state *slots;
	nghttp2_hd_inflater *names; /* decodes literal names (blocks that insert nothing) */
};

struct redact_h2 *redact_h2__new(void)
{
	struct redact_h2 *r = calloc(1, sizeof(*r));

	if (!r || !(r->slots = calloc(SLOTS, sizeof(*r->slots)))) {
		free(r);
		return NULL;
	}
	return r;
}

void redact_h2__free(struct redact_h2 *r)
{
	if (!r)
		return;
	if (r->names)
		nghttp2_hd_inflate_del(r->names);
	free(r->slots);
	free(r);
}

static struct dir_state *slot_of(struct redact_h2 *r, uint64_t cookie, uint8_t dir)
{
	uint64_t h = (cookie * 2 + dir) * 0x9e3779b97f4a7c15ull;

	return &r->slots[(h >> 40) % SLOTS];
}

/* An HPACK integer with an n-bit prefix at p[*at..end); false when cut or too large. */
static bool hpack_int(const uint8_t *p, size_t end, size_t *at, unsigned n, uint32_t *out)
{
	uint32_t max = (1u << n) - 1, v;
	unsigned shift = 0;

	if (*at >= end)
		return false;
	v = p[(*at)++] & max;
	if (v < max) {
		*out = v;
		return true;
	}
	for (;;) {
		uint8_t b;

		if (*at >= end || shift > 21)
			return false;
		b = p[(*at)++];
		v += (uint32_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	*out = v;
	return true;
}

static bool is_secret_name(const uint8_t *name, size_t n)
{
	for (size_t i = 0; i < sizeof(secret_names) / sizeof(secret_names[0]); i++)
		if (strlen(secret_names[i]) == n &&
		    !strncasecmp((const char *)name, secret_names[i], n))
			return true;
	return false;
}

/*
 * A literal name's string, p[0..n) with its length prefix: whether it names
 * a secret.  A Huffman-coded one is decoded by nghttp2 as the name of a
 * field that inserts nothing; a name that does not decode counts as one.
 */
static bool literal_secret(struct redact_h2 *r, const uint8_t *p, size_t n)
{
	uint8_t blk[2 + VPR_PAYLOAD_MAX];
	nghttp2_nv nv;
	int flags = 0;
	ssize_t k;
	bool secret = true;

	if (!(p[0] & 0x80))
		return false; /* plain: the caller compared it */
	if (n + 2 > sizeof(blk))
		return true;
	if (!r->names && nghttp2_hd_inflate_new(&r->names))
		return true;
	/* Literal Header Field without Indexing, New Name; an empty value. */
	blk[0] = 0x00;
	memcpy(blk + 1, p, n);
	blk[n + 1] = 0x00;
	k = nghttp2_hd_inflate_hd2(r->names, &nv, &flags, blk, n + 2, 1);
	if (k >= 0 && flags & NGHTTP2_HD_INFLATE_EMIT)
		secret = is_secret_name(nv.name, nv.namelen);
	if (k < 0) {
		/* nghttp2 refuses every block after an error: a fresh one. */
		nghttp2_hd_inflate_del(r->names);
		r->names = NULL;
		return true;
	}
	/* The rest of the block: the end of headers. */
	while (!(flags & NGHTTP2_HD_INFLATE_FINAL) && k >= 0) {
		k = nghttp2_hd_inflate_hd2(r->names, &nv, &flags, NULL, 0, 1);
		if (!(flags & (NGHTTP2_HD_INFLATE_EMIT | NGHTTP2_HD_INFLATE_FINAL)))
			break;
	}
	if (k < 0 || !(flags & NGHTTP2_HD_INFLATE_FINAL)) {
		nghttp2_hd_inflate_del(r->names);
		r->names = NULL;
		return true;
	}
	nghttp2_hd_inflate_end_headers(r->names);
	return secret;
}

static void mask(uint8_t *p, size_t from, size_t to, unsigned *res)
{
	if (from >= to)
		return;
	memset(p + from, REDACT_MASK, to - from);
	*res |= REDACT_DONE;
}

enum walk_end {
	WALK_WHOLE, /* every field read, the fragment ended between two */
	WALK_CUT,   /* the bytes ended inside a field */
	WALK_BAD,   /* bytes that are no HPACK: replaced */
};

/* The fields of a fragment p[at..end), whose state is st; secrets replaced. */
static enum walk_end walk(struct redact_h2 *r, struct dir_state *st, uint8_t *p, size_t at,
			  size_t end, unsigned *res)
{
	while (at < end) {
		uint8_t b = p[at];
		uint32_t idx, n;
		bool inserts = (b & 0xc0) == 0x40, secret;

		if (b & 0x80) { /* Indexed Header Field: no literal */
			if (!hpack_int(p, end, &at, 7, &idx))
				return WALK_CUT;
			if (idx == 0)
				goto bad;
			continue;
		}
		if ((b & 0xe0) == 0x20) { /* Dynamic Table Size Update */
			if (!hpack_int(p, end, &at, 5, &idx))
				return WALK_CUT;
			continue;
		}
		if (!hpack_int(p, end, &at, inserts ? 6 : 4, &idx))
			return WALK_CUT;
		if (idx == 0) {
			size_t name = at;

			if (!hpack_int(p, end, &at, 7, &n))
				return WALK_CUT;
			if (n > end - at)
				return WALK_CUT;
			secret = p[name] & 0x80 ? literal_secret(r, p + name, at + n - name)
						: is_secret_name(p + at, n);
			at += n;
		} else if (idx <= HPACK_STATIC) {
			secret = memchr(secret_static, (int)idx, sizeof(secret_static)) != NULL;
		} else {
			uint32_t back = idx - HPACK_STATIC - 1; /* 0: the latest inserted */

			secret = !st->known || back >= st->inserts || back >= RING;
			if (!secret) {
				uint32_t k = (st->inserts - 1 - back) % RING;

				secret = st->secret[k / 64] >> (k % 64) & 1;
			}
		}
		/* The value: its Huffman flag cleared where it is replaced. */
		if (at >= end)
			return WALK_CUT;
		{
			size_t v = at;

			if (!hpack_int(p, end, &at, 7, &n)) {
				if (secret)
					mask(p, v + 1, end, res);
				return WALK_CUT;
			}
			if (secret) {
				p[v] &= 0x7f;
				*res |= REDACT_DONE;
				mask(p, at, n > end - at ? end : at + n, res);
			}
			if (n > end - at)
				return WALK_CUT;
			at += n;
		}
		if (inserts) {
			uint32_t k = st->inserts % RING;

			st->secret[k / 64] &= ~(1ull << (k % 64));
			st->secret[k / 64] |= (uint64_t)secret << (k % 64);
			st->inserts++;
		}
	}
	return WALK_WHOLE;
bad:
	mask(p, at, end, res);
	return WALK_BAD;
}

unsigned redact_h2__frame(struct redact_h2 *r, uint64_t cookie, uint8_t dir, uint8_t flags,
			  uint8_t *data, size_t len, uint64_t total)
{
	struct dir_state *st = slot_of(r, cookie, dir);
	uint32_t plen, start = H2_FRAME_HDR, end, pad = 0;
	unsigned res = 0;
	enum walk_end e;
	uint8_t type, fflags;

	if (len <= H2_FRAME_HDR)
		return 0;
	if (flags & VPR_PAYLOAD_H2_FIRST) {
		memset(st, 0, sizeof(*st));
		st->cookie = cookie;
		st->dir = dir;
		st->used = st->known = st->boundary = true;
	} else if (!st->used || st->cookie != cookie || st->dir != dir) {
		/* Its earlier blocks went to a slot another direction took: unknown. */
		memset(st, 0, sizeof(*st));
		st->cookie = cookie;
		st->dir = dir;
		st->used = true;
	}
	if (flags & VPR_PAYLOAD_H2_BROKEN)
		st->known = false;
	plen = (uint32_t)data[0] << 16 | (uint32_t)data[1] << 8 | data[2];
	type = data[3];
	fflags = data[4];
	if (flags & VPR_PAYLOAD_H2_FIRST || type == H2_HEADERS)
		st->boundary = true;
	if (type == H2_HEADERS) {
		if (fflags & H2_PADDED) {
			pad = data[H2_FRAME_HDR];
			start++;
		}
		if (fflags & H2_PRIORITY)
			start += 5;
	}
	end = H2_FRAME_HDR + plen;
	if (total != end || len > total || (type != H2_HEADERS && type != H2_CONTINUATION) ||
	    start + pad > end || !st->boundary) {
		/* Not read as HPACK: everything after the frame header goes. */
		mask(data, H2_FRAME_HDR, len, &res);
		st->known = st->boundary = false;
		return res;
	}
	end -= pad;
	if (end > len)
		end = (uint32_t)len;
	e = start < end ? walk(r, st, data, start, end, &res) : WALK_WHOLE;
	/* Its fields all read, or the table is not known past it. */
	if (e != WALK_WHOLE || len < total)
		st->known = st->boundary = false;
	else
		st->boundary = true;
	return res;
}
