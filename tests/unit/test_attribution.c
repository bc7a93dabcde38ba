// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Attribution (paper §2.3, BorderPatrol §5.5) on hand-written recordings:
 * each test writes what the threads of a small system did, then checks the
 * call trees found (collect.h signatures) and the process model named.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../lib/collect.h"
#include "../lib/synth.h"

#define US(x) ((uint64_t)(x)*1000)

/* A loader (lg), a front end (web), a database (db) and an app tier, each its own host. */
struct world {
	char dir[64];
	char path[4][128];
	char *files[4];
	struct synth_host *lg, *web, *app, *db;
	struct collected c;
};

static int setup(void **state)
{
	static const char *const names[] = {"lg", "web", "app", "db"};
	static const char *const addrs[] = {"10.0.0.9", "10.0.0.1", "10.0.0.3", "10.0.0.2"};
	struct world *w = calloc(1, sizeof(*w));
	struct synth_host **hs[] = {&w->lg, &w->web, &w->app, &w->db};

	if (!w || synth_tmpdir(w->dir, sizeof(w->dir)))
		return -1;
	for (int i = 0; i < 4; i++) {
		snprintf(w->path[i], sizeof(w->path[i]), "%s/%s.vpr", w->dir, names[i]);
		w->files[i] = w->path[i];
		*hs[i] = synth_host__new(w->path[i], names[i], NULL, 1000 + (uint32_t)i);
		if (!*hs[i])
			return -1;
		synth_addr(*hs[i], addrs[i]);
	}
	synth_task(w->lg, 0, 900, 900, VPR_TASK_SNAPSHOT, "loadgen");
	synth_task(w->web, 0, 300, 300, VPR_TASK_SNAPSHOT, "web");
	synth_task(w->db, 0, 400, 400, VPR_TASK_SNAPSHOT, "db");
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;

	collected_free(&w->c);
	synth_rmdir(w->dir);
	free(w);
	return 0;
}

/* Close the recordings and analyze them; returns the signatures. */
static const char *analyze(struct world *w)
{
	struct synth_host **hs[] = {&w->lg, &w->web, &w->app, &w->db};

	for (int i = 0; i < 4; i++) {
		assert_int_equal(synth_host__close(*hs[i]), 0);
		*hs[i] = NULL;
	}
	assert_int_equal(collect_run(&w->c, w->files, 4, NULL), 0);
	return collected_sigs(&w->c);
}

static const char *model_of(struct world *w, const char *host, unsigned pid)
{
	const struct vp_proc *p = collected_proc(&w->c, host, pid);

	assert_non_null(p);
	return vp_model_name(vp_proc__model(p));
}

/* Two clients of web (l1, l2) and two web -> db connections (d1, d2): most tests use these. */
struct links {
	struct synth_link *l1, *l2, *d1, *d2;
};

static struct links open_links(struct world *w)
{
	struct links k;

	k.l1 = synth_link__open(w->lg, 1, 900, w->web, 11, 300, "10.0.0.9:40001", "10.0.0.1:80", 0);
	k.l2 = synth_link__open(w->lg, 2, 900, w->web, 12, 300, "10.0.0.9:40002", "10.0.0.1:80", 0);
	k.d1 = synth_link__open(w->web, 21, 300, w->db, 31, 400, "10.0.0.1:50001", "10.0.0.2:5432",
				0);
	k.d2 = synth_link__open(w->web, 22, 300, w->db, 32, 400, "10.0.0.1:50002", "10.0.0.2:5432",
				0);
	return k;
}

static void free_links(struct links *k)
{
	synth_link__free(k->l1);
	synth_link__free(k->l2);
	synth_link__free(k->d1);
	synth_link__free(k->d2);
}

/* Reset all four at ts (synth_link__close) and free them. */
static void close_links(struct links *k, uint64_t ts)
{
	synth_link__close(k->l1, ts);
	synth_link__close(k->l2, ts);
	synth_link__close(k->d1, ts);
	synth_link__close(k->d2, ts);
}

/* Two clients, one web thread per connection, each calls the database once. */
static void test_thread_per_connection(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	/* The load generator's main thread execs: the process takes the new name. */
	synth_task(w->lg, 1, 900, 901, VPR_TASK_FORK, "loadgen");
	synth_task(w->lg, 2, 900, 900, VPR_TASK_EXEC, "curl");

	synth_req(k.l1, 100, 901, US(100), 301);
	synth_req(k.l2, 100, 902, US(101), 302);
	synth_req(k.d1, 50, 301, US(120), 401);
	synth_req(k.d2, 50, 302, US(121), 402);
	synth_rep(k.d2, 70, 402, US(130), 302);
	synth_rep(k.d1, 70, 401, US(131), 301);
	synth_rep(k.l2, 500, 302, US(140), 902);
	synth_rep(k.l1, 500, 301, US(141), 901);
	close_links(&k, US(200));

	assert_string_equal(analyze(w),
			    "lg/901>web/301(web/301>db/401) | lg/902>web/302(web/302>db/402)");
	assert_true(w->c.reqs[0]->complete);
	assert_int_equal(w->c.reqs[0]->root->request_bytes, 100);
	assert_int_equal(w->c.reqs[0]->root->reply_bytes, 500);
	assert_int_equal(w->c.reqs[0]->nhosts, 3);
	assert_string_equal(model_of(w, "web", 300), "thread-per-request");
	assert_string_equal(collected_proc(&w->c, "lg", 900)->comm, "curl");
	assert_string_equal(model_of(w, "lg", 900), "client");
}

/* A dispatcher thread reads every request; workers call the database and reply. */
static void test_dispatcher_worker(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	synth_req(k.l1, 100, 901, US(100), 310); /* dispatcher 310 reads both */
	synth_req(k.l2, 100, 902, US(101), 310);
	/* Worker 312 got the second request first. */
	synth_req(k.d2, 50, 312, US(110), 402);
	synth_req(k.d1, 50, 311, US(111), 401);
	synth_rep(k.d1, 70, 401, US(130), 311);
	synth_rep(k.d2, 70, 402, US(131), 312);
	synth_rep(k.l1, 500, 311, US(140), 901);
	synth_rep(k.l2, 500, 312, US(141), 902);

	assert_string_equal(analyze(w),
			    "lg/901>web/311(web/311>db/401) | lg/902>web/312(web/312>db/402)");
	assert_string_equal(model_of(w, "web", 300), "dispatcher-worker");
	free_links(&k);
}

/*
 * A worker pool shares two persistent database connections, opened before
 * the recording: each request takes whichever is free, so a connection
 * carries calls of different requests and threads in turn.
 */
static void test_pool_reused_backend_connections(void **state)
{
	struct world *w = *state;
	struct synth_link *l[3], *p[2];

	for (int i = 0; i < 3; i++) {
		char a[32];

		snprintf(a, sizeof(a), "10.0.0.9:4000%d", i);
		l[i] = synth_link__open(w->lg, 1 + (uint64_t)i, 900, w->web, 11 + (uint64_t)i, 300,
					a, "10.0.0.1:80", 0);
	}
	p[0] = synth_link__open_as(w->web, 21, 300, w->db, 31, 400, "10.0.0.1:50001",
				   "10.0.0.2:5432", 0, VPR_CONN_PREEXISTING, true);
	p[1] = synth_link__open_as(w->web, 22, 300, w->db, 32, 400, "10.0.0.1:50002",
				   "10.0.0.2:5432", 0, VPR_CONN_PREEXISTING, true);
	/* Request A (worker 311): p0 then p1.  Request B (worker 312) overlaps: p1 then p0. */
	synth_req(l[0], 100, 901, US(100), 310);
	synth_req(l[1], 100, 902, US(102), 310);
	synth_req(p[0], 40, 311, US(110), 401);
	synth_req(p[1], 40, 312, US(111), 402);
	synth_rep(p[0], 60, 401, US(120), 311);
	synth_rep(p[1], 60, 402, US(121), 312);
	synth_req(p[1], 41, 311, US(130), 402);
	synth_req(p[0], 42, 312, US(131), 401);
	synth_rep(p[1], 61, 402, US(140), 311);
	synth_rep(p[0], 62, 401, US(141), 312);
	synth_rep(l[0], 500, 311, US(150), 901);
	synth_rep(l[1], 500, 312, US(151), 902);
	/* Request C, later, by worker 311 again, on p0. */
	synth_req(l[2], 100, 903, US(200), 310);
	synth_req(p[0], 43, 311, US(210), 401);
	synth_rep(p[0], 63, 401, US(220), 311);
	synth_rep(l[2], 500, 311, US(230), 903);

	assert_string_equal(analyze(w), "lg/901>web/311(web/311>db/401,web/311>db/402) | "
					"lg/902>web/312(web/312>db/402,web/312>db/401) | "
					"lg/903>web/311(web/311>db/401)");
	/* The k-th exchange on the pooled connection p0: A's, B's, C's. */
	assert_int_equal(w->c.reqs[0]->root->calls[0]->conn_index, 0);
	assert_int_equal(w->c.reqs[1]->root->calls[1]->conn_index, 1);
	assert_int_equal(w->c.reqs[2]->root->calls[0]->conn_index, 2);
	assert_int_equal(w->c.reqs[1]->root->calls[1]->request_bytes, 42);
	for (int i = 0; i < 3; i++)
		synth_link__free(l[i]);
	synth_link__free(p[0]);
	synth_link__free(p[1]);
}

/* lg -> web -> app -> db, each tier thread per connection. */
static void test_nested_three_tiers(void **state)
{
	struct world *w = *state;
	struct synth_link *l, *m, *d;

	l = synth_link__open(w->lg, 1, 900, w->web, 11, 300, "10.0.0.9:40001", "10.0.0.1:80", 0);
	m = synth_link__open(w->web, 21, 300, w->app, 41, 500, "10.0.0.1:50001", "10.0.0.3:8080",
			     0);
	d = synth_link__open(w->app, 51, 500, w->db, 31, 400, "10.0.0.3:51001", "10.0.0.2:5432", 0);
	synth_req(l, 100, 901, US(100), 301);
	synth_req(m, 80, 301, US(110), 501);
	synth_req(d, 60, 501, US(120), 401);
	synth_rep(d, 70, 401, US(130), 501);
	synth_rep(m, 90, 501, US(140), 301);
	synth_rep(l, 100, 301, US(150), 901);

	assert_string_equal(analyze(w), "lg/901>web/301(web/301>app/501(app/501>db/401))");
	/* Each call lies inside its parent on the common timeline. */
	{
		const struct vp_call *r = w->c.reqs[0]->root, *c1 = r->calls[0], *c2 = c1->calls[0];

		assert_true(r->start_ns <= c1->start_ns && c1->end_ns <= r->end_ns);
		assert_true(c1->start_ns <= c2->start_ns && c2->end_ns <= c1->end_ns);
		assert_int_equal(c2->end_ns - c2->start_ns, US(15));
	}
	synth_link__free(l);
	synth_link__free(m);
	synth_link__free(d);
}

/* One request calls three back ends one after another, one of them twice. */
static void test_sequential_calls(void **state)
{
	struct world *w = *state;
	struct synth_link *l, *d, *a;

	l = synth_link__open(w->lg, 1, 900, w->web, 11, 300, "10.0.0.9:40001", "10.0.0.1:80", 0);
	d = synth_link__open(w->web, 21, 300, w->db, 31, 400, "10.0.0.1:50001", "10.0.0.2:5432", 0);
	a = synth_link__open(w->web, 22, 300, w->app, 41, 500, "10.0.0.1:50002", "10.0.0.3:8080",
			     0);
	synth_req(l, 100, 901, US(100), 301);
	synth_req(d, 10, 301, US(110), 401);
	synth_rep(d, 10, 401, US(120), 301);
	synth_req(a, 10, 301, US(130), 501);
	synth_rep(a, 10, 501, US(140), 301);
	synth_req(d, 10, 301, US(150), 401);
	synth_rep(d, 10, 401, US(160), 301);
	synth_rep(l, 100, 301, US(170), 901);

	assert_string_equal(analyze(w),
			    "lg/901>web/301(web/301>db/401,web/301>app/501,web/301>db/401)");
	synth_link__free(l);
	synth_link__free(d);
	synth_link__free(a);
}

/* TPC-W pipelining: the reply goes out in three parts with calls in between. */
static void test_reply_in_parts(void **state)
{
	struct world *w = *state;
	struct synth_link *l, *d;

	l = synth_link__open(w->lg, 1, 900, w->web, 11, 300, "10.0.0.9:40001", "10.0.0.1:80", 0);
	d = synth_link__open(w->web, 21, 300, w->db, 31, 400, "10.0.0.1:50001", "10.0.0.2:5432", 0);
	synth_req(l, 100, 901, US(100), 301);
	synth_rep(l, 1000, 301, US(110), 901); /* headers */
	synth_req(d, 10, 301, US(120), 401);
	synth_rep(d, 10, 401, US(130), 301);
	synth_rep(l, 2000, 301, US(140), 901); /* body, part 1 */
	synth_req(d, 10, 301, US(150), 401);
	synth_rep(d, 10, 401, US(160), 301);
	synth_rep(l, 3000, 301, US(170), 901); /* body, part 2 */
	/* The next request on the keep-alive connection is a request of its own. */
	synth_req(l, 100, 901, US(300), 301);
	synth_rep(l, 10, 301, US(310), 901);

	assert_string_equal(analyze(w),
			    "lg/901>web/301(web/301>db/401,web/301>db/401) | lg/901>web/301");
	assert_int_equal(w->c.reqs[0]->root->reply_bytes, 6000);
	assert_int_equal(w->c.reqs[0]->root->end_ns - w->c.reqs[0]->root->start_ns, US(75));
	assert_int_equal(w->c.reqs[1]->root->conn_index, 1);
	synth_link__free(l);
	synth_link__free(d);
}

/* MySQL-style: the database greets first; the greeting is connection setup. */
static void test_server_greeting(void **state)
{
	struct world *w = *state;
	struct synth_link *l, *d;

	l = synth_link__open(w->lg, 1, 900, w->web, 11, 300, "10.0.0.9:40001", "10.0.0.1:80", 0);
	d = synth_link__open(w->web, 21, 300, w->db, 31, 400, "10.0.0.1:50001", "10.0.0.2:3306", 0);
	synth_rep(d, 78, 401, US(50), 301); /* greeting */
	synth_req(d, 30, 301, US(60), 401); /* login */
	synth_rep(d, 11, 401, US(70), 301);
	synth_req(l, 100, 901, US(100), 301);
	synth_req(d, 40, 301, US(110), 401);
	synth_rep(d, 90, 401, US(120), 301);
	synth_rep(l, 100, 301, US(130), 901);

	/* The login before any request is a root of its own, the query belongs to the request. */
	assert_string_equal(analyze(w), "web/301>db/401 | lg/901>web/301(web/301>db/401)");
	assert_int_equal(w->c.reqs[0]->root->conn_index, 0);
	assert_int_equal(w->c.reqs[0]->root->request_bytes, 30);
	assert_int_equal(w->c.reqs[1]->root->calls[0]->conn_index, 1);
	assert_int_equal(w->c.reqs[1]->root->calls[0]->reply_bytes, 90);
	synth_link__free(l);
	synth_link__free(d);
}

/*
 * One event-loop thread serves two requests at once with non-blocking calls
 * to the database.  After the first call's reply it makes a second call for
 * request 1, then answers request 2 first: only the event-driven rule (the
 * call follows the input that carried request 1) gets the second call right.
 */
static void test_event_loop_interleaving(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	synth_req(k.l1, 100, 901, US(100), 300);
	synth_req(k.d1, 10, 300, US(110), 401);
	synth_req(k.l2, 100, 902, US(111), 300);
	synth_req(k.d2, 10, 300, US(120), 402);
	synth_rep(k.d1, 30, 401, US(125), 300);
	synth_req(k.d1, 11, 300, US(135), 401); /* request 1's second call */
	synth_rep(k.d2, 20, 402, US(136), 300);
	synth_rep(k.l2, 200, 300, US(145), 902);
	synth_rep(k.d1, 30, 401, US(150), 300);
	synth_rep(k.l1, 100, 300, US(170), 901);

	assert_string_equal(
		analyze(w),
		"lg/901>web/300(web/300>db/401,web/300>db/401) | lg/902>web/300(web/300>db/402)");
	assert_int_equal(w->c.reqs[0]->root->calls[1]->request_bytes, 11);
	assert_string_equal(model_of(w, "web", 300), "event-driven");
	free_links(&k);
}

/*
 * An event loop reads request 1, then request 2, then sends a call: the most
 * recent input is request 2's, but the call is request 1's (a pool waiter,
 * a timer).  When request 2 has finished replying before the call's reply
 * comes, it cannot be the call's parent: the window leaves request 1, and
 * the link is exact.  When both are still open, the choice is inferred and
 * neither request is exact.
 */
static void event_loop_window(struct world *w, bool second_done_early)
{
	struct links k = open_links(w);

	synth_req(k.l1, 100, 901, US(100), 300); /* read at 105 */
	synth_req(k.l2, 100, 902, US(102), 300); /* read at 107 */
	synth_req(k.d1, 10, 300, US(110), 401);	 /* request 1's call, after request 2's input */
	/* Each host's records are written in time order, as a recorder writes them. */
	if (second_done_early) {
		synth_rep(k.l2, 50, 300, US(111), 902);
		synth_rep(k.d1, 30, 401, US(116),
			  300); /* after db read the call at 115; read at 121 */
		synth_req(k.l2, 100, 902, US(117), 300); /* its next request: the first is done */
		synth_rep(k.l2, 50, 300, US(123), 902);
	} else {
		synth_rep(k.d1, 30, 401, US(116),
			  300); /* after db read the call at 115; read at 121 */
		synth_rep(k.l2, 50, 300, US(125), 902);
	}
	synth_rep(k.l1, 100, 300, US(130), 901);
	synth_req(k.l1, 100, 901, US(140), 300);
	synth_rep(k.l1, 100, 300, US(146), 901);
	synth_req(k.l2, 100, 902, US(150), 300);
	synth_rep(k.l2, 100, 300, US(156), 902);
	free_links(&k);
}

static void test_event_loop_window_decides(void **state)
{
	struct world *w = *state;
	const struct vp_call *call;

	event_loop_window(w, true);
	assert_string_equal(analyze(w), "lg/901>web/300(web/300>db/401) | lg/902>web/300 | "
					"lg/902>web/300 | lg/901>web/300 | lg/902>web/300");
	call = w->c.reqs[0]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_WINDOW);
	assert_true(call->link.exact);
	assert_true(w->c.reqs[0]->exact);
	assert_true(w->c.reqs[1]->exact);
}

static void test_event_loop_window_leaves_two(void **state)
{
	struct world *w = *state;
	const struct vp_call *call;

	event_loop_window(w, false);
	/* Both fit: the most recent input's request keeps it, and says so. */
	assert_string_equal(analyze(w), "lg/901>web/300 | lg/902>web/300(web/300>db/401) | "
					"lg/901>web/300 | lg/902>web/300");
	call = w->c.reqs[1]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_LAST_INPUT);
	assert_false(call->link.exact);
	assert_int_equal(call->link.candidates, 2);
	assert_false(w->c.reqs[0]->exact); /* it may be missing the call */
	assert_false(w->c.reqs[1]->exact);
	assert_true(w->c.reqs[2]->exact);
}

/*
 * Threads that read requests also answer requests other threads read (Go's
 * goroutines move between threads): from then on a thread's requests say
 * nothing about whose calls it sends, and no link of the process is exact.
 */
static void test_threads_carrying_several_requests(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	synth_req(k.l1, 100, 901, US(100), 301);
	synth_req(k.l2, 100, 902, US(102), 302);
	synth_req(k.d1, 10, 302, US(110), 401);
	synth_rep(k.d1, 30, 401, US(112), 302);
	synth_rep(k.l1, 100, 302, US(120), 901); /* 302 answers what 301 read */
	synth_rep(k.l2, 100, 301, US(125), 902);
	synth_req(k.l1, 100, 901, US(200), 301);
	synth_req(k.d2, 10, 301, US(210), 402);
	synth_rep(k.d2, 30, 402, US(212), 301);
	synth_rep(k.l1, 100, 301, US(220), 901);
	free_links(&k);
	assert_string_equal(analyze(w), "lg/901>web/302 | lg/902>web/301(web/302>db/401) | "
					"lg/901>web/301(web/301>db/402)");
	assert_false(w->c.reqs[2]->root->calls[0]->link.exact);
	assert_false(w->c.reqs[2]->exact);
}

/*
 * The non-blocking event loop of the vApp: it connects for request 1, reads
 * request 2 while the connection comes up, then sends request 1's call (an
 * output that follows no input of request 1: the connect() was request 1's
 * output).  Request 2 streams a reply part and then makes a call before
 * request 1 is answered: calls between reply parts stay with their request.
 */
static void test_event_loop_connect_and_reply_parts(void **state)
{
	struct world *w = *state;
	struct synth_link *l1, *l2, *d1, *d2;

	l1 = synth_link__open(w->lg, 1, 900, w->web, 11, 300, "10.0.0.9:40001", "10.0.0.1:80", 0);
	l2 = synth_link__open(w->lg, 2, 900, w->web, 12, 300, "10.0.0.9:40002", "10.0.0.1:80", 0);
	d2 = synth_link__open(w->web, 22, 300, w->db, 32, 400, "10.0.0.1:50002", "10.0.0.2:5432",
			      0);
	synth_req(l1, 100, 901, US(100), 300);
	synth_connecting(w->web, US(106), 21, 300, 300, "10.0.0.1:50001", "10.0.0.2:5432");
	synth_req(l2, 100, 902, US(102), 300);
	d1 = synth_link__open(w->web, 21, 300, w->db, 31, 400, "10.0.0.1:50001", "10.0.0.2:5432",
			      US(109));
	synth_req(d1, 10, 300, US(110), 401); /* EPOLLOUT: request 1's call */
	synth_rep(l2, 50, 300, US(112), 902); /* request 2: a reply part ... */
	synth_req(d2, 11, 300, US(113), 402); /* ... then its call */
	synth_rep(d1, 30, 401, US(115), 300);
	synth_rep(l1, 100, 300, US(121), 901);
	synth_rep(d2, 30, 402, US(125), 300);
	synth_rep(l2, 60, 300, US(131), 902);

	assert_string_equal(analyze(w),
			    "lg/901>web/300(web/300>db/401) | lg/902>web/300(web/300>db/402)");
	assert_int_equal(w->c.reqs[1]->root->reply_bytes, 110);
	synth_link__free(l1);
	synth_link__free(l2);
	synth_link__free(d1);
	synth_link__free(d2);
}

/* lg's first request to web (thread 301), whose call to db (*d, still open) went through. */
static struct synth_link *request_with_a_call(struct world *w, struct synth_link **d)
{
	struct synth_link *l;

	l = synth_link__open(w->lg, 1, 900, w->web, 11, 300, "10.0.0.9:40001", "10.0.0.1:80", 0);
	*d = synth_link__open(w->web, 21, 300, w->db, 31, 400, "10.0.0.1:50001", "10.0.0.2:5432",
			      0);
	synth_req(l, 100, 901, US(100), 301);
	synth_req(*d, 10, 301, US(110), 401);
	synth_rep(*d, 30, 401, US(115), 301);
	synth_rep(l, 100, 301, US(121), 901);
	return l;
}

/*
 * A back end is gone: web sends a first reply part, connects to db for the
 * call, is refused, and closes the client's connection.  Nothing of the
 * call reached the wire, yet the request was cut: it is incomplete, while
 * the request before it, whose call went through, is not.
 */
static void test_refused_connect_cuts_the_request(void **state)
{
	struct world *w = *state;
	struct synth_link *d, *l = request_with_a_call(w, &d);

	synth_req(l, 100, 901, US(200), 301);
	synth_rep(l, 50, 301, US(205), 901);
	synth_connecting(w->web, US(206), 22, 300, 301, "10.0.0.1:50002", "10.0.0.2:5432");
	synth_refused(w->web, US(207), 22, 300, "10.0.0.1:50002", "10.0.0.2:5432");
	synth_link__close_orderly(l, US(210));

	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401) | lg/901>web/301");
	assert_true(w->c.reqs[0]->complete);
	assert_false(w->c.reqs[1]->complete);
	synth_link__free(d);
}

/*
 * The back end died after the last call, and the connection to it was reset
 * while idle: web sends a first reply part, its call's send on that
 * connection is refused (EPIPE), and it closes the client's connection.  No
 * byte of the call left, and the reply part looks like a whole reply: only
 * the refused send says that the request was cut.  A send refused on a
 * thread that serves nothing (between requests) cuts nothing.
 */
static void test_refused_send_cuts_the_request(void **state)
{
	struct world *w = *state;
	struct synth_link *d, *l = request_with_a_call(w, &d);

	synth_link__close(d, US(150));
	synth_send_failed(w->web, US(160), 300, 302, 21, -32);
	synth_req(l, 100, 901, US(200), 301);
	synth_rep(l, 50, 301, US(205), 901);
	synth_send_failed(w->web, US(206), 300, 301, 21, -32);
	synth_link__close_orderly(l, US(210));

	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401) | lg/901>web/301");
	assert_true(w->c.reqs[0]->complete);
	assert_false(w->c.reqs[1]->complete);
}

/*
 * A refused send that the request goes on from (a retry on a new
 * connection, or a goodbye that found its peer gone) cuts nothing: the
 * reply part sent after it says the request went on.
 */
static void test_reply_after_a_refused_send_is_whole(void **state)
{
	struct world *w = *state;
	struct synth_link *d, *l = request_with_a_call(w, &d);

	synth_link__close(d, US(150));
	synth_req(l, 100, 901, US(200), 301);
	synth_send_failed(w->web, US(206), 300, 301, 21, -32);
	synth_rep(l, 50, 301, US(208), 901);
	synth_link__close_orderly(l, US(210));

	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401) | lg/901>web/301");
	assert_true(w->c.reqs[0]->complete);
	assert_true(w->c.reqs[1]->complete);
}

/*
 * The same, but the call's bytes did leave: the back end's host reset the
 * connection in answer to them, before the send returned, so the
 * operation is stamped after the connection's close.  Nobody read the
 * call: the request is incomplete (before, the bytes were dropped as no
 * exchange and the request looked whole, with no call).
 */
static void test_send_into_a_reset_cuts_the_request(void **state)
{
	struct world *w = *state;
	struct synth_link *d, *l = request_with_a_call(w, &d);
	uint32_t call_end = d->seq[SYNTH_C2S] + 10;

	synth_req(l, 100, 901, US(200), 301);
	synth_rep(l, 50, 301, US(205), 901);
	synth_link__close(d, US(206));
	synth_op(w->web, US(207), 300, 301, 21, VPR_DIR_SEND, 10, call_end);
	synth_link__close_orderly(l, US(210));

	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401) | lg/901>web/301");
	assert_true(w->c.reqs[0]->complete);
	assert_false(w->c.reqs[1]->complete);
}

/*
 * A client's requests are its own sends: the server's message starts are
 * positions in the other stream and must not cut them.  Here the reply
 * stream's numbers run over the request stream's (initial sequence numbers
 * 100 kB apart, a 300 kB reply), so the second request lies inside the
 * first reply's range with no cut of the server's in it: taken for the
 * first request's tail, the client end merged both, and the server's
 * second exchange lost its peer.
 */
static void test_client_requests_are_not_cut_by_the_reply_stream(void **state)
{
	struct world *w = *state;
	struct synth_link *l;

	l = synth_link__open_silent(w->lg, 1, 900, w->web, 11, 300);
	l->seq[SYNTH_S2C] = l->seq[SYNTH_C2S] - 100000;
	synth_req(l, 100, 901, US(100), 301);
	synth_rep(l, 300000, 301, US(200), 901);
	synth_req(l, 100, 901, US(10000), 301);
	synth_rep(l, 50, 301, US(10100), 901);
	synth_req(l, 100, 901, US(20000), 301);
	synth_rep(l, 50, 301, US(20100), 901);
	synth_link__free(l);

	assert_string_equal(analyze(w), "lg/901>web/301 | lg/901>web/301 | lg/901>web/301");
	for (int i = 0; i < 3; i++)
		assert_true(w->c.reqs[i]->complete);
}

/*
 * A back end killed in the middle of its reply closes its connection as if
 * it had finished.  Where its caller had sent its own reply's first part
 * before the call and sends nothing after it, only the exit record's signal
 * tells the reply may be cut: that request is incomplete.  Where the caller
 * answered after the call (a pooled connection's last call, its server
 * stopped at the end), it went on with the reply: complete.  A back end that
 * exits by itself cuts nothing.  The request before is complete in each.
 */
static bool killed_back_end(struct world *w, uint32_t signal, bool caller_answers_after)
{
	struct synth_link *l, *d;

	l = synth_link__open(w->lg, 1, 900, w->web, 11, 300, "10.0.0.9:40001", "10.0.0.1:80", 0);
	d = synth_link__open(w->web, 21, 300, w->db, 31, 400, "10.0.0.1:50001", "10.0.0.2:5432", 0);
	synth_req(l, 100, 901, US(100), 301);
	synth_req(d, 10, 301, US(110), 401);
	synth_rep(d, 30, 401, US(115), 301);
	synth_rep(l, 100, 301, US(121), 901);
	synth_req(l, 100, 901, US(200), 301);
	if (!caller_answers_after)
		synth_rep(l, 50, 301, US(205), 901);
	synth_req(d, 10, 301, US(210), 401);
	synth_rep(d, 30, 401, US(215), 301);
	if (caller_answers_after)
		synth_rep(l, 50, 301, US(225), 901);
	synth_task_exit(w->db, US(230), 400, 401, signal);
	synth_link__close_server_first(d, US(231));
	synth_link__close_orderly(l, US(250));

	assert_string_equal(analyze(w),
			    "lg/901>web/301(web/301>db/401) | lg/901>web/301(web/301>db/401)");
	assert_true(w->c.reqs[0]->complete);
	return w->c.reqs[1]->complete;
}

static void test_killed_back_end_cuts_the_request(void **state)
{
	assert_false(killed_back_end(*state, 9 /* SIGKILL */, false));
}

static void test_killed_back_end_after_the_caller_went_on(void **state)
{
	assert_true(killed_back_end(*state, 15 /* SIGTERM */, true));
}

static void test_back_end_that_exits_leaves_it_complete(void **state)
{
	assert_true(killed_back_end(*state, 0, false));
}

/*
 * Calls a server thread makes on its own are roots, not children of a
 * request that happens to be open: a health checker that never replies, and
 * a worker's call made before the request it then answers had arrived.
 */
static void test_background_call_is_root(void **state)
{
	struct world *w = *state;
	struct synth_link *l0, *l, *d, *hc;

	l0 = synth_link__open(w->lg, 3, 900, w->web, 13, 300, "10.0.0.9:40003", "10.0.0.1:80", 0);
	l = synth_link__open(w->lg, 1, 900, w->web, 11, 300, "10.0.0.9:40001", "10.0.0.1:80", 0);
	d = synth_link__open(w->web, 21, 300, w->db, 31, 400, "10.0.0.1:50001", "10.0.0.2:5432", 0);
	hc = synth_link__open(w->web, 22, 300, w->db, 32, 400, "10.0.0.1:50002", "10.0.0.2:5432",
			      0);
	synth_req(l0, 100, 903, US(80), 310); /* a slow request, open throughout */
	synth_req(d, 7, 311, US(90), 401);    /* worker 311 warms its cache */
	synth_rep(d, 7, 401, US(95), 311);
	synth_req(l, 100, 901, US(100), 310);
	synth_req(hc, 5, 399, US(105), 402); /* health checker 399 */
	synth_rep(hc, 5, 402, US(106), 399);
	synth_req(d, 10, 311, US(110), 401);
	synth_rep(d, 10, 401, US(120), 311);
	synth_rep(l, 100, 311, US(130), 901);
	synth_rep(l0, 100, 312, US(400), 903);

	assert_string_equal(analyze(w),
			    "lg/903>web/312 | web/311>db/401 | lg/901>web/311(web/311>db/401) | "
			    "web/399>db/402");
	/*
	 * The warm-up and the health check were sent while requests were open:
	 * without a reply that claims them, they may be an executor's calls for
	 * one of those (issue: wake-ups), so neither they nor those requests
	 * are exact.  The worker's call claimed by its reply is.
	 */
	assert_int_equal(w->c.reqs[1]->root->link.basis, VP_BASIS_UNCLAIMED);
	assert_int_equal(w->c.reqs[3]->root->link.basis, VP_BASIS_UNCLAIMED);
	assert_false(w->c.reqs[0]->exact);
	assert_int_equal(w->c.reqs[2]->root->calls[0]->link.basis, VP_BASIS_HANDOFF);
	assert_true(w->c.reqs[2]->root->calls[0]->link.exact);
	assert_false(w->c.reqs[2]->exact); /* open when the health check was sent */
	synth_link__free(l0);
	synth_link__free(l);
	synth_link__free(d);
	synth_link__free(hc);
}

/* The paths of executor()'s eight earlier requests, and how many they are. */
#define EARLY_PATHS                                                                             \
	"lg/900>web/301 | lg/900>web/302 | lg/900>web/301 | lg/900>web/302 | lg/900>web/301 | " \
	"lg/900>web/302 | lg/900>web/301 | lg/900>web/302 | "
#define EARLY 8

/*
 * An executor: web's handler threads 301 and 302 read a request each and
 * hand the call to worker 350, which never replies; the worker reads the
 * reply and wakes the handler waiting for it.  forward: the wake-ups 350
 * had before sending the call (handler thread ids, 0 ends the list).
 * Before, the handlers answer `early` requests themselves without calling
 * (EARLY shows the process's shape to the wake-up rule); `restart`: then
 * web's process ends and a new one with the same pid starts.
 */
static void executor_run(struct world *w, const uint32_t *forward, const uint32_t *back,
			 unsigned early, bool restart)
{
	struct links k = open_links(w);

	synth_task(w->web, US(1), 300, 350, VPR_TASK_SNAPSHOT, "worker");
	for (uint64_t i = 0; i < early; i++) {
		synth_req(i % 2 ? k.l2 : k.l1, 10, 900, US(10 + 10 * i), i % 2 ? 302 : 301);
		synth_rep(i % 2 ? k.l2 : k.l1, 10, i % 2 ? 302 : 301, US(15 + 10 * i), 900);
	}
	if (restart)
		synth_task(w->web, US(95), 300, 300, VPR_TASK_FORK, "web");
	synth_req(k.l1, 100, 901, US(100), 301);
	synth_req(k.l2, 100, 902, US(101), 302);
	for (uint64_t i = 0; forward[i]; i++)
		synth_wake(w->web, US(105 + i), 300, forward[i], 350);
	synth_req(k.d1, 50, 350, US(110), 401);
	synth_rep(k.d1, 70, 401, US(120), 350);
	for (uint64_t i = 0; back[i]; i++)
		synth_wake(w->web, US(125 + i), 300, 350, back[i]);
	synth_rep(k.l1, 500, 301, US(140), 901);
	synth_rep(k.l2, 500, 302, US(141), 902);
	close_links(&k, US(200));
}

static void executor(struct world *w, const uint32_t *forward, const uint32_t *back)
{
	executor_run(w, forward, back, EARLY, false);
}

/*
 * Woken by 301 alone, wakes 301 back: linked to 301, and still inferred (a
 * lock handed to and fro can look the same, docs/analyzer.md).
 */
static void test_wakeup_decides(void **state)
{
	struct world *w = *state;
	const uint32_t fwd[] = {301, 0}, back[] = {301, 0};
	const struct vp_call *call;

	executor(w, fwd, back);
	assert_string_equal(analyze(w),
			    EARLY_PATHS "lg/901>web/301(web/350>db/401) | lg/902>web/302");
	call = w->c.reqs[EARLY]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_WAKEUP);
	assert_false(call->link.exact);
	assert_false(w->c.reqs[EARLY]->exact);
	assert_false(w->c.reqs[EARLY + 1]->exact); /* it was open when the call was sent */
}

/* No wake-up before the call (the worker was busy): the wake-back chooses, inferred. */
static void test_wakeup_back_only_is_inferred(void **state)
{
	struct world *w = *state;
	const uint32_t fwd[] = {0}, back[] = {302, 0};
	const struct vp_call *call;

	executor(w, fwd, back);
	assert_string_equal(analyze(w),
			    EARLY_PATHS "lg/901>web/301 | lg/902>web/302(web/350>db/401)");
	call = w->c.reqs[EARLY + 1]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_WAKEUP);
	assert_false(call->link.exact);
	assert_int_equal(call->link.candidates, 2);
	assert_false(w->c.reqs[EARLY]->exact); /* it may be missing the call */
	assert_false(w->c.reqs[EARLY + 1]->exact);
}

/*
 * An interpreter lock handed over between every thread: both handlers woke
 * the worker before its call, so the wake-back's choice is not confirmed.
 */
static void test_wakeup_lock_storm_is_inferred(void **state)
{
	struct world *w = *state;
	const uint32_t fwd[] = {301, 302, 301, 302, 0}, back[] = {301, 302, 301, 0};
	const struct vp_call *call;

	executor(w, fwd, back);
	assert_string_equal(analyze(w),
			    EARLY_PATHS "lg/901>web/301(web/350>db/401) | lg/902>web/302");
	call = w->c.reqs[EARLY]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_WAKEUP);
	assert_false(call->link.exact);
	assert_false(w->c.reqs[EARLY]->exact);
	assert_false(w->c.reqs[EARLY + 1]->exact);
}

/*
 * A thread that reads requests and calls itself (gunicorn's gthread) has
 * just not called yet when the recording starts, and a background thread of
 * its own that the handler woke and that woke it back (the interpreter lock)
 * sends a call: a root, not the handler's request's call.  The rule needs
 * the process to have shown the executor's shape first: EARLY requests its
 * handlers answered without a call.
 */
static void test_wakeup_not_before_the_shape_shows(void **state)
{
	struct world *w = *state;
	const uint32_t fwd[] = {301, 0}, back[] = {301, 0};

	/* With the two requests of the executor itself, one answer short. */
	executor_run(w, fwd, back, EARLY - 3, false);
	assert_string_equal(analyze(w), "lg/900>web/301 | lg/900>web/302 | lg/900>web/301 | "
					"lg/900>web/302 | lg/900>web/301 | lg/901>web/301 | "
					"lg/902>web/302 | web/350>db/401");
	assert_int_equal(w->c.reqs[EARLY - 1]->root->link.basis, VP_BASIS_UNCLAIMED);
}

/* What an earlier process with the same pid showed does not count. */
static void test_wakeup_shape_is_per_process(void **state)
{
	struct world *w = *state;
	const uint32_t fwd[] = {301, 0}, back[] = {301, 0};

	executor_run(w, fwd, back, EARLY, true);
	assert_string_equal(analyze(w),
			    EARLY_PATHS "lg/901>web/301 | lg/902>web/302 | web/350>db/401");
	assert_int_equal(w->c.reqs[EARLY + 2]->root->link.basis, VP_BASIS_UNCLAIMED);
}

/*
 * Goroutines 1 and 2 of web's thread 301 answer EARLY requests on l1 and l2
 * in turn from t0, 10 us apart: the process shows its shape to the wake-up
 * rule (VP_WAKE_MIN_REPLIES).
 */
static void go_answer_early(struct world *w, struct links *k, uint64_t t0)
{
	for (uint64_t i = 0; i < EARLY; i++) {
		struct synth_link *l = i % 2 ? k->l2 : k->l1;
		uint64_t t = t0 + US(10 * i);

		synth_go(w->web, t, 300, 301, VPR_GO_RUN, 1 + i % 2, 0);
		synth_req(l, 10, 900, t, 301);
		synth_rep(l, 10, 301, t + US(5), 900);
	}
}

/*
 * A Go front end: conn goroutines 1 and 2 serve l1 and l2 and move between
 * OS threads 301 and 302; goroutine 1 hands its call to a child (7), which
 * readies the client's writeLoop (50); the readLoop (51) reads the reply
 * and readies the child back.  After replying, goroutine 1's background
 * read (its child 9) reads the next request on l1.  From t0, after
 * go_answer_early; the links close at t0 + 100 us.
 */
static void go_front(struct world *w, struct links *k, uint64_t t0)
{
	synth_go(w->web, t0 + US(0), 300, 302, VPR_GO_RUN, 1, 0);
	synth_req(k->l1, 100, 901, t0 + US(0), 302);
	synth_go(w->web, t0 + US(1), 300, 301, VPR_GO_RUN, 2, 0);
	synth_req(k->l2, 100, 902, t0 + US(1), 301);
	synth_go(w->web, t0 + US(7), 300, 302, VPR_GO_NEW, 1, 7);
	synth_go(w->web, t0 + US(8), 300, 302, VPR_GO_READY, 7, 50);
	synth_go(w->web, t0 + US(9), 300, 302, VPR_GO_RUN, 50, 0);
	synth_req(k->d1, 50, 302, t0 + US(10), 401);
	synth_go(w->web, t0 + US(24), 300, 301, VPR_GO_RUN, 51, 0);
	synth_rep(k->d1, 70, 401, t0 + US(20), 301);
	synth_go(w->web, t0 + US(30), 300, 301, VPR_GO_READY, 51, 7);
	synth_go(w->web, t0 + US(39), 300, 301, VPR_GO_RUN, 1, 0);
	synth_rep(k->l1, 500, 301, t0 + US(40), 901);
	synth_go(w->web, t0 + US(40), 300, 302, VPR_GO_RUN, 2, 0);
	synth_rep(k->l2, 500, 302, t0 + US(41), 902);
	synth_go(w->web, t0 + US(42), 300, 301, VPR_GO_NEW, 1, 9);
	synth_go(w->web, t0 + US(50), 300, 302, VPR_GO_RUN, 9, 0);
	synth_req(k->l1, 100, 903, t0 + US(50), 302);
	synth_go(w->web, t0 + US(59), 300, 301, VPR_GO_RUN, 1, 0);
	synth_rep(k->l1, 500, 301, t0 + US(60), 903);
	close_links(k, t0 + US(100));
}

/*
 * go_front analyzed from request `first` on: the units are the goroutines,
 * one conn goroutine per request, no hand-off between threads, the call is
 * request 901's (inferred).
 */
static void go_front_check(struct world *w, size_t first)
{
	const struct vp_call *call;

	assert_int_equal(w->c.n, first + 3);
	call = w->c.reqs[first]->root->calls[0];
	assert_int_equal(w->c.reqs[first]->root->ncalls, 1);
	assert_int_equal(call->link.basis, VP_BASIS_WAKEUP);
	assert_false(call->link.exact);
	assert_int_equal(w->c.reqs[first + 1]->root->ncalls, 0);
	assert_int_equal(w->c.reqs[first + 2]->root->ncalls, 0);
	/* The same unit read and answered every request: no hand-off. */
	assert_string_equal(model_of(w, "web", 300), "thread-per-request");
}

static void test_go_goroutines_are_the_units(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	go_answer_early(w, &k, US(10));
	go_front(w, &k, US(100));
	analyze(w);
	go_front_check(w, EARLY);
}

/*
 * The Go probes came late (a program found at its exec on a busy host):
 * its first two requests were served before any goroutine record, so by
 * bare threads, and look handed off between them (302 answers what 301
 * read, and the other way round), which would make the process mixed for
 * good and shut the wake-up rule off.  What bare threads showed is not the
 * process's: from its first goroutine record it is judged as in
 * test_go_goroutines_are_the_units.
 */
static void test_go_probes_late_bare_threads_forgotten(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	synth_req(k.l2, 10, 900, US(0), 302);
	synth_req(k.l1, 10, 900, US(1), 301);
	synth_rep(k.l1, 10, 302, US(8), 900);
	synth_rep(k.l2, 10, 301, US(9), 900);
	go_answer_early(w, &k, US(30));
	go_front(w, &k, US(200));
	analyze(w);
	go_front_check(w, 2 + EARLY);
}

/*
 * A Go program found at its exec, before its probes are in place: the
 * recorder marks it then (VPR_GO_PENDING), and its threads are bare until
 * its goroutines are seen.  Thread 302 reads 802 (goroutine B), 301 reads
 * 801 (goroutine A); A moves to 302 while B waits and sends 801's call
 * there, then answers 801 back on 301, B answering 802 on 302.  No thread
 * hands anything off, so the thread rule gives the call to 802, exact and
 * wrong; the probes come at 100 us (go_front; its call is a root there,
 * the wake-up rule's gate not passed).  Known Go from the exec, the link
 * is inferred and neither request is exact.
 */
static void test_go_pending_bare_thread_links_inferred(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);
	const struct vp_request *r801, *r802;

	synth_go(w->web, US(1), 300, 300, VPR_GO_PENDING, 0, 0);
	synth_req(k.l2, 10, 802, US(5), 302);
	synth_req(k.l1, 10, 801, US(6), 301);
	synth_req(k.d1, 50, 302, US(15), 401);
	synth_rep(k.d1, 70, 401, US(20), 302);
	synth_rep(k.l1, 10, 301, US(30), 900);
	synth_rep(k.l2, 10, 302, US(31), 900);
	go_front(w, &k, US(100));
	assert_string_equal(analyze(w), "lg/802>web/302(web/302>db/401) | lg/801>web/301 | "
					"lg/901>web/2147483648 | lg/902>web/2147483649 | "
					"web/2147483651>db/401 | lg/903>web/2147483648");
	r802 = w->c.reqs[0];
	r801 = w->c.reqs[1];
	/* The thread rule still chose (inferred): 302's request. */
	assert_int_equal(r802->root->calls[0]->link.basis, VP_BASIS_THREAD);
	assert_false(r802->root->calls[0]->link.exact);
	assert_false(r802->exact);
	assert_false(r801->exact);
}

/*
 * net/http's client, the evidence that misleads: goroutine 1 (serving 901)
 * dials through goroutine 7, which starts the connection's writeLoop (50)
 * and readLoop (51); 901 gets another connection meanwhile, and 902's
 * child 8 takes this one (no ready: the writeLoop had not waited yet).
 * Goroutine 1 released a mutex 8 waited for before.  The readLoop hands
 * the reply to 8.  Then 901's child 9 readies the writeLoop for a second
 * call, and the readLoop releases a mutex goroutine 2 (902) waits for
 * before it hands that reply to 9.  Each call is its caller's: 902's,
 * then 901's (inferred).
 */
static void test_go_loops_and_mutexes_do_not_decide(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);
	const struct vp_request *r1, *r2;

	go_answer_early(w, &k, US(10));
	/* read at 105 and 106 (SYNTH_DELAY_NS) */
	synth_go(w->web, US(100), 300, 302, VPR_GO_RUN, 1, 0);
	synth_req(k.l1, 100, 901, US(100), 302);
	synth_go(w->web, US(101), 300, 301, VPR_GO_RUN, 2, 0);
	synth_req(k.l2, 100, 902, US(101), 301);
	synth_go(w->web, US(107), 300, 302, VPR_GO_NEW, 1, 7);
	synth_go(w->web, US(108), 300, 301, VPR_GO_NEW, 2, 8);
	synth_go(w->web, US(109), 300, 302, VPR_GO_NEW, 7, 50);
	synth_go(w->web, US(110), 300, 302, VPR_GO_NEW, 7, 51);
	synth_go(w->web, US(111), 300, 302, VPR_GO_READY, 1, 8);
	synth_go(w->web, US(112), 300, 302, VPR_GO_RUN, 50, 0);
	synth_req(k.d1, 50, 302, US(113), 401);
	synth_go(w->web, US(124), 300, 301, VPR_GO_RUN, 51, 0);
	synth_rep(k.d1, 70, 401, US(120), 301);
	synth_go(w->web, US(127), 300, 301, VPR_GO_READY, 51, 8);
	synth_go(w->web, US(128), 300, 302, VPR_GO_RUN, 1, 0);
	synth_go(w->web, US(129), 300, 302, VPR_GO_NEW, 1, 9);
	synth_go(w->web, US(130), 300, 302, VPR_GO_READY, 9, 50);
	synth_go(w->web, US(131), 300, 302, VPR_GO_RUN, 50, 0);
	synth_req(k.d1, 50, 302, US(132), 401);
	synth_go(w->web, US(144), 300, 301, VPR_GO_RUN, 51, 0);
	synth_rep(k.d1, 70, 401, US(140), 301);
	synth_go(w->web, US(146), 300, 301, VPR_GO_READY, 51, 2);
	synth_go(w->web, US(147), 300, 301, VPR_GO_READY, 51, 9);
	synth_go(w->web, US(149), 300, 302, VPR_GO_RUN, 1, 0);
	synth_rep(k.l1, 500, 302, US(150), 901);
	synth_go(w->web, US(151), 300, 301, VPR_GO_RUN, 2, 0);
	synth_rep(k.l2, 500, 301, US(152), 902);
	close_links(&k, US(200));

	analyze(w);
	assert_int_equal(w->c.n, EARLY + 2);
	r1 = w->c.reqs[EARLY];
	r2 = w->c.reqs[EARLY + 1];
	assert_int_equal(r1->root->ncalls, 1);
	assert_int_equal(r2->root->ncalls, 1);
	assert_int_equal(r1->root->calls[0]->conn_index, 1);
	assert_int_equal(r2->root->calls[0]->conn_index, 0);
	assert_int_equal(r1->root->calls[0]->link.basis, VP_BASIS_WAKEUP);
	assert_false(r1->root->calls[0]->link.exact);
	assert_false(r2->root->calls[0]->link.exact);
}

/*
 * A Go front end's first call, before its handlers have answered
 * VP_WAKE_MIN_REPLIES requests (the wake-up rule's gate): goroutine 1
 * serves 901 and hands the call to its child 7, which readies the
 * writeLoop (50); the readLoop (51) readies 7 back.  901 is done (the next
 * request on l1) before the gate is passed; the call waits for it instead
 * of becoming a root, and goes to 901 once eight requests are answered.
 */
static void test_go_first_call_waits_for_the_shape(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);
	const struct vp_call *call;

	synth_go(w->web, US(100), 300, 302, VPR_GO_RUN, 1, 0);
	synth_req(k.l1, 100, 901, US(100), 302);
	synth_go(w->web, US(107), 300, 302, VPR_GO_NEW, 1, 7);
	synth_go(w->web, US(108), 300, 302, VPR_GO_READY, 7, 50);
	synth_go(w->web, US(109), 300, 302, VPR_GO_RUN, 50, 0);
	synth_req(k.d1, 50, 302, US(110), 401);
	synth_go(w->web, US(124), 300, 301, VPR_GO_RUN, 51, 0);
	synth_rep(k.d1, 70, 401, US(120), 301);
	synth_go(w->web, US(126), 300, 301, VPR_GO_READY, 51, 7);
	synth_go(w->web, US(139), 300, 302, VPR_GO_RUN, 1, 0);
	synth_rep(k.l1, 500, 302, US(140), 901);
	go_answer_early(w, &k, US(200));
	close_links(&k, US(400));

	analyze(w);
	assert_int_equal(w->c.n, EARLY + 1);
	assert_int_equal(w->c.reqs[0]->root->ncalls, 1);
	call = w->c.reqs[0]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_WAKEUP);
	assert_false(call->link.exact);
}

/* An HTTP request carrying trace id `t` (one hex digit repeated), as a propagator writes it. */
static const char *traced(char t, char span)
{
	static char buf[4][160];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, sizeof(buf[0]), "GET /x HTTP/1.1\r\ntraceparent: 00-%.32s-%.16s-01\r\n\r\n",
		 (t == 'a'   ? "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  : t == 'b' ? "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
			     : "cccccccccccccccccccccccccccccccc"),
		 span == '1' ? "1111111111111111" : "2222222222222222");
	return b;
}

/* The request's bytes from lg to web (read at +5 us), or web's call to db (its own tids). */
static void send_traced(struct synth_link *l, char t, char span, uint32_t stid, uint64_t ts,
			uint32_t rtid)
{
	const char *r = traced(t, span);

	synth_xfer_data(l, SYNTH_C2S, r, (uint32_t)strlen(r), 256, stid, ts, rtid,
			ts + SYNTH_DELAY_NS);
}

/*
 * event_loop_window's case where both requests fit, but the call carries
 * request 1's trace id (the gateway forwards it): the id decides, exact,
 * although the most recent input was request 2's.  When both requests
 * carry that id, it decides nothing and the window's inferred choice stays.
 */
static void event_loop_ids(struct world *w, char second)
{
	struct links k = open_links(w);

	send_traced(k.l1, 'a', '1', 901, US(100), 300);
	if (second)
		send_traced(k.l2, second, '1', 902, US(102), 300);
	else
		synth_req(k.l2, 100, 902, US(102), 300); /* not captured: its id is unknown */
	send_traced(k.d1, 'a', '2', 300, US(110), 401);
	synth_rep(k.d1, 30, 401, US(116), 300);
	synth_rep(k.l2, 50, 300, US(125), 902);
	synth_rep(k.l1, 100, 300, US(130), 901);
	close_links(&k, US(400));
}

static void test_event_loop_id_decides(void **state)
{
	struct world *w = *state;
	const struct vp_call *call;
	const struct vp_proc *p;

	event_loop_ids(w, 'b');
	assert_string_equal(analyze(w), "lg/901>web/300(web/300>db/401) | lg/902>web/300");
	call = w->c.reqs[0]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_PROPAGATED_ID);
	assert_true(call->link.exact);
	assert_true(w->c.reqs[0]->exact);
	assert_true(w->c.reqs[1]->exact);
	p = collected_proc(&w->c, "web", 300);
	assert_int_equal(p->calls_with_id, 1);
	assert_int_equal(p->calls_by_id, 1);
	assert_int_equal(p->id_disagree, 0);
}

/* Request 2's bytes were not captured: it may carry the call's id too, so the id decides nothing. */
static void test_event_loop_unknown_id_decides_nothing(void **state)
{
	struct world *w = *state;
	const struct vp_call *call;

	event_loop_ids(w, 0);
	assert_string_equal(analyze(w), "lg/901>web/300 | lg/902>web/300(web/300>db/401)");
	call = w->c.reqs[1]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_LAST_INPUT);
	assert_false(call->link.exact);
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_by_id, 0);
}

static void test_event_loop_shared_id_decides_nothing(void **state)
{
	struct world *w = *state;
	const struct vp_call *call;

	event_loop_ids(w, 'a');
	assert_string_equal(analyze(w), "lg/901>web/300 | lg/902>web/300(web/300>db/401)");
	call = w->c.reqs[1]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_LAST_INPUT);
	assert_false(call->link.exact);
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_by_id, 0);
}

/*
 * A trace through the event loop twice: request 1 carries trace a and is
 * finished (its connection's next request, 3, came); request 2 carries a
 * again, and while both 2 and 3 are open a call carrying a goes out (the
 * window leaves both).  It may be
 * request 2's, or a late call of request 1 (sent after its reply): the id
 * cannot tell them apart, so it decides nothing and the link stays the
 * window's inferred choice.  Before, request 2 was the one open request
 * with the id, and the link was marked exact.  (Ids are counted per
 * process: a trace's hop through another process, such as db's request
 * carrying a in test_event_loop_id_decides, does not count.)  The call's
 * span is not request 2's: a copy of request 2's bytes would be forwarded
 * (test_forwarded_bytes_decide).
 */
static void test_trace_seen_twice_decides_nothing(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);
	const struct vp_call *call;
	const struct vp_proc *p;

	send_traced(k.l1, 'a', '1', 901, US(100), 300);
	synth_rep(k.l1, 100, 300, US(110), 901);
	send_traced(k.l1, 'c', '1', 901, US(150), 300);
	send_traced(k.l2, 'a', '2', 902, US(200), 300);
	send_traced(k.d1, 'a', '1', 300, US(210), 401);
	synth_rep(k.d1, 30, 401, US(216), 300);
	synth_rep(k.l2, 50, 300, US(225), 902);
	synth_rep(k.l1, 100, 300, US(230), 901);
	close_links(&k, US(400));
	assert_string_equal(analyze(w),
			    "lg/901>web/300 | lg/901>web/300 | lg/902>web/300(web/300>db/401)");
	call = w->c.reqs[2]->root->calls[0];
	assert_int_not_equal(call->link.basis, VP_BASIS_PROPAGATED_ID);
	assert_false(call->link.exact);
	assert_false(w->c.reqs[2]->exact);
	p = collected_proc(&w->c, "web", 300);
	assert_int_equal(p->calls_with_id, 1);
	assert_int_equal(p->calls_by_id, 0);
}

/*
 * A thread per connection: the thread rule links thread 301's call to the
 * request it serves, exact; the call carries the id of the request thread
 * 302 serves.  Two kinds of evidence disagree: the link is left inferred,
 * counted, and neither request is exact.
 */
static void test_id_against_the_thread_rule(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);
	const struct vp_call *call;
	const struct vp_proc *p;

	send_traced(k.l1, 'a', '1', 901, US(100), 301);
	send_traced(k.l2, 'b', '1', 902, US(102), 302);
	send_traced(k.d1, 'b', '2', 301, US(110), 401);
	synth_rep(k.d1, 30, 401, US(116), 301);
	synth_rep(k.l2, 50, 302, US(125), 902);
	synth_rep(k.l1, 100, 301, US(130), 901);
	close_links(&k, US(400));
	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401) | lg/902>web/302");
	call = w->c.reqs[0]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_THREAD);
	assert_false(call->link.exact);
	assert_false(w->c.reqs[0]->exact);
	assert_false(w->c.reqs[1]->exact);
	p = collected_proc(&w->c, "web", 300);
	assert_int_equal(p->id_disagree, 1);
	assert_int_equal(p->calls_by_id, 0);
}

/*
 * test_dispatcher_worker's shape, each request and call with an id: the
 * worker's calls wait for its reply to claim them, and their ids claim
 * them first, exact; the tree is the same.
 */
static void test_worker_call_claimed_by_id(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);
	const struct vp_call *call;

	send_traced(k.l1, 'a', '1', 901, US(100), 310);
	send_traced(k.l2, 'b', '1', 902, US(101), 310);
	send_traced(k.d2, 'b', '2', 312, US(110), 402);
	send_traced(k.d1, 'a', '2', 311, US(111), 401);
	synth_rep(k.d1, 70, 401, US(130), 311);
	synth_rep(k.d2, 70, 402, US(131), 312);
	synth_rep(k.l1, 500, 311, US(140), 901);
	synth_rep(k.l2, 500, 312, US(141), 902);
	close_links(&k, US(400));
	assert_string_equal(analyze(w),
			    "lg/901>web/311(web/311>db/401) | lg/902>web/312(web/312>db/402)");
	call = w->c.reqs[1]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_PROPAGATED_ID);
	assert_true(call->link.exact);
	assert_true(w->c.reqs[0]->exact);
	assert_true(w->c.reqs[1]->exact);
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_by_id, 2);
}

/*
 * A pool worker (311) sends request 1's call, then request 2's, each
 * carrying its request's id, while both requests are open; pipelined: the
 * second goes out before the first's reply came.
 */
static void worker_two_tasks(struct world *w, bool pipelined)
{
	struct links k = open_links(w);

	send_traced(k.l1, 'a', '1', 901, US(100), 310);
	send_traced(k.l2, 'b', '1', 902, US(101), 320);
	send_traced(k.d1, 'a', '2', 311, US(110), 401);
	if (!pipelined)
		synth_rep(k.d1, 70, 401, US(116), 311);
	send_traced(k.d1, 'b', '2', 311, US(130), 401);
	synth_rep(k.d1, 70, 401, US(136), 311);
	if (pipelined)
		synth_rep(k.d1, 70, 401, US(140), 311);
	synth_rep(k.l2, 500, 320, US(150), 902);
	synth_rep(k.l1, 500, 310, US(151), 901);
	close_links(&k, US(400));
}

/*
 * The worker's first reply does not make it request 1's (the thread rule
 * would link the next call there, exact, against its id): the ids claim both.
 */
static void test_worker_next_task_claimed_by_id(void **state)
{
	struct world *w = *state;
	const struct vp_call *call;
	const struct vp_proc *p;

	worker_two_tasks(w, false);
	assert_string_equal(analyze(w),
			    "lg/901>web/310(web/311>db/401) | lg/902>web/320(web/311>db/401)");
	call = w->c.reqs[1]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_PROPAGATED_ID);
	assert_true(call->link.exact);
	assert_true(w->c.reqs[0]->exact);
	assert_true(w->c.reqs[1]->exact);
	p = collected_proc(&w->c, "web", 300);
	assert_int_equal(p->calls_by_id, 2);
	assert_int_equal(p->id_disagree, 0);
}

/*
 * Pipelined, both calls are one message linked by the first id; request
 * 2's call is hidden in it: neither request may be exact (the second
 * operation's id says so).
 */
static void test_pipelined_ids_decide_nothing(void **state)
{
	struct world *w = *state;

	worker_two_tasks(w, true);
	assert_string_equal(analyze(w), "lg/901>web/310(web/311>db/401) | lg/902>web/320");
	assert_false(w->c.reqs[0]->root->calls[0]->link.exact);
	assert_false(w->c.reqs[0]->exact);
	assert_false(w->c.reqs[1]->exact);
	assert_int_equal(collected_proc(&w->c, "web", 300)->id_disagree, 0);
}

/* Recorded with --capture-hash 64 instead of --capture 256 (send_text). */
static bool hash_capture;

/* Message `m` (captured whole, or hashed) from l's client to its server, or a call's. */
static void send_text(struct synth_link *l, const char *m, uint32_t stid, uint64_t ts,
		      uint32_t rtid)
{
	if (hash_capture)
		synth_xfer_hash(l, SYNTH_C2S, m, (uint32_t)strlen(m), 64, stid, ts, rtid,
				ts + SYNTH_DELAY_NS);
	else
		synth_xfer_data(l, SYNTH_C2S, m, (uint32_t)strlen(m), 256, stid, ts, rtid,
				ts + SYNTH_DELAY_NS);
}

#define Q1 "SELECT val FROM items WHERE id = 17 /* request 1 */"
#define Q2 "SELECT val FROM items WHERE id = 18 /* request 2 */"

/*
 * A relay on one event loop (a connection pooler): it reads request 1
 * (first), then request 2 (second: its bytes, NULL when not captured), and
 * sends first on: the timing leaves both requests, its last input was 2's.
 */
static void relay_forwards(struct world *w, const char *first, const char *second)
{
	struct links k = open_links(w);

	send_text(k.l1, first, 901, US(100), 300);
	if (second)
		send_text(k.l2, second, 902, US(102), 300);
	else
		synth_req(k.l2, 100, 902, US(102), 300);
	send_text(k.d1, first, 300, US(110), 401);
	synth_rep(k.d1, 30, 401, US(116), 300);
	synth_rep(k.l2, 50, 300, US(125), 902);
	synth_rep(k.l1, 100, 300, US(130), 901);
	close_links(&k, US(400));
}

/* The call carries request 1's bytes and no other open request's: forwarded, exact. */
static void test_forwarded_bytes_decide(void **state)
{
	struct world *w = *state;
	const struct vp_call *call;
	const struct vp_proc *p;

	relay_forwards(w, Q1, Q2);
	assert_string_equal(analyze(w), "lg/901>web/300(web/300>db/401) | lg/902>web/300");
	call = w->c.reqs[0]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_FORWARDED);
	assert_true(call->link.exact);
	assert_true(w->c.reqs[0]->exact);
	assert_true(w->c.reqs[1]->exact);
	p = collected_proc(&w->c, "web", 300);
	assert_int_equal(p->calls_forwarded, 1);
	assert_int_equal(p->fwd_disagree, 0);
}

/* The same with only the hashes of the first 64 bytes recorded (--capture-hash 64). */
static void test_forwarded_hashes_decide(void **state)
{
	hash_capture = true;
	test_forwarded_bytes_decide(state);
	hash_capture = false;
}

/* Both open requests carry the same bytes (two clients' identical queries): nothing decided. */
static void test_forwarded_same_bytes_decide_nothing(void **state)
{
	struct world *w = *state;
	const struct vp_call *call;

	relay_forwards(w, Q1, Q1);
	assert_string_equal(analyze(w), "lg/901>web/300 | lg/902>web/300(web/300>db/401)");
	call = w->c.reqs[1]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_LAST_INPUT);
	assert_false(call->link.exact);
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_forwarded, 0);
}

static void test_forwarded_same_hashes_decide_nothing(void **state)
{
	hash_capture = true;
	test_forwarded_same_bytes_decide_nothing(state);
	hash_capture = false;
}

/* Request 2's bytes were not captured: it may carry the same, so nothing is decided. */
static void test_forwarded_unknown_bytes_decide_nothing(void **state)
{
	struct world *w = *state;

	relay_forwards(w, Q1, NULL);
	assert_string_equal(analyze(w), "lg/901>web/300 | lg/902>web/300(web/300>db/401)");
	assert_false(w->c.reqs[1]->root->calls[0]->link.exact);
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_forwarded, 0);
}

/*
 * Request 2's capture ended after 20 bytes, all equal to Q1's: it may be the
 * same message (nothing decided).  Cut where it differs, it is not.
 */
static void test_forwarded_cut_bytes(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	send_text(k.l1, Q1, 901, US(100), 300);
	synth_xfer_data(k.l2, SYNTH_C2S, Q1, (uint32_t)strlen(Q1), 20, 902, US(102), 300,
			US(102) + SYNTH_DELAY_NS);
	send_text(k.d1, Q1, 300, US(110), 401);
	synth_rep(k.d1, 30, 401, US(116), 300);
	synth_rep(k.l2, 50, 300, US(125), 902);
	synth_rep(k.l1, 100, 300, US(130), 901);
	close_links(&k, US(400));
	analyze(w);
	assert_false(w->c.reqs[1]->root->calls[0]->link.exact);
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_forwarded, 0);
}

static void test_forwarded_cut_where_it_differs(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	send_text(k.l1, Q1, 901, US(100), 300);
	/* 40 bytes: through "id = 18", where it differs from Q1 */
	synth_xfer_data(k.l2, SYNTH_C2S, Q2, (uint32_t)strlen(Q2), 40, 902, US(102), 300,
			US(102) + SYNTH_DELAY_NS);
	send_text(k.d1, Q1, 300, US(110), 401);
	synth_rep(k.d1, 30, 401, US(116), 300);
	synth_rep(k.l2, 50, 300, US(125), 902);
	synth_rep(k.l1, 100, 300, US(130), 901);
	close_links(&k, US(400));
	assert_string_equal(analyze(w), "lg/901>web/300(web/300>db/401) | lg/902>web/300");
	assert_int_equal(w->c.reqs[0]->root->calls[0]->link.basis, VP_BASIS_FORWARDED);
	assert_true(w->c.reqs[0]->root->calls[0]->link.exact);
}

/*
 * Requests longer than the 64 bytes hashed (request 1 is Q1 twice, 2 is Q2
 * then Q1), the call request 1's first relay_cut bytes (a relay may send a
 * message on in other pieces than it came in).  Q1 and Q2 differ at byte 34.
 */
static void relay_forwards_hashed(struct world *w, uint32_t relay_cut)
{
	struct links k = open_links(w);
	uint32_t n = (uint32_t)strlen(Q1);

	synth_xfer_hash(k.l1, SYNTH_C2S, Q1 Q1, 2 * n, 64, 901, US(100), 300,
			US(100) + SYNTH_DELAY_NS);
	synth_xfer_hash(k.l2, SYNTH_C2S, Q2 Q1, 2 * n, 64, 902, US(102), 300,
			US(102) + SYNTH_DELAY_NS);
	synth_xfer_hash(k.d1, SYNTH_C2S, Q1 Q1, relay_cut, 64, 300, US(110), 401,
			US(110) + SYNTH_DELAY_NS);
	synth_rep(k.d1, 30, 401, US(116), 300);
	synth_rep(k.l2, 50, 300, US(125), 902);
	synth_rep(k.l1, 100, 300, US(130), 901);
	close_links(&k, US(400));
}

/* The first 64 bytes hashed on both sides (of 80 and 102): the hashes decide, exact. */
static void test_forwarded_hashes_of_longer_messages(void **state)
{
	struct world *w = *state;

	relay_forwards_hashed(w, 80);
	assert_string_equal(analyze(w), "lg/901>web/300(web/300>db/401) | lg/902>web/300");
	assert_int_equal(w->c.reqs[0]->root->calls[0]->link.basis, VP_BASIS_FORWARDED);
	assert_true(w->c.reqs[0]->root->calls[0]->link.exact);
}

/*
 * The call's 40 bytes hashed against the requests' 64: compared on their
 * first 24, where Q1 and Q2 are the same: both may be its source, nothing
 * is decided (bytes would have decided: they differ at byte 34).
 */
static void test_forwarded_hashes_common_prefix_decide_nothing(void **state)
{
	struct world *w = *state;

	relay_forwards_hashed(w, 40);
	assert_string_equal(analyze(w), "lg/901>web/300 | lg/902>web/300(web/300>db/401)");
	assert_false(w->c.reqs[1]->root->calls[0]->link.exact);
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_forwarded, 0);
}

/* Short messages (`PING`) are common to many requests: equal bytes there prove nothing. */
static void test_forwarded_short_bytes_decide_nothing(void **state)
{
	struct world *w = *state;

	relay_forwards(w, "GET /a?id=1", "GET /a?id=2");
	assert_string_equal(analyze(w), "lg/901>web/300 | lg/902>web/300(web/300>db/401)");
	assert_false(w->c.reqs[1]->root->calls[0]->link.exact);
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_forwarded, 0);
}

/*
 * Request 1 carried Q1 and is finished (its connection's next request
 * came); request 2 carries Q1 too.  A call carrying Q1 may be a late call
 * of request 1: the bytes decide nothing.
 */
static void test_forwarded_bytes_seen_twice_decide_nothing(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);
	const struct vp_call *call;

	send_text(k.l1, Q1, 901, US(100), 300);
	synth_rep(k.l1, 100, 300, US(110), 901);
	send_text(k.l1, Q2, 901, US(150), 300);
	send_text(k.l2, Q1, 902, US(200), 300);
	send_text(k.d1, Q1, 300, US(210), 401);
	synth_rep(k.d1, 30, 401, US(216), 300);
	synth_rep(k.l2, 50, 300, US(225), 902);
	synth_rep(k.l1, 100, 300, US(230), 901);
	close_links(&k, US(400));
	assert_string_equal(analyze(w),
			    "lg/901>web/300 | lg/901>web/300 | lg/902>web/300(web/300>db/401)");
	call = w->c.reqs[2]->root->calls[0];
	assert_int_not_equal(call->link.basis, VP_BASIS_FORWARDED);
	assert_false(call->link.exact);
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_forwarded, 0);
}

/*
 * A thread per connection: the thread rule links thread 301's call to its
 * request, exact, but the call carries the bytes of the request thread 302
 * serves.  The two disagree: inferred, counted, neither request exact.
 */
static void test_forwarded_against_the_thread_rule(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);
	const struct vp_call *call;
	const struct vp_proc *p;

	send_text(k.l1, Q1, 901, US(100), 301);
	send_text(k.l2, Q2, 902, US(102), 302);
	send_text(k.d1, Q2, 301, US(110), 401);
	synth_rep(k.d1, 30, 401, US(116), 301);
	synth_rep(k.l2, 50, 302, US(125), 902);
	synth_rep(k.l1, 100, 301, US(130), 901);
	close_links(&k, US(400));
	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401) | lg/902>web/302");
	call = w->c.reqs[0]->root->calls[0];
	assert_int_equal(call->link.basis, VP_BASIS_THREAD);
	assert_false(call->link.exact);
	assert_false(w->c.reqs[0]->exact);
	assert_false(w->c.reqs[1]->exact);
	p = collected_proc(&w->c, "web", 300);
	assert_int_equal(p->fwd_disagree, 1);
	assert_int_equal(p->calls_forwarded, 0);
}

/*
 * An event loop reads request 1 and sends a call on d1, then reads request 2
 * and sends more on d1 before reading anything back: one message holds both
 * requests' calls (HTTP/2 streams written one after the other).  Linking it
 * to request 1 by the thread rule was exact and wrong; neither request is
 * exact now, whichever gets the call.
 */
static void test_two_requests_calls_in_one_message(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	synth_req(k.l1, 100, 901, US(100), 300);
	synth_req(k.d1, 40, 300, US(110), 401);
	synth_req(k.l2, 100, 902, US(120), 300);
	synth_req(k.d1, 40, 300, US(130), 401); /* request 2's call, same message */
	synth_rep(k.d1, 90, 401, US(140), 300);
	synth_rep(k.l1, 100, 300, US(150), 901);
	synth_rep(k.l2, 100, 300, US(151), 902);

	assert_string_equal(analyze(w), "lg/901>web/300(web/300>db/401) | lg/902>web/300");
	assert_int_equal(w->c.reqs[0]->root->calls[0]->request_bytes, 80);
	assert_false(w->c.reqs[0]->root->calls[0]->link.exact);
	assert_false(w->c.reqs[0]->exact);
	assert_false(w->c.reqs[1]->exact);
	free_links(&k);
}

/*
 * One thread serves one request, but the back end sends the second part of
 * a reply before it reads the next call, and the thread sends that call
 * before it reads the second part: a reply was still coming when the call
 * went out (a multiplexed or pipelined connection; the two ends' stream
 * positions show it).  Its messages are no longer one exchange each: no
 * call on it is exact, those linked before the finding included.
 */
static void test_call_sent_while_a_reply_was_coming(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	synth_req(k.l1, 100, 901, US(100), 301);
	synth_req(k.d1, 10, 301, US(110), 401);
	synth_rep(k.d1, 30, 401, US(120), 301);
	synth_xfer_half(k.d1, SYNTH_S2C, false, 30, 401, US(121), false); /* sent ... */
	synth_req(k.d1, 10, 301, US(130), 401);
	synth_xfer_half(k.d1, SYNTH_S2C, true, 30, 301, US(136),
			true); /* ... read after the call */
	synth_rep(k.d1, 30, 401, US(140), 301);
	synth_rep(k.l1, 100, 301, US(150), 901);

	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401,web/301>db/401)");
	/* The first too: its reply was the one still coming, so its cut was no better. */
	assert_false(w->c.reqs[0]->root->calls[0]->link.exact);
	assert_false(w->c.reqs[0]->root->calls[1]->link.exact);
	assert_false(w->c.reqs[0]->exact);
	free_links(&k);
}

/*
 * A connection that begins with HTTP/2's preface carries several requests
 * at once: nothing on it is exact, at either end, even a call sent by a
 * thread that serves one request, or a request from a client not recorded.
 */
static void test_http2_preface_is_never_exact(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	k.d1->op_flags = VPR_OP_STREAM_START | VPR_OP_H2_PREFACE;
	synth_req(k.l1, 100, 901, US(100), 301);
	synth_req(k.d1, 24 + 40, 301, US(110), 401);
	k.d1->op_flags = 0;
	synth_rep(k.d1, 90, 401, US(120), 301);
	synth_rep(k.l1, 100, 301, US(150), 901);
	close_links(&k, US(200));

	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401)");
	assert_false(w->c.reqs[0]->root->calls[0]->link.exact);
	assert_false(w->c.reqs[0]->exact);
}

/*
 * The preface sent alone, then a request without frame records (a recorder
 * that lost them): held for the frames of the send after it, none come, and
 * the bytes cut both: still never exact.
 */
static void test_http2_preface_alone_without_frames_is_never_exact(void **state)
{
	struct world *w = *state;
	struct links k = open_links(w);

	synth_req(k.l1, 100, 901, US(100), 301);
	k.d1->op_flags = VPR_OP_STREAM_START | VPR_OP_H2_PREFACE;
	synth_req(k.d1, 24, 301, US(110), 401);
	k.d1->op_flags = 0;
	synth_req(k.d1, 40, 301, US(111), 401);
	synth_rep(k.d1, 90, 401, US(120), 301);
	synth_rep(k.l1, 100, 301, US(150), 901);
	close_links(&k, US(200));

	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401)");
	assert_int_equal(w->c.reqs[0]->root->calls[0]->request_bytes, 24 + 40);
	assert_false(w->c.reqs[0]->root->calls[0]->link.exact);
	assert_false(w->c.reqs[0]->exact);
}

static void test_http2_preface_from_a_client_not_recorded(void **state)
{
	struct world *w = *state;
	struct synth_link *l =
		synth_link__open(NULL, 1, 0, w->web, 11, 300, "10.9.9.9:40001", "10.0.0.1:80", 0);

	l->op_flags = VPR_OP_STREAM_START | VPR_OP_H2_PREFACE;
	synth_req(l, 24 + 80, 0, US(100), 301);
	l->op_flags = 0;
	synth_rep(l, 90, 301, US(120), 0);
	synth_link__close(l, US(200));

	analyze(w);
	assert_int_equal(w->c.n, 1);
	assert_false(w->c.reqs[0]->exact);
}

/* HTTP/2 frame types and flags the tests write (RFC 9113 6). */
enum {
	H2_DATA = 0,
	H2_HEADERS = 1,
	H2_SETTINGS = 4
};
#define H2_END_STREAM 0x1
#define H2_END_HEADERS 0x4

/*
 * Two threads of web, each serving one request, send their calls as streams
 * 1 and 3 of one HTTP/2 connection (d1) before anything comes back, and a
 * reader thread (303) reads both replies in one read, stream 3's first.
 * Cut by bytes this is one message of two threads; cut by the frame
 * headers it is two calls, each its sender's request's, exact.  With
 * `lost`, the recorder loses its place in web's frames after the calls
 * went out: the replies are unseen, nothing is exact.  With `blocks`, each
 * HEADERS frame's block was captured too (--capture).
 */
static void h2_two_threads_over(struct world *w, bool lost, bool tls, bool blocks)
{
	static const struct synth_h2 settings = {H2_SETTINGS, 0, 0, 6},
				     ack = {H2_SETTINGS, 1, 0, 0};
	static const struct synth_h2 srv[] = {{H2_SETTINGS, 0, 0, 6}, {H2_SETTINGS, 1, 0, 0}};
	static const struct synth_h2 s1 = {H2_HEADERS, H2_END_HEADERS | H2_END_STREAM, 1, 40};
	static const struct synth_h2 s3 = {H2_HEADERS, H2_END_HEADERS | H2_END_STREAM, 3, 41};
	static const struct synth_h2 rep[] = {
		{H2_HEADERS, H2_END_HEADERS, 3, 30},
		{H2_DATA, H2_END_STREAM, 3, 50},
		{H2_HEADERS, H2_END_HEADERS, 1, 31},
		{H2_DATA, H2_END_STREAM, 1, 60},
	};
	struct links k = open_links(w);
	void (*xfer)(struct synth_link *, enum synth_dir, bool, const struct synth_h2 *, unsigned,
		     uint32_t, uint64_t, uint32_t, uint64_t) =
		tls ? synth_h2_tls_xfer : synth_h2_xfer;

	k.d1->h2_blocks = blocks;
	if (tls)
		synth_tls_handshake(k.d1, 303, 401, US(40));
	xfer(k.d1, SYNTH_C2S, true, &settings, 1, 303, US(50), 401, US(55));
	xfer(k.d1, SYNTH_S2C, false, srv, 2, 401, US(56), 303, US(60));
	xfer(k.d1, SYNTH_C2S, false, &ack, 1, 303, US(61), 401, US(65));
	synth_req(k.l1, 100, 901, US(100), 301);
	synth_req(k.l2, 100, 902, US(101), 302);
	xfer(k.d1, SYNTH_C2S, false, &s1, 1, 301, US(110), 401, US(120));
	xfer(k.d1, SYNTH_C2S, false, &s3, 1, 302, US(111), 401, US(121));
	if (lost)
		synth_h2_lost(w->web, US(112), 303, 21, VPR_DIR_RECV, k.d1->seq[SYNTH_S2C], 3);
	xfer(k.d1, SYNTH_S2C, false, rep, 4, 401, US(130), 303, US(135));
	synth_rep(k.l2, 200, 302, US(140), 902);
	synth_rep(k.l1, 200, 301, US(141), 901);
	close_links(&k, US(200));
}

static void h2_two_threads(struct world *w, bool lost)
{
	h2_two_threads_over(w, lost, false, false);
}

static void h2_streams_are_calls_of_their_requests(struct world *w, bool tls)
{
	h2_two_threads_over(w, false, tls, false);
	assert_string_equal(analyze(w),
			    "lg/901>web/301(web/301>db/401) | lg/902>web/302(web/302>db/401)");
	for (int i = 0; i < 2; i++) {
		const struct vp_call *c = w->c.reqs[i]->root->calls[0];

		assert_true(w->c.reqs[i]->exact);
		assert_true(c->link.exact);
		assert_true(c->complete);
		/* Its own frames only: HEADERS out; HEADERS and DATA back. */
		assert_int_equal(c->request_bytes, 9 + 40 + (unsigned)i);
		assert_int_equal(c->reply_bytes, 9 + 31 - (unsigned)i + 9 + (i ? 50 : 60));
		assert_int_equal(c->conn_index, (unsigned)i); /* stream 1, then stream 3 */
	}
}

static void test_h2_streams_are_calls_of_their_requests(void **state)
{
	h2_streams_are_calls_of_their_requests(*state, false);
}

/*
 * The same inside TLS: the frames read in libssl's plaintext cut the
 * streams, and the handshake's end is no call: streams count from 0.
 */
static void test_h2_tls_streams_are_calls_of_their_requests(void **state)
{
	h2_streams_are_calls_of_their_requests(*state, true);
}

/*
 * How the client's connection setup goes: its preface and SETTINGS in one
 * write; or the preface written alone (grpc-go), then the reader's read of
 * the server's SETTINGS; or the preface alone, then the client's own
 * SETTINGS write.  Either way the preface and SETTINGS are connection
 * setup, no call: they must not blind the process to its threads.
 */
enum go_h2_setup {
	GO_H2_PREFACE_WITH_SETTINGS,
	GO_H2_PREFACE_THEN_READ,
	GO_H2_PREFACE_THEN_WRITE
};

/* The setup of d1 by loopy (50, on thread 302) and the reader (51, on 301), from 199 us on. */
static void go_h2_setup(struct world *w, struct links *k, enum go_h2_setup how)
{
	static const struct synth_h2 settings = {H2_SETTINGS, 0, 0, 6},
				     ack = {H2_SETTINGS, 1, 0, 0};
	static const struct synth_h2 srv[] = {{H2_SETTINGS, 0, 0, 6}, {H2_SETTINGS, 1, 0, 0}};

	synth_go(w->web, US(199), 300, 302, VPR_GO_RUN, 50, 0);
	synth_go(w->web, US(199), 300, 301, VPR_GO_RUN, 51, 0);
	switch (how) {
	case GO_H2_PREFACE_WITH_SETTINGS:
		synth_h2_xfer(k->d1, SYNTH_C2S, true, &settings, 1, 302, US(200), 401, US(205));
		synth_h2_xfer(k->d1, SYNTH_S2C, false, srv, 2, 401, US(206), 301, US(210));
		break;
	case GO_H2_PREFACE_THEN_READ:
		synth_h2_xfer(k->d1, SYNTH_C2S, true, NULL, 0, 302, US(200), 401, US(201));
		synth_h2_xfer(k->d1, SYNTH_S2C, false, srv, 1, 401, US(202), 301, US(203));
		synth_h2_xfer(k->d1, SYNTH_C2S, false, &settings, 1, 302, US(204), 401, US(205));
		synth_h2_xfer(k->d1, SYNTH_S2C, false, &srv[1], 1, 401, US(206), 301, US(210));
		break;
	case GO_H2_PREFACE_THEN_WRITE:
		synth_h2_xfer(k->d1, SYNTH_C2S, true, NULL, 0, 302, US(200), 401, US(204));
		synth_h2_xfer(k->d1, SYNTH_C2S, false, &settings, 1, 302, US(201), 401, US(205));
		synth_h2_xfer(k->d1, SYNTH_S2C, false, srv, 2, 401, US(206), 301, US(210));
		break;
	}
	synth_h2_xfer(k->d1, SYNTH_C2S, false, &ack, 1, 302, US(211), 401, US(215));
}

/*
 * The header blocks captured beside the frames label each stream's call,
 * inside TLS as on plain TCP: the frames read in libssl's plaintext are
 * marked VPR_H2_IN_TLS, and their blocks are found all the same.
 */
static void h2_blocks_label_the_calls(struct world *w, bool tls)
{
	h2_two_threads_over(w, false, tls, true);
	assert_string_equal(analyze(w),
			    "lg/901>web/301(web/301>db/401) | lg/902>web/302(web/302>db/401)");
	for (int i = 0; i < 2; i++) {
		const struct vp_witness *wit = &w->c.reqs[i]->root->calls[0]->wit;

		assert_int_equal(wit->proto, VP_PROTO_HTTP);
		assert_string_equal(wit->verb, "GET");
		assert_string_equal(wit->text, "/");
		assert_int_equal(wit->status, 200);
	}
}

static void test_h2_blocks_label_the_calls(void **state)
{
	h2_blocks_label_the_calls(*state, false);
}

static void test_h2_tls_blocks_label_the_calls(void **state)
{
	h2_blocks_label_the_calls(*state, true);
}

/* Two calls' messages (a gRPC message's 5-byte prefix left out: its zeros end a C string). */
#define GRPC_ORDER_17 "{\"order\": 17, \"item\": \"forwarded one\"}"
#define GRPC_ORDER_18 "{\"order\": 18, \"item\": \"forwarded two\"}"

/*
 * nginx's grpc_pass: web, one event loop (thread 300), reads stream 1
 * (request 1, body first) and then stream 3 (request 2, body second) of
 * one HTTP/2 connection, and sends first on as stream 1 of its own
 * connection to db (inside TLS with `tls`), each DATA frame's first bytes
 * captured.  Its last input was stream 3's: only the bytes say stream 1.
 */
static void h2_relay_forwards(struct world *w, const char *first, const char *second, bool tls)
{
	static const struct synth_h2 settings = {H2_SETTINGS, 0, 0, 6},
				     ack = {H2_SETTINGS, 1, 0, 0};
	static const struct synth_h2 srv[] = {{H2_SETTINGS, 0, 0, 6}, {H2_SETTINGS, 1, 0, 0}};
	uint32_t n1 = (uint32_t)strlen(first), n2 = (uint32_t)strlen(second);
	const struct synth_h2 s1[] = {{H2_HEADERS, H2_END_HEADERS, 1, 40},
				      {H2_DATA, H2_END_STREAM, 1, n1}};
	const struct synth_h2 s3[] = {{H2_HEADERS, H2_END_HEADERS, 3, 41},
				      {H2_DATA, H2_END_STREAM, 3, n2}};
	const struct synth_h2 up[] = {{H2_HEADERS, H2_END_HEADERS, 1, 45},
				      {H2_DATA, H2_END_STREAM, 1, n1}};
	const char *const b1[] = {NULL, first}, *const b2[] = {NULL, second};
	static const struct synth_h2 rep1[] = {{H2_HEADERS, H2_END_HEADERS, 1, 30},
					       {H2_DATA, H2_END_STREAM, 1, 50}};
	static const struct synth_h2 rep3[] = {{H2_HEADERS, H2_END_HEADERS, 3, 30},
					       {H2_DATA, H2_END_STREAM, 3, 60}};
	struct links k = open_links(w);
	void (*xfer)(struct synth_link *, enum synth_dir, bool, const struct synth_h2 *, unsigned,
		     uint32_t, uint64_t, uint32_t, uint64_t) =
		tls ? synth_h2_tls_xfer : synth_h2_xfer;

	synth_h2_xfer(k.l1, SYNTH_C2S, true, &settings, 1, 901, US(50), 300, US(51));
	synth_h2_xfer(k.l1, SYNTH_S2C, false, srv, 2, 300, US(52), 901, US(53));
	synth_h2_xfer(k.l1, SYNTH_C2S, false, &ack, 1, 901, US(54), 300, US(55));
	if (tls)
		synth_tls_handshake(k.d1, 300, 401, US(60));
	xfer(k.d1, SYNTH_C2S, true, &settings, 1, 300, US(70), 401, US(71));
	xfer(k.d1, SYNTH_S2C, false, srv, 2, 401, US(72), 300, US(73));
	xfer(k.d1, SYNTH_C2S, false, &ack, 1, 300, US(74), 401, US(75));
	k.l1->h2_bodies = b1;
	synth_h2_xfer(k.l1, SYNTH_C2S, false, s1, 2, 901, US(100), 300, US(105));
	k.l1->h2_bodies = b2;
	synth_h2_xfer(k.l1, SYNTH_C2S, false, s3, 2, 902, US(102), 300, US(107));
	k.d1->h2_bodies = b1;
	xfer(k.d1, SYNTH_C2S, false, up, 2, 300, US(110), 401, US(115));
	xfer(k.d1, SYNTH_S2C, false, rep1, 2, 401, US(120), 300, US(125));
	synth_h2_xfer(k.l1, SYNTH_S2C, false, rep3, 2, 300, US(130), 902, US(135));
	synth_h2_xfer(k.l1, SYNTH_S2C, false, rep1, 2, 300, US(140), 901, US(145));
	close_links(&k, US(400));
}

/* The upstream stream carries stream 1's message and not stream 3's: forwarded, exact. */
static void h2_relay_bytes_decide(struct world *w, bool tls)
{
	const struct vp_proc *p;

	h2_relay_forwards(w, GRPC_ORDER_17, GRPC_ORDER_18, tls);
	analyze(w);
	assert_int_equal(w->c.n, 2);
	for (size_t i = 0; i < w->c.n; i++) {
		const struct vp_request *r = w->c.reqs[i];

		/* Stream 1 (request 1) was opened first: conn_index 0. */
		if (r->root->conn_index == 0) {
			assert_int_equal(r->root->ncalls, 1);
			assert_int_equal(r->root->calls[0]->link.basis, VP_BASIS_FORWARDED);
			assert_true(r->root->calls[0]->link.exact);
		} else {
			assert_int_equal(r->root->ncalls, 0);
		}
	}
	p = collected_proc(&w->c, "web", 300);
	assert_int_equal(p->calls_forwarded, 1);
	assert_int_equal(p->fwd_disagree, 0);
}

static void test_h2_relay_bytes_decide(void **state)
{
	h2_relay_bytes_decide(*state, false);
}

/* nginx's grpc_pass grpcs://: its upstream's DATA frames read in libssl's plaintext. */
static void test_h2_tls_relay_bytes_decide(void **state)
{
	h2_relay_bytes_decide(*state, true);
}

/*
 * Both streams carry the same message (two clients' identical calls): the
 * bytes decide nothing, and no link through web is exact.
 */
static void test_h2_relay_same_bytes_decide_nothing(void **state)
{
	struct world *w = *state;

	h2_relay_forwards(w, GRPC_ORDER_17, GRPC_ORDER_17, false);
	analyze(w);
	assert_int_equal(w->c.n, 2);
	for (size_t i = 0; i < w->c.n; i++) {
		const struct vp_request *r = w->c.reqs[i];

		for (size_t j = 0; j < r->root->ncalls; j++)
			assert_false(r->root->calls[j]->link.exact);
		assert_false(r->exact);
	}
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_forwarded, 0);
}

/*
 * grpc-go's client: conn goroutines 1 and 2 serve 901 and 902, each with a
 * goroutine per call (7, 8); 8 readies the transport's loopy writer (50),
 * which writes both streams in one write; its reader (51) reads both
 * replies in one read, stream 3's first, and readies each stream's caller
 * as it meets the stream's first frame: 8, loopy (a window update), 7.
 * Each stream is its caller's request's, by the reader's batch (wakeup,
 * inferred); the last ready after the read, or the writer's, would give
 * both to 902.
 */
/* What grpc-go's reader, held up after its read, readies before the callers. */
enum go_h2_first {
	GO_H2_CALLERS_ONLY,
	GO_H2_BORN_AFTER_READ,	/* a goroutine created after the read */
	GO_H2_BORN_AFTER_SENDS, /* created before the read, after both streams were sent */
	GO_H2_LATER_REQUEST,	/* a conn goroutine whose request began after both were sent */
	GO_H2_LOCK_HANDED_ON,	/* readied by another first, it hands a lock to a waiter */
};

static void go_h2_reader_hands_each_stream_back(struct world *w, enum go_h2_setup how,
						enum go_h2_first first)
{
	static const struct synth_h2 calls[] = {
		{H2_HEADERS, H2_END_HEADERS, 1, 40},
		{H2_DATA, H2_END_STREAM, 1, 100},
		{H2_HEADERS, H2_END_HEADERS, 3, 41},
		{H2_DATA, H2_END_STREAM, 3, 100},
	};
	static const struct synth_h2 rep[] = {
		{H2_HEADERS, H2_END_HEADERS, 3, 30},
		{H2_DATA, 0, 3, 50},
		{H2_HEADERS, H2_END_HEADERS | H2_END_STREAM, 3, 2},
		{H2_HEADERS, H2_END_HEADERS, 1, 31},
		{H2_DATA, 0, 1, 60},
		{H2_HEADERS, H2_END_HEADERS | H2_END_STREAM, 1, 2},
	};
	struct links k = open_links(w);
	struct synth_link *l3 = NULL;
	size_t nreq = EARLY + 2;

	go_answer_early(w, &k, US(10));
	go_h2_setup(w, &k, how);
	if (first == GO_H2_LATER_REQUEST)
		l3 = synth_link__open(w->lg, 3, 900, w->web, 13, 300, "10.0.0.9:40003",
				      "10.0.0.1:80", 0);
	synth_go(w->web, US(299), 300, 301, VPR_GO_RUN, 1, 0);
	synth_req(k.l1, 100, 901, US(300), 301);
	synth_go(w->web, US(300), 300, 302, VPR_GO_RUN, 2, 0);
	synth_req(k.l2, 100, 902, US(301), 302);
	synth_go(w->web, US(310), 300, 301, VPR_GO_NEW, 1, 7);
	synth_go(w->web, US(311), 300, 302, VPR_GO_NEW, 2, 8);
	synth_go(w->web, US(312), 300, 302, VPR_GO_READY, 8, 50);
	synth_go(w->web, US(313), 300, 302, VPR_GO_RUN, 50, 0);
	synth_h2_xfer(k.d1, SYNTH_C2S, false, calls, 4, 302, US(314), 401, US(320));
	synth_go(w->web, US(334), 300, 301, VPR_GO_RUN, 51, 0);
	synth_h2_xfer(k.d1, SYNTH_S2C, false, rep, 6, 401, US(330), 301, US(335));
	if (first == GO_H2_BORN_AFTER_READ || first == GO_H2_BORN_AFTER_SENDS) {
		/* 901's handler starts another call (9), and the reader readies it first. */
		synth_go(w->web, first == GO_H2_BORN_AFTER_READ ? US(336) : US(325), 300, 302,
			 VPR_GO_NEW, 1, 9);
		synth_go(w->web, US(340), 300, 301, VPR_GO_READY, 51, 9);
	} else if (first == GO_H2_LOCK_HANDED_ON) {
		/*
		 * 901's handler's other goroutine (9, there before both streams)
		 * waits for the lock the reader blocked on after its read: 60
		 * releases it to the reader, which hands it on to 9 first.
		 */
		synth_go(w->web, US(305), 300, 301, VPR_GO_NEW, 1, 9);
		synth_go(w->web, US(338), 300, 302, VPR_GO_READY, 60, 51);
		synth_go(w->web, US(340), 300, 301, VPR_GO_READY, 51, 9);
	} else if (first == GO_H2_LATER_REQUEST) {
		/* 903 arrives once both streams were sent; its goroutine (3) is readied first. */
		synth_go(w->web, US(324), 300, 303, VPR_GO_RUN, 3, 0);
		synth_req(l3, 100, 903, US(325), 303);
		synth_go(w->web, US(340), 300, 301, VPR_GO_READY, 51, 3);
		nreq++;
	}
	synth_go(w->web, US(341), 300, 301, VPR_GO_READY, 51, 8);
	synth_go(w->web, US(342), 300, 301, VPR_GO_READY, 51, 50);
	synth_go(w->web, US(343), 300, 301, VPR_GO_READY, 51, 7);
	synth_go(w->web, US(349), 300, 301, VPR_GO_RUN, 1, 0);
	synth_rep(k.l1, 500, 301, US(350), 901);
	synth_go(w->web, US(350), 300, 302, VPR_GO_RUN, 2, 0);
	synth_rep(k.l2, 500, 302, US(351), 902);
	if (l3) {
		synth_go(w->web, US(352), 300, 303, VPR_GO_RUN, 3, 0);
		synth_rep(l3, 500, 303, US(353), 903);
		synth_link__close(l3, US(400)); /* frees it */
	}
	close_links(&k, US(400));

	analyze(w);
	assert_int_equal(w->c.n, nreq);
	for (int i = 0; i < 2; i++) {
		const struct vp_request *r = w->c.reqs[EARLY + i];

		assert_int_equal(r->root->ncalls, 1);
		assert_int_equal(r->root->calls[0]->conn_index, (unsigned)i); /* stream 1, 3 */
		assert_int_equal(r->root->calls[0]->link.basis, VP_BASIS_WAKEUP);
		assert_false(r->root->calls[0]->link.exact);
	}
}

static void test_go_h2_reader_hands_each_stream_back(void **state)
{
	go_h2_reader_hands_each_stream_back(*state, GO_H2_PREFACE_WITH_SETTINGS,
					    GO_H2_CALLERS_ONLY);
}

/* grpc-go's preface written alone, the server's SETTINGS read next. */
static void test_go_h2_preface_alone_then_read(void **state)
{
	go_h2_reader_hands_each_stream_back(*state, GO_H2_PREFACE_THEN_READ, GO_H2_CALLERS_ONLY);
}

/*
 * grpc-go's preface written alone, its own SETTINGS written next (one run
 * in four of tests/h2 go-grpc): the preface is setup once that write's
 * frames say so, not a call that blinds the front to its goroutines.
 */
static void test_go_h2_preface_alone_then_write(void **state)
{
	go_h2_reader_hands_each_stream_back(*state, GO_H2_PREFACE_THEN_WRITE, GO_H2_CALLERS_ONLY);
}

/*
 * A goroutine created after the read (901's next call) was no caller of its
 * streams: readied first, by a reader held up after its read, it is skipped.
 */
static void test_go_h2_reader_readies_a_later_goroutine(void **state)
{
	go_h2_reader_hands_each_stream_back(*state, GO_H2_PREFACE_WITH_SETTINGS,
					    GO_H2_BORN_AFTER_READ);
}

/*
 * Nor was one created before the read but after both streams were sent
 * (grpc-go's reader, blocked on the transport's mutex, hands it on).
 */
static void test_go_h2_reader_readies_a_goroutine_born_after_the_sends(void **state)
{
	go_h2_reader_hands_each_stream_back(*state, GO_H2_PREFACE_WITH_SETTINGS,
					    GO_H2_BORN_AFTER_SENDS);
}

/*
 * A reader readied by another unit after its read had blocked on a lock:
 * the first unit it readies, one too many, is the lock handed on.
 */
static void test_go_h2_held_reader_hands_a_lock_on_first(void **state)
{
	go_h2_reader_hands_each_stream_back(*state, GO_H2_PREFACE_WITH_SETTINGS,
					    GO_H2_LOCK_HANDED_ON);
}

/* Nor a goroutine serving a request that arrived after both streams were sent. */
static void test_go_h2_reader_readies_a_later_request(void **state)
{
	go_h2_reader_hands_each_stream_back(*state, GO_H2_PREFACE_WITH_SETTINGS,
					    GO_H2_LATER_REQUEST);
}

/* Who wrote grpc-go's streams (VPR_GO_H2_WRITE records) and when, against the HEADERS. */
enum go_write_when {
	GO_WRITE_AFTER_HEADERS,	 /* loopy wrote the HEADERS first */
	GO_WRITE_BEFORE_HEADERS, /* the Writes came before loopy's write */
	GO_WRITE_CALL_GOROUTINES /* per-call goroutines (7, 8) wrote, after the HEADERS */
};

/*
 * grpc-go's client: conn goroutines 1 and 2 serve 901 and 902 and each
 * makes one call, stream 1 and stream 3, written by loopy (50) in one
 * write; the reader (51) reads both replies, stream 3's first, and readies
 * 1 before 2: the batch would give stream 3 to 901.  The transport's Write,
 * called by each caller with its stream, names them: each stream is its
 * caller's request's, exact (the caller serves that request alone).  With
 * per-call goroutines (7, 8, created by 1 and 2) the Writes decide which
 * goroutine, but the goroutine's request is its creation's: right,
 * inferred.
 */
static void go_grpc_writes_name_the_callers(struct world *w, enum go_write_when when)
{
	/* The HEADERS, then the DATA that ends each request (queued by the Write). */
	static const struct synth_h2 headers[] = {
		{H2_HEADERS, H2_END_HEADERS, 1, 40},
		{H2_HEADERS, H2_END_HEADERS, 3, 41},
	};
	static const struct synth_h2 data[] = {
		{H2_DATA, H2_END_STREAM, 1, 100},
		{H2_DATA, H2_END_STREAM, 3, 100},
	};
	static const struct synth_h2 rep[] = {
		{H2_HEADERS, H2_END_HEADERS, 3, 30},
		{H2_DATA, 0, 3, 50},
		{H2_HEADERS, H2_END_HEADERS | H2_END_STREAM, 3, 2},
		{H2_HEADERS, H2_END_HEADERS, 1, 31},
		{H2_DATA, 0, 1, 60},
		{H2_HEADERS, H2_END_HEADERS | H2_END_STREAM, 1, 2},
	};
	bool per_call = when == GO_WRITE_CALL_GOROUTINES;
	uint64_t c1 = per_call ? 7 : 1, c2 = per_call ? 8 : 2;
	uint64_t wt = when == GO_WRITE_BEFORE_HEADERS ? US(312) : US(316);
	struct links k = open_links(w);

	go_answer_early(w, &k, US(10));
	go_h2_setup(w, &k, GO_H2_PREFACE_WITH_SETTINGS);
	synth_go(w->web, US(299), 300, 301, VPR_GO_RUN, 1, 0);
	synth_req(k.l1, 100, 901, US(300), 301);
	synth_go(w->web, US(300), 300, 302, VPR_GO_RUN, 2, 0);
	synth_req(k.l2, 100, 902, US(301), 302);
	if (per_call) {
		synth_go(w->web, US(305), 300, 301, VPR_GO_NEW, 1, 7);
		synth_go(w->web, US(306), 300, 302, VPR_GO_NEW, 2, 8);
	}
	synth_go(w->web, US(310), 300, 302, VPR_GO_READY, c2, 50);
	synth_go(w->web, wt, 300, 301, VPR_GO_H2_WRITE, c1, 1);
	synth_go(w->web, wt + US(1), 300, 303, VPR_GO_H2_WRITE, c2, 3);
	synth_go(w->web, US(313), 300, 302, VPR_GO_RUN, 50, 0);
	synth_h2_xfer(k.d1, SYNTH_C2S, false, headers, 2, 302, US(314), 401, US(320));
	synth_h2_xfer(k.d1, SYNTH_C2S, false, data, 2, 302, US(318), 401, US(321));
	synth_go(w->web, US(334), 300, 301, VPR_GO_RUN, 51, 0);
	synth_h2_xfer(k.d1, SYNTH_S2C, false, rep, 6, 401, US(330), 301, US(335));
	synth_go(w->web, US(341), 300, 301, VPR_GO_READY, 51, c1);
	synth_go(w->web, US(342), 300, 301, VPR_GO_READY, 51, 50);
	synth_go(w->web, US(343), 300, 301, VPR_GO_READY, 51, c2);
	synth_go(w->web, US(349), 300, 301, VPR_GO_RUN, 1, 0);
	synth_rep(k.l1, 500, 301, US(350), 901);
	synth_go(w->web, US(350), 300, 302, VPR_GO_RUN, 2, 0);
	synth_rep(k.l2, 500, 302, US(351), 902);
	close_links(&k, US(400));

	analyze(w);
	assert_int_equal(w->c.n, EARLY + 2);
	for (int i = 0; i < 2; i++) {
		const struct vp_request *r = w->c.reqs[EARLY + i];

		assert_int_equal(r->root->ncalls, 1);
		assert_int_equal(r->root->calls[0]->conn_index, (unsigned)i); /* stream 1, 3 */
		assert_int_equal(r->root->calls[0]->link.basis,
				 per_call ? VP_BASIS_WAKEUP : VP_BASIS_THREAD);
		assert_int_equal(r->root->calls[0]->link.exact, !per_call);
	}
	assert_int_equal(collected_proc(&w->c, "web", 300)->calls_by_gowrite, per_call ? 0 : 2);
}

static void test_go_grpc_writes_after_the_headers(void **state)
{
	go_grpc_writes_name_the_callers(*state, GO_WRITE_AFTER_HEADERS);
}

static void test_go_grpc_writes_before_the_headers(void **state)
{
	go_grpc_writes_name_the_callers(*state, GO_WRITE_BEFORE_HEADERS);
}

static void test_go_grpc_writes_of_call_goroutines(void **state)
{
	go_grpc_writes_name_the_callers(*state, GO_WRITE_CALL_GOROUTINES);
}

static void test_h2_lost_frames_decide_nothing(void **state)
{
	struct world *w = *state;

	h2_two_threads(w, true);
	analyze(w);
	for (size_t i = 0; i < w->c.n; i++)
		assert_false(w->c.reqs[i]->exact);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_thread_per_connection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dispatcher_worker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_reused_backend_connections, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_nested_three_tiers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sequential_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reply_in_parts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_greeting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_loop_interleaving, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_loop_window_decides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_carrying_several_requests, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_event_loop_window_leaves_two, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_connect_cuts_the_request, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refused_send_cuts_the_request, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reply_after_a_refused_send_is_whole, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_send_into_a_reset_cuts_the_request, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_client_requests_are_not_cut_by_the_reply_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_back_end_cuts_the_request, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_killed_back_end_after_the_caller_went_on,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_back_end_that_exits_leaves_it_complete, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_background_call_is_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_loop_connect_and_reply_parts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wakeup_decides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wakeup_back_only_is_inferred, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wakeup_lock_storm_is_inferred, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wakeup_not_before_the_shape_shows, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wakeup_shape_is_per_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_go_loops_and_mutexes_do_not_decide, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_go_first_call_waits_for_the_shape, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_go_goroutines_are_the_units, setup, teardown),
		cmocka_unit_test_setup_teardown(test_go_probes_late_bare_threads_forgotten, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_go_pending_bare_thread_links_inferred, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_event_loop_id_decides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_loop_shared_id_decides_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_event_loop_unknown_id_decides_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_id_against_the_thread_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_seen_twice_decides_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_worker_call_claimed_by_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_worker_next_task_claimed_by_id, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pipelined_ids_decide_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_bytes_decide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_hashes_decide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_same_hashes_decide_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_hashes_of_longer_messages, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_hashes_common_prefix_decide_nothing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_same_bytes_decide_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_unknown_bytes_decide_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_cut_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_cut_where_it_differs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_short_bytes_decide_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_bytes_seen_twice_decide_nothing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_forwarded_against_the_thread_rule, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_two_requests_calls_in_one_message, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_call_sent_while_a_reply_was_coming, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_http2_preface_is_never_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_http2_preface_alone_without_frames_is_never_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http2_preface_from_a_client_not_recorded,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_h2_streams_are_calls_of_their_requests, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_h2_blocks_label_the_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_h2_tls_blocks_label_the_calls, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_h2_relay_bytes_decide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_h2_tls_relay_bytes_decide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_h2_relay_same_bytes_decide_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_h2_tls_streams_are_calls_of_their_requests,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_go_h2_reader_hands_each_stream_back, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_go_h2_preface_alone_then_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_go_h2_preface_alone_then_write, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_go_h2_reader_readies_a_later_goroutine, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_go_h2_reader_readies_a_goroutine_born_after_the_sends, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_go_grpc_writes_after_the_headers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_go_grpc_writes_before_the_headers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_go_grpc_writes_of_call_goroutines, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_go_h2_reader_readies_a_later_request, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_go_h2_held_reader_hands_a_lock_on_first, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_h2_lost_frames_decide_nothing, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
