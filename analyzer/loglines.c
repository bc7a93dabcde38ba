// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loglines.h"

/* A line begun by one write and not yet ended. */
struct partial {
	uint32_t tid, pid;
	uint64_t ino, ts, unit, cause;
	uint8_t kind;
	bool redacted, batched;
	uint16_t len;
	char buf[VP_LOGLINE_MAX];
};

static uint64_t partial_key(uint32_t tid, uint64_t ino)
{
	return hash64((uint64_t)tid << 32 ^ hash64(ino));
}

/* Text, as logs write it: no NUL, no control character but tab, CR, LF and ESC (colours). */
static bool is_text(const uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t c = d[i];

		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != 0x1b) || c == 0x7f)
			return false;
	}
	return true;
}

/*
 * PostgreSQL's logging collector: a backend writes each message to the
 * collector's pipe in chunks of at most 512 bytes, each behind a 9-byte
 * header (two NULs, the chunk's length and the writer's pid, both in the
 * machine's order, little-endian where vpath records, then flags).  The
 * header of a write of that length by that pid: how many bytes to skip.
 */
#define PG_CHUNK_HDR 9u
static size_t collector_header(const struct vpr_log *rec, const uint8_t *d, size_t len)
{
	uint32_t n, pid;

	if (rec->kind != VPR_LOG_PIPE || len < PG_CHUNK_HDR || d[0] || d[1])
		return 0;
	n = d[2] | (uint32_t)d[3] << 8;
	pid = d[4] | (uint32_t)d[5] << 8 | (uint32_t)d[6] << 16 | (uint32_t)d[7] << 24;
	return n + PG_CHUNK_HDR == rec->bytes && pid == rec->pid ? PG_CHUNK_HDR : 0;
}

static struct vp_logline *line_new(const struct partial *p, const uint8_t *more, size_t n, bool cut)
{
	size_t len = p->len + n;
	struct vp_logline *l;

	if (len > VP_LOGLINE_MAX) {
		len = VP_LOGLINE_MAX;
		cut = true;
	}
	l = calloc(1, sizeof(*l) + len + 1);
	if (!l)
		return NULL;
	l->ts = p->ts;
	l->tid = p->tid;
	l->pid = p->pid;
	l->unit = p->unit;
	l->cause = p->cause;
	l->kind = p->kind;
	l->redacted = p->redacted;
	l->batched = p->batched;
	l->cut = cut;
	memcpy(l->text, p->buf, p->len);
	if (len > p->len)
		memcpy(l->text + p->len, more, len - p->len);
	/* A CRLF line ends at the CR too. */
	while (len && l->text[len - 1] == '\r')
		len--;
	l->text[len] = 0;
	l->len = (uint16_t)len;
	return l;
}

static int hand_on(struct vp_loglines *ll, const struct partial *p, const uint8_t *more, size_t n,
		   bool cut, vp_logline_fn fn, void *ctx)
{
	struct vp_logline *l;

	/* An empty line says nothing (a write of "\n" alone after a line's text is its end). */
	if (p->len + n == 0)
		return 0;
	l = line_new(p, more, n, cut);
	if (!l)
		return -ENOMEM;
	ll->lines++;
	fn(ctx, l);
	return 0;
}

int vp_loglines__write(struct vp_loglines *ll, const struct vpr_log *rec, uint64_t unit,
		       uint64_t cause, vp_logline_fn fn, void *ctx)
{
	uint64_t key = partial_key(rec->h.tid, rec->ino);
	struct partial *p = u64map__get(&ll->partial, key);
	struct partial here = {.tid = rec->h.tid,
			       .pid = rec->pid,
			       .ino = rec->ino,
			       .ts = rec->h.ts_ns,
			       .unit = unit,
			       .cause = cause,
			       .kind = rec->kind,
			       .redacted = rec->flags & VPR_LOG_REDACTED};
	const uint8_t *d = rec->data;
	size_t len = rec->len < VPR_LOG_MAX ? rec->len : VPR_LOG_MAX, at = 0;
	size_t skip = collector_header(rec, d, len), bytes = rec->bytes - skip;
	const uint8_t *first_nl;
	int err = 0;

	d += skip;
	len -= skip;
	first_nl = memchr(d, '\n', len);
	/* More after a newline (seen, or past what was recorded): several lines in one write. */
	here.batched = first_nl && (size_t)(first_nl - d) + 1 < bytes;
	if (p && (p->tid != rec->h.tid || p->ino != rec->ino)) {
		/* Another pair's line in this slot (a hash collision): it ends here, cut. */
		err = hand_on(ll, p, NULL, 0, true, fn, ctx);
		free(u64map__del(&ll->partial, key));
		p = NULL;
	}
	if (!is_text(d, len)) {
		ll->binary++;
		/* What the thread had begun is no line either. */
		free(u64map__del(&ll->partial, key));
		return err;
	}
	while (!err && at < len) {
		const uint8_t *nl = memchr(d + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (d + at)) : len - at;
		const struct partial *begun = p ? p : &here;

		if (p) {
			p->redacted |= here.redacted;
			p->batched |= here.batched;
		}
		if (nl) {
			err = hand_on(ll, begun, d + at, n, false, fn, ctx);
		} else if (len < bytes || begun->len + n >= VP_LOGLINE_MAX) {
			/* The write went on unseen (or the line is too long): its end is not known. */
			err = hand_on(ll, begun, d + at, n, true, fn, ctx);
		} else {
			/* The line goes on in the thread's next write to this file. */
			if (!p) {
				p = malloc(sizeof(*p));
				if (!p || u64map__put(&ll->partial, key, p)) {
					free(p);
					return -ENOMEM;
				}
				*p = here;
				p->len = 0;
			}
			memcpy(p->buf + p->len, d + at, n);
			p->len += (uint16_t)n;
			return 0;
		}
		if (p) {
			free(u64map__del(&ll->partial, key));
			p = NULL;
		}
		at += n + (nl ? 1 : 0);
	}
	return err;
}

void vp_loglines__flush(struct vp_loglines *ll, vp_logline_fn fn, void *ctx)
{
	size_t pos = 0;
	void *v;

	while (u64map__next(&ll->partial, &pos, NULL, &v)) {
		/* Out of memory here loses a line the recording ended inside of: nothing to do. */
		hand_on(ll, v, NULL, 0, false, fn, ctx);
		free(v);
	}
	u64map__free(&ll->partial);
	memset(&ll->partial, 0, sizeof(ll->partial));
}

void vp_loglines__free(struct vp_loglines *ll)
{
	size_t pos = 0;
	void *v;

	while (u64map__next(&ll->partial, &pos, NULL, &v))
		free(v);
	u64map__free(&ll->partial);
	memset(ll, 0, sizeof(*ll));
}

void vp_loglines__free_list(struct vp_logline *l)
{
	while (l) {
		struct vp_logline *next = l->next;

		free(l);
		l = next;
	}
}

void vp_lineq__push(struct vp_lineq *q, struct vp_logline *l, uint32_t max)
{
	l->next = NULL;
	if (q->tail)
		q->tail->next = l;
	else
		q->head = l;
	q->tail = l;
	if (++q->n > max) {
		struct vp_logline *old = q->head;

		q->head = old->next;
		q->n--;
		free(old);
	}
}

struct vp_logline *vp_lineq__take(struct vp_lineq *q)
{
	struct vp_logline *l = q->head;

	memset(q, 0, sizeof(*q));
	return l;
}

void vp_lineq__free(struct vp_lineq *q)
{
	vp_loglines__free_list(vp_lineq__take(q));
}
