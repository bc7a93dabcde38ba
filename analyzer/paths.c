// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "paths.h"

void vp_paths__init(struct vp_paths *p, struct vp_host *hosts, size_t nhosts,
		    const int64_t *offsets, uint64_t window_ns, vp_request_fn fn, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->hosts = hosts;
	p->nhosts = nhosts;
	p->offsets = offsets;
	p->window_ns = window_ns;
	p->fn = fn;
	p->ctx = ctx;
}

static void make_ready(struct vp_paths *p, struct vp_xchg *x)
{
	if (p->rlen == p->rcap) {
		size_t cap = p->rcap ? p->rcap * 2 : 256;
		struct vp_xchg **r = malloc(cap * sizeof(*r));

		if (!r)
			abort(); /* cannot drop a request silently; ENOMEM here is fatal */
		for (size_t i = 0; i < p->rlen; i++)
			r[i] = p->ready[(p->rhead + i) % p->rcap];
		free(p->ready);
		p->ready = r;
		p->rcap = cap;
		p->rhead = 0;
	}
	p->ready[(p->rhead + p->rlen++) % p->rcap] = x;
}

void vp_paths__done_one(struct vp_paths *p, struct vp_xchg *x)
{
	while (x && --x->wait == 0) {
		if (x->up_state == VP_UP_ROOT) {
			make_ready(p, x);
			return;
		}
		if (x->up_state != VP_UP_LINKED)
			return; /* its place is decided later; see vp_paths__root/link_* */
		x = x->up;
	}
}

void vp_paths__link_child(struct vp_paths *p, struct vp_xchg *c, struct vp_xchg *s)
{
	c->up = s;
	c->up_state = VP_UP_LINKED;
	if (s->child_tail)
		s->child_tail->sibling = c;
	else
		s->child_head = c;
	s->child_tail = c;
	/* A call that already finished does not hold its parent open. */
	if (c->wait > 0)
		s->wait++;
}

void vp_paths__link_peer(struct vp_paths *p, struct vp_xchg *c, struct vp_xchg *s)
{
	c->peer = s;
	s->peer = c;
	s->up = c;
	s->up_state = VP_UP_LINKED;
	/* c's peer slot now stands for s's subtree; if that is finished, so is the slot. */
	if (s->wait == 0)
		vp_paths__done_one(p, c);
}

void vp_paths__root(struct vp_paths *p, struct vp_xchg *x)
{
	x->up_state = VP_UP_ROOT;
	if (x->wait == 0)
		make_ready(p, x);
}

void vp_paths__peer_gone(struct vp_paths *p, struct vp_xchg *x)
{
	if (x->peer_expected)
		x->incomplete = true;
	if (x->side == VP_CLIENT)
		vp_paths__done_one(p, x);
	else
		vp_paths__root(p, x);
}

static void fill_end(const struct vp_paths *p, struct vp_call_end *e, const struct vp_xchg *x)
{
	e->recorded = true;
	e->host = x->host;
	e->pid = x->pid;
	e->tid = vp_xchg__actor(x);
	memcpy(e->comm, x->comm, VPR_COMM_LEN);
	e->comm[VPR_COMM_LEN] = 0;
	e->addr = x->local;
}

static void fill_external(struct vp_call_end *e, const struct vp_xchg *other)
{
	e->recorded = false;
	e->host = -1;
	e->addr = other->remote;
}

static bool xchg_complete(const struct vp_paths *p, const struct vp_xchg *x)
{
	const struct vp_host *h = &p->hosts[x->host];

	/* A cut recording lost at most its last block: records near its end. */
	if (h->truncated && vp_xchg__end_ts(x) + p->window_ns >= h->last_ts)
		return false;
	return !x->incomplete && !vp_host__lost_between(h, x->req.first_ts, vp_xchg__end_ts(x));
}

static int cmp_start(const void *a, const void *b)
{
	const struct vp_call *x = *(const struct vp_call *const *)a;
	const struct vp_call *y = *(const struct vp_call *const *)b;

	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* The call of client end c and server end s (either may be NULL), recursively. */
static struct vp_call *build(struct vp_paths *p, struct vp_request *r, const struct vp_xchg *c,
			     const struct vp_xchg *s, uint64_t *hosts_seen)
{
	const struct vp_xchg *main = c ? c : s;
	struct vp_call *call = calloc(1, sizeof(*call));
	size_t n = 0;

	if (!call)
		abort();
	r->ncalls++;
	if (c) {
		fill_end(p, &call->client, c);
		*hosts_seen |= 1ull << (c->host & 63);
	} else {
		fill_external(&call->client, s);
	}
	if (s) {
		fill_end(p, &call->server, s);
		*hosts_seen |= 1ull << (s->host & 63);
		call->srv_req_first = vp_paths__aligned(p, s->host, s->req.first_ts);
		call->srv_req_last = vp_paths__aligned(p, s->host, s->req.last_ts);
		call->srv_rep_first = vp_paths__aligned(p, s->host, s->has_rep ? s->rep.first_ts : s->req.last_ts);
		call->srv_rep_last = vp_paths__aligned(p, s->host, vp_xchg__end_ts(s));
	} else {
		fill_external(&call->server, c);
	}
	call->conn_index = main->conn_index;
	call->start_ns = vp_paths__aligned(p, main->host, main->req.first_ts);
	call->end_ns = vp_paths__aligned(p, main->host, vp_xchg__end_ts(main));
	call->request_bytes = main->req.bytes;
	call->reply_bytes = main->has_rep ? main->rep.bytes : 0;
	call->complete = (!c || xchg_complete(p, c)) && (!s || xchg_complete(p, s));
	if (!call->complete)
		r->complete = false;
	for (const struct vp_xchg *k = s ? s->child_head : NULL; k; k = k->sibling)
		n++;
	if (n) {
		call->calls = calloc(n, sizeof(*call->calls));
		if (!call->calls)
			abort();
		for (const struct vp_xchg *k = s->child_head; k; k = k->sibling)
			call->calls[call->ncalls++] = build(p, r, k, k->peer, hosts_seen);
		qsort(call->calls, call->ncalls, sizeof(*call->calls), cmp_start);
	}
	return call;
}

static void release(struct vp_paths *p, struct vp_xchg *x)
{
	x->dead = true;
	if (x->refs == 0) {
		free(x);
		p->live--;
	}
}

static void release_tree(struct vp_paths *p, struct vp_xchg *c, struct vp_xchg *s)
{
	struct vp_xchg *k = s ? s->child_head : NULL;

	while (k) {
		struct vp_xchg *next = k->sibling;

		release_tree(p, k, k->peer);
		k = next;
	}
	if (c)
		release(p, c);
	if (s)
		release(p, s);
}

void vp_paths__unref(struct vp_paths *p, struct vp_xchg *x)
{
	if (--x->refs == 0 && x->dead) {
		free(x);
		p->live--;
	}
}

static void emit_one(struct vp_paths *p, struct vp_xchg *root)
{
	struct vp_xchg *c = root->side == VP_CLIENT ? root : NULL;
	struct vp_xchg *s = c ? c->peer : root;
	struct vp_request *r = calloc(1, sizeof(*r));
	uint64_t hosts_seen = 0;

	if (!r)
		abort();
	r->id = ++p->next_request_id;
	r->complete = true;
	r->root = build(p, r, c, s, &hosts_seen);
	r->nhosts = (size_t)__builtin_popcountll(hosts_seen);
	p->requests++;
	p->calls += r->ncalls;
	release_tree(p, c, s);
	p->fn(p->ctx, r);
}

void vp_paths__emit(struct vp_paths *p, int64_t horizon, bool all)
{
	while (p->rlen) {
		struct vp_xchg *x = p->ready[p->rhead];
		int64_t at = vp_paths__aligned(p, x->host, vp_xchg__end_ts(x));

		if (!all && at + (int64_t)p->window_ns > horizon)
			return;
		p->rhead = (p->rhead + 1) % p->rcap;
		p->rlen--;
		emit_one(p, x);
	}
}

void vp_paths__free(struct vp_paths *p)
{
	free(p->ready);
	p->ready = NULL;
}

static void call_free(struct vp_call *c)
{
	for (size_t i = 0; i < c->ncalls; i++)
		call_free(c->calls[i]);
	free(c->calls);
	free(c);
}

void vp_request__free(struct vp_request *r)
{
	if (!r)
		return;
	if (r->root)
		call_free(r->root);
	free(r);
}
