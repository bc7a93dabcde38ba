// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Queues as hops (analyzer/queues.c) on requests written by hand: a
 * request with an LPUSH, a consumer thread's BRPOP that delivered the same
 * message, its work, its next BRPOP; the work hangs under the push, exact,
 * with the message's time in the queue.  Two pushes of the same bytes
 * link nothing; a request without Redis calls passes straight through.
 * Through a relay (haproxy in TCP mode): the LPUSH forwarded below the
 * publisher's is one message, not two; two deliveries of one message open
 * together (the relay's and the consumer's) are not exact.  A wait that
 * comes after its thread's next one takes its work back and ends at that
 * one; a delivery whose window was not seen whole (a wait missing between
 * it and the next, by conn_index), or that opened before its thread was
 * known as a consumer, is not exact.
 * A PUBLISH delivered to two subscribers hangs both's work.  Two pushes
 * read together split their work by the job id each call carries.  A push
 * no delivery took leaves its publisher not exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/fields.h"
#include "queues.h"

#define MS 1000000LL

struct got {
	struct vp_request *r[16];
	size_t n;
};

static void collect(void *ctx, struct vp_request *r)
{
	struct got *g = ctx;

	assert_true(g->n < 16);
	g->r[g->n++] = r;
}

static void end(struct vp_call_end *e, int host, uint32_t tid)
{
	e->recorded = host >= 0;
	e->host = host;
	e->pid = e->tid = tid;
}

/*
 * Each thread's Redis calls go on one connection of its own (cookie 100 +
 * tid), numbered in the order they are made here (conn_index); reset by
 * each test's setup.
 */
static uint32_t next_index[64];

static int index_reset(void **state)
{
	(void)state;
	memset(next_index, 0, sizeof(next_index));
	return 0;
}

/* A request of one call (room for a second), one block as paths.c makes them. */
static struct vp_request *req(int cli_host, uint32_t tid, int64_t start, int64_t end_ns,
			      const char *verb, uint8_t qkind, uint64_t msg)
{
	size_t n = 2;
	struct vp_request *r =
		calloc(1, sizeof(*r) + n * sizeof(struct vp_call) + sizeof(struct vp_call *));
	struct vp_call *c = (struct vp_call *)(r + 1);

	assert_non_null(r);
	r->root = c;
	r->ncalls = 1;
	r->exact = r->complete = true;
	end(&c->client, cli_host, tid);
	end(&c->server, 2, 99);
	c->start_ns = start;
	c->end_ns = end_ns;
	c->complete = true;
	c->link = vp_link_make(VP_BASIS_ROOT, 0);
	if (verb) {
		c->client.cookie = 100 + tid;
		c->conn_index = next_index[tid % 64]++;
		c->wit.proto = VP_PROTO_REDIS;
		strcpy(c->wit.verb, verb);
		c->wit.qkind = qkind;
		c->wit.qmsg = msg;
	}
	return r;
}

/* A web request (host 0) whose one call is an LPUSH of msg. */
static struct vp_request *publisher(int64_t at, uint64_t msg)
{
	struct vp_request *r = req(-1, 1, at, at + 3 * MS, NULL, 0, 0);
	struct vp_call *push = r->root + 1, **kids = (struct vp_call **)(push + 1);

	*push = *r->root;
	end(&push->client, 0, 5);
	end(&push->server, 2, 99);
	push->start_ns = at + MS;
	push->end_ns = at + 2 * MS;
	push->srv_req_first = at + MS + 100;
	push->wit.proto = VP_PROTO_REDIS;
	strcpy(push->wit.verb, "LPUSH");
	push->wit.qkind = VP_WIT_Q_PUSH;
	push->wit.qmsg = msg;
	end(&r->root->server, 0, 4);
	r->root->calls = kids;
	kids[0] = push;
	r->root->ncalls = 1;
	r->ncalls = 2;
	return r;
}

static void test_hop(void **state)
{
	struct vp_queues q;
	struct got g = {0};
	struct vp_request *pop;
	struct vp_call *push, *k;

	(void)state;
	vp_queues__init(&q, collect, &g);
	/* An earlier wait that timed out: the thread is a known consumer from then on. */
	vp_queues__request(&q, req(3, 10, -20 * MS, -MS, "BRPOP", 0, 0));
	pop = req(3, 10, 0, 10 * MS, "BRPOP", VP_WIT_Q_POP, 42);
	pop->root->srv_rep_first = 9 * MS;
	vp_queues__request(&q, publisher(5 * MS, 42));
	vp_queues__request(&q, pop);
	vp_queues__request(&q, req(3, 10, 12 * MS, 13 * MS, NULL, 0, 0));
	vp_queues__request(&q, req(3, 11, 12 * MS, 13 * MS, NULL, 0, 0)); /* another thread */
	vp_queues__request(&q, req(3, 10, 14 * MS, 20 * MS, "BRPOP", 0, 0));
	assert_int_equal(g.n, 3); /* the other thread's call and the empty waits */
	vp_queues__flush(&q);
	assert_int_equal(g.n, 4);
	push = g.r[3]->root->calls[0];
	assert_string_equal(push->wit.verb, "LPUSH");
	assert_int_equal(push->ncalls, 2);
	k = push->calls[0];
	assert_string_equal(k->wit.verb, "BRPOP");
	assert_int_equal(k->link.basis, VP_BASIS_QUEUED);
	assert_true(k->link.exact);
	assert_int_equal(k->queue_ns, 9 * MS - (6 * MS + 100));
	assert_int_equal(push->calls[1]->link.basis, VP_BASIS_QUEUED);
	assert_true(push->calls[1]->link.exact);
	assert_int_equal(push->calls[1]->start_ns, 12 * MS);
	assert_int_equal(g.r[3]->ncalls, 4);
	assert_true(g.r[3]->exact);
	assert_int_equal(q.hops_exact, 2);
	for (size_t i = 0; i < g.n; i++)
		vp_request__free(g.r[i]);
	vp_queues__free(&q);
}

/* The thread's first wait seen delivers: calls it made before may have gone out as roots. */
static void test_first_wait_not_exact(void **state)
{
	struct vp_queues q;
	struct got g = {0};
	struct vp_call *push;

	(void)state;
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, publisher(5 * MS, 42));
	vp_queues__request(&q, req(3, 10, 0, 10 * MS, "BRPOP", VP_WIT_Q_POP, 42));
	vp_queues__request(&q, req(3, 10, 12 * MS, 13 * MS, NULL, 0, 0));
	vp_queues__flush(&q);
	assert_int_equal(g.n, 1);
	push = g.r[0]->root->calls[0];
	assert_int_equal(push->ncalls, 2);
	assert_int_equal(push->calls[1]->link.basis, VP_BASIS_QUEUED);
	assert_false(push->calls[1]->link.exact);
	assert_false(g.r[0]->exact);
	vp_request__free(g.r[0]);
	vp_queues__free(&q);
}

/* A stream's XADD of msg whose reply gave entry id `id` (0: not captured). */
static struct vp_request *xadd(int64_t at, uint64_t msg, uint64_t id)
{
	struct vp_request *r = publisher(at, msg);

	strcpy(r->root->calls[0]->wit.verb, "XADD");
	r->root->calls[0]->wit.qid = id;
	return r;
}

/* An XREADGROUP that delivered entry (msg, id), then the thread's work and its next wait. */
static void consume_entry(struct vp_queues *q, uint64_t msg, uint64_t id)
{
	struct vp_request *d;

	vp_queues__request(q, req(3, 10, -20 * MS, -MS, "XREADGROUP", 0, 0));
	d = req(3, 10, 0, 10 * MS, "XREADGROUP", VP_WIT_Q_POP, msg);
	d->root->wit.qid = id;
	vp_queues__request(q, d);
	vp_queues__request(q, req(3, 10, 12 * MS, 13 * MS, NULL, 0, 0));
	vp_queues__request(q, req(3, 10, 14 * MS, 20 * MS, "XREADGROUP", 0, 0));
	vp_queues__flush(q);
}

/*
 * Stream entries: two XADDs of the same bytes, told apart by the id the
 * delivery shows (exact); by bytes alone (no id on the push side) the
 * one candidate is linked, inferred.
 */
static void test_stream_id(void **state)
{
	struct vp_queues q;
	struct got g = {0};
	struct vp_call *k;

	(void)state;
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, xadd(1 * MS, 7, 100));
	vp_queues__request(&q, xadd(2 * MS, 7, 101));
	consume_entry(&q, 7, 101);
	assert_int_equal(g.n, 4); /* the empty waits and the two publishers */
	assert_int_equal(q.hops, 2);
	assert_int_equal(q.hops_exact, 2);
	for (size_t i = 0; i < g.n; i++) {
		struct vp_call *c = g.r[i]->root;

		if (c->ncalls && c->start_ns == 2 * MS) {
			k = c->calls[0]->calls[1];
			assert_true(k->link.basis == VP_BASIS_QUEUED && k->link.exact);
		} else if (c->ncalls) {
			assert_int_equal(c->calls[0]->ncalls, 0);
		}
		vp_request__free(g.r[i]);
	}
	vp_queues__free(&q);
	memset(&g, 0, sizeof(g));
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, xadd(1 * MS, 7, 0));
	consume_entry(&q, 7, 101);
	assert_int_equal(q.hops, 2);
	assert_int_equal(q.hops_exact, 0);
	for (size_t i = 0; i < g.n; i++)
		vp_request__free(g.r[i]);
	vp_queues__free(&q);
}

static void test_same_bytes_twice(void **state)
{
	struct vp_queues q;
	struct got g = {0};

	(void)state;
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, publisher(1 * MS, 7));
	vp_queues__request(&q, publisher(2 * MS, 7));
	vp_queues__request(&q, req(3, 10, 0, 10 * MS, "BRPOP", VP_WIT_Q_POP, 7));
	vp_queues__request(&q, req(3, 10, 12 * MS, 13 * MS, NULL, 0, 0));
	vp_queues__flush(&q);
	assert_int_equal(g.n, 4);
	assert_int_equal(q.hops, 0);
	for (size_t i = 0; i < g.n; i++) {
		assert_int_not_equal(g.r[i]->root->link.basis, VP_BASIS_QUEUED);
		if (g.r[i]->root->ncalls)
			assert_int_equal(g.r[i]->root->calls[0]->ncalls, 0);
		vp_request__free(g.r[i]);
	}
	vp_queues__free(&q);
}

/* Publisher's LPUSH (to the relay) with the relay's LPUSH of the same message below it. */
static struct vp_request *relayed_publisher(int64_t at, uint64_t msg)
{
	struct vp_request *r = publisher(at, msg), *fwd = publisher(at, msg);
	struct vp_call *push = r->root->calls[0];

	fwd->root->calls[0]->link = vp_link_make(VP_BASIS_FORWARDED, 1);
	end(&fwd->root->calls[0]->client, 1, 7);
	push->calls = fwd->root->calls;
	push->ncalls = 1;
	r->ncalls = 3;
	r->owned = malloc(sizeof(*r->owned));
	assert_non_null(r->owned);
	r->owned[0] = fwd;
	r->nowned = 1;
	fwd->root->ncalls = 0;
	return r;
}

static void test_relayed_push(void **state)
{
	struct vp_queues q;
	struct got g = {0};
	struct vp_call *push;

	(void)state;
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, req(3, 10, -20 * MS, -MS, "BRPOP", 0, 0));
	vp_queues__request(&q, relayed_publisher(5 * MS, 42));
	vp_queues__request(&q, req(3, 10, 0, 10 * MS, "BRPOP", VP_WIT_Q_POP, 42));
	vp_queues__request(&q, req(3, 10, 12 * MS, 13 * MS, NULL, 0, 0));
	vp_queues__request(&q, req(3, 10, 14 * MS, 20 * MS, "BRPOP", 0, 0));
	vp_queues__flush(&q);
	assert_int_equal(g.n, 3);
	push = g.r[2]->root->calls[0];
	assert_int_equal(push->ncalls, 3); /* by start: the delivery, the relay's copy, the work */
	assert_int_equal(push->calls[0]->link.basis, VP_BASIS_QUEUED);
	assert_int_equal(push->calls[1]->link.basis, VP_BASIS_FORWARDED);
	assert_int_equal(push->calls[2]->link.basis, VP_BASIS_QUEUED);
	/* Through the relay as without it: the bytes and the thread's window decide. */
	assert_true(push->calls[0]->link.exact);
	assert_true(push->calls[2]->link.exact);
	for (size_t i = 0; i < g.n; i++)
		vp_request__free(g.r[i]);
	vp_queues__free(&q);
}

/* The relay's wait on the broker came as a root too: which delivery is the consumer's is open. */
static void test_relayed_delivery_twins(void **state)
{
	struct vp_queues q;
	struct got g = {0};

	(void)state;
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, req(3, 10, -20 * MS, -MS, "BRPOP", 0, 0));
	vp_queues__request(&q, req(1, 7, -20 * MS, -MS, "BRPOP", 0, 0));
	vp_queues__request(&q, publisher(5 * MS, 42));
	vp_queues__request(&q, req(1, 7, 0, 9 * MS, "BRPOP", VP_WIT_Q_POP, 42)); /* the relay's */
	vp_queues__request(&q, req(3, 10, 0, 10 * MS, "BRPOP", VP_WIT_Q_POP, 42));
	vp_queues__request(&q, req(1, 7, 11 * MS, 12 * MS, NULL, 0, 0)); /* another client's */
	vp_queues__request(&q, req(3, 10, 12 * MS, 13 * MS, NULL, 0, 0));
	vp_queues__request(&q, req(1, 7, 14 * MS, 20 * MS, "BRPOP", 0, 0));
	vp_queues__request(&q, req(3, 10, 14 * MS, 20 * MS, "BRPOP", 0, 0));
	vp_queues__flush(&q);
	assert_int_equal(q.hops_exact, 0);
	for (size_t i = 0; i < g.n; i++) {
		if (g.r[i]->root->link.basis == VP_BASIS_ROOT && g.r[i]->root->ncalls)
			assert_false(g.r[i]->exact);
		vp_request__free(g.r[i]);
	}
	vp_queues__free(&q);
}

/*
 * Thread 10's two jobs (messages 1 and 2, their work at 12 and 22 ms) and
 * the wait after them at 25 ms, all but the wait that delivered job 2:
 * returned, for the caller to send late.
 */
static struct vp_request *two_jobs(struct vp_queues *q)
{
	struct vp_request *second;

	vp_queues__request(q, req(3, 10, -20 * MS, -MS, "BRPOP", 0, 0));
	vp_queues__request(q, publisher(-10 * MS, 1));
	vp_queues__request(q, publisher(-9 * MS, 2));
	vp_queues__request(q, req(3, 10, 0, 10 * MS, "BRPOP", VP_WIT_Q_POP, 1));
	second = req(3, 10, 14 * MS, 20 * MS, "BRPOP", VP_WIT_Q_POP, 2); /* made before 25 ms */
	vp_queues__request(q, req(3, 10, 12 * MS, 13 * MS, NULL, 0, 0));
	vp_queues__request(q, req(3, 10, 22 * MS, 23 * MS, NULL, 0, 0));
	vp_queues__request(q, req(3, 10, 25 * MS, 30 * MS, "BRPOP", 0, 0));
	return second;
}

/* A wait that comes after its thread's next one (its path ended later) takes its work back. */
static void test_late_wait(void **state)
{
	struct vp_queues q;
	struct got g = {0};
	struct vp_request *late;

	(void)state;
	vp_queues__init(&q, collect, &g);
	late = two_jobs(&q);
	vp_queues__request(&q, late);
	vp_queues__flush(&q);
	assert_int_equal(q.hops, 4);
	assert_int_equal(q.hops_exact, 4);
	for (size_t i = 0; i < g.n; i++) {
		const struct vp_call *push = g.r[i]->root->ncalls ? g.r[i]->root->calls[0] : NULL;

		if (push && push->wit.qkind == VP_WIT_Q_PUSH) {
			assert_int_equal(push->ncalls, 2);
			assert_int_equal(push->calls[1]->start_ns,
					 push->wit.qmsg == 1 ? 12 * MS : 22 * MS);
		}
		vp_request__free(g.r[i]);
	}
	vp_queues__free(&q);
}

/* Under the push of msg in g's requests, the start of its second call (its work), or -1. */
static int64_t work_of(const struct got *g, uint64_t msg)
{
	for (size_t i = 0; i < g->n; i++) {
		const struct vp_call *push = g->r[i]->root->ncalls ? g->r[i]->root->calls[0] : NULL;

		if (push && push->wit.qkind == VP_WIT_Q_PUSH && push->wit.qmsg == msg)
			return push->ncalls == 2 ? push->calls[1]->start_ns : -1;
	}
	return -1;
}

static void got_free(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		vp_request__free(g->r[i]);
}

/*
 * The late wait's delivery ends at the next wait: the work after that
 * one is the next delivery's, even once the array of deliveries has been
 * reordered (another thread's delivery settled).
 */
static void test_late_wait_window_ends(void **state)
{
	struct vp_queues q;
	struct got g = {0};
	struct vp_request *late;

	(void)state;
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, req(3, 11, -5 * MS, -4 * MS, "BRPOP", VP_WIT_Q_POP, 4));
	vp_queues__request(&q, req(3, 11, -3 * MS, -2 * MS, "BRPOP", 0, 0));
	vp_queues__request(&q, req(3, 10, -20 * MS, -MS, "BRPOP", 0, 0));
	for (uint64_t m = 1; m <= 3; m++)
		vp_queues__request(&q, publisher(-10 * MS + (int64_t)m * MS, m));
	vp_queues__request(&q, req(3, 10, 0, 10 * MS, "BRPOP", VP_WIT_Q_POP, 1));
	late = req(3, 10, 14 * MS, 20 * MS, "BRPOP", VP_WIT_Q_POP, 2);
	vp_queues__request(&q, req(3, 10, 12 * MS, 13 * MS, NULL, 0, 0));
	vp_queues__request(&q, req(3, 10, 22 * MS, 23 * MS, NULL, 0, 0));
	vp_queues__request(&q, req(3, 10, 25 * MS, 30 * MS, "BRPOP", VP_WIT_Q_POP, 3));
	vp_queues__request(&q, late);
	vp_queues__request(&q, req(3, 12, 1100 * MS, 1100 * MS, NULL, 0, 0)); /* a second on */
	vp_queues__request(&q, req(3, 10, 32 * MS, 33 * MS, NULL, 0, 0));
	vp_queues__request(&q, req(3, 10, 35 * MS, 40 * MS, "BRPOP", 0, 0));
	vp_queues__flush(&q);
	assert_int_equal(work_of(&g, 1), 12 * MS);
	assert_int_equal(work_of(&g, 2), 22 * MS);
	assert_int_equal(work_of(&g, 3), 32 * MS);
	assert_int_equal(q.hops, 6);
	assert_int_equal(q.hops_exact, 6);
	got_free(&g);
	vp_queues__free(&q);
}

/*
 * A wait whose path comes after its delivery before settled (through a
 * relay, seconds late): the delivery before it, closed by the wait after
 * (a conn_index further on), did not see its window whole; not exact.
 */
static void test_missing_wait_not_exact(void **state)
{
	struct vp_queues q;
	struct got g = {0};
	struct vp_request *missing;

	(void)state;
	vp_queues__init(&q, collect, &g);
	missing = two_jobs(&q);
	vp_queues__request(&q, req(3, 12, 1100 * MS, 1100 * MS, NULL, 0, 0)); /* a second on */
	vp_queues__request(&q, missing);
	vp_queues__flush(&q);
	assert_true(q.hops > 0);
	assert_int_equal(q.hops_exact, 0);
	got_free(&g);
	vp_queues__free(&q);
}

/*
 * Not only the first delivery: work of any delivery that opened before
 * the thread's first wait came here may have gone out as roots.
 */
static void test_known_late_not_exact(void **state)
{
	struct vp_queues q;
	struct got g = {0};
	struct vp_request *w1, *w2;

	(void)state;
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, publisher(-10 * MS, 1));
	vp_queues__request(&q, publisher(-9 * MS, 2));
	w1 = req(3, 10, 0, 10 * MS, "BRPOP", VP_WIT_Q_POP, 1);
	w2 = req(3, 10, 14 * MS, 20 * MS, "BRPOP", VP_WIT_Q_POP, 2);
	vp_queues__request(&q, req(3, 10, 12 * MS, 13 * MS, NULL, 0, 0));
	vp_queues__request(&q, req(3, 10, 22 * MS, 23 * MS, NULL, 0, 0));
	vp_queues__request(&q, w1);
	vp_queues__request(&q, w2);
	vp_queues__request(&q, req(3, 10, 25 * MS, 30 * MS, "BRPOP", 0, 0));
	vp_queues__flush(&q);
	assert_int_equal(q.hops, 2); /* the deliveries: their work went out as roots */
	assert_int_equal(q.hops_exact, 0);
	got_free(&g);
	vp_queues__free(&q);
}

/* Subscriber thread tid subscribes. */
static void subscribe(struct vp_queues *q, uint32_t tid)
{
	vp_queues__request(q, req(3, tid, -30 * MS, -29 * MS, "SUBSCRIBE", 0, 0));
}

/*
 * Subscriber thread tid (subscribed before any of this came: its calls
 * are held from then on): a push delivering msg at `at`, its work, the
 * next push.
 */
static void subscriber(struct vp_queues *q, uint32_t tid, int64_t at, uint64_t msg)
{
	struct vp_request *del = req(3, tid, at, at, "MESSAGE", VP_WIT_Q_POP, msg);
	struct vp_request *next = req(3, tid, 40 * MS, 40 * MS, "MESSAGE", VP_WIT_Q_POP, 7);

	del->root->wit.flags = next->root->wit.flags = VP_WIT_FANOUT;
	vp_queues__request(q, del);
	vp_queues__request(q, req(3, tid, at + MS, at + 2 * MS, NULL, 0, 0));
	vp_queues__request(q, next);
}

/* Pub/sub fans out: both subscribers' deliveries and work hang under the one PUBLISH, exact. */
static void test_pubsub_fanout(void **state)
{
	struct vp_queues q;
	struct got g = {0};
	struct vp_request *pub = publisher(5 * MS, 42);
	struct vp_call *push = pub->root->calls[0];

	(void)state;
	strcpy(push->wit.verb, "PUBLISH");
	push->wit.flags = VP_WIT_FANOUT;
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, pub);
	subscribe(&q, 10);
	subscribe(&q, 20);
	subscriber(&q, 10, 8 * MS, 42);
	subscriber(&q, 20, 9 * MS, 42);
	vp_queues__flush(&q);
	assert_int_equal(push->ncalls, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(push->calls[i]->link.basis, VP_BASIS_QUEUED);
		assert_true(push->calls[i]->link.exact);
	}
	assert_int_equal(push->calls[0]->client.tid, 10);
	assert_string_equal(push->calls[0]->wit.verb, "MESSAGE");
	assert_int_equal(push->calls[2]->client.tid, 20);
	assert_int_equal(q.hops, 4);
	assert_int_equal(q.hops_exact, 4);
	for (size_t i = 0; i < g.n; i++)
		vp_request__free(g.r[i]);
	vp_queues__free(&q);
}

/* A subscriber's call to an HTTP back end at `at` whose target is `text`. */
static struct vp_request *http_call(uint32_t tid, int64_t at, const char *text)
{
	struct vp_request *r = req(3, tid, at, at + MS, NULL, 0, 0);

	r->root->wit.proto = VP_PROTO_HTTP;
	strcpy(r->root->wit.verb, "GET");
	strcpy(r->root->wit.text, text);
	return r;
}

/*
 * Subscriber 10 reads the pushes of messages 41 and 42 (jobs 17 and 18)
 * in one read, then makes `texts` calls (NULL: a call with no text, say
 * its own LPUSH), then reads again.  pub[]: the two PUBLISHes' requests.
 */
static void read_of_two(struct vp_queues *q, struct vp_request **pub, const char *const *texts,
			size_t n)
{
	struct vp_request *sub = req(3, 10, -30 * MS, -29 * MS, "SUBSCRIBE", 0, 0);
	struct vp_request *del = req(3, 10, 8 * MS, 8 * MS, "MESSAGE", VP_WIT_Q_POP, 41);
	struct vp_request *next = req(3, 10, 90 * MS, 90 * MS, "MESSAGE", VP_WIT_Q_POP, 7);
	struct vp_witness *w = &del->root->wit;
	static const char *const jobs[] = {"{\"id\": 17, \"k\": 1}", "{\"id\": 18, \"k\": 1}"};

	for (int i = 0; i < 2; i++) {
		uint64_t h;

		pub[i] = publisher((5 + i) * MS, 41 + (uint64_t)i);
		strcpy(pub[i]->root->calls[0]->wit.verb, "PUBLISH");
		pub[i]->root->calls[0]->wit.flags = VP_WIT_FANOUT;
		assert_int_equal(vp_fields((const uint8_t *)jobs[i], strlen(jobs[i]), &h, 1), 2);
		w->qkey_of[w->nqkeys] = (uint8_t)i; /* id: k is the same in both */
		w->qkeys[w->nqkeys++] = h;
		w->qmsgs[i] = 41 + (uint64_t)i;
	}
	w->nqmsgs = 2;
	w->flags = next->root->wit.flags = VP_WIT_FANOUT;
	vp_queues__request(q, sub); /* ended first: its thread is known as a consumer */
	vp_queues__request(q, pub[0]);
	vp_queues__request(q, pub[1]);
	vp_queues__request(q, del);
	for (size_t i = 0; i < n; i++)
		vp_queues__request(q, texts[i]
					      ? http_call(10, (10 + 10 * (int64_t)i) * MS, texts[i])
					      : req(3, 10, (10 + 10 * (int64_t)i) * MS,
						    (11 + 10 * (int64_t)i) * MS, "LPUSH", 0, 0));
	vp_queues__request(q, next);
}

/*
 * Two pushes read together: each call goes with the job whose id it
 * carries, exact; the call with no text after job 18's call goes with it by
 * order, inferred, so neither publisher is exact (it could have been 17's).
 */
static void test_pubsub_read_split(void **state)
{
	static const char *const texts[] = {"/w?id=17&step=0", NULL, "/w?id=18&step=0", NULL};
	struct vp_queues q;
	struct got g = {0};
	struct vp_request *pub[2];
	struct vp_call *a, *b;

	(void)state;
	vp_queues__init(&q, collect, &g);
	read_of_two(&q, pub, texts, 4);
	vp_queues__flush(&q);
	a = pub[0]->root->calls[0];
	b = pub[1]->root->calls[0];
	assert_int_equal(a->ncalls, 3); /* the read, job 17's call, its LPUSH */
	assert_string_equal(a->calls[0]->wit.verb, "MESSAGE");
	assert_false(a->calls[0]->link.exact);
	assert_string_equal(a->calls[1]->wit.text, "/w?id=17&step=0");
	assert_true(a->calls[1]->link.exact);
	assert_false(a->calls[2]->link.exact);
	assert_int_equal(b->ncalls, 2);
	assert_string_equal(b->calls[0]->wit.text, "/w?id=18&step=0");
	assert_true(b->calls[0]->link.exact);
	assert_int_equal(b->calls[1]->link.basis, VP_BASIS_QUEUED);
	assert_false(b->calls[1]->link.exact);
	assert_false(pub[0]->exact);
	assert_false(pub[1]->exact);
	for (size_t i = 0; i < g.n; i++)
		vp_request__free(g.r[i]);
	vp_queues__free(&q);
}

/*
 * Content that does not follow the read's order (18's id before 17's) is
 * not sure: both placed by it, inferred.  Content that decides no call
 * places nothing: every call stays a root.
 */
static void test_pubsub_read_unsure(void **state)
{
	static const char *const swapped[] = {"/w?id=18", "/w?id=17"};
	static const char *const none[] = {"/w?id=19", "/w?step=0"};
	struct vp_queues q;
	struct got g = {0};
	struct vp_request *pub[2];

	(void)state;
	vp_queues__init(&q, collect, &g);
	read_of_two(&q, pub, swapped, 2);
	vp_queues__flush(&q);
	assert_int_equal(pub[0]->root->calls[0]->ncalls, 2);
	assert_string_equal(pub[0]->root->calls[0]->calls[1]->wit.text, "/w?id=17");
	assert_false(pub[0]->root->calls[0]->calls[1]->link.exact);
	assert_int_equal(pub[1]->root->calls[0]->ncalls, 1);
	assert_false(pub[1]->root->calls[0]->calls[0]->link.exact);
	for (size_t i = 0; i < g.n; i++)
		vp_request__free(g.r[i]);
	vp_queues__free(&q);
	memset(&g, 0, sizeof(g));
	vp_queues__init(&q, collect, &g);
	read_of_two(&q, pub, none, 2);
	vp_queues__flush(&q);
	assert_int_equal(pub[0]->root->calls[0]->ncalls, 0);
	assert_int_equal(pub[1]->root->calls[0]->ncalls, 0);
	assert_int_equal(q.hops, 0);
	for (size_t i = 0; i < g.n; i++)
		vp_request__free(g.r[i]);
	vp_queues__free(&q);
}

/* A push no delivery took: the publisher's path, showing no work, is not exact. */
static void test_undelivered_not_exact(void **state)
{
	struct vp_queues q;
	struct got g = {0};

	(void)state;
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, publisher(0, 41));
	vp_queues__flush(&q);
	assert_int_equal(g.n, 1);
	assert_false(g.r[0]->exact);
	assert_true(g.r[0]->complete);
	vp_request__free(g.r[0]);
	vp_queues__free(&q);
}

static void test_pass_through(void **state)
{
	struct vp_queues q;
	struct got g = {0};

	(void)state;
	vp_queues__init(&q, collect, &g);
	vp_queues__request(&q, req(3, 10, 0, MS, NULL, 0, 0));
	assert_int_equal(g.n, 1);
	vp_queues__flush(&q);
	assert_int_equal(g.n, 1);
	vp_request__free(g.r[0]);
	vp_queues__free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_hop, index_reset),
		cmocka_unit_test_setup(test_first_wait_not_exact, index_reset),
		cmocka_unit_test_setup(test_same_bytes_twice, index_reset),
		cmocka_unit_test_setup(test_stream_id, index_reset),
		cmocka_unit_test_setup(test_relayed_push, index_reset),
		cmocka_unit_test_setup(test_relayed_delivery_twins, index_reset),
		cmocka_unit_test_setup(test_late_wait, index_reset),
		cmocka_unit_test_setup(test_late_wait_window_ends, index_reset),
		cmocka_unit_test_setup(test_missing_wait_not_exact, index_reset),
		cmocka_unit_test_setup(test_known_late_not_exact, index_reset),
		cmocka_unit_test_setup(test_pubsub_fanout, index_reset),
		cmocka_unit_test_setup(test_pubsub_read_split, index_reset),
		cmocka_unit_test_setup(test_pubsub_read_unsure, index_reset),
		cmocka_unit_test_setup(test_undelivered_not_exact, index_reset),
		cmocka_unit_test_setup(test_pass_through, index_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
