// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exchanges.h"
#include "loglines.h"
#include "paths.h"

int vp_paths__init(struct vp_paths *p, struct vp_host *hosts, size_t nhosts, const int64_t *offsets,
		   uint64_t window_ns, vp_request_fn fn, void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->hosts = hosts;
	p->nhosts = nhosts;
	p->offsets = offsets;
	p->window_ns = window_ns;
	p->fn = fn;
	p->ctx = ctx;
	p->pools = calloc(nhosts ? nhosts : 1, sizeof(*p->pools));
	if (!p->pools)
		return -ENOMEM;
	for (size_t h = 0; h < nhosts; h++)
		p->pools[h].next_id = (uint64_t)h << 48;
	return 0;
}

void vp_hpaths__init(struct vp_hpaths *v, struct vp_paths *core, int host)
{
	memset(v, 0, sizeof(*v));
	v->core = core;
	v->host = host;
}

void vp_hpaths__free(struct vp_hpaths *v)
{
	vp_outbox__free(&v->out);
}

/* Finished requests held for loss reports; a real recording holds a tick's worth. */
#define READY_MAX 65536
/*
 * Requests made struct vp_request in one batch at most (count_out): each
 * is freed by the output as it goes, so this bounds what they hold at once
 * (a clock tick can let thousands go).
 */
#define OUT_MAX 256
static void build_request(struct vp_paths *p, struct vp_xchg *root);

void vp_paths__ready(struct vp_paths *p, struct vp_xchg *x)
{
	build_request(p, x);
}

void vp_paths__done_one(struct vp_paths *p, struct vp_xchg *x)
{
	while (x && --x->wait == 0) {
		if (x->up_state == VP_UP_ROOT) {
			vp_paths__ready(p, x);
			return;
		}
		if (x->up_state != VP_UP_LINKED)
			return; /* its place is decided later; see vp_paths__root/link_* */
		x = x->up;
	}
}

/* The same walk inside one host: where it would leave the host (or build), the join goes on. */
void vp_hpaths__done_one(struct vp_hpaths *v, struct vp_xchg *x)
{
	while (x && --x->wait == 0) {
		if (x->up_state == VP_UP_ROOT) {
			vp_outbox__push(&v->out, VP_OUT_READY, x);
			return;
		}
		if (x->up_state != VP_UP_LINKED)
			return;
		x = x->up;
		if (x && x->host != v->host) {
			vp_outbox__push(&v->out, VP_OUT_UP, x);
			return;
		}
	}
}

bool vp_paths__is_ancestor(const struct vp_xchg *x, const struct vp_xchg *of)
{
	for (const struct vp_xchg *y = of; y; y = y->up_state == VP_UP_LINKED ? y->up : NULL)
		if (y == x)
			return true;
	return false;
}

bool vp_hpaths__is_ancestor(const struct vp_hpaths *v, const struct vp_xchg *x,
			    const struct vp_xchg *of)
{
	const struct vp_xchg *y = of;

	while (y) {
		if (y == x)
			return true;
		if (y->host == v->host)
			y = y->up_state == VP_UP_LINKED ? y->up : NULL;
		else
			y = y->up_seen;
	}
	return false;
}

void vp_paths__publish(struct vp_xchg *x)
{
	x->up_seen = x->up_state == VP_UP_LINKED ? x->up : NULL;
}

/* c becomes the last call of s. */
static void append_child(struct vp_xchg *s, struct vp_xchg *c)
{
	c->up = s;
	if (s->child_tail)
		s->child_tail->sibling = c;
	else
		s->child_head = c;
	s->child_tail = c;
}

void vp_hpaths__link_child(struct vp_hpaths *v, struct vp_xchg *c, struct vp_xchg *s)
{
	c->up_state = VP_UP_LINKED;
	append_child(s, c);
	/* A call that already finished does not hold its parent open. */
	if (c->wait > 0)
		s->wait++;
	vp_outbox__push(&v->out, VP_OUT_LINK, c);
}

void vp_hpaths__move_child(struct vp_hpaths *v, struct vp_xchg *c, struct vp_xchg *to)
{
	struct vp_xchg *from = c->up, **pp, *prev = NULL;

	for (pp = &from->child_head; *pp && *pp != c; pp = &(*pp)->sibling)
		prev = *pp;
	if (*pp) {
		*pp = c->sibling;
		if (from->child_tail == c)
			from->child_tail = prev;
	}
	c->sibling = NULL;
	append_child(to, c);
	vp_outbox__push(&v->out, VP_OUT_LINK, c);
	/* Still open below: the new parent waits for it instead of the old one. */
	if (c->wait > 0) {
		to->wait++;
		vp_hpaths__done_one(v, from);
	}
}

void vp_paths__link_peer(struct vp_paths *p, struct vp_xchg *c, struct vp_xchg *s)
{
	c->peer = s;
	s->peer = c;
	s->up = c;
	s->up_state = VP_UP_LINKED;
	vp_paths__publish(s);
	/* c's peer slot now stands for s's subtree; if that is finished, so is the slot. */
	if (s->wait == 0)
		vp_paths__done_one(p, c);
}

/* x has no parent; true when its tree is complete already. */
static bool make_root(struct vp_xchg *x)
{
	x->up_state = VP_UP_ROOT;
	/*
	 * A server end whose client is not recorded: the request came from
	 * outside.  One whose client was recorded but not found (its records
	 * lost, an HTTP/2 client whose frames were): its parent is unknown.
	 */
	if (x->side == VP_SERVER)
		x->link = vp_link_make(x->peer_expected ? VP_BASIS_UNCLAIMED : VP_BASIS_ROOT, 0);
	return x->wait == 0;
}

void vp_hpaths__root(struct vp_hpaths *v, struct vp_xchg *x)
{
	if (make_root(x))
		vp_outbox__push(&v->out, VP_OUT_READY, x);
}

void vp_paths__peer_gone(struct vp_paths *p, struct vp_xchg *x)
{
	if (x->peer_expected)
		x->incomplete = true;
	if (x->side == VP_CLIENT)
		vp_paths__done_one(p, x);
	else if (make_root(x))
		vp_paths__ready(p, x);
}

void vp_hpaths__peer_gone(struct vp_hpaths *v, struct vp_xchg *x)
{
	if (x->peer_expected)
		x->incomplete = true;
	if (x->side == VP_CLIENT)
		vp_hpaths__done_one(v, x);
	else
		vp_hpaths__root(v, x);
}

/*
 * A built request waits in the ready queue until loss is known past its end
 * (a clock tick or so: tens of thousands of requests on a busy system), as
 * what its struct vp_call will be made of and no more: one block of the
 * FIFO arena per request, its calls in build order, then the witnesses
 * there are.  It becomes a struct vp_request when emitted (expand).
 */
struct held_end {
	uint64_t cookie;
	struct vp_endpoint addr;
	uint32_t pid, tid;
	int32_t host; /* -1 when not recorded */
	bool recorded;
	char comm[VPR_COMM_LEN], proc[VPR_COMM_LEN];
};

struct held_call {
	struct held_end client, server;
	uint64_t cli_first, cli_last; /* the client end's host clock; 0 when not recorded */
	uint64_t srv_first, srv_req_last, srv_rep_first, srv_last; /* the server end's */
	uint64_t request_bytes, reply_bytes;
	uint64_t setup_ns;
	const struct vp_witness *wit; /* in the same block; NULL: none */
	struct vp_logline *logs;      /* the server's lines for it, owned until expanded */
	uint32_t conn_index;
	uint32_t nkids; /* calls shown under it: the subtrees that follow it, in build order */
	struct vp_link link;
	bool complete, one_way;
	bool may_hand_off; /* handoff.h: its work may go on in another client */
};

struct vp_held_req {
	uint64_t id;
	size_t size; /* of its block (fifoarena.h) */
	size_t ncalls, nhosts;
	bool exact;
	int host;	 /* of the root's main end */
	uint64_t end_ns; /* the root's end, on that host's clock */
	struct held_call calls[];
};

static void hold_end(const struct vp_paths *p, struct held_end *e, const struct vp_xchg *x)
{
	e->recorded = true;
	e->host = x->host;
	e->pid = x->pid;
	e->tid = vp_xchg__actor(x);
	memcpy(e->comm, x->comm, VPR_COMM_LEN);
	if (x->proc && p->proc_comm)
		memcpy(e->proc, p->proc_comm(x->proc), VPR_COMM_LEN);
	e->addr = x->local;
	e->cookie = x->cookie;
}

static void hold_external(struct held_end *e, const struct vp_xchg *other)
{
	e->host = -1;
	e->addr = other->remote;
}

/* Loss and truncation, known only later: checked when the request is emitted. */
static bool end_complete(const struct vp_paths *p, int host, uint64_t first, uint64_t last)
{
	const struct vp_host *h = &p->hosts[host];

	/* A cut recording lost at most its last block: records near its end. */
	if (h->truncated && last + p->window_ns >= h->last_ts)
		return false;
	return !vp_host__lost_between(h, first, last);
}

/* Calls by start; a server makes few calls, so insertion sort (stable, no qsort call). */
static void sort_by_start(struct vp_call **v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct vp_call *x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1]->start_ns > x->start_ns; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/*
 * An emitted request is one allocation: the request, then its calls, then
 * the arrays of child pointers; `expand` takes them in turn.
 */
struct arena {
	struct vp_call *calls;
	struct vp_call **ptrs;
};

/* Where a held request's calls and witnesses go, in turn. */
struct held_arena {
	const struct vp_paths *paths;
	struct held_call *calls;
	struct vp_witness *wits;
};

/*
 * A request closed without a reply is a one-way call (COM_QUIT, Terminate)
 * when the close was orderly, or when the server read all of it (but for a
 * TLS alert after it) and then closed with it unread: the reset came after
 * the message arrived.  Otherwise the reset cut the exchange.
 */
static bool one_way(const struct vp_xchg *x, const struct vp_xchg *server)
{
	int32_t unread;

	if (!x->unanswered)
		return false;
	if (x->one_way || (server && server->one_way))
		return true;
	if (!server || !server->req.nops)
		return false;
	unread = (int32_t)(x->req.seq_end - server->req.seq_end);
	return unread >= 0 && unread <= (x->tls ? VP_TLS_ALERT_MAX : 0);
}

/* A TLS handshake after the stream began, at either end of a call. */
static bool setup(const struct vp_xchg *c, const struct vp_xchg *s)
{
	return (c && c->setup) || (s && s->setup);
}

/*
 * A call is shown unless it is a handshake that caused nothing; a goodbye
 * (close_notify, COM_QUIT) is a one-way call like any other.
 */
static bool shown(const struct vp_xchg *c)
{
	return !setup(c, c->peer) || (c->peer && c->peer->child_head);
}

/* Both ends saw the same bytes; the server's capture is the one usually asked for. */
static const struct vp_witness *witness_of(const struct vp_xchg *c, const struct vp_xchg *s)
{
	/*
	 * A push: what the subscriber read in one operation is what it went on
	 * with (the broker's writes of several pushes may come in one read).
	 */
	if (c && c->push)
		return c->wit;
	/*
	 * A queue's message read whole on the client's side only: a reply the
	 * broker wrote with writev (Redis's XREADGROUP reply, its lengths in
	 * nodes of their own), whose capture holds the first iovec alone, is
	 * whole in the receiver's buffer.  The same stream's bytes, read further.
	 */
	if (s && s->wit && c && c->wit && !s->wit->qkind && c->wit->qkind)
		return c->wit;
	if (s && s->wit)
		return s->wit;
	return c && c->wit ? c->wit : NULL;
}

/* The calls shown in the tree of the call of c and s, and (*nwit) how many have a witness. */
static size_t count_calls(const struct vp_xchg *c, const struct vp_xchg *s, size_t *nwit)
{
	size_t n = 1;

	*nwit += witness_of(c, s) != NULL;
	for (const struct vp_xchg *k = s ? s->child_head : NULL; k; k = k->sibling)
		if (shown(k))
			n += count_calls(k, k->peer, nwit);
	return n;
}

/*
 * Server end s was closed at its process's death (a signal) after its reply
 * began: the reply may have been cut there, or been whole long before (a
 * pooled connection's last call, its server stopped at the end).  The
 * caller tells: if the request that made the call (parent, on c's host)
 * sent reply bytes after the call's reply had come, it went on with it.
 */
static bool cut_by_death(const struct vp_xchg *parent, const struct vp_xchg *c,
			 const struct vp_xchg *s)
{
	if (!s || !s->killed)
		return false;
	return !(parent && c && parent->has_rep && parent->rep.last_ts > vp_xchg__end_ts(c));
}

/* The call of client end c and server end s (either may be NULL) that parent made, recursively. */
static void hold(struct vp_held_req *r, struct held_arena *m, const struct vp_xchg *parent,
		 const struct vp_xchg *c, struct vp_xchg *s, uint64_t *hosts_seen)
{
	const struct vp_xchg *main = c ? c : s;
	const struct vp_witness *wit = witness_of(c, s);
	struct held_call *call = m->calls++;

	memset(call, 0, sizeof(*call));
	if (c) {
		hold_end(m->paths, &call->client, c);
		*hosts_seen |= 1ull << (c->host & 63);
		call->cli_first = c->req.first_ts;
		call->cli_last = vp_xchg__end_ts(c);
	} else {
		hold_external(&call->client, s);
	}
	if (s) {
		hold_end(m->paths, &call->server, s);
		*hosts_seen |= 1ull << (s->host & 63);
		call->srv_first = s->req.first_ts;
		call->srv_req_last = s->req.last_ts;
		call->srv_rep_first = s->has_rep ? s->rep.first_ts : s->req.last_ts;
		call->srv_last = vp_xchg__end_ts(s);
		/* Its lines go with it: the exchange is released right after. */
		call->logs = s->logs;
		s->logs = s->logs_tail = NULL;
	} else {
		hold_external(&call->server, c);
	}
	call->conn_index = main->conn_index;
	call->request_bytes = main->req.bytes;
	call->reply_bytes = main->has_rep ? main->rep.bytes : 0;
	call->one_way = one_way(main, main == c ? s : NULL);
	call->complete = !(c && c->incomplete) && !(s && s->incomplete) &&
			 (!main->unanswered || call->one_way) && !cut_by_death(parent, c, s);
	call->link = c ? c->link : s->link;
	call->setup_ns = c ? c->setup_ns : s->setup_ns;
	if (wit) {
		*m->wits = *wit;
		call->wit = m->wits++;
	}
	/* Its bytes read (--capture): the queue stage decides by the message (queues.h). */
	call->may_hand_off = s && s->may_hand_off && !wit;
	r->exact &= call->link.exact && !(s && s->tainted) && !call->may_hand_off;
	for (const struct vp_xchg *k = s ? s->child_head : NULL; k; k = k->sibling) {
		if (shown(k)) {
			call->nkids++;
			hold(r, m, s, k, k->peer, hosts_seen);
		}
	}
}

static void expand_end(struct vp_call_end *e, const struct held_end *h)
{
	e->recorded = h->recorded;
	e->host = h->host;
	e->pid = h->pid;
	e->tid = h->tid;
	memcpy(e->comm, h->comm, VPR_COMM_LEN);
	e->comm[VPR_COMM_LEN] = 0;
	memcpy(e->proc, h->proc, VPR_COMM_LEN);
	e->proc[VPR_COMM_LEN] = 0;
	e->addr = h->addr;
	e->cookie = h->cookie;
}

/* The next held call and its subtree as the outputs' struct vp_call (times on host clocks). */
static struct vp_call *expand(const struct held_call **next, struct arena *m)
{
	const struct held_call *h = (*next)++;
	struct vp_call *call = m->calls++;

	expand_end(&call->client, &h->client);
	expand_end(&call->server, &h->server);
	call->conn_index = h->conn_index;
	/* At the client when recorded, else at the server. */
	call->start_ns = (int64_t)(h->client.recorded ? h->cli_first : h->srv_first);
	call->end_ns = (int64_t)(h->client.recorded ? h->cli_last : h->srv_last);
	call->request_bytes = h->request_bytes;
	call->reply_bytes = h->reply_bytes;
	call->srv_req_first = (int64_t)h->srv_first;
	call->srv_req_last = (int64_t)h->srv_req_last;
	call->srv_rep_first = (int64_t)h->srv_rep_first;
	call->srv_rep_last = (int64_t)h->srv_last;
	call->cli_first = h->cli_first;
	call->cli_last = h->cli_last;
	call->srv_first = h->srv_first;
	call->srv_last = h->srv_last;
	call->complete = h->complete;
	call->one_way = h->one_way;
	call->may_hand_off = h->may_hand_off;
	call->link = h->link;
	call->queue_ns = 0;
	call->setup_ns = (int64_t)h->setup_ns;
	call->logs = h->logs;
	if (h->wit)
		call->wit = *h->wit;
	else
		memset(&call->wit, 0, sizeof(call->wit));
	call->calls = NULL;
	call->ncalls = 0;
	if (h->nkids) {
		call->calls = m->ptrs;
		m->ptrs += h->nkids;
		for (uint32_t i = 0; i < h->nkids; i++)
			call->calls[call->ncalls++] = expand(next, m);
		sort_by_start(call->calls, call->ncalls);
	}
	return call;
}

/*
 * A held request as the outputs take it: one allocation (vp_request__free),
 * every field written, so not zeroed first (calloc's memset of every call
 * was a tenth of the join).
 */
static struct vp_request *expand_request(const struct vp_held_req *h)
{
	size_t n = h->ncalls;
	struct vp_request *r =
		malloc(sizeof(*r) + n * sizeof(struct vp_call) + n * sizeof(struct vp_call *));
	const struct held_call *next = h->calls;
	struct arena m;

	if (!r)
		abort(); /* cannot drop a request silently; ENOMEM here is fatal */
	m.calls = (struct vp_call *)(r + 1);
	m.ptrs = (struct vp_call **)(m.calls + n);
	r->id = h->id;
	r->complete = false; /* emit decides */
	r->exact = h->exact;
	r->ncalls = n;
	r->nhosts = h->nhosts;
	r->owned = NULL;
	r->nowned = 0;
	r->root = expand(&next, &m);
	return r;
}

static void release(struct vp_paths *p, struct vp_xchg *x)
{
	x->dead = true;
	if (x->refs == 0)
		vp_xpool__put(&p->pools[x->host], x);
}

static void release_tree(struct vp_paths *p, struct vp_xchg *c, struct vp_xchg *s)
{
	struct vp_xchg *k = s ? s->child_head : NULL;

	if (p->on_xchg && c)
		p->on_xchg(p->xchg_ctx, c);
	if (p->on_xchg && s)
		p->on_xchg(p->xchg_ctx, s);

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
	if (--x->refs == 0 && x->dead)
		vp_xpool__put(&p->pools[x->host], x);
}

/* A complete tree, queued by the join, whose request the next emit builds (build_pending). */
struct vp_build {
	struct vp_xchg *root;
	struct vp_held_req *r; /* NULL: no request (a teardown) */
	uint64_t id;
	size_t size, ncalls, nwit;
	bool teardown;
};

static void build_request(struct vp_paths *p, struct vp_xchg *root)
{
	if (p->nbuilds == p->cbuilds) {
		size_t cap = p->cbuilds ? p->cbuilds * 2 : 256;
		struct vp_build *v = realloc(p->builds, cap * sizeof(*v));

		if (!v)
			abort(); /* cannot drop a request silently; ENOMEM here is fatal */
		p->builds = v;
		p->cbuilds = cap;
	}
	root->building = true;
	p->builds[p->nbuilds++] = (struct vp_build){.root = root};
}

bool vp_paths__gone(const struct vp_xchg *x)
{
	while (!x->dead && x->up_state == VP_UP_LINKED && x->up)
		x = x->up;
	return x->dead || x->building;
}

static void root_ends(struct vp_xchg *root, struct vp_xchg **c, struct vp_xchg **s)
{
	*c = root->side == VP_CLIENT ? root : NULL;
	*s = *c ? (*c)->peer : root;
}

/*
 * The first walk of a queued tree (a job of the batch): how many calls and
 * witnesses its held request needs.  Its exchanges are cold by now, and
 * the walk's cache misses are most of what a request costs: on the threads
 * too.
 */
static void count_one(void *ctx, size_t j)
{
	struct vp_build *b = &((struct vp_paths *)ctx)->builds[j];
	struct vp_xchg *c, *s;

	root_ends(b->root, &c, &s);
	b->r = NULL;
	b->nwit = 0;
	b->ncalls = count_calls(c, s, &b->nwit);
	/* A TLS handshake, or a TLS client's last close_notify, that caused nothing is no request. */
	b->teardown = (setup(c, s) || (c && c->teardown) || (s && s->teardown)) && b->ncalls == 1;
}

static void queue_ready(struct vp_paths *p, struct vp_held_req *r)
{
	if (p->rlen == p->rcap) {
		size_t cap = p->rcap ? p->rcap * 2 : 256;
		struct vp_held_req **q = malloc(cap * sizeof(*q));

		if (!q)
			abort(); /* cannot drop a request silently; ENOMEM here is fatal */
		for (size_t i = 0; i < p->rlen; i++)
			q[i] = p->ready[(p->rhead + i) % p->rcap];
		free(p->ready);
		p->ready = q;
		p->rcap = cap;
		p->rhead = 0;
	}
	p->ready[(p->rhead + p->rlen++) % p->rcap] = r;
}

/*
 * In join order, on one thread: numbers and room, the same for any thread
 * count.  The block is not written here: its first touch (a page fault
 * while the arena grows) is the parallel fill's.
 */
static void reserve(struct vp_paths *p, struct vp_build *b)
{
	if (b->teardown) {
		p->teardowns++;
		return;
	}
	b->size = sizeof(struct vp_held_req) + b->ncalls * sizeof(struct held_call) +
		  b->nwit * sizeof(struct vp_witness);
	b->r = vp_farena__alloc(&p->held, b->size);
	if (!b->r)
		abort(); /* cannot drop a request silently; ENOMEM here is fatal */
	b->id = ++p->next_request_id;
	queue_ready(p, b->r);
}

/*
 * One held request filled in from its tree: a job of the batch.  It writes
 * only its own block and its tree's server ends (their log lines move to
 * it); no two jobs share either.
 */
static void hold_one(void *ctx, size_t j)
{
	struct vp_paths *p = ctx;
	const struct vp_build *b = &p->builds[j];
	struct vp_held_req *r = b->r;
	struct vp_xchg *c, *s;
	struct held_arena m;
	uint64_t hosts_seen = 0;

	if (!r)
		return;
	root_ends(b->root, &c, &s);
	r->id = b->id;
	r->size = b->size;
	r->exact = true;
	r->ncalls = b->ncalls;
	r->host = b->root->host;
	r->end_ns = vp_xchg__end_ts(b->root);
	m.paths = p;
	m.calls = r->calls;
	m.wits = (struct vp_witness *)(r->calls + b->ncalls);
	hold(r, &m, NULL, c, s, &hosts_seen);
	r->nhosts = (size_t)__builtin_popcountll(hosts_seen);
}

/*
 * The requests emitted so far go to the output as one job of the batch
 * (the first, the longest): a clock tick lets thousands go, OUT_MAX at a
 * time, and each lot goes out while the next is made.  Emitting only adds
 * to `deliver` between batches, so the job hands over what came before.
 */
static void run_batch(struct vp_paths *p, size_t n, vp_paths_job_fn fn)
{
	vp_paths_job_fn first = n && p->ndeliver ? vp_paths__deliver_job : NULL;

	if (p->run) {
		p->run(p->run_ctx, first, n, fn, p);
		return;
	}
	if (first)
		first(p, 0);
	for (size_t j = 0; j < n; j++)
		fn(p, j);
}

static bool finish_call(struct vp_paths *p, struct vp_call *call, bool *exact);

/*
 * One request let out, made a struct vp_request and put on the common
 * timeline with its loss marks: a job.  It reads only what no job writes
 * (offsets, loss, the muxed and blind marks: the join's, which waits) and
 * writes its own request; numbering and the output stay in order, after.
 */
static void expand_one(void *ctx, size_t j)
{
	struct vp_paths *p = ctx;
	struct vp_request *r = expand_request(p->ready[(p->rhead + j) % p->rcap]);

	r->complete = finish_call(p, r->root, &r->exact);
	p->out[j] = r;
}

/* The batch of an emit: the requests let out first, then the queued trees' requests. */
static void expand_or_hold(void *ctx, size_t j)
{
	struct vp_paths *p = ctx;

	if (j < p->nout)
		expand_one(p, j);
	else
		hold_one(p, j - p->nout);
}

/* Whether the request at the head of `ready` may go: loss is known past its end. */
static bool may_emit(const struct vp_paths *p, size_t rlen, const struct vp_held_req *h,
		     int64_t loss_known, bool all)
{
	/*
	 * Unless time stands still (a damaged recording whose records share
	 * one time): memory must stay bounded, the loss marks of those
	 * requests may then miss.
	 */
	return all || rlen > READY_MAX ||
	       vp_paths__aligned(p, h->host, h->end_ns) + (int64_t)p->window_ns <= loss_known;
}

/*
 * How many of the `waiting` requests before the new ones this emit lets
 * out, as the loop of vp_paths__emit would decide one by one (rlen counts
 * the new ones too, not filled in yet); room for them in `out`.
 */
static size_t count_out(struct vp_paths *p, size_t waiting, int64_t loss_known, bool all)
{
	size_t n = 0;

	while (n < waiting && n < OUT_MAX &&
	       may_emit(p, p->rlen - n, p->ready[(p->rhead + n) % p->rcap], loss_known, all))
		n++;
	if (n > p->cout) {
		size_t cap = p->cout ? p->cout : 256;
		struct vp_request **v;

		while (cap < n)
			cap *= 2;
		v = realloc(p->out, cap * sizeof(*v));
		if (!v)
			abort(); /* cannot drop a request silently; ENOMEM here is fatal */
		p->out = v;
		p->cout = cap;
	}
	return n;
}

/*
 * The requests of the trees completed since the last emit: walked and held
 * in parallel, numbered and freed in join order (the pools and the on_xchg
 * hook are not shared), so the same for any thread count.  In the same
 * batch as the holding, the requests this emit lets out that were waiting
 * already (count_out) are expanded: the serial part of an emit is then
 * only its order.
 */
static void build_pending(struct vp_paths *p, int64_t loss_known, bool all, bool emitting)
{
	size_t waiting = p->rlen, cap;
	struct vp_build *swap;

	vp_paths__release_built(p); /* the last emit's, when no look-ahead came between */
	if (p->nbuilds)
		run_batch(p, p->nbuilds, count_one);
	for (size_t j = 0; j < p->nbuilds; j++)
		reserve(p, &p->builds[j]);
	p->nout = emitting ? count_out(p, waiting, loss_known, all) : 0;
	run_batch(p, p->nout + p->nbuilds, expand_or_hold);
	/* The built trees wait for vp_paths__release_built; builds takes the next ones. */
	swap = p->builds;
	p->builds = p->rel;
	p->rel = swap;
	cap = p->cbuilds;
	p->cbuilds = p->crel;
	p->crel = cap;
	p->nrel = p->nbuilds;
	p->nbuilds = 0;
	/* The local writer's hook sees them in join order, beside nothing. */
	if (p->on_xchg)
		vp_paths__release_built(p);
}

void vp_paths__release_built(struct vp_paths *p)
{
	for (size_t j = 0; j < p->nrel; j++) {
		struct vp_xchg *c, *s;

		root_ends(p->rel[j].root, &c, &s);
		p->rel[j].root->building = false;
		release_tree(p, c, s);
	}
	p->nrel = 0;
}

/*
 * Put the call's times on the common timeline with the offsets known now,
 * and mark calls that loss or truncation touched.  Returns whether the
 * whole tree is complete.
 */
void vp_paths__muxed(struct vp_paths *p, int host, uint64_t cookie)
{
	if (u64map__put(&p->muxed, vp_paths_end_key(host, cookie), p))
		abort(); /* out of memory: no sensible partial result */
}

void vp_paths__blind(struct vp_paths *p, int host, uint32_t pid)
{
	if (u64map__put(&p->blind, vp_paths_end_key(host, pid), p))
		abort();
}

static bool end_muxed(const struct vp_paths *p, const struct vp_call_end *e)
{
	return e->recorded && p->muxed.len &&
	       u64map__get(&p->muxed, vp_paths_end_key(e->host, e->cookie));
}

/*
 * A call on a connection found multiplexed after its link was made: not
 * exact, a root included (calls of requests may have been in its message).
 */
static bool unmake_muxed(const struct vp_paths *p, struct vp_call *call)
{
	if (!end_muxed(p, &call->client) && !end_muxed(p, &call->server))
		return false;
	if (call->link.basis == VP_BASIS_ROOT)
		call->link = vp_link_make(VP_BASIS_UNCLAIMED, 0);
	call->link.exact = false;
	return true;
}

/* Onto the common timeline, loss marks, and (*exact) the findings that came after the build. */
static bool finish_call(struct vp_paths *p, struct vp_call *call, bool *exact)
{
	int main = call->client.recorded ? call->client.host : call->server.host;
	bool all = true;

	call->start_ns += p->offsets[main];
	call->end_ns += p->offsets[main];
	if (call->server.recorded) {
		int64_t off = p->offsets[call->server.host];

		call->srv_req_first += off;
		call->srv_req_last += off;
		call->srv_rep_first += off;
		call->srv_rep_last += off;
		for (struct vp_logline *l = call->logs; l; l = l->next)
			l->at_ns = (int64_t)l->ts + off;
	}
	if (call->client.recorded &&
	    !end_complete(p, call->client.host, call->cli_first, call->cli_last))
		call->complete = false;
	if (call->server.recorded &&
	    !end_complete(p, call->server.host, call->srv_first, call->srv_last))
		call->complete = false;
	if (unmake_muxed(p, call))
		*exact = false;
	/* Served by a process that may have hidden its calls in a multiplexed connection. */
	if (call->server.recorded && p->blind.len &&
	    u64map__get(&p->blind, vp_paths_end_key(call->server.host, call->server.pid)))
		*exact = false;
	for (size_t i = 0; i < call->ncalls; i++) {
		struct vp_call *c = call->calls[i];

		/*
		 * Served on a connection found multiplexed after the links were
		 * made: its request may be several, the call any of theirs
		 * (xchg.h, vp_xchg__holds_several).
		 */
		if (c->link.exact && call->server.recorded && end_muxed(p, &call->server))
			c->link.exact = false;
		all &= finish_call(p, c, exact);
	}
	return all && call->complete;
}

/* A request made (expand_one) leaves the queue and goes out, in order. */
static void emit_one(struct vp_paths *p, struct vp_request *r)
{
	const struct vp_held_req *h = p->ready[p->rhead];

	p->rhead = (p->rhead + 1) % p->rcap;
	p->rlen--;
	vp_farena__pop(&p->held, h->size);
	/*
	 * Records lost near a request may have held what decided its
	 * links otherwise (found by tests/bench/baseline.sh: with 2.4% of
	 * records lost, paths marked exact were wrong, all incomplete).
	 */
	r->exact &= r->complete;
	p->requests++;
	p->requests_exact += r->exact;
	p->calls += r->ncalls;
	p->deliver[p->ndeliver++] = r;
	if (p->ndeliver == VP_PATHS_DELIVER_MAX)
		vp_paths__deliver(p);
}

void vp_paths__deliver(struct vp_paths *p)
{
	for (size_t i = 0; i < p->ndeliver; i++)
		p->fn(p->ctx, p->deliver[i]);
	p->ndeliver = 0;
}

void vp_paths__deliver_job(void *paths, size_t j)
{
	(void)j;
	vp_paths__deliver(paths);
}

void vp_paths__emit(struct vp_paths *p, int64_t loss_known, bool all)
{
	build_pending(p, loss_known, all, true);
	for (;;) {
		for (size_t j = 0; j < p->nout; j++)
			emit_one(p, p->out[j]);
		/* More than OUT_MAX, or those built just now when every one before could go. */
		if (!(p->nout = count_out(p, p->rlen, loss_known, all)))
			break;
		run_batch(p, p->nout, expand_one);
	}
}

static void free_held_logs(struct vp_held_req *h)
{
	for (size_t i = 0; i < h->ncalls; i++)
		vp_loglines__free_list(h->calls[i].logs);
}

static void free_logs(struct vp_call *c)
{
	vp_loglines__free_list(c->logs);
	for (size_t i = 0; i < c->ncalls; i++)
		free_logs(c->calls[i]);
}

void vp_paths__free(struct vp_paths *p)
{
	/* Their log lines into held requests, freed below; nobody looks any more. */
	p->on_xchg = NULL;
	p->run = NULL;
	for (size_t i = 0; i < p->ndeliver; i++)
		vp_request__free(p->deliver[i]);
	p->ndeliver = 0;
	build_pending(p, 0, false, false);
	vp_paths__release_built(p);
	free(p->builds);
	p->builds = NULL;
	free(p->rel);
	p->rel = NULL;
	free(p->out);
	p->out = NULL;
	for (; p->rlen; p->rlen--, p->rhead = (p->rhead + 1) % p->rcap)
		free_held_logs(p->ready[p->rhead]);
	vp_farena__free(&p->held);
	free(p->ready);
	p->ready = NULL;
	for (size_t h = 0; p->pools && h < p->nhosts; h++)
		vp_xpool__free(&p->pools[h]);
	free(p->pools);
	p->pools = NULL;
	u64map__free(&p->muxed);
	u64map__free(&p->blind);
}

void vp_request__free(struct vp_request *r)
{
	if (r && r->root)
		free_logs(r->root);
	for (size_t i = 0; r && i < r->nowned; i++)
		free(r->owned[i]);
	if (r)
		free(r->owned);
	free(r); /* one block with its calls (build_request) */
}
