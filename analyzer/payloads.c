// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "payloads.h"

struct vp_payload_entry {
	struct vp_payload_entry *next;
	struct vpr_payload rec; /* only VPR_PAYLOAD_SIZE(len) bytes of it are allocated */
};

bool vp_payload__valid(const struct vpr_payload *p)
{
	return p->len <= VPR_PAYLOAD_MAX && p->h.size >= VPR_PAYLOAD_SIZE(p->len) &&
	       p->len <= p->bytes && p->dir <= VPR_DIR_RECV;
}

bool vp_payload_hash__valid(const struct vpr_payload_hash *p)
{
	return p->h.size == sizeof(*p) && p->len && p->len <= VPR_PAYLOAD_HASH_MAX &&
	       p->len <= p->bytes && p->dir <= VPR_DIR_RECV;
}

bool vp_log__valid(const struct vpr_log *l)
{
	return l->len <= VPR_LOG_MAX && l->h.size >= VPR_LOG_SIZE(l->len) && l->len <= l->bytes &&
	       l->kind >= VPR_LOG_FILE && l->kind <= VPR_LOG_UNIX;
}

/* A log line is named by its fields at the same places (record.h: the same layout up to len). */
static bool same_op(const struct vpr_payload *a, const struct vpr_payload *b)
{
	/* A frame's bytes may end where its operation's do: told apart by the flag. */
	return a->h.type == b->h.type && a->h.tid == b->h.tid && a->h.ts_ns == b->h.ts_ns &&
	       a->cookie == b->cookie && a->dir == b->dir && a->seq_end == b->seq_end &&
	       !(a->flags & VPR_PAYLOAD_H2_FRAME) == !(b->flags & VPR_PAYLOAD_H2_FRAME);
}

static size_t bucket_of(const struct vp_payloads *t, const struct vpr_payload *p)
{
	uint64_t h = p->cookie * 0x9e3779b97f4a7c15ull ^ p->h.ts_ns ^ ((uint64_t)p->seq_end << 32);

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 32)) & (t->nbuckets - 1);
}

static int grow(struct vp_payloads *t)
{
	size_t nb = t->nbuckets ? t->nbuckets * 2 : 64;
	struct vp_payload_entry **b = calloc(nb, sizeof(*b));
	struct vp_payloads old = *t;

	if (!b)
		return -ENOMEM;
	t->buckets = b;
	t->nbuckets = nb;
	for (size_t i = 0; i < old.nbuckets; i++) {
		while (old.buckets[i]) {
			struct vp_payload_entry *e = old.buckets[i];
			size_t k = bucket_of(t, &e->rec);

			old.buckets[i] = e->next;
			e->next = b[k];
			b[k] = e;
		}
	}
	free(old.buckets);
	return 0;
}

int vp_payloads__put(struct vp_payloads *t, const struct vpr_payload *p)
{
	size_t size = VPR_PAYLOAD_SIZE(p->len);
	struct vp_payload_entry *e;
	size_t k;

	if (t->n >= VP_PAYLOADS_MAX)
		return -ENOSPC;
	if (t->n >= t->nbuckets && grow(t))
		return -ENOMEM;
	e = malloc(offsetof(struct vp_payload_entry, rec) + size);
	if (!e)
		return -ENOMEM;
	memcpy(&e->rec, p, size);
	k = bucket_of(t, p);
	/* At the end of its chain: two records of one operation are taken in file order. */
	e->next = NULL;
	{
		struct vp_payload_entry **at = &t->buckets[k];

		while (*at)
			at = &(*at)->next;
		*at = e;
	}
	t->n++;
	return 0;
}

bool vp_payloads__take(struct vp_payloads *t, const struct vpr_payload *head,
		       struct vpr_payload *out)
{
	struct vp_payload_entry **at;

	if (!t->n)
		return false;
	for (at = &t->buckets[bucket_of(t, head)]; *at; at = &(*at)->next) {
		struct vp_payload_entry *e = *at;

		if (!same_op(&e->rec, head))
			continue;
		memcpy(out, &e->rec, VPR_PAYLOAD_SIZE(e->rec.len));
		*at = e->next;
		free(e);
		t->n--;
		return true;
	}
	return false;
}

void vp_payloads__free(struct vp_payloads *t)
{
	for (size_t i = 0; i < t->nbuckets; i++) {
		while (t->buckets[i]) {
			struct vp_payload_entry *e = t->buckets[i];

			t->buckets[i] = e->next;
			free(e);
		}
	}
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}
