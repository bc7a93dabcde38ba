// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "attribute.h"
#include "fnv.h"
#include "forward.h"
#include "goroutines.h"
#include "handoff.h"

void vp_attr__init(struct vp_attr *a, int host, struct vp_hpaths *paths)
{
	memset(a, 0, sizeof(*a));
	a->host = host;
	a->paths = paths;
	vp_gowrites__init(&a->gowrites, paths);
}

static void list_init(struct vp_xchg *head)
{
	head->list_next = head->list_prev = head;
}

static void list_add_tail(struct vp_xchg *head, struct vp_xchg *x)
{
	x->list_prev = head->list_prev;
	x->list_next = head;
	head->list_prev->list_next = x;
	head->list_prev = x;
}

static void list_del(struct vp_xchg *x)
{
	if (!x->list_next)
		return;
	x->list_prev->list_next = x->list_next;
	x->list_next->list_prev = x->list_prev;
	x->list_next = x->list_prev = NULL;
}

static void tlist_init(struct vp_xchg *head)
{
	head->tlist_next = head->tlist_prev = head;
}

static void tlist_add_tail(struct vp_xchg *head, struct vp_xchg *x)
{
	x->tlist_prev = head->tlist_prev;
	x->tlist_next = head;
	head->tlist_prev->tlist_next = x;
	head->tlist_prev = x;
}

/* A pending call leaves both its process's and its thread's list. */
static void pending_del(struct vp_xchg *c)
{
	list_del(c);
	if (c->tlist_next) {
		c->tlist_prev->tlist_next = c->tlist_next;
		c->tlist_next->tlist_prev = c->tlist_prev;
		c->tlist_next = c->tlist_prev = NULL;
	}
}

/*
 * Requests a process's threads must have answered themselves, without one
 * call from a thread that reads requests, before the wake-up rule trusts
 * that it is an executor front end.  Until then a thread that serves
 * requests and calls itself (gunicorn's gthread) may just not have called
 * yet: a background thread of its own, woken by it through the interpreter
 * lock, would have its calls linked to a request that made none.
 */
#define VP_WAKE_MIN_REPLIES 8

static void root_call(struct vp_attr *a, struct vp_proc *p, struct vp_xchg *c, enum vp_basis why);
static void settle_pending(struct vp_attr *a, struct vp_proc *p, struct vp_xchg *c,
			   enum vp_basis why);
static void settle_shape_wait(struct vp_attr *a, struct vp_proc *p);

static struct vp_proc *proc_get(struct vp_attr *a, uint32_t pid)
{
	struct vp_proc *p = u64map__get(&a->procs, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p || u64map__put(&a->procs, pid, p))
		abort(); /* out of memory: no sensible partial result */
	p->pid = pid;
	p->host = a->host;
	list_init(&p->open);
	list_init(&p->pending);
	list_init(&p->shape_wait);
	return p;
}

/* The process of thread t (remembered: processes live to the end of the analysis). */
static struct vp_proc *thread_proc(struct vp_attr *a, struct vp_thread *t, uint32_t pid)
{
	if (!t->proc || t->proc->pid != pid)
		t->proc = proc_get(a, pid);
	return t->proc;
}

/* The process of an exchange that attribution has seen (take_comm). */
static struct vp_proc *xchg_proc(struct vp_attr *a, struct vp_xchg *x)
{
	return x->proc ? x->proc : proc_get(a, x->pid);
}

static struct vp_thread *thread_get(struct vp_attr *a, uint32_t tid, uint32_t pid)
{
	struct vp_thread *t = u64map__get(&a->threads, tid);

	if (t) {
		if (pid)
			t->pid = pid;
		return t;
	}
	t = calloc(1, sizeof(*t));
	if (!t || u64map__put(&a->threads, tid, t))
		abort();
	t->tid = tid;
	t->pid = pid;
	tlist_init(&t->pending);
	return t;
}

static void set_cur(struct vp_attr *a, struct vp_thread *t, struct vp_xchg *x)
{
	if (t->cur == x)
		return;
	if (t->cur)
		vp_hpaths__unref(a->paths, t->cur);
	t->cur = x;
	if (x)
		x->refs++;
}

/* Replaces the reference *slot holds (either may be NULL). */
static inline void ref_set(struct vp_attr *a, struct vp_xchg **slot, struct vp_xchg *x)
{
	if (*slot == x)
		return;
	if (*slot)
		vp_hpaths__unref(a->paths, *slot);
	*slot = x;
	if (x)
		x->refs++;
}

/* A socket operation of t: the wake-ups before it have been used or are stale. */
static void woke_clear(struct vp_attr *a, struct vp_thread *t)
{
	ref_set(a, &t->woke_for, NULL);
	t->woke_n = 0;
	t->chain_only = false;
}

/* Forget in-flight entry i of t (order is not kept). */
static void inflight_drop(struct vp_attr *a, struct vp_thread *t, unsigned i)
{
	struct vp_xchg *x = t->inflight[i];

	t->inflight[i] = t->inflight[--t->ninflight];
	vp_hpaths__unref(a->paths, x);
}

/*
 * Requests done (the next request on their connection, or a close) leave t,
 * all but keep; whether keep is among those that stay (seen on the way).
 */
static bool inflight_prune(struct vp_attr *a, struct vp_thread *t, const struct vp_xchg *keep)
{
	bool kept = false;

	for (unsigned i = 0; i < t->ninflight;) {
		if (t->inflight[i] == keep) {
			kept = true;
			i++;
		} else if (t->inflight[i]->done) {
			inflight_drop(a, t, i);
		} else {
			i++;
		}
	}
	return kept;
}

/*
 * t read input of request x.  One that has replied stays until done: a
 * reply may be sent in parts (a TLS session ticket first, a stream around
 * calls), so its thread moving on proves nothing.
 */
static void inflight_input(struct vp_attr *a, struct vp_thread *t, struct vp_xchg *x)
{
	if (inflight_prune(a, t, x))
		return;
	if (t->ninflight == VP_INFLIGHT_MAX) {
		t->inflight_overflow = true;
		inflight_drop(a, t, 0);
	}
	t->inflight[t->ninflight++] = x;
	x->refs++;
}

/* How many requests a call t sends now could belong to (at least 1: its cause). */
static uint16_t inflight_candidates(struct vp_attr *a, struct vp_thread *t)
{
	inflight_prune(a, t, NULL);
	if (t->inflight_overflow && t->ninflight > 1)
		return UINT16_MAX;
	return t->ninflight ? t->ninflight : 1;
}

/* t's references go: its current cause and its requests in flight. */
static void thread_forget(struct vp_attr *a, struct vp_thread *t)
{
	set_cur(a, t, NULL);
	woke_clear(a, t);
	ref_set(a, &t->awaits_back, NULL);
	ref_set(a, &t->lineage, NULL);
	ref_set(a, &t->answered, NULL);
	if (t->h2b)
		vp_h2batch__clear(t->h2b, a->paths);
	free(t->h2b);
	t->h2b = NULL;
	while (t->ninflight)
		inflight_drop(a, t, 0);
	vp_lineq__free(&t->lines);
}

/* No request open in p now is exact: one of them may be missing a call. */
static void taint_open(struct vp_proc *p)
{
	for (struct vp_xchg *x = p->open.list_next; x != &p->open; x = x->list_next)
		x->tainted = true;
}

/* Every request in flight on t may be missing a call that went elsewhere by inference. */
static void taint_inflight(struct vp_thread *t)
{
	for (unsigned i = 0; i < t->ninflight; i++)
		t->inflight[i]->tainted = true;
}

/* c, linked to t's current cause, could be any of t's requests in flight: judge it (judge.h). */
static void judge_call(struct vp_attr *a, struct vp_proc *p, struct vp_thread *t, struct vp_xchg *c,
		       struct vp_xchg *chosen)
{
	struct vp_xchg *cand[VP_JUDGE_MAX];
	unsigned n = 0;

	/* A bare Go thread's requests in flight are not all its goroutine may have served. */
	if (t->inflight_overflow || t->ninflight > VP_JUDGE_MAX ||
	    (p->go_seen && c->req.first_tid < VP_GOR_UNIT_BASE)) {
		taint_inflight(t);
		return;
	}
	cand[n++] = chosen;
	for (unsigned i = 0; i < t->ninflight; i++)
		if (t->inflight[i] != chosen)
			cand[n++] = t->inflight[i];
	vp_judge__open(&p->judge, a->paths, c, cand, n);
}

/* A process is named after its main thread (renamed by exec), else its first named thread. */
static void name_proc(struct vp_proc *p, const struct vp_thread *t)
{
	if (!t->comm[0])
		return;
	if (t->tid == p->pid || (!p->comm[0] && !p->named_by_main)) {
		memcpy(p->comm, t->comm, VPR_COMM_LEN);
		p->named_by_main = t->tid == p->pid;
	}
}

void vp_attr__task(struct vp_attr *a, const struct vpr_task *tk)
{
	struct vp_thread *t;

	if (tk->kind == VPR_TASK_EXIT) {
		struct vp_lineq *early = u64map__del(&a->early_lines, tk->h.tid);

		if (early) {
			vp_lineq__free(early);
			free(early);
		}
		if (tk->exit_signal && tk->pid)
			proc_get(a, tk->pid)->life.killed_by = tk->exit_signal;
		t = u64map__del(&a->threads, tk->h.tid);
		if (t) {
			struct vp_xchg *c;

			/* It will send no reply: its pending calls were its own. */
			while ((c = t->pending.tlist_next) != &t->pending) {
				pending_del(c);
				settle_pending(a, xchg_proc(a, c), c, VP_BASIS_ROOT);
			}
			thread_forget(a, t);
			free(t);
		}
		return;
	}
	/* A new process, or a new program in it: what was seen of the pid's past says nothing. */
	if ((tk->kind == VPR_TASK_FORK && tk->h.tid == tk->pid) || tk->kind == VPR_TASK_EXEC)
		memset(&proc_get(a, tk->pid)->life, 0, sizeof(((struct vp_proc *)0)->life));
	t = thread_get(a, tk->h.tid, tk->pid);
	memcpy(t->comm, tk->comm, VPR_COMM_LEN);
	t->comm[VPR_COMM_LEN - 1] =
		0; /* the kernel's names have 15 characters; a damaged one is cut */
	if (tk->pid)
		name_proc(proc_get(a, tk->pid), t);
}

uint32_t vp_attr__killed_by(struct vp_attr *a, uint32_t pid)
{
	struct vp_proc *p = u64map__get(&a->procs, pid);

	return p ? p->life.killed_by : 0;
}

const char *vp_attr__comm(struct vp_attr *a, uint32_t tid, uint32_t pid)
{
	struct vp_thread *t = thread_get(a, tid, pid);

	return t->comm;
}

/* The thread's name, or its process's when the thread was never named. */
static void take_comm(struct vp_xchg *x, const struct vp_thread *t, struct vp_proc *p)
{
	memcpy(x->comm, t->comm[0] ? t->comm : p->comm, VPR_COMM_LEN);
	x->proc = p;
}

static uint64_t comm_key(const char *comm)
{
	return vp_fnv1a(VP_FNV_BASIS, comm, strnlen(comm, VPR_COMM_LEN));
}

/* p has one more thread that reads requests itself. */
static void reader_new(struct vp_attr *a, struct vp_proc *p)
{
	uint64_t key = comm_key(p->comm);

	if (p->readers++)
		return;
	if (u64map__put(&a->reader_comms, key,
			(void *)((uintptr_t)u64map__get(&a->reader_comms, key) + 1)))
		abort(); /* out of memory: no sensible partial result */
}

/*
 * A thread that reads requests itself wrote a line while serving one: the
 * request's by evidence only if the thread is not an event loop, whose
 * timers write lines between and during its requests.  Nothing recorded
 * shows an event loop until it reads a second connection; until then, a
 * thread is taken as serving its connection alone only beside others that
 * read requests too (a thread per connection, a forking server's processes):
 * a lone process's lone reader (Node.js, one nginx worker) may be a loop.
 */
static bool serves_by_thread(struct vp_attr *a, const struct vp_thread *t, const struct vp_proc *p)
{
	return !t->several_conns &&
	       (p->readers > 1 || (uintptr_t)u64map__get(&a->reader_comms, comm_key(p->comm)) > 1);
}

/*
 * t read a request on a second connection: it may be an event loop, whose
 * timers' lines look like its requests' (vp_attr__log).  Lines it gave by
 * thread to the requests still in flight on it were written while it had
 * shown one connection only: not exact either.
 */
static void serves_several_conns(struct vp_thread *t)
{
	if (t->several_conns)
		return;
	t->several_conns = true;
	for (unsigned i = 0; i < t->ninflight; i++)
		for (struct vp_logline *l = t->inflight[i]->logs; l; l = l->next)
			if (l->link.basis == VP_BASIS_THREAD)
				l->link.exact = false;
}

/*
 * p's latest hold set (hold_open) is shared no more: p's open list changed
 * (gone NULL: a request came or went, or the process's input ended), or
 * that set itself went (gone).  The one place hold_cur is let go of.
 */
static void hold_unshare(struct vp_proc *p, const struct vp_holdset *gone)
{
	if (!gone || p->hold_cur == gone)
		p->hold_cur = NULL;
}

void vp_attr__server_request(struct vp_attr *a, struct vp_xchg *s, const struct vpr_sock_op *op,
			     bool first)
{
	struct vp_thread *t = thread_get(a, op->h.tid, op->pid);

	if (t->sent_since_read)
		t->turn_ts = op->h.ts_ns;
	t->sent_since_read = false;
	if (first) {
		struct vp_proc *p = thread_proc(a, t, op->pid);

		list_add_tail(&p->open, s);
		hold_unshare(p, NULL);
		/* A pipelined request begins late (the one before it answered): keep time order. */
		while (s->pipe_tail && s->list_prev != &p->open &&
		       s->list_prev->req.first_ts > s->req.first_ts) {
			struct vp_xchg *before = s->list_prev;

			list_del(s);
			list_add_tail(before, s);
		}
		/* On a multiplexed connection a request may be several merged. */
		s->tainted = p->mixed || s->muxed;
		s->may_hand_off = p->hands_off;
		take_comm(s, t, p);
		t->last_req_id = s->id;
		t->last_req_ts = op->h.ts_ns;
		inflight_input(a, t, s);
		if (s->sock && t->req_conn && t->req_conn != s->sock->cookie)
			serves_several_conns(t);
		else if (s->sock)
			t->req_conn = s->sock->cookie;
	}
	if (!t->reads_requests)
		reader_new(a, thread_proc(a, t, op->pid));
	t->reads_requests = true;
	ref_set(a, &t->answered, NULL);
	set_cur(a, t, s);
	woke_clear(a, t);
}

/*
 * The open requests of a process that pending calls hold: one set for all
 * the calls sent while the open list stayed as it was (about half of them
 * on a busy server), each request held once by the set rather than once
 * per call.  A request is held while any call that held it waits, and its
 * last hold goes with the last of them either way, at the same release
 * and in the same order: what completes when is unchanged.
 */
struct vp_holdset {
	struct vp_proc *proc;
	unsigned refs; /* pending calls holding it */
	unsigned n;
	struct vp_xchg *x[]; /* in the open list's order */
};

/* Let go of the open requests a pending call held; taint them when it went to none of them. */
static void release_held(struct vp_attr *a, struct vp_xchg *c, bool taint)
{
	struct vp_holdset *h = c->held;

	if (h) {
		if (taint)
			for (unsigned i = 0; i < h->n; i++)
				h->x[i]->tainted = true;
		if (--h->refs == 0) {
			for (unsigned i = 0; i < h->n; i++)
				vp_hpaths__done_one_of_many(a->paths, h->x[i]);
			hold_unshare(h->proc, h);
			free(h);
		}
		c->held = NULL;
	}
	ref_set(a, &c->woke_for, NULL);
	ref_set(a, &c->woke_back, NULL);
	ref_set(a, &c->go_wrote_for, NULL);
}

/* A thread of a Go process that runs no known goroutine: its evidence is not the process's. */
static bool bare_go_thread(const struct vp_proc *p, const struct vp_thread *t)
{
	return p->go_seen && t->tid < VP_GOR_UNIT_BASE;
}

/*
 * A link the thread rules made (not a message's own evidence: an id, the
 * bytes, a queue) from or to a bare thread of a Go process: the goroutine
 * that read the request, or sent the call, may have run elsewhere before
 * or after, so the thread's current request is a guess.
 */
static bool bare_go_link(const struct vp_proc *p, const struct vp_xchg *c, const struct vp_xchg *s,
			 enum vp_basis why)
{
	if (!p->go_seen || why == VP_BASIS_PROPAGATED_ID || why == VP_BASIS_FORWARDED ||
	    why == VP_BASIS_QUEUED)
		return false;
	return c->req.first_tid < VP_GOR_UNIT_BASE || s->req.last_tid < VP_GOR_UNIT_BASE;
}

static void root_call(struct vp_attr *a, struct vp_proc *p, struct vp_xchg *c, enum vp_basis why)
{
	p->calls_root++;
	/*
	 * Requests were open when it was sent: any of them may have handed it
	 * on.  On a multiplexed connection, requests that came later may have
	 * added their calls to its message.
	 */
	if (c->sent_among_open || p->mixed || c->muxed)
		why = VP_BASIS_UNCLAIMED;
	release_held(a, c, true);
	c->link = vp_link_make(why, 0);
	p->calls_exact += c->link.exact;
	vp_hpaths__root(a->paths, c);
}

static void link_call(struct vp_attr *a, struct vp_proc *p, struct vp_xchg *c, struct vp_xchg *s,
		      enum vp_basis why, uint16_t candidates)
{
	if (vp_hpaths__is_ancestor(a->paths, c, s)) {
		root_call(a, p, c, VP_BASIS_UNCLAIMED);
		return;
	}
	c->link = vp_link_make(why, candidates);
	if (p->mixed || c->muxed)
		c->link.exact = false;
	if (bare_go_link(p, c, s, why)) {
		/* Any request open in p may be the one its goroutine served. */
		c->link.exact = false;
		taint_open(p);
	}
	/* Which of the requests read at once a call served is the server's order, not evidence. */
	if (vp_xchg__holds_several(s)) {
		c->link.exact = false;
		if (c->link.candidates < 2)
			c->link.candidates = 2;
	}
	p->calls_exact += c->link.exact;
	vp_hpaths__link_child(a->paths, c, s);
}

/* From now on no link of p is exact, and no request open in it now or later. */
static void become_mixed(struct vp_proc *p)
{
	p->mixed = p->judge.never_exact = true;
	taint_open(p);
}

/* Line l is s's, on the evidence link says. */
static void give_line(struct vp_proc *p, struct vp_xchg *s, struct vp_logline *l,
		      struct vp_link link)
{
	if (p->mixed || s->muxed || vp_xchg__pipelined(s) || l->batched)
		link.exact = false;
	l->link = link;
	l->next = NULL;
	if (s->logs_tail)
		s->logs_tail->next = l;
	else
		s->logs = l;
	s->logs_tail = l;
}

/* vPath, for lines as for calls: a worker's lines since the request arrived are s's. */
static void claim_lines(struct vp_attr *a, struct vp_proc *p, struct vp_thread *t,
			struct vp_xchg *s)
{
	uint16_t n = t->reads_requests ? inflight_candidates(a, t) : 1;
	struct vp_lineq *early = u64map__del(&a->early_lines, t->tid);
	struct vp_logline *l = vp_lineq__take(&t->lines);

	/* Written before its first socket operation: older than those it held since. */
	if (early) {
		if (early->tail) {
			early->tail->next = l;
			l = vp_lineq__take(early);
		}
		free(early);
	}
	while (l) {
		struct vp_logline *next = l->next;

		if (l->ts >= s->req.first_ts)
			give_line(p, s, l, vp_link_make(VP_BASIS_HANDOFF, n));
		else
			free(l);
		l = next;
	}
}

/*
 * p answered a client's long wait because another client's call released
 * it (handoff.h): p is a broker.  From now on any call to it may have
 * handed work off, those open now included (the ones done already went
 * out as they were).  Its consumers' calls too: a job may queue a job.
 */
static void hands_off(struct vp_proc *p)
{
	p->hands_off = true;
	for (struct vp_xchg *x = p->open.list_next; x != &p->open; x = x->list_next)
		x->may_hand_off = true;
}

void vp_attr__unasked(struct vp_attr *a, struct vp_sock *s, const struct vpr_sock_op *op)
{
	struct vp_thread *t = thread_get(a, op->h.tid, op->pid);

	if (vp_handoff__unasked(t->inflight, t->ninflight, s->cookie, op->h.ts_ns))
		hands_off(thread_proc(a, t, op->pid));
}

void vp_attr__go_pending(struct vp_attr *a, uint32_t pid)
{
	proc_get(a, pid)->go_seen = true;
}

void vp_attr__go_begins(struct vp_attr *a, uint32_t pid)
{
	struct vp_proc *p = proc_get(a, pid);

	p->go_seen = true;
	if (!p->served && !p->calls)
		return;
	taint_open(p);
	p->mixed = p->judge.never_exact = false;
	p->hands_off = false;
	p->handoff = p->interleaved = 0;
	p->calls_by_input = p->calls_by_reply = p->calls_by_connect = 0;
	p->life.reader_calls = p->life.reader_replies = 0;
}

void vp_attr__server_reply(struct vp_attr *a, struct vp_xchg *s, const struct vpr_sock_op *op,
			   bool first)
{
	struct vp_thread *t = thread_get(a, op->h.tid, op->pid);
	struct vp_proc *p = xchg_proc(a, s);
	struct vp_xchg *c, *next;

	woke_clear(a, t);
	t->replies++;
	if (first && vp_handoff__reply(t->inflight, t->ninflight, s, t->turn_ts, op->h.ts_ns) &&
	    !bare_go_thread(p, t))
		hands_off(p);
	t->sent_since_read = true;
	if (first) {
		take_comm(s, t, p);
		p->served++;
		/* vp_attr__go_begins: a bare thread shows neither a hand-off nor an interleave. */
		if (!bare_go_thread(p, t) && !(p->go_seen && s->req.last_tid < VP_GOR_UNIT_BASE)) {
			if (s->req.last_tid != t->tid) {
				p->handoff++;
				if (t->reads_requests && !p->mixed)
					become_mixed(p);
			} else {
				if (++p->life.reader_replies == VP_WAKE_MIN_REPLIES)
					settle_shape_wait(a, p);
				if (t->last_req_id != s->id && t->last_req_ts > s->req.first_ts)
					p->interleaved++;
			}
		}
	}
	/* vPath: this thread's calls since the request arrived belong to s. */
	for (c = t->pending.tlist_next; c != &t->pending; c = next) {
		next = c->tlist_next;
		pending_del(c);
		if (c->req.first_ts >= s->req.first_ts) {
			/* A thread that reads requests itself may have several in flight. */
			uint16_t n = t->reads_requests ? inflight_candidates(a, t) : 1;

			p->calls_by_reply++;
			if (n > 1)
				taint_inflight(t);
			release_held(a, c, false);
			link_call(a, p, c, s, VP_BASIS_HANDOFF, n);
		} else {
			root_call(a, p, c, VP_BASIS_ROOT);
		}
	}
	claim_lines(a, p, t, s);
	if (t->reads_requests)
		ref_set(a, &t->answered, s);
	/* A worker's next call is for a request it has not read: not s's by input. */
	if (!t->reads_requests)
		set_cur(a, t, NULL);
	vp_judge__update(&p->judge, a->paths);
}

void vp_attr__server_done(struct vp_attr *a, struct vp_xchg *s)
{
	struct vp_proc *p = xchg_proc(a, s);
	uint64_t oldest;
	struct vp_xchg *c;

	list_del(s);
	hold_unshare(p, NULL);
	/* Done: no call can carry its bytes for it any more. */
	free(s->content);
	s->content = NULL;
	/* No open request older than a pending call: nothing can claim it any more. */
	oldest = p->open.list_next != &p->open ? p->open.list_next->req.first_ts : UINT64_MAX;
	while ((c = p->pending.list_next) != &p->pending && c->req.first_ts < oldest) {
		pending_del(c);
		settle_pending(a, p, c, VP_BASIS_ROOT);
	}
	vp_judge__update(&p->judge, a->paths);
}

/* The thread's current cause if a call can still belong to it. */
static struct vp_xchg *cause_of(const struct vp_thread *t)
{
	struct vp_xchg *s = t->cur;

	if (!s || s->done)
		return NULL;
	/* A worker's cause from a call's reply is stale once that request is answered. */
	if (s->has_rep && !t->reads_requests)
		return NULL;
	return s;
}

void vp_attr__connect(struct vp_attr *a, struct vp_sock *s, uint32_t tid)
{
	struct vp_thread *t = u64map__get(&a->threads, tid);

	if (!t || !cause_of(t) || s->open_cause)
		return;
	s->open_cause = t->cur;
	s->open_candidates = inflight_candidates(a, t);
	t->cur->refs++;
}

void vp_attr__connect_failed(struct vp_attr *a, struct vp_sock *s)
{
	if (s->open_cause && !s->nexch)
		s->open_cause->incomplete = true;
}

void vp_attr__send_failed(struct vp_attr *a, uint32_t unit, uint64_t ts)
{
	struct vp_thread *t = u64map__get(&a->threads, unit);
	struct vp_xchg *cause = t ? cause_of(t) : NULL;

	if (cause && ts > cause->refused_ts)
		cause->refused_ts = ts;
}

void vp_attr__forget_sock(struct vp_attr *a, struct vp_sock *s)
{
	if (s->open_cause)
		vp_hpaths__unref(a->paths, s->open_cause);
	s->open_cause = NULL;
}

/*
 * A call that waits for a reply to claim it (pending) could belong to any
 * request open in the process: each is held until it is claimed, and
 * tainted if it goes to none (an executor's thread that never replies).
 * Past VP_HELD_MAX open requests, all are tainted at once.
 */
#define VP_HELD_MAX 64
static void hold_open(struct vp_attr *a, struct vp_proc *p, struct vp_xchg *c)
{
	struct vp_xchg *open[VP_HELD_MAX];
	struct vp_holdset *h = p->hold_cur;
	unsigned n = 0;

	if (h) {
		/* The open list is as it was for the call before: the same requests, held once. */
		h->refs++;
		c->held = h;
		c->sent_among_open = true;
		return;
	}
	/* One walk, the list as it is: each held as it is passed, while it is in cache. */
	for (struct vp_xchg *x = p->open.list_next; x != &p->open; x = x->list_next) {
		if (n == VP_HELD_MAX)
			break;
		x->wait++;
		open[n++] = x;
	}
	c->sent_among_open = n > 0;
	if (n == 0)
		return;
	if ((n == VP_HELD_MAX && open[n - 1]->list_next != &p->open) ||
	    !(h = malloc(sizeof(*h) + n * sizeof(h->x[0])))) {
		/* Too many (or no memory): none held, all tainted; each still waits for more. */
		for (unsigned i = 0; i < n; i++)
			open[i]->wait--;
		taint_open(p);
		return;
	}
	h->proc = p;
	h->refs = 1;
	h->n = n;
	memcpy(h->x, open, n * sizeof(h->x[0]));
	c->held = p->hold_cur = h;
}

/*
 * The request t serves alone and still has to answer, or NULL: the only
 * kind of thread whose wake-ups say which request work is for.  A thread
 * of a process whose threads carry several requests in turn says nothing.
 */
static struct vp_xchg *serving_alone(struct vp_attr *a, struct vp_thread *t)
{
	struct vp_proc *p = t->proc;

	unsigned waiting = 0;

	if (!t->reads_requests || !cause_of(t) || t->cur->has_rep ||
	    (p && (p->mixed || p->handoff)))
		return NULL;
	/* Requests it has answered (a thread-per-request server's earlier ones) wait for nothing. */
	inflight_prune(a, t, NULL);
	if (t->inflight_overflow)
		return NULL;
	for (unsigned i = 0; i < t->ninflight; i++)
		waiting += !t->inflight[i]->has_rep;
	return waiting == 1 ? t->cur : NULL;
}

/*
 * Pending call c can go nowhere else (every request open when it was sent
 * is done, or the input ended): the wake-up rule decides it, or nothing
 * does.  Only in an executor front end: a process whose threads that read
 * requests answered several and never sent a call (nor did its threads'
 * own rules link one).  Where threads serving requests make their calls
 * themselves, a thread that calls on its own (a pool's or a cron's) wakes
 * them through shared locks for no request.  The request must be one the
 * call held, so that it is still there to take it.
 */
static bool settle_by_wakeup(struct vp_attr *a, struct vp_proc *p, struct vp_xchg *c)
{
	/*
	 * The back wake-up decides unless it confirms the forward one, or the
	 * forward one is the goroutine's creation for a request (a stream's own
	 * writer: its reader may first release a lock another request waits for).
	 */
	struct vp_xchg *s = c->go_wrote_for			? c->go_wrote_for
			    : c->born_for			? c->woke_for
			    : c->h2_back			? c->woke_back
			    : c->back_confirms || !c->woke_back ? c->woke_for
								: c->woke_back;
	bool held = false, exact;
	unsigned nheld;
	uint16_t n;

	if (!s || p->calls_by_input || p->calls_by_reply || p->calls_by_connect || p->mixed)
		return false;
	if (p->life.reader_calls || p->life.reader_replies < VP_WAKE_MIN_REPLIES)
		return false;
	nheld = c->held ? c->held->n : 0;
	for (unsigned i = 0; i < nheld; i++)
		held |= c->held->x[i] == s;
	if (!held || c->req.first_ts < s->req.first_ts)
		return false;
	/*
	 * Even both wake-ups agreeing do not decide: in CPython a handler
	 * dropping the GIL wakes a worker about to send another request's
	 * call, and the worker dropping it again wakes that handler back (one
	 * link in 665 such on tests/handoff python).  Inferred until the
	 * wake-ups can be told from lock hand-offs.
	 */
	exact = false;
	n = exact ? 1 : nheld > 1 ? nheld : 2;
	p->calls_by_wakeup++;
	/* Linked first: s may be done, and the call's hold on it is what keeps it here. */
	link_call(a, p, c, s, VP_BASIS_WAKEUP, n);
	release_held(a, c, !exact);
	return true;
}

/*
 * The wake-up rule's gate is not passed yet, but may be: fewer than
 * VP_WAKE_MIN_REPLIES answered and nothing against it.  A Go front end's
 * first calls (16 sessions starting at once) are settled before its
 * handlers have answered that many; its goroutine wake-ups wait for the
 * shape instead of making the call a root.  Threads do not wait: there a
 * background thread's calls at the start are what the gate keeps out.
 */
static bool shape_pending(const struct vp_proc *p, const struct vp_xchg *c)
{
	return c->req.first_tid >= VP_GOR_UNIT_BASE && (c->woke_back || c->woke_for) &&
	       !p->calls_by_input && !p->calls_by_reply && !p->calls_by_connect && !p->mixed &&
	       !p->life.reader_calls && p->life.reader_replies < VP_WAKE_MIN_REPLIES;
}

/* A pending call nothing claimed: the wake-up rule, else a root. */
static void settle_pending(struct vp_attr *a, struct vp_proc *p, struct vp_xchg *c,
			   enum vp_basis why)
{
	if (shape_pending(p, c)) {
		list_add_tail(&p->shape_wait, c);
		return;
	}
	if (!settle_by_wakeup(a, p, c))
		root_call(a, p, c, why);
}

/* p's gate is decided (or the input ended): the calls that waited for it are settled. */
static void settle_shape_wait(struct vp_attr *a, struct vp_proc *p)
{
	struct vp_xchg *c;

	while ((c = p->shape_wait.list_next) != &p->shape_wait) {
		list_del(c);
		if (!settle_by_wakeup(a, p, c))
			root_call(a, p, c, VP_BASIS_ROOT);
	}
}

/* t moved on (a socket operation) without waking anyone for the call whose reply it read. */
static void wake_back_missed(struct vp_attr *a, struct vp_thread *t)
{
	ref_set(a, &t->awaits_back, NULL);
}

/*
 * The request Go unit t was created for (vp_thread.lineage) while it still
 * stands: a goroutine started by a handler, or by one of its children,
 * works for that request.  Not a connection's loop (call_io): net/http
 * dials a connection for one request and its writeLoop and readLoop carry
 * whichever request takes it from the pool.
 */
static struct vp_xchg *created_for(struct vp_attr *a, struct vp_thread *t)
{
	struct vp_xchg *s = t->lineage;

	/* Goroutines live on unseen: a reference no longer of use is let go. */
	if (s && (t->call_io || s->done)) {
		ref_set(a, &t->lineage, NULL);
		return NULL;
	}
	return s && !t->reads_requests ? s : NULL;
}

/* The request a Go unit's wake-ups are for: the one it serves alone, or the one it was created for. */
static struct vp_xchg *go_request(struct vp_attr *a, struct vp_thread *t)
{
	struct vp_xchg *s = serving_alone(a, t);

	return s ? s : created_for(a, t);
}

/*
 * The unit that read pending call c's reply (`reader`) met `other`, which
 * works for request s: the caller taking the reply.  A thread's first such
 * wake-up counts (those after it are lock hand-offs), and its latest read
 * of the reply starts the watch again.  A Go reader is watched until its
 * next socket operation: before it hands the reply over it may release a
 * mutex another request's goroutine waits for (net/http's readLoop and the
 * Transport's reqMu), after it the next waiter for the connection; the
 * goroutine that readied the writeLoop before the call (c->woke_for) is
 * the caller if the reader meets it at all.
 */
static void woke_back(struct vp_attr *a, struct vp_thread *reader, struct vp_xchg *s, bool chain)
{
	struct vp_xchg *c = reader->awaits_back;

	if (c->list_next && c->up_state == VP_UP_UNDECIDED) {
		if (!chain || !c->woke_back)
			ref_set(a, &c->woke_back, s);
		if (chain && s == c->woke_for)
			c->back_confirms = true;
	}
	if (!chain)
		ref_set(a, &reader->awaits_back, NULL);
}

/*
 * A unit for Go goroutine `id`, made by a wake-up.  Most goroutines never
 * touch a socket (net/http's background reads go to their creator), and
 * nothing says when one ends: past VP_CHAIN_KEEP, the oldest still without
 * a socket operation is forgotten (a call it would have passed a request to
 * then stays unclaimed, inferred).
 */
static struct vp_thread *chain_unit(struct vp_attr *a, uint32_t id, uint32_t pid,
				    const struct vp_thread *waker)
{
	uint32_t *slot = &a->chain_made[a->chain_next++ % VP_CHAIN_KEEP];
	struct vp_thread *t = *slot ? u64map__get(&a->threads, *slot) : NULL;

	if (t && t->chain_only && t != waker) {
		u64map__del(&a->threads, t->tid);
		thread_forget(a, t);
		free(t);
	}
	*slot = id;
	t = thread_get(a, id, pid);
	t->chain_only = true;
	thread_proc(a, t, pid);
	return t;
}

/*
 * A Go HTTP/2 reader's batch decided that call c's reply went to a unit
 * working for request s (h2batch.h): the back wake-up, before the old rule's.
 */
static void h2_back(void *ctx, struct vp_xchg *c, struct vp_xchg *s)
{
	if (!c->list_next || c->up_state != VP_UP_UNDECIDED)
		return;
	ref_set(ctx, &c->woke_back, s);
	c->h2_back = true;
}

/* Go unit t read a reply frame of call c on HTTP/2: its read's batch (h2batch.h). */
static void h2_frame(struct vp_attr *a, struct vp_thread *t, const struct vpr_sock_op *op,
		     struct vp_xchg *c)
{
	if (!c->h2_stream || t->tid < VP_GOR_UNIT_BASE || t->reads_requests)
		return;
	if (!t->h2b && !(t->h2b = calloc(1, sizeof(*t->h2b))))
		abort(); /* out of memory: no sensible partial result */
	vp_h2batch__frame(t->h2b, a->paths, op->h.ts_ns, c);
}

void vp_attr__wake(struct vp_attr *a, const struct vp_wake *w)
{
	struct vp_thread *waker = u64map__get(&a->threads, w->waker);
	struct vp_thread *woken = u64map__get(&a->threads, w->woken);
	struct vp_xchg *s;

	/* A goroutine may be woken or created for a request before it did a socket operation. */
	if (w->chain && waker && !woken && w->waker != w->woken && go_request(a, waker))
		woken = chain_unit(a, (uint32_t)w->woken, w->pid, waker);
	/*
	 * A unit created after the last stream of the reader's read was sent
	 * was no caller of one (each stream's caller was there before its
	 * request was written): a reader held up after its read (preempted,
	 * or blocked on a lock) readies such ones before the callers, which
	 * would shift the pairing.
	 */
	if (woken && w->chain && w->created)
		woken->born_ns = w->ts_ns;
	if (woken && woken->h2b && w->chain && w->waker != w->woken)
		vp_h2batch__held(woken->h2b);
	if (waker && waker->h2b && w->chain && w->waker != w->woken &&
	    !(woken && (woken->call_io || woken->born_ns > waker->h2b->last_sent)))
		vp_h2batch__woken(waker->h2b, a->paths, w->woken,
				  woken ? go_request(a, woken) : NULL, h2_back, a);
	if (!waker || !woken || waker == woken)
		return;
	/* Go's goroutine ids are never reused: a creation is the unit's first event. */
	if (w->chain && w->created)
		ref_set(a, &woken->lineage, go_request(a, waker));
	/*
	 * Forward: a thread serving one request woke a thread that serves none
	 * itself.  Not a goroutine's creation: net/http dials for one request,
	 * and the connection's writeLoop, started then, may carry another's
	 * call first (the dialer's request got another connection meanwhile).
	 */
	if (!woken->reads_requests && !w->created &&
	    ((s = serving_alone(a, waker)) || (w->chain && (s = created_for(a, waker))))) {
		if (woken->woke_for != s && woken->woke_n < UINT8_MAX)
			woken->woke_n++;
		ref_set(a, &woken->woke_for, s);
	}
	/* Back: after reading a pending call's reply, the first thread serving one request it wakes. */
	if (waker->awaits_back &&
	    ((s = serving_alone(a, woken)) || (w->chain && (s = created_for(a, woken)))))
		woke_back(a, waker, s, w->chain);
	/* A goroutine not yet waiting for the reply takes it from the reader, waking it. */
	else if (w->chain && woken->awaits_back && (s = go_request(a, waker)))
		woke_back(a, woken, s, true);
}

void vp_attr__client_request(struct vp_attr *a, struct vp_xchg *c, const struct vpr_sock_op *op)
{
	struct vp_thread *t = thread_get(a, op->h.tid, op->pid);
	struct vp_proc *p = thread_proc(a, t, op->pid);
	struct vp_xchg *opened_for = c->sock && c->conn_index == 0 ? c->sock->open_cause : NULL;

	/*
	 * A Go unit's first call, sent by a goroutine created for one request
	 * and not yet a connection's loop: x/net/http2's Transport starts a
	 * goroutine per stream (cs.doRequest) that writes that stream alone.
	 * On HTTP/2 its creation is the forward evidence (below).
	 */
	struct vp_xchg *born_for = created_for(a, t);

	if (born_for)
		born_for->refs++;
	take_comm(c, t, p);
	c->sent_for = cause_of(t) ? t->cur->id : 0;
	/*
	 * On a connection known to carry several at once, cut by bytes: any
	 * request's call may hide in any of its messages, one opened later
	 * too (a writer goroutine, grpc's, carries them all): the process's
	 * threads decide nothing any more.
	 */
	if (c->muxed)
		vp_attr__blind(a, p->pid);
	t->call_io = true;
	ref_set(a, &t->lineage, NULL);
	p->calls++;
	if (t->reads_requests)
		p->life.reader_calls++;
	wake_back_missed(a, t);
	if (t->h2b)
		vp_h2batch__clear(t->h2b, a->paths);
	if (opened_for) {
		bool open = !opened_for->done;

		if (open) {
			p->calls_by_connect++;
			link_call(a, p, c, opened_for, VP_BASIS_CONNECT, c->sock->open_candidates);
			if (c->sock->open_candidates > 1)
				taint_inflight(t);
		}
		vp_attr__forget_sock(a, c->sock);
		if (open) {
			if (born_for)
				vp_hpaths__unref(a->paths, born_for);
			return;
		}
	}
	if (cause_of(t)) {
		uint16_t n = inflight_candidates(a, t);

		p->calls_by_input++;
		link_call(a, p, c, t->cur, n > 1 ? VP_BASIS_LAST_INPUT : VP_BASIS_THREAD, n);
		if (n > 1)
			judge_call(a, p, t, c, t->cur);
	} else if (p->open.list_next == &p->open) {
		root_call(a, p, c, VP_BASIS_ROOT);
	} else {
		hold_open(a, p, c);
		list_add_tail(&p->pending, c);
		tlist_add_tail(&t->pending, c);
		/*
		 * On HTTP/2 (streams cut by frames) the creation decides, before
		 * a ready and before the reader's wake-ups: a stream's writer
		 * blocked on the connection's write lock is readied by whichever
		 * stream held it.  Elsewhere it says nothing: net/http's
		 * writeLoop, made when the dialing request's goroutine dialed, is
		 * handed its first call by whoever took the connection.
		 */
		c->born_for = born_for && c->sock && c->sock->h2;
		ref_set(a, &c->woke_for, c->born_for ? born_for : t->woke_for);
		c->woke_n = c->born_for ? 1 : t->woke_n;
	}
	woke_clear(a, t);
	if (born_for)
		vp_hpaths__unref(a->paths, born_for);
}

/* c's link, exact when made, is found not to be: counted apart (vp_proc__calls_exact). */
static void unmake_exact(struct vp_proc *p, struct vp_xchg *c)
{
	if (c->up_state == VP_UP_UNDECIDED || !c->link.exact)
		return;
	c->link.exact = false;
	/* A root: requests that came after it was sent may have added calls to it. */
	if (c->up_state == VP_UP_ROOT)
		c->link = vp_link_make(VP_BASIS_UNCLAIMED, 0);
	p->calls_unmade++;
}

void vp_attr__muxed(struct vp_attr *a, struct vp_xchg *c)
{
	struct vp_proc *p = xchg_proc(a, c);

	/* A judgment or a pending call still to decide sees the flag (judge.c, link_call). */
	c->muxed = true;
	unmake_exact(p, c);
	taint_open(p);
}

void vp_attr__blind(struct vp_attr *a, uint32_t pid)
{
	struct vp_proc *p = proc_get(a, pid);

	if (!p->mixed)
		become_mixed(p);
}

void vp_attr__client_request_more(struct vp_attr *a, struct vp_xchg *c,
				  const struct vpr_sock_op *op)
{
	struct vp_thread *t = thread_get(a, op->h.tid, op->pid);

	if (op->h.tid == c->req.first_tid && (cause_of(t) ? t->cur->id : 0) == c->sent_for)
		return;
	vp_attr__muxed(a, c);
}

void vp_attr__client_reply(struct vp_attr *a, struct vp_xchg *c, const struct vpr_sock_op *op,
			   bool first)
{
	struct vp_thread *t = thread_get(a, op->h.tid, op->pid);

	if (first) {
		t->call_io = true;
		ref_set(a, &t->lineage, NULL);
	}
	ref_set(a, &t->answered, NULL);
	woke_clear(a, t);
	wake_back_missed(a, t);
	h2_frame(a, t, op, c);
	/* A pending call's reply: the thread it wakes next may be the one waiting for it. */
	if (c->list_next && c->up_state == VP_UP_UNDECIDED && !t->reads_requests)
		ref_set(a, &t->awaits_back, c);
	/*
	 * BorderPatrol: a reply carries the cause of the call it answers.  Not
	 * to a worker whose call its id linked: the id tells whose the call
	 * was, not that the worker serves that request; a pool worker takes
	 * anyone's task next.
	 */
	set_cur(a, t,
		c->up_state == VP_UP_LINKED &&
				(t->reads_requests || (c->link.basis != VP_BASIS_PROPAGATED_ID &&
						       c->link.basis != VP_BASIS_FORWARDED))
			? c->up
			: NULL);
	if (t->cur)
		inflight_input(a, t, t->cur);
	vp_judge__update(&xchg_proc(a, c)->judge, a->paths);
}

/*
 * Open requests a call's id is compared with at most: past this (thousands
 * of idle keep-alive connections) the id decides nothing, so that each call
 * costs a bounded scan.
 */
#define VP_ID_SCAN_MAX 4096

/*
 * The one request open in p when c was sent that carries c's id; NULL if
 * none or several, or if one of them may carry it unseen (no captured
 * bytes, or cut before its headers ended: the true parent could be that one).
 */
static struct vp_xchg *named_by_id(struct vp_proc *p, const struct vp_xchg *c)
{
	struct vp_xchg *m = NULL;
	unsigned n = 0;

	for (struct vp_xchg *x = p->open.list_next; x != &p->open; x = x->list_next) {
		if (x->req.first_ts > c->req.first_ts)
			break; /* by request time: the rest came later */
		if (++n > VP_ID_SCAN_MAX || !x->id_known)
			return NULL;
		if (!x->prop || !vp_propid__equal(x->prop, c->prop))
			continue;
		if (m)
			return NULL;
		m = x;
	}
	return m;
}

/*
 * What a call carries (an id, forwarded bytes) names request m, open in its
 * process p when it was sent: the call is m's, exact with basis b, whatever
 * the thread rules chose, unless an exact link already says otherwise (then
 * neither is taken as exact: *disagree counts it).  *by counts the calls
 * the evidence linked.
 */
static void claim_for(struct vp_attr *a, struct vp_proc *p, struct vp_xchg *c, struct vp_xchg *m,
		      enum vp_basis b, uint64_t *by, uint64_t *disagree)
{
	int r;

	/* Waiting for its thread's reply to claim it (a worker's): the evidence claims it first. */
	if (c->up_state == VP_UP_UNDECIDED) {
		if (!c->tlist_next)
			return; /* settled already, waiting for the wake-up rule's gate: left to it */
		pending_del(c);
		(*by)++;
		/* Linked first: the call's hold on the requests is let go after. */
		link_call(a, p, c, m, b, 1);
		release_held(a, c, false);
		return;
	}
	if (c->judged) {
		r = vp_judge__by_id(&p->judge, a->paths, c, m, b);
		*by += r > 0;
		*disagree += r < 0;
		return;
	}
	if (c->up == m) {
		if (!c->link.exact && !vp_xchg__pipelined(m)) {
			c->link = vp_link_make(b, 1);
			p->calls_exact++;
			(*by)++;
		}
		return;
	}
	if (c->link.exact) {
		/* Two kinds of evidence disagree: neither is taken as exact. */
		c->link.exact = false;
		p->calls_exact--;
		(*disagree)++;
		m->tainted = true;
		return;
	}
	if (vp_xchg__pipelined(m) || vp_hpaths__is_ancestor(a->paths, c, m))
		return;
	vp_hpaths__move_child(a->paths, c, m);
	c->link = vp_link_make(b, 1);
	p->calls_exact++;
	(*by)++;
}

void vp_attr__propagated(struct vp_attr *a, struct vp_xchg *c)
{
	struct vp_proc *p = xchg_proc(a, c);
	struct vp_xchg *m;

	p->calls_with_id++;
	/* Its id is the first request's of a message that may hold several. */
	if (c->muxed || c->up_state == VP_UP_ROOT || !(m = named_by_id(p, c)))
		return;
	/* The trace came through this process before: c may be a late call of that request. */
	if (vp_idseen__count(&p->ids, c->prop) > 1)
		return;
	claim_for(a, p, c, m, VP_BASIS_PROPAGATED_ID, &p->calls_by_id, &p->id_disagree);
}

void vp_attr__forwarded(struct vp_attr *a, struct vp_xchg *c)
{
	struct vp_proc *p = xchg_proc(a, c);
	struct vp_xchg *m;

	/*
	 * Its bytes are the first request's of a message that may hold several;
	 * a pipelined request's bytes are those of the requests after it too.
	 * An HTTP/2 stream's are its own DATA frame's (h2data.h), an operation's
	 * on such a connection the connection's.
	 */
	if (!c->muxed && (c->h2_stream || !(c->sock && c->sock->h2)) && c->up_state != VP_UP_ROOT &&
	    !c->id_mixed && (m = vp_fwd__source(&p->open, c)) && m->content &&
	    !vp_xchg__pipelined(m) &&
	    /* The same bytes came in another of its latest requests: they name neither. */
	    vp_idseen__count_hash(&p->contents, vp_fwd__hash(m->content)) <= 1)
		claim_for(a, p, c, m, VP_BASIS_FORWARDED, &p->calls_forwarded, &p->fwd_disagree);
	/* Only attribution looks at a call's bytes, and only now. */
	free(c->content);
	c->content = NULL;
}

/* A Write's request, inferred (its goroutine's creation): the wake-up rule's first choice. */
static void go_wrote_inferred(struct vp_attr *a, struct vp_xchg *c, struct vp_xchg *s)
{
	if (!c->list_next || c->up_state != VP_UP_UNDECIDED || c->go_wrote_mixed)
		return;
	if (c->go_wrote_for && c->go_wrote_for != s) {
		/* Two requests' goroutines wrote on the stream: neither is taken. */
		c->go_wrote_mixed = true;
		s = NULL;
	}
	ref_set(a, &c->go_wrote_for, s);
}

/* What a grpc-go Write matched (gowrites.h) does to the calls it names. */
static void go_write_apply(struct vp_attr *a, struct vp_gowrite_match *m)
{
	struct vp_xchg *c = m->call, *u = m->unmake;

	if (u && u->go_wrote_exact) {
		/* Another stream of its id opened right after: the Write may be that one's. */
		u->go_wrote_exact = false;
		xchg_proc(a, u)->gowrite_disagree++;
		unmake_exact(xchg_proc(a, u), u);
	} else if (u) {
		u->go_wrote_mixed = true;
		ref_set(a, &u->go_wrote_for, NULL);
	}
	if (!c || !m->req || c->up_state == VP_UP_ROOT)
		return;
	if (m->exact) {
		struct vp_proc *p = xchg_proc(a, c);

		claim_for(a, p, c, m->req, VP_BASIS_THREAD, &p->calls_by_gowrite,
			  &p->gowrite_disagree);
		c->go_wrote_exact = c->up == m->req && c->link.exact;
		if (c->go_wrote_exact)
			return;
	}
	/* Not exact, or the claim did not hold: the wake-up rule's first choice. */
	go_wrote_inferred(a, c, m->req);
}

void vp_attr__go_h2_write(struct vp_attr *a, uint32_t pid, uint64_t unit, uint32_t sid, uint64_t ts)
{
	struct vp_thread *t = u64map__get(&a->threads, unit);
	struct vp_xchg *s = t ? serving_alone(a, t) : NULL;
	bool alone = s != NULL;
	struct vp_gowrite_match m;

	if (t && !s)
		s = created_for(a, t);
	if (vp_gowrites__write(&a->gowrites, pid, sid, unit, s, alone, ts, &m))
		go_write_apply(a, &m);
	vp_gowrites__match_done(&a->gowrites, &m);
}

void vp_attr__go_h2_call(struct vp_attr *a, uint32_t pid, struct vp_xchg *c, uint64_t ts)
{
	struct vp_gowrite_match m;

	/* Streams written by a goroutine (loopy): a Go process's, which may have Writes. */
	if (!c->h2_stream || c->side != VP_CLIENT || c->req.first_tid < VP_GOR_UNIT_BASE)
		return;
	if (vp_gowrites__call(&a->gowrites, pid, c, ts, &m))
		go_write_apply(a, &m);
	vp_gowrites__match_done(&a->gowrites, &m);
}

int vp_attr__request_content(struct vp_attr *a, struct vp_xchg *x)
{
	return vp_idseen__add_hash(&xchg_proc(a, x)->contents, vp_fwd__hash(x->content));
}

int vp_attr__request_id(struct vp_attr *a, struct vp_xchg *x)
{
	return vp_idseen__add(&xchg_proc(a, x)->ids, x->prop);
}

void vp_attr__id_mixed(struct vp_attr *a, struct vp_xchg *c)
{
	struct vp_proc *p = xchg_proc(a, c);

	taint_open(p);
	if (c->link.basis == VP_BASIS_PROPAGATED_ID && c->link.exact) {
		c->link.exact = false;
		p->calls_exact--;
	}
}

/* Lines a worker holds at most: a thread that never replies (housekeeping) keeps the newest. */
#define VP_LINES_HELD_MAX 256

uint64_t vp_attr__cause_id(struct vp_attr *a, uint64_t unit)
{
	struct vp_thread *t = u64map__get(&a->threads, unit);

	return t && cause_of(t) ? t->cur->id : 0;
}

void vp_attr__log(struct vp_attr *a, struct vp_logline *l)
{
	struct vp_thread *t = u64map__get(&a->threads, l->unit);
	struct vp_lineq *q;
	struct vp_proc *p;
	struct vp_xchg *s;

	if (t && (s = cause_of(t))) {
		uint16_t n = t->reads_requests ? inflight_candidates(a, t) : 1;

		/*
		 * An event loop's line after a reply and before its next input:
		 * the request it just answered (a log line at its end, Node's
		 * after res.end()) rather than the last one it read.  Inferred.
		 */
		if (n > 1 && t->answered && t->answered != s && !t->answered->done) {
			s = t->answered;
			give_line(xchg_proc(a, s), s, l, vp_link_make(VP_BASIS_LAST_REPLY, n));
			return;
		}
		struct vp_link link =
			vp_link_make(n > 1 ? VP_BASIS_LAST_INPUT : VP_BASIS_THREAD, n);

		/*
		 * Its first bytes were written for another request, or for none; or
		 * a thread that may be an event loop wrote it, maybe from a timer.
		 */
		if (l->cause != s->id ||
		    (t->reads_requests && !serves_by_thread(a, t, xchg_proc(a, s))))
			link.exact = false;
		give_line(xchg_proc(a, s), s, l, link);
		return;
	}
	/* Looked up, not made: a line changes nothing of what attribution knows. */
	p = u64map__get(&a->procs, t && t->pid ? t->pid : l->pid);
	/* Served nothing it read, in a process with requests open: a worker's, for its reply. */
	if ((t && t->reads_requests) || !p || p->open.list_next == &p->open) {
		free(l);
		return;
	}
	if (t) {
		vp_lineq__push(&t->lines, l, VP_LINES_HELD_MAX);
		return;
	}
	/* A thread before its first socket operation (a new pool worker): kept apart. */
	q = u64map__get(&a->early_lines, l->unit);
	if (!q && (!(q = calloc(1, sizeof(*q))) || u64map__put(&a->early_lines, l->unit, q)))
		abort(); /* out of memory: no sensible partial result */
	vp_lineq__push(q, l, VP_LINES_HELD_MAX);
}

/* Lines of threads never seen in a socket operation: nobody can claim them any more. */
static void free_early_lines(struct vp_attr *a)
{
	size_t pos = 0;
	void *v;

	while (u64map__next(&a->early_lines, &pos, NULL, &v)) {
		vp_lineq__free(v);
		free(v);
	}
	u64map__free(&a->early_lines);
}

void vp_attr__client_done(struct vp_attr *a, struct vp_xchg *c)
{
	if (c->judged)
		vp_judge__update(&xchg_proc(a, c)->judge, a->paths);
}

void vp_attr__flush(struct vp_attr *a)
{
	size_t pos = 0;
	void *v;

	while (u64map__next(&a->procs, &pos, NULL, &v)) {
		struct vp_proc *p = v;
		struct vp_xchg *c;

		vp_judge__flush(&p->judge, a->paths);
		/* The recording ended: replies that might have claimed them never came. */
		while ((c = p->pending.list_next) != &p->pending) {
			pending_del(c);
			settle_pending(a, p, c,
				       p->open.list_next != &p->open ? VP_BASIS_UNCLAIMED
								     : VP_BASIS_ROOT);
		}
		settle_shape_wait(a, p);
		while ((c = p->open.list_next) != &p->open)
			list_del(c);
		hold_unshare(p, NULL);
	}
	pos = 0;
	while (u64map__next(&a->threads, &pos, NULL, &v))
		thread_forget(a, v);
}

const char *vp_proc__comm(const struct vp_proc *p)
{
	return p->comm;
}

enum vp_model vp_proc__model(const struct vp_proc *p)
{
	if (p->interleaved)
		return VP_MODEL_EVENT_DRIVEN;
	if (p->handoff)
		return VP_MODEL_DISPATCHER_WORKER;
	if (p->served)
		return VP_MODEL_THREAD_PER_REQUEST;
	return p->calls ? VP_MODEL_CLIENT : VP_MODEL_IDLE;
}

const char *vp_model_name(enum vp_model m)
{
	switch (m) {
	case VP_MODEL_CLIENT:
		return "client";
	case VP_MODEL_THREAD_PER_REQUEST:
		return "thread-per-request";
	case VP_MODEL_DISPATCHER_WORKER:
		return "dispatcher-worker";
	case VP_MODEL_EVENT_DRIVEN:
		return "event-driven";
	default:
		return "idle";
	}
}

void vp_attr__free(struct vp_attr *a)
{
	size_t pos = 0;
	void *v;

	while (u64map__next(&a->threads, &pos, NULL, &v)) {
		thread_forget(a, v);
		free(v);
	}
	pos = 0;
	while (u64map__next(&a->procs, &pos, NULL, &v)) {
		vp_judge__free(&((struct vp_proc *)v)->judge);
		vp_idseen__free(&((struct vp_proc *)v)->ids);
		vp_idseen__free(&((struct vp_proc *)v)->contents);
		free(v);
	}
	vp_gowrites__free(&a->gowrites);
	u64map__free(&a->threads);
	u64map__free(&a->procs);
	u64map__free(&a->reader_comms);
	free_early_lines(a);
}
