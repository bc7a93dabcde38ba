// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One queue per CPU for its socket operations (sorted as they arrive), one
 * for lone records and one for payloads and log lines (both kept sorted by insertion from
 * the tail, where nearly all of them land).  Handing out is a k-way merge of the queues'
 * heads through a small binary heap, so the cost per record is a few
 * comparisons, whatever the number of CPUs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "reorder.h"

/* How full a queue was lately (shrink_idle). */
struct calm {
	size_t high;	 /* the most it held at once since the last look */
	unsigned rounds; /* hand-outs since then */
};

struct op_queue {
	struct vpr_sock_op *ops;
	size_t head, len, cap;
	struct calm calm;
};

struct lone_queue {
	union vpr_any *recs;
	size_t head, len, cap;
	struct calm calm;
};

/* A payload handed out behind its operation stays, marked, until its turn in the merge. */
#define PAYLOAD_TAKEN 0

struct payload_queue {
	struct vpr_payload *recs;
	size_t head, len, cap;
	struct calm calm;
};

struct reorder {
	unsigned ncpus;
	struct op_queue *cpus;
	struct lone_queue lone;
	struct payload_queue payloads;
	unsigned *heap; /* queue numbers; ncpus is the lone queue, ncpus + 1 the payloads */
	uint64_t *key;	/* while handing out: the stamp at the head of each queue in the heap */
};

struct reorder *reorder__new(unsigned ncpus)
{
	struct reorder *ro = calloc(1, sizeof(*ro));

	if (!ro)
		return NULL;
	ro->ncpus = ncpus;
	ro->cpus = calloc(ncpus ? ncpus : 1, sizeof(*ro->cpus));
	ro->heap = calloc(ncpus + 2, sizeof(*ro->heap));
	ro->key = calloc(ncpus + 2, sizeof(*ro->key));
	if (!ro->cpus || !ro->heap || !ro->key) {
		reorder__free(ro);
		return NULL;
	}
	return ro;
}

void reorder__free(struct reorder *ro)
{
	if (!ro)
		return;
	for (unsigned i = 0; ro->cpus && i < ro->ncpus; i++)
		free(ro->cpus[i].ops);
	free(ro->cpus);
	free(ro->lone.recs);
	free(ro->payloads.recs);
	free(ro->heap);
	free(ro->key);
	free(ro);
}

/* Room for n more elements of size each behind len; handed-out ones are dropped first. */
static int reserve_tail(void **buf, size_t *head, size_t *len, size_t *cap, size_t n, size_t size,
			struct calm *calm)
{
	size_t need;
	void *grown;

	if (*len - *head + n > calm->high)
		calm->high = *len - *head + n;

	if (*head && *len + n > *cap) {
		memmove(*buf, (char *)*buf + *head * size, (*len - *head) * size);
		*len -= *head;
		*head = 0;
	}
	need = *len + n;
	if (need <= *cap)
		return 0;
	if (need < *cap * 2)
		need = *cap * 2;
	if (need < 1024)
		need = 1024;
	grown = realloc(*buf, need * size);
	if (!grown)
		return -ENOMEM;
	*buf = grown;
	*cap = need;
	return 0;
}

/*
 * A queue grown by a backlog (the recorder starved of CPU for a while) gives
 * its memory back once the backlog is gone, so that a burst does not leave
 * the recorder's RSS at its high-water mark for the rest of a long run.
 * Only after REORDER_CALM_ROUNDS hand-outs (a quarter second or more at
 * full load, 6.4 s at most at the idle poll) in which it never held more
 * than an eighth of its capacity, and to twice the most it held: a queue
 * whose every poll fills it beyond
 * REORDER_KEEP keeps its size.  Shrinking at the first small hand-out made
 * such a queue shrink and grow on every poll, and each growth touched fresh
 * pages (the buffers are mmapped, recorder.c): thousands of page faults a
 * second, the recorder's CPU doubled on the echo worst case.
 */

static void shrink_idle(void **buf, size_t *head, size_t *len, size_t *cap, size_t size,
			struct calm *calm)
{
	size_t held = *len - *head, want;
	void *smaller;

	if (++calm->rounds < REORDER_CALM_ROUNDS)
		return;
	want = calm->high * 2;
	calm->high = 0;
	calm->rounds = 0;
	if (*cap <= REORDER_KEEP || want > *cap / 4)
		return;
	if (want < held * 2)
		want = held * 2;
	if (want < REORDER_KEEP)
		want = REORDER_KEEP;
	memmove(*buf, (char *)*buf + *head * size, held * size);
	*head = 0;
	*len = held;
	smaller = realloc(*buf, want * size);
	if (!smaller)
		return; /* keeping the larger buffer is harmless */
	*buf = smaller;
	*cap = want;
}

int reorder__add(struct reorder *ro, const void *rec)
{
	struct lone_queue *q = &ro->lone;
	const struct vpr_hdr *h = rec;
	size_t at;
	int err;

	if (h->size < sizeof(*h) || h->size > sizeof(union vpr_any))
		return -EINVAL;
	err = reserve_tail((void **)&q->recs, &q->head, &q->len, &q->cap, 1, sizeof(*q->recs),
			   &q->calm);
	if (err)
		return err;
	/* After every held record stamped at the same time or earlier. */
	for (at = q->len; at > q->head && q->recs[at - 1].h.ts_ns > h->ts_ns; at--)
		;
	memmove(&q->recs[at + 1], &q->recs[at], (q->len - at) * sizeof(*q->recs));
	memset(&q->recs[at], 0, sizeof(q->recs[at]));
	memcpy(&q->recs[at], rec, h->size);
	q->len++;
	return 0;
}

int reorder__add_payload(struct reorder *ro, const struct vpr_payload *p)
{
	struct payload_queue *q = &ro->payloads;
	size_t at;
	int err;

	/*
	 * A log line (VPR_LOG, the same size and framing) waits here too, and a
	 * payload's hashes (VPR_PAYLOAD_HASH, framed like a payload up to its flags).
	 */
	if (p->h.type == VPR_PAYLOAD_HASH) {
		if (p->h.size != sizeof(struct vpr_payload_hash) || p->len > VPR_PAYLOAD_HASH_MAX)
			return -EINVAL;
	} else if ((p->h.type != VPR_PAYLOAD && p->h.type != VPR_LOG) || p->len > VPR_PAYLOAD_MAX ||
		   p->h.size != VPR_PAYLOAD_SIZE(p->len))
		return -EINVAL;
	err = reserve_tail((void **)&q->recs, &q->head, &q->len, &q->cap, 1, sizeof(*q->recs),
			   &q->calm);
	if (err)
		return err;
	for (at = q->len; at > q->head && q->recs[at - 1].h.ts_ns > p->h.ts_ns; at--)
		;
	memmove(&q->recs[at + 1], &q->recs[at], (q->len - at) * sizeof(*q->recs));
	memset(&q->recs[at], 0, sizeof(q->recs[at]));
	memcpy(&q->recs[at], p, p->h.size);
	q->len++;
	return 0;
}

int reorder__add_ops(struct reorder *ro, unsigned cpu, const struct vpr_sock_op *ops, size_t n)
{
	struct op_queue *q;
	int err;

	if (cpu >= ro->ncpus)
		return -EINVAL;
	q = &ro->cpus[cpu];
	err = reserve_tail((void **)&q->ops, &q->head, &q->len, &q->cap, n, sizeof(*q->ops),
			   &q->calm);
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		if (q->len > q->head && ops[i].h.ts_ns < q->ops[q->len - 1].h.ts_ns) {
			err = reorder__add(ro, &ops[i]);
			if (err)
				return err;
			continue;
		}
		q->ops[q->len++] = ops[i];
	}
	return 0;
}

size_t reorder__held(const struct reorder *ro)
{
	size_t n = ro->lone.len - ro->lone.head + ro->payloads.len - ro->payloads.head;

	for (unsigned i = 0; i < ro->ncpus; i++)
		n += ro->cpus[i].len - ro->cpus[i].head;
	return n;
}

/* The record at the head of queue qn, or NULL when it is empty. */
static const struct vpr_hdr *head_of(const struct reorder *ro, unsigned qn)
{
	if (qn == ro->ncpus) {
		const struct lone_queue *q = &ro->lone;

		return q->head < q->len ? &q->recs[q->head].h : NULL;
	}
	if (qn == ro->ncpus + 1) {
		const struct payload_queue *q = &ro->payloads;

		return q->head < q->len ? &q->recs[q->head].h : NULL;
	}
	const struct op_queue *q = &ro->cpus[qn];

	return q->head < q->len ? &q->ops[q->head].h : NULL;
}

/* Earlier heads first; on a tie the lower queue number, so that hand-out is deterministic. */
static int heap_less(const struct reorder *ro, unsigned a, unsigned b)
{
	uint64_t ta = ro->key[a], tb = ro->key[b];

	return ta < tb || (ta == tb && a < b);
}

static void sift_down(struct reorder *ro, size_t n, size_t i)
{
	unsigned *heap = ro->heap;

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		unsigned t;

		if (l < n && heap_less(ro, heap[l], heap[m]))
			m = l;
		if (r < n && heap_less(ro, heap[r], heap[m]))
			m = r;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

static bool payload_of(const struct vpr_payload *p, const struct vpr_sock_op *op)
{
	return p->h.tid == op->h.tid && p->cookie == op->cookie && p->dir == op->dir &&
	       p->seq_end == op->seq_end;
}

/*
 * Hands out the payload of op, if one is held, right behind it.  Payloads
 * are sorted by stamp and every earlier one has had its turn, so it is
 * among those at the head stamped like op.
 */
static int follow_with_payload(struct reorder *ro, const struct vpr_sock_op *op, reorder_emit_fn fn,
			       void *ctx)
{
	struct payload_queue *q = &ro->payloads;
	int err;

	for (size_t i = q->head; i < q->len && q->recs[i].h.ts_ns <= op->h.ts_ns; i++) {
		struct vpr_payload *p = &q->recs[i];

		if ((p->h.type != VPR_PAYLOAD && p->h.type != VPR_PAYLOAD_HASH) ||
		    p->h.ts_ns != op->h.ts_ns || !payload_of(p, op))
			continue;
		err = fn(ctx, p);
		if (!err)
			p->h.type = PAYLOAD_TAKEN;
		return err;
	}
	return 0;
}

int reorder__emit(struct reorder *ro, uint64_t upto, reorder_emit_fn fn, void *ctx)
{
	size_t n = 0;
	int err = 0;

	for (unsigned qn = 0; qn <= ro->ncpus + 1; qn++) {
		const struct vpr_hdr *h = head_of(ro, qn);

		if (h && h->ts_ns <= upto) {
			ro->key[qn] = h->ts_ns;
			ro->heap[n++] = qn;
		}
	}
	for (size_t i = n / 2; i-- > 0;)
		sift_down(ro, n, i);
	while (n > 0) {
		unsigned qn = ro->heap[0];
		const struct vpr_hdr *h = head_of(ro, qn);

		if (qn != ro->ncpus + 1 || h->type != PAYLOAD_TAKEN)
			err = fn(ctx, h);
		if (err)
			break;
		if (qn == ro->ncpus)
			ro->lone.head++;
		else if (qn == ro->ncpus + 1)
			ro->payloads.head++;
		else
			ro->cpus[qn].head++;
		/* Still in place: the queues move only when records are added. */
		if (h->type == VPR_SOCK_OP && ro->payloads.head < ro->payloads.len) {
			err = follow_with_payload(ro, (const struct vpr_sock_op *)h, fn, ctx);
			if (err)
				break;
		}
		h = head_of(ro, qn);
		if (!h || h->ts_ns > upto)
			ro->heap[0] = ro->heap[--n];
		else
			ro->key[qn] = h->ts_ns;
		sift_down(ro, n, 0);
	}
	/* Emptied queues start again at the front of their buffers. */
	for (unsigned i = 0; i < ro->ncpus; i++) {
		struct op_queue *q = &ro->cpus[i];

		if (q->head == q->len)
			q->head = q->len = 0;
		shrink_idle((void **)&q->ops, &q->head, &q->len, &q->cap, sizeof(*q->ops),
			    &q->calm);
	}
	if (ro->lone.head == ro->lone.len)
		ro->lone.head = ro->lone.len = 0;
	shrink_idle((void **)&ro->lone.recs, &ro->lone.head, &ro->lone.len, &ro->lone.cap,
		    sizeof(*ro->lone.recs), &ro->lone.calm);
	if (ro->payloads.head == ro->payloads.len)
		ro->payloads.head = ro->payloads.len = 0;
	shrink_idle((void **)&ro->payloads.recs, &ro->payloads.head, &ro->payloads.len,
		    &ro->payloads.cap, sizeof(*ro->payloads.recs), &ro->payloads.calm);
	return err;
}

size_t reorder__reserved_bytes(const struct reorder *ro)
{
	size_t n = ro->lone.cap * sizeof(*ro->lone.recs) +
		   ro->payloads.cap * sizeof(*ro->payloads.recs);

	for (unsigned i = 0; i < ro->ncpus; i++)
		n += ro->cpus[i].cap * sizeof(*ro->cpus[i].ops);
	return n;
}
