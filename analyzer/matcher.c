// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>

#include "matcher.h"

static bool compatible(const struct vp_matcher *m, const struct vp_xchg *x, const struct vp_xchg *y)
{
	if (m->pairs)
		return vp_pairs__paired(m->pairs, x, y);
	if (x->side == y->side || x->req.seq_start != y->req.seq_start)
		return false;
	/* Plaintext and ciphertext positions are of different streams: no call joins them. */
	if (x->plaintext != y->plaintext)
		return false;
	if (x->have_tuple && y->have_tuple &&
	    (!vp_endpoint__equal(&x->local, &y->remote) ||
	     !vp_endpoint__equal(&x->remote, &y->local)))
		return false;
	/* Loopback connections never leave their host. */
	if (x->have_tuple && vp_endpoint__is_loopback(&x->remote) && x->host != y->host)
		return false;
	/*
	 * Replies that begin apart: another exchange, unless the client sent this
	 * request while a reply was still coming (xchg.h), which moves where the
	 * client's reply begins by what it had not read yet.  The join then
	 * marks the connection (analysis.c).
	 */
	if (x->has_rep && y->has_rep && x->rep.seq_start != y->rep.seq_start &&
	    !(x->side == VP_CLIENT ? vp_xchg__overlaps(x, y) : vp_xchg__overlaps(y, x)))
		return false;
	return true;
}

static void heap_remove(struct vp_matcher *m, struct vp_xchg *x);

static void unlink_from(struct vp_matcher *m, struct vp_xchg *x)
{
	uint64_t key = x->req.seq_start;
	struct vp_xchg *head = u64map__get(&m->by_seq, key), **pp;

	for (pp = &head; *pp; pp = &(*pp)->match_next) {
		if (*pp == x) {
			*pp = x->match_next;
			break;
		}
	}
	if (head)
		u64map__put(&m->by_seq, key, head);
	else
		u64map__del(&m->by_seq, key);
	x->match_next = NULL;
	x->in_match = false;
	if (x->heap_idx)
		heap_remove(m, x);
}

struct vp_xchg *vp_matcher__add(struct vp_matcher *m, struct vp_xchg *x)
{
	uint64_t key = x->req.seq_start;
	struct vp_xchg *head = u64map__get(&m->by_seq, key);

	for (struct vp_xchg *y = head; y; y = y->match_next) {
		if (compatible(m, x, y)) {
			unlink_from(m, y);
			m->matched++;
			return y;
		}
	}
	x->match_next = head;
	x->in_match = true;
	if (u64map__put(&m->by_seq, key, x))
		abort();
	return NULL;
}

void vp_matcher__remove(struct vp_matcher *m, struct vp_xchg *x)
{
	if (x->in_match)
		unlink_from(m, x);
}

static bool before(const struct vp_xchg *a, const struct vp_xchg *b)
{
	return a->deadline < b->deadline;
}

static void heap_set(struct vp_matcher *m, size_t i, struct vp_xchg *x)
{
	m->heap[i] = x;
	x->heap_idx = i + 1;
}

static void sift_up(struct vp_matcher *m, size_t i, struct vp_xchg *x)
{
	for (; i > 0 && before(x, m->heap[(i - 1) / 2]); i = (i - 1) / 2)
		heap_set(m, i, m->heap[(i - 1) / 2]);
	heap_set(m, i, x);
}

static void sift_down(struct vp_matcher *m, size_t i, struct vp_xchg *x)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap && before(m->heap[c + 1], m->heap[c]))
			c++;
		if (!before(m->heap[c], x))
			break;
		heap_set(m, i, m->heap[c]);
		i = c;
	}
	heap_set(m, i, x);
}

static void heap_remove(struct vp_matcher *m, struct vp_xchg *x)
{
	size_t i = x->heap_idx - 1;
	struct vp_xchg *last = m->heap[--m->nheap];

	x->heap_idx = 0;
	if (last == x)
		return;
	if (i > 0 && before(last, m->heap[(i - 1) / 2]))
		sift_up(m, i, last);
	else
		sift_down(m, i, last);
}

void vp_matcher__schedule(struct vp_matcher *m, struct vp_xchg *x, int64_t deadline)
{
	if (x->heap_idx)
		heap_remove(m, x);
	if (m->nheap == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct vp_xchg **h = realloc(m->heap, cap * sizeof(*h));

		if (!h)
			abort();
		m->heap = h;
		m->cap = cap;
	}
	x->deadline = deadline;
	sift_up(m, m->nheap++, x);
}

struct vp_xchg *vp_matcher__due(struct vp_matcher *m, int64_t horizon, bool all)
{
	if (!m->nheap || (!all && m->heap[0]->deadline > horizon))
		return NULL;
	return m->heap[0];
}

void vp_matcher__free(struct vp_matcher *m)
{
	u64map__free(&m->by_seq);
	free(m->heap);
	m->heap = NULL;
	m->nheap = m->cap = 0;
}
