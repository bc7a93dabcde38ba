// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stage 7: queues as hops (queues.h).  Held requests are few (those with
 * a push or a delivery, for a second or so), so they sit in plain arrays
 * scanned whole; a busy queue's cost is the messages in flight times the
 * deliveries.
 */
#include <stdlib.h>
#include <string.h>

#include "qread.h"
#include "queues.h"

struct vp_qpub {
	struct vp_request *r;
	size_t pending; /* its pushes not yet delivered */
	int64_t last;	/* its last push's end */
	int64_t until;	/* all delivered, a broker that fans out: held to here for more copies */
};

struct vp_qpush {
	uint8_t proto; /* the broker's protocol: a message matches only its own broker's */
	bool fans;     /* it may be delivered several times (fans_out) */
	uint64_t msg;
	struct vp_call *call; /* NULL: its request went out without this message's work */
	struct vp_qpub *pub;
	int64_t at;   /* its end; when it went out, for those gone */
	bool taken;   /* a delivery took it */
	uint64_t qid; /* the message's id, when the broker gave one (a stream entry's) */
};

struct vp_qdel {
	int host;
	uint32_t pid, tid;
	uint8_t proto;
	bool fans;
	uint64_t msg, qid;
	int64_t open_ns, close_ns; /* its reply .. the thread's next wait (INT64_MAX: none yet) */
	uint64_t cookie;	   /* its wait's connection (the client's socket) */
	uint32_t idx, close_idx;   /* its wait's conn_index; the next wait's (CLOSE_ELSEWHERE) */
	/*
	 * Not exact: opened before its thread was known as a consumer (calls
	 * it made before its first wait came here went out as roots, so its
	 * work may lack some), a window not seen whole (del_gap), or a
	 * stream's entry matched by its bytes, not its id (pick_push).
	 */
	bool partial;
	struct vp_request **reqs; /* the delivery, then its work */
	size_t n, cap;
	/*
	 * One message of a read of several (settle_read): the read (NULL: reqs
	 * [0]'s root, the delivery), which of reqs its content decided (NULL:
	 * all), and whether some call of the read was placed by order alone,
	 * so that every publisher of the read may be missing one (not exact).
	 */
	const struct vp_call *pop;
	bool *sure;
	bool shared;
};

static void *grow(void *v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return v;
	while (c < need)
		c *= 2;
	v = realloc(v, c * size);
	if (!v)
		abort(); /* cannot drop a request silently; ENOMEM here is fatal */
	*cap = c;
	return v;
}

void vp_queues__init(struct vp_queues *q, vp_request_fn out, void *ctx)
{
	memset(q, 0, sizeof(*q));
	q->out = out;
	q->ctx = ctx;
}

/*
 * The protocol parsers say what a call did to a queue (proto.h: qkind,
 * qmsg): a push, a delivery, a consumer's wait that delivered nothing.  A
 * Redis BRPOP/BLPOP is a wait whatever its reply, and so is a SUBSCRIBE
 * (its pushes, each a call of its own, are the deliveries).  So is every
 * push, whatever its witness: one that delivers none (several pushes read
 * at once, bytes not captured) is still the subscriber reading its
 * subscription again, the end of the work before it.
 */
static bool is_wait(const struct vp_call *c)
{
	if (!c->client.recorded)
		return false;
	return c->wit.qkind == VP_WIT_Q_POP || c->wit.qkind == VP_WIT_Q_WAIT ||
	       vp_witness_waits(&c->wit) || vp_witness_subscribes(&c->wit) ||
	       (!c->request_bytes && c->reply_bytes);
}

/*
 * A message that may be delivered several times (AMQP: an exchange routes
 * it to every queue bound, a rejected message is delivered again; Redis
 * pub/sub: every subscriber gets it): a push delivered stays a candidate,
 * and its request waits VP_QUEUE_SETTLE_NS after each delivery for
 * another copy.
 */
static bool fans_out(const struct vp_witness *w)
{
	return w->proto == VP_PROTO_AMQP || (w->flags & VP_WIT_FANOUT);
}

/* vp_qdel.close_idx: no next wait yet; the next wait was on another connection. */
#define CLOSE_NONE UINT32_MAX
#define CLOSE_ELSEWHERE (UINT32_MAX - 1)

static bool same_thread(const struct vp_qdel *d, const struct vp_call_end *e)
{
	return d->host == e->host && d->pid == e->pid && d->tid == e->tid;
}

static struct vp_qthread thread_of(const struct vp_call_end *e)
{
	return (struct vp_qthread){e->host, e->pid, e->tid, INT64_MIN, 0};
}

static bool same_thread_end(const struct vp_qthread *t, const struct vp_call_end *e)
{
	return t->host == e->host && t->pid == e->pid && t->tid == e->tid;
}

static bool is_consumer(const struct vp_queues *q, const struct vp_call_end *e)
{
	for (size_t i = 0; e->recorded && i < q->nthr; i++)
		if (q->thr[i].host == e->host && q->thr[i].pid == e->pid && q->thr[i].tid == e->tid)
			return true;
	return false;
}

static void del_add(struct vp_qdel *d, struct vp_request *r)
{
	d->reqs = grow(d->reqs, &d->cap, d->n + 1, sizeof(*d->reqs));
	d->reqs[d->n++] = r;
}

/*
 * The delivery whose work a root call made by its thread at its start is:
 * of those whose window holds it, the one opened last.  A window stays
 * open until the thread's next wait comes here; a wait that came late, its
 * next one's delivery gone, does not know where it ends, so windows may
 * overlap, and the later reply is the one the call came after.
 */
static struct vp_qdel *delivery_of(struct vp_queues *q, const struct vp_call *c)
{
	struct vp_qdel *best = NULL;

	for (size_t i = 0; i < q->ndel; i++) {
		struct vp_qdel *d = q->del[i];

		if (same_thread(d, &c->client) && d->open_ns <= c->start_ns &&
		    c->start_ns < d->close_ns && (!best || d->open_ns > best->open_ns))
			best = d;
	}
	return best;
}

/*
 * The consumer's calls the thread's wait at `before` decides (NULL: every
 * one, at the end; those older than VP_QUEUE_HOLD_NS too): each goes to
 * the delivery it was made for, or out as it was.
 */
static void loose_place(struct vp_queues *q, const struct vp_call *before)
{
	size_t o = 0;

	for (size_t i = 0; i < q->nloose; i++) {
		struct vp_qloose *l = &q->loose[i];
		const struct vp_call *c = l->r->root;
		struct vp_qdel *d;

		if (before ? !same_thread_end(&l->th, &before->client) ||
				     c->start_ns >= before->start_ns
			   : q->nthr && c->end_ns + VP_QUEUE_HOLD_NS > q->now) {
			q->loose[o++] = *l;
			continue;
		}
		if ((d = delivery_of(q, c)))
			del_add(d, l->r);
		else
			q->out(q->ctx, l->r);
	}
	q->nloose = o;
}

/*
 * A list delivers a message once, so two deliveries of it open together
 * are one delivery relayed (a proxy whose call to the broker did not link
 * under its client's wait: its thread looks like a consumer's, and its
 * next calls like the job's work) or the same bytes queued twice: which
 * is the consumer is not decided, so neither's work is exact.
 */
static void del_twins(struct vp_queues *q, struct vp_qdel *d)
{
	for (size_t i = 0; i < q->ndel && !d->fans; i++)
		if (q->del[i]->proto == d->proto && q->del[i]->msg == d->msg)
			q->del[i]->partial = d->partial = true;
}

/*
 * The consumer thread of e, added when it is new (*first).  Its root calls that
 * came here before went out as roots, and they ended by q->now: a
 * delivery that opened before then may lack some of its work.
 */
static struct vp_qthread *thread_get(struct vp_queues *q, const struct vp_call_end *e, bool *first)
{
	for (size_t i = 0; i < q->nthr; i++)
		if (same_thread_end(&q->thr[i], e)) {
			*first = false;
			return &q->thr[i];
		}
	*first = true;
	q->thr = grow(q->thr, &q->thrcap, q->nthr + 1, sizeof(*q->thr));
	q->thr[q->nthr] = thread_of(e);
	q->thr[q->nthr].known = q->now;
	return &q->thr[q->nthr++];
}

/*
 * The delivery wait c's reply opens on its thread; partial: the thread's
 * first wait seen, or one that opened before the thread was known.
 */
static struct vp_qdel *del_new(struct vp_queues *q, struct vp_request *r, bool partial)
{
	const struct vp_call *c = r->root;
	struct vp_qdel *d = calloc(1, sizeof(*d));

	if (!d)
		abort();
	d->host = c->client.host;
	d->pid = c->client.pid;
	d->tid = c->client.tid;
	d->proto = c->wit.proto;
	d->fans = fans_out(&c->wit);
	d->msg = c->wit.qmsg;
	d->qid = c->wit.qid;
	d->open_ns = c->end_ns;
	d->close_ns = INT64_MAX;
	d->cookie = c->client.cookie;
	d->idx = c->conn_index;
	d->close_idx = CLOSE_NONE;
	d->partial = partial;
	del_twins(q, d);
	del_add(d, r);
	return d;
}

/*
 * Wait c ends its thread's delivery before it.  Requests come in the
 * order their paths end, not always their threads' (a wait whose call a
 * relay forwarded may come after the next one): a wait that comes late
 * splits the delivery whose window it falls in, and the work from its
 * start on goes to its own delivery d (or out: a wait that delivered
 * nothing).  A late wait whose earlier delivery is gone (settled) leaves
 * d's work short, so d is not exact.
 */
static void del_close(struct vp_queues *q, const struct vp_call *c, struct vp_qdel *d, bool late)
{
	for (size_t i = 0; i < q->ndel; i++) {
		struct vp_qdel *o = q->del[i];
		size_t n = 1;

		if (!same_thread(o, &c->client) || o->open_ns > c->start_ns ||
		    o->close_ns <= c->start_ns)
			continue;
		late = false;
		if (d) { /* the late wait's delivery ends where o did: at the next wait */
			d->close_ns = o->close_ns;
			d->close_idx = o->close_idx;
		}
		o->close_ns = c->start_ns;
		o->close_idx = c->client.cookie == o->cookie ? c->conn_index : CLOSE_ELSEWHERE;
		for (size_t k = 1; k < o->n; k++) {
			struct vp_request *w = o->reqs[k];

			if (w->root->start_ns < c->start_ns)
				o->reqs[n++] = w;
			else if (d && w->root->start_ns >= d->open_ns)
				del_add(d, w);
			else
				q->out(q->ctx, w);
		}
		o->n = n;
	}
	if (d)
		d->partial |= late;
}

/*
 * Whether d's window is not known whole: the exchanges of its wait's
 * connection between its wait and the next (conn_index) did not all come
 * as its work.  One missing is a wait or a call whose path has not come
 * yet (through a relay a BRPOP's path can end seconds after its thread's
 * next one), or a call that went out elsewhere: the window's end, or its
 * work, is not decided.  A next wait on another connection says nothing
 * of the exchanges between.
 */
static bool del_gap(const struct vp_qdel *d)
{
	uint32_t seen = 0;

	if (d->close_idx == CLOSE_NONE)
		return false;
	if (d->close_idx == CLOSE_ELSEWHERE || d->close_idx <= d->idx)
		return true;
	for (size_t k = 1; k < d->n; k++) {
		const struct vp_call *w = d->reqs[k]->root;

		seen += w->client.cookie == d->cookie && w->conn_index > d->idx &&
			w->conn_index < d->close_idx;
	}
	return seen != d->close_idx - d->idx - 1;
}

/* A wait on a list: it ends the thread's delivery before it; one that delivers opens the next. */
static void on_wait(struct vp_queues *q, struct vp_request *r)
{
	const struct vp_call *c = r->root;
	bool first;
	struct vp_qthread *th = thread_get(q, &c->client, &first);
	bool late = c->start_ns < th->last_wait;
	struct vp_qdel *d =
		c->wit.qkind == VP_WIT_Q_POP ? del_new(q, r, first || c->end_ns < th->known) : NULL;

	if (!late)
		th->last_wait = c->start_ns;
	del_close(q, c, d, late);
	loose_place(q, c);
	if (!d) {
		q->out(q->ctx, r);
		return;
	}
	q->del = grow(q->del, &q->delcap, q->ndel + 1, sizeof(*q->del));
	q->del[q->ndel++] = d;
}

/* find_pushes' outer push: none yet. */
#define NO_PUSH SIZE_MAX

/*
 * The request's pushes.  One below a push of the same message (q->push
 * [outer]) is that push relayed (a proxy in TCP mode forwarding the LPUSH
 * to Redis): one message, not two that would make every delivery of it
 * ambiguous.  The outer one, the publisher's own call, is the push: its
 * consumer's delivery is the call it made to the same relay.  Indices, not
 * pointers: the array grows as pushes are found.
 */
static void find_pushes(struct vp_queues *q, struct vp_qpub *pub, struct vp_call *c, size_t outer)
{
	if (c->wit.qkind == VP_WIT_Q_PUSH && c->complete) {
		const struct vp_witness *o = outer == NO_PUSH ? NULL : &q->push[outer].call->wit;

		if (!o || o->proto != c->wit.proto || o->qmsg != c->wit.qmsg) {
			q->push = grow(q->push, &q->pushcap, q->npush + 1, sizeof(*q->push));
			q->push[q->npush] = (struct vp_qpush){
				.proto = c->wit.proto,
				.fans = fans_out(&c->wit),
				.msg = c->wit.qmsg,
				.call = c,
				.pub = pub,
				.at = c->end_ns,
				.qid = c->wit.qid,
			};
			outer = q->npush++;
			pub->pending++;
			if (c->end_ns > pub->last)
				pub->last = c->end_ns;
		}
	}
	for (size_t i = 0; i < c->ncalls; i++)
		find_pushes(q, pub, c->calls[i], outer);
}

/* Whether find_pushes would find a push in c's tree. */
static bool has_push(const struct vp_call *c)
{
	if (c->wit.qkind == VP_WIT_Q_PUSH && c->complete)
		return true;
	for (size_t i = 0; i < c->ncalls; i++)
		if (has_push(c->calls[i]))
			return true;
	return false;
}

/*
 * A request with pushes is held for them (true); one without is not
 * (false).  Most have none: they are told by a walk before anything is
 * allocated (a calloc and a free per request were 1% of `patterns`).
 */
static bool hold_publisher(struct vp_queues *q, struct vp_request *r)
{
	struct vp_qpub *pub;

	if (!has_push(r->root))
		return false;
	pub = calloc(1, sizeof(*pub));
	if (!pub)
		abort();
	pub->r = r;
	pub->last = INT64_MIN;
	find_pushes(q, pub, r->root, NO_PUSH);
	if (!pub->pending) {
		free(pub);
		return false;
	}
	q->pub = grow(q->pub, &q->pubcap, q->npub + 1, sizeof(*q->pub));
	q->pub[q->npub++] = pub;
	return true;
}

/* Publisher i goes out; its messages not delivered stay known, for a while, as candidates. */
static void pub_out(struct vp_queues *q, size_t i)
{
	struct vp_qpub *pub = q->pub[i];

	for (size_t k = 0; k < q->npush; k++)
		if (q->push[k].pub == pub) {
			q->push[k].pub = NULL;
			q->push[k].call = NULL;
			q->push[k].at = q->now;
		}
	/*
	 * A message no delivery took (its consumer not recorded, its delivery
	 * before the recording's start or after the hold): where its work went
	 * is not known, so the path that shows none is not exact.
	 */
	if (pub->pending)
		pub->r->exact = false;
	q->pub[i] = q->pub[--q->npub];
	q->out(q->ctx, pub->r);
	free(pub);
}

static void host_mask(const struct vp_call *c, uint64_t *m, size_t *n)
{
	int h = c->client.recorded ? c->client.host : -1;

	for (int k = 0; k < 2; k++, h = c->server.recorded ? c->server.host : -1)
		if (h >= 0 && h < 64 && !(*m & (1ull << h))) {
			*m |= 1ull << h;
			++*n;
		}
	for (size_t i = 0; i < c->ncalls; i++)
		host_mask(c->calls[i], m, n);
}

/* The message's time in the queue: on the broker's clock when it was recorded. */
static int64_t queue_time(const struct vp_call *push, const struct vp_call *pop)
{
	if (push->server.recorded && pop->server.recorded && push->server.host == pop->server.host)
		return pop->srv_rep_first - push->srv_req_first;
	return pop->end_ns - push->start_ns;
}

/* Request r, with what it owns, goes into p's block; its root becomes a child of call c. */
static void adopt(struct vp_request *p, struct vp_request *r)
{
	p->owned = realloc(p->owned, (p->nowned + r->nowned + 1) * sizeof(*p->owned));
	if (!p->owned)
		abort();
	if (r->nowned)
		memcpy(p->owned + p->nowned, r->owned, r->nowned * sizeof(*p->owned));
	p->nowned += r->nowned;
	free(r->owned);
	p->owned[p->nowned++] = r;
	p->ncalls += r->ncalls;
	p->complete &= r->complete;
}

/* Delivery d's requests hang under push s's call, in time order. */
static void graft(struct vp_queues *q, struct vp_qdel *d, struct vp_qpush *s)
{
	struct vp_call *c = s->call, **kids;
	struct vp_request *p = s->pub->r;
	const struct vp_call *pop = d->pop ? d->pop : d->reqs[0]->root;
	int64_t wait = queue_time(c, pop);
	size_t n = c->ncalls;
	uint64_t mask = 0;

	kids = malloc((n + d->n) * sizeof(*kids));
	if (!kids)
		abort();
	if (n)
		memcpy(kids, c->calls, n * sizeof(*kids));
	for (size_t i = 0; i < d->n; i++) {
		struct vp_call *k = d->reqs[i]->root;
		/* Work whose call some request might have made is not decided by the thread. */
		bool own = k == pop || k->link.basis == VP_BASIS_ROOT;
		size_t j = n++;

		k->link = vp_link_make(VP_BASIS_QUEUED, 1);
		k->link.exact = own && !d->partial && (!d->sure || d->sure[i]);
		k->queue_ns = wait;
		p->exact &= k->link.exact && d->reqs[i]->exact;
		q->hops++;
		q->hops_exact += k->link.exact;
		for (; j > 0 && kids[j - 1]->start_ns > k->start_ns; j--)
			kids[j] = kids[j - 1];
		kids[j] = k;
		adopt(p, d->reqs[i]);
	}
	p->owned = realloc(p->owned, (p->nowned + 1) * sizeof(*p->owned));
	if (!p->owned)
		abort();
	p->owned[p->nowned++] = kids;
	p->exact &= !d->shared;
	c->calls = kids;
	c->ncalls = n;
	p->nhosts = 0;
	host_mask(p->root, &mask, &p->nhosts);
}

static void del_free(struct vp_qdel *d)
{
	free(d->sure);
	free(d->reqs);
	free(d);
}

/*
 * The push delivery d took (NULL: none decides it).  With an id on both
 * sides (a stream entry's), the push with d's id; else the one push not
 * yet taken with d's bytes.  A delivery with an id decided by bytes alone
 * is not exact: a stream's entry can be read again (XREAD by another
 * reader, XREADGROUP of pending entries), so "not yet taken" proves less
 * than for a list.
 */
static struct vp_qpush *pick_push(struct vp_queues *q, struct vp_qdel *d)
{
	struct vp_qpush *s = NULL;
	size_t cands = 0;

	for (size_t k = 0; k < q->npush; k++) {
		struct vp_qpush *p = &q->push[k];

		if (p->msg != d->msg || p->proto != d->proto ||
		    (d->qid && p->qid && p->qid != d->qid))
			continue;
		if (d->qid && p->qid == d->qid)
			return p->taken ? NULL : p;
		if (!p->taken || p->fans) {
			cands++;
			s = p;
		}
	}
	d->partial |= d->qid != 0; /* not decided by its id */
	return cands == 1 ? s : NULL;
}

/* Delivery d is settled: hung under push s, or (NULL) passed on as it was. */
static void settle_to(struct vp_queues *q, struct vp_qdel *d, struct vp_qpush *s)
{
	bool first = s && !s->taken;

	if (s)
		s->taken = true;
	if (s && s->call) {
		if (d->n)
			graft(q, d, s);
		else /* a message of a read of several whose work none of the read's calls showed */
			s->pub->r->exact &= !d->shared;
		if (s->fans)
			s->pub->until = q->now + VP_QUEUE_SETTLE_NS;
		if (first && !--s->pub->pending && !s->fans)
			for (size_t k = 0; k < q->npub; k++)
				if (q->pub[k] == s->pub) {
					pub_out(q, k);
					break;
				}
	} else {
		for (size_t k = 0; k < d->n; k++)
			q->out(q->ctx, d->reqs[k]);
	}
	del_free(d);
}

/* Delivery d's part for message m of its read: like d, with none of its requests yet. */
static struct vp_qdel *del_part(const struct vp_qdel *d, size_t m, size_t most)
{
	struct vp_qdel *p = malloc(sizeof(*p));
	bool *sure = calloc(most, sizeof(*sure));

	if (!p || !sure)
		abort();
	*p = (struct vp_qdel){.host = d->host,
			      .pid = d->pid,
			      .tid = d->tid,
			      .proto = d->proto,
			      .fans = d->fans,
			      .qid = d->qid,
			      .open_ns = d->open_ns,
			      .close_ns = d->close_ns,
			      .partial = d->partial,
			      .sure = sure,
			      .pop = d->reqs[0]->root};
	p->msg = p->pop->wit.qmsgs[m];
	return p;
}

static int by_start(const void *a, const void *b)
{
	int64_t x = (*(struct vp_request *const *)a)->root->start_ns,
		y = (*(struct vp_request *const *)b)->root->start_ns;

	return (x > y) - (x < y);
}

/*
 * A read that left messages unseen (VP_WIT_MORE): the push whose message
 * (its PUBLISH's fields) alone among those held holds a field of call c,
 * the same for every such field; NULL when none, or a held one cannot
 * tell (its fields not all kept).
 */
static struct vp_qpush *unseen_push(struct vp_queues *q, uint8_t proto, const struct vp_call *c)
{
	uint64_t f[VP_QREAD_FIELDS_MAX];
	size_t nf = vp_qread__fields(c, f);
	struct vp_qpush *who = NULL;

	for (size_t i = 0; nf != SIZE_MAX && i < nf; i++) {
		struct vp_qpush *one = NULL;
		size_t n = 0;

		for (size_t k = 0; k < q->npush; k++) {
			const struct vp_qpush *s = &q->push[k];

			if (!s->fans || !s->call || s->proto != proto)
				continue;
			if (s->call->wit.nqkeys == VP_WIT_QKEYS_UNKNOWN)
				return NULL;
			if (vp_qread__holds(&s->call->wit, f[i])) {
				one = &q->push[k];
				n++;
			}
		}
		if (n != 1)
			continue;
		if (who && who != one)
			return NULL;
		who = one;
	}
	return who;
}

/*
 * The calls of read d that its seen messages did not place, each under the
 * unseen message its fields name (unseen_push), inferred; or out.
 */
static void place_unseen(struct vp_queues *q, struct vp_qdel *d, struct vp_request *r)
{
	struct vp_qpush *s = unseen_push(q, d->proto, r->root);
	struct vp_qdel *p;

	if (!s) {
		q->out(q->ctx, r);
		return;
	}
	p = del_part(d, 0, 1);
	p->msg = s->msg;
	p->shared = true;
	del_add(p, r);
	settle_to(q, p, s);
}

/*
 * Delivery d read several messages at once (qread.h): each call of its work
 * goes, with its message, under that message's push; the read itself with
 * the first message, exact only when every call's content was decided.
 * When content decides no call, all of it passes on as it was.
 */
static void settle_read(struct vp_queues *q, struct vp_qdel *d)
{
	const struct vp_witness *w = &d->reqs[0]->root->wit;
	size_t n = d->n - 1, nm = w->nqmsgs;
	struct vp_qdel *part[VP_WIT_QMSGS_MAX];
	const struct vp_call **calls = malloc((n + 1) * sizeof(*calls));
	int *owner = malloc((n + 1) * sizeof(*owner));
	bool *sure = malloc((n + 1) * sizeof(*sure)), all = true;

	if (!calls || !owner || !sure)
		abort();
	qsort(d->reqs + 1, n, sizeof(*d->reqs), by_start);
	for (size_t k = 0; k < n; k++)
		calls[k] = d->reqs[k + 1]->root;
	if (!vp_qread__place(w, calls, n, owner, sure)) {
		settle_to(q, d, NULL);
		goto out;
	}
	for (size_t m = 0; m < nm; m++)
		part[m] = del_part(d, m, d->n);
	for (size_t k = 0; k < n; k++)
		all &= sure[k];
	part[0]->sure[0] = all;
	del_add(part[0], d->reqs[0]);
	for (size_t k = 0; k < n; k++) {
		struct vp_qdel *p = owner[k] >= 0 ? part[owner[k]] : NULL;

		if (!p) {
			place_unseen(q, d, d->reqs[k + 1]);
			continue;
		}
		p->sure[p->n] = sure[k];
		del_add(p, d->reqs[k + 1]);
	}
	for (size_t m = 0; m < nm; m++) {
		part[m]->shared = !all;
		settle_to(q, part[m], pick_push(q, part[m]));
	}
	d->n = 0;
	del_free(d);
out:
	free(calls);
	free(owner);
	free(sure);
}

/* Delivery i is settled: hung under its one push (each of its messages' own), or passed on. */
static void settle(struct vp_queues *q, size_t i)
{
	struct vp_qdel *d = q->del[i];

	q->del[i] = q->del[--q->ndel];
	d->partial |= del_gap(d); /* before a read's parts copy it */
	if (d->reqs[0]->root->wit.nqmsgs)
		settle_read(q, d);
	else
		settle_to(q, d, pick_push(q, d));
}

/* Drops the pushes that can no longer be candidates: taken with their request gone, or old. */
static void pushes_prune(struct vp_queues *q)
{
	size_t o = 0;

	for (size_t k = 0; k < q->npush; k++) {
		struct vp_qpush *s = &q->push[k];

		if (!s->pub && ((s->taken && !s->fans) || s->at + VP_QUEUE_HOLD_NS <= q->now))
			continue;
		q->push[o++] = *s;
	}
	q->npush = o;
}

/* What waited long enough goes out; all of it at the end. */
static void release(struct vp_queues *q, bool all)
{
	if (all)
		q->nthr = 0; /* no wait comes any more: every consumer call is placed */
	loose_place(q, NULL);
	for (size_t i = 0; i < q->ndel;) {
		struct vp_qdel *d = q->del[i];

		if (all || (d->close_ns != INT64_MAX && d->close_ns + VP_QUEUE_SETTLE_NS <= q->now))
			settle(q, i);
		else
			i++;
	}
	for (size_t i = 0; i < q->npub;) {
		const struct vp_qpub *p = q->pub[i];

		if (all || p->last + VP_QUEUE_HOLD_NS <= q->now ||
		    (!p->pending && p->until <= q->now))
			pub_out(q, i);
		else
			i++;
	}
	pushes_prune(q);
}

void vp_queues__request(void *ctx, struct vp_request *r)
{
	struct vp_queues *q = ctx;

	if (r->root->end_ns > q->now)
		q->now = r->root->end_ns;
	if (is_wait(r->root)) {
		on_wait(q, r);
	} else if (is_consumer(q, &r->root->client)) {
		q->loose = grow(q->loose, &q->loosecap, q->nloose + 1, sizeof(*q->loose));
		q->loose[q->nloose++] = (struct vp_qloose){r, thread_of(&r->root->client)};
	} else if (!hold_publisher(q, r)) {
		q->out(q->ctx, r);
	}
	if (q->ndel || q->npub || q->npush || q->nloose)
		release(q, false);
}

void vp_queues__flush(struct vp_queues *q)
{
	release(q, true);
}

void vp_queues__free(struct vp_queues *q)
{
	for (size_t i = 0; i < q->ndel; i++) {
		for (size_t k = 0; k < q->del[i]->n; k++)
			vp_request__free(q->del[i]->reqs[k]);
		del_free(q->del[i]);
	}
	for (size_t i = 0; i < q->npub; i++) {
		vp_request__free(q->pub[i]->r);
		free(q->pub[i]);
	}
	for (size_t i = 0; i < q->nloose; i++)
		vp_request__free(q->loose[i].r);
	free(q->loose);
	free(q->thr);
	free(q->del);
	free(q->pub);
	free(q->push);
	memset(q, 0, sizeof(*q));
}
