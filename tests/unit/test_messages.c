// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Messages cut by the sender's stream (stage 3) and how calls end, on
 * hand-written recordings of the habits that fooled a receiver-side cut:
 * a request's tail read after the reply (PHP-FPM, FastCGI's empty stdin
 * record), a body read after an early reply, a half-close, a reply streamed
 * around its calls; and goodbyes: one-way before a FIN (complete), before a
 * reset (incomplete).  Host a ("web", 10.0.0.1) calls host b ("php",
 * 10.0.0.2), which calls a database that is not recorded (10.0.0.3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../lib/twohosts.h"

#define US(x) ((uint64_t)(x)*1000)

static int setup(void **state)
{
	struct two_hosts *t = two_hosts__new("web", "10.0.0.1", "php", "10.0.0.2");

	if (!t)
		return -1;
	synth_task(t->a, 0, 300, 300, VPR_TASK_SNAPSHOT, "web");
	synth_task(t->b, 0, 500, 500, VPR_TASK_SNAPSHOT, "php");
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	two_hosts__free(*state);
	return 0;
}

static const char *analyze(struct two_hosts *t)
{
	assert_int_equal(two_hosts__close(t), 0);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
	return collected_sigs(&t->c);
}

/* The web server's connection to php and php's to the database. */
static struct synth_link *fcgi(struct two_hosts *t)
{
	return synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001", "10.0.0.2:9000", 0);
}

static struct synth_link *db(struct two_hosts *t, uint64_t cookie, const char *local, uint64_t ts)
{
	return synth_link__open(t->b, cookie, 500, NULL, 0, 0, local, "10.0.0.3:3306", ts);
}

static void db_call_by(struct synth_link *d, uint32_t tid, uint64_t t)
{
	synth_req(d, 40, tid, t, 0);
	synth_rep(d, 60, 0, t + US(10), tid);
}

static void db_call(struct synth_link *d, uint64_t t)
{
	db_call_by(d, 501, t);
}

/*
 * The web server writes each request whole (the last 8 bytes are FastCGI's
 * empty stdin record); php reads all but those 8, queries, replies, and
 * reads them only when it comes back for the next request.
 */
static void test_tail_read_after_reply(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l = fcgi(t), *d = db(t, 21, "10.0.0.2:50001", 0);

	for (int i = 0; i < 3; i++) {
		uint64_t t0 = US(1000 * (i + 1));

		synth_xfer_half(l, SYNTH_C2S, false, 300, 301, t0, false); /* web: whole request */
		synth_xfer_half(l, SYNTH_C2S, true, 292, 501, t0 + US(5),
				true); /* php: all but the tail */
		db_call(d, t0 + US(20));
		synth_rep(l, 500, 501, t0 + US(100), 301);
		synth_xfer_half(l, SYNTH_C2S, true, 8, 501, t0 + US(110),
				true); /* the tail, late */
	}
	synth_link__free(l);
	synth_link__free(d);
	assert_string_equal(analyze(t), "web/301>php/501(php/501>10.0.0.3:3306) | "
					"web/301>php/501(php/501>10.0.0.3:3306) | "
					"web/301>php/501(php/501>10.0.0.3:3306)");
	for (size_t i = 0; i < t->c.n; i++) {
		assert_true(t->c.reqs[i]->complete);
		assert_true(t->c.reqs[i]->exact);
		assert_int_equal(t->c.reqs[i]->root->request_bytes, 300);
	}
}

/*
 * The tail and the next request come in one read: the read is split where
 * the sender's next message begins.
 */
static void test_tail_and_next_request_in_one_read(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l = fcgi(t), *d = db(t, 21, "10.0.0.2:50001", 0);

	synth_xfer_half(l, SYNTH_C2S, false, 300, 301, US(1000), false);
	synth_xfer_half(l, SYNTH_C2S, true, 292, 501, US(1005), true);
	db_call(d, US(1020));
	synth_rep(l, 500, 501, US(1100), 301);
	/* web sends the next request before php reads anything more; php reads tail + it at once */
	synth_op(t->a, US(1200), 300, 301, 1, VPR_DIR_SEND, 200, l->seq[SYNTH_C2S] + 8 + 200);
	synth_xfer_half(l, SYNTH_C2S, true, 208, 501, US(1210), true);
	db_call(d, US(1300));
	synth_rep(l, 400, 501, US(1400), 301);
	synth_link__free(l);
	synth_link__free(d);
	assert_string_equal(analyze(t), "web/301>php/501(php/501>10.0.0.3:3306) | "
					"web/301>php/501(php/501>10.0.0.3:3306)");
	assert_int_equal(t->c.reqs[0]->root->request_bytes, 300);
	assert_int_equal(t->c.reqs[1]->root->request_bytes, 200);
	assert_true(t->c.reqs[1]->complete);
}

/* An early reply (413): the server reads the headers, answers, then drains the body. */
static void test_body_read_after_early_reply(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l = fcgi(t);

	for (int i = 0; i < 2; i++) {
		uint64_t t0 = US(1000 * (i + 1));

		synth_xfer_half(l, SYNTH_C2S, false, 5000, 301, t0, false);
		synth_xfer_half(l, SYNTH_C2S, true, 200, 501, t0 + US(5), true);
		synth_rep(l, 80, 501, t0 + US(10), 301);
		synth_xfer_half(l, SYNTH_C2S, true, 2400, 501, t0 + US(20), true);
		synth_xfer_half(l, SYNTH_C2S, true, 2400, 501, t0 + US(30), true);
	}
	synth_link__free(l);
	assert_string_equal(analyze(t), "web/301>php/501 | web/301>php/501");
	assert_int_equal(t->c.reqs[1]->root->request_bytes, 5000);
	assert_true(t->c.reqs[1]->complete);
}

/* The client half-closes after its request, then reads the reply: one complete call. */
static void test_half_close_then_read(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l = fcgi(t);

	synth_req(l, 100, 301, US(100), 501);
	synth_conn(t->a, US(101), 1, 300, VPR_ROLE_CONNECTED, VPR_CONN_STATE, 4, "10.0.0.1:40001",
		   "10.0.0.2:9000", 0, 0);
	synth_op(t->b, US(110), 500, 501, 11, VPR_DIR_RECV, 0, 0); /* EOF */
	synth_rep(l, 700, 501, US(120), 301);
	synth_link__close_orderly(l, US(200));
	assert_string_equal(analyze(t), "web/301>php/501");
	assert_true(t->c.reqs[0]->complete);
	assert_int_equal(vp_call__outcome(t->c.reqs[0]->root), VP_OUTCOME_COMPLETE);
}

/* A reply sent in parts with a call between them (right before the sender-cut rule: kept). */
static void test_reply_streamed_around_call(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l = fcgi(t), *d = db(t, 21, "10.0.0.2:50001", 0);

	synth_req(l, 100, 301, US(100), 501);
	synth_rep(l, 300, 501, US(110), 301);
	db_call(d, US(120));
	synth_rep(l, 300, 501, US(200), 301);
	synth_req(l, 100, 301, US(300), 501);
	synth_rep(l, 300, 501, US(310), 301);
	synth_link__free(l);
	synth_link__free(d);
	assert_string_equal(analyze(t), "web/301>php/501(php/501>10.0.0.3:3306) | web/301>php/501");
	assert_int_equal(t->c.reqs[0]->root->reply_bytes, 600);
}

/*
 * TLS: the accepting thread does the handshake, a worker reads the client's
 * Finished, sends a session ticket, then reads the request the client wrote
 * with its Finished; at the end the client's close_notify.  The handshake is
 * the first call's setup time and the goodbye no request.
 */
static void test_tls_handshake_then_request_on_another_thread(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l = fcgi(t), *d = db(t, 21, "10.0.0.2:50001", 0);

	l->op_flags = VPR_OP_STREAM_START | VPR_OP_TLS_HS;
	synth_xfer(l, SYNTH_C2S, 300, 301, US(100), 510, US(105));  /* ClientHello */
	synth_xfer(l, SYNTH_S2C, 2000, 510, US(110), 301, US(115)); /* ServerHello .. Finished */
	l->op_flags = 0;
	synth_xfer_half(l, SYNTH_C2S, false, 380, 301, US(120), false); /* Finished + request */
	synth_xfer_half(l, SYNTH_C2S, true, 80, 501, US(130), true);
	synth_rep(l, 250, 501, US(135), 301); /* a session ticket */
	synth_xfer_half(l, SYNTH_C2S, true, 300, 501, US(140), true);
	db_call(d, US(150));
	synth_rep(l, 500, 501, US(200), 301);
	synth_req(l, 200, 301, US(300), 502);
	db_call_by(d, 502, US(310));
	synth_rep(l, 400, 502, US(400), 301);
	synth_req(l, 24, 301, US(500), 502); /* close_notify */
	synth_link__close_orderly(l, US(510));
	synth_link__free(d);
	assert_string_equal(analyze(t), "web/301>php/501(php/501>10.0.0.3:3306) | "
					"web/301>php/502(php/502>10.0.0.3:3306)");
	assert_int_equal(t->c.reqs[0]->root->setup_ns, US(20));
	assert_int_equal(t->c.reqs[0]->root->conn_index, 0);
	assert_int_equal(t->c.reqs[0]->root->request_bytes, 380);
	assert_int_equal(t->c.reqs[0]->root->reply_bytes, 750);
	assert_int_equal(t->c.reqs[1]->root->setup_ns, 0);
	assert_true(t->c.reqs[0]->exact && t->c.reqs[1]->exact);
}

/*
 * MySQL over TLS: the server greets, the client sends SSLRequest and then
 * its ClientHello (only the second send starts with a handshake record; the
 * server reads both at once), the server's flight starts with one; then
 * Finished with the login, a query, COM_QUIT.  The handshake is setup: the
 * login is the connection's first call.
 */
static void test_tls_after_the_stream_began(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *d = synth_link__open(t->b, 21, 500, t->a, 31, 300, "10.0.0.2:50001",
						"10.0.0.1:3306", 0);

	synth_xfer(d, SYNTH_S2C, 104, 301, US(100), 501, US(105)); /* greeting */
	synth_xfer_half(d, SYNTH_C2S, false, 36, 501, US(110), false);
	synth_op_flags(t->b, US(111), 500, 501, 21, VPR_DIR_SEND, 517, d->seq[SYNTH_C2S] + 36 + 517,
		       VPR_OP_TLS_HS);
	synth_xfer_half(d, SYNTH_C2S, true, 553, 301, US(115), true);
	d->op_flags = VPR_OP_TLS_HS;
	synth_xfer(d, SYNTH_S2C, 1225, 301, US(120), 501, US(125));
	d->op_flags = 0;
	synth_req(d, 269, 501, US(130), 301); /* Finished + login */
	synth_rep(d, 33, 301, US(140), 501);
	synth_req(d, 60, 501, US(200), 301); /* a query */
	synth_rep(d, 300, 301, US(210), 501);
	synth_req(d, 51, 501, US(300), 301); /* COM_QUIT + close_notify */
	synth_link__close_orderly(d, US(310));
	assert_string_equal(analyze(t), "php/501>web/301 | php/501>web/301 | php/501>web/301");
	assert_int_equal(t->c.reqs[0]->root->conn_index, 0);
	assert_int_equal(t->c.reqs[0]->root->request_bytes, 269);
	assert_int_equal(t->c.reqs[0]->root->setup_ns, US(20));
	assert_int_equal(t->c.reqs[1]->root->conn_index, 1);
	assert_int_equal(vp_call__outcome(t->c.reqs[2]->root), VP_OUTCOME_ONE_WAY);
}

/*
 * php's database connection: a query, then COM_QUIT and a close, with a FIN
 * or a reset; the database read the goodbye before the reset, or not.
 */
static void goodbye(struct two_hosts *t, bool orderly, bool read)
{
	struct synth_link *d = synth_link__open(t->b, 21, 500, t->a, 31, 300, "10.0.0.2:50001",
						"10.0.0.1:3306", 0);

	synth_req(d, 40, 501, US(100), 301);
	synth_rep(d, 60, 301, US(110), 501);
	/* COM_QUIT: no reply comes */
	synth_xfer_half(d, SYNTH_C2S, false, 5, 501, US(200), false);
	if (read)
		synth_xfer_half(d, SYNTH_C2S, true, 5, 301, US(205), true);
	if (orderly)
		synth_link__close_orderly(d, US(210));
	else
		synth_link__close(d, US(210));
}

static void test_one_way_before_fin(void **state)
{
	struct two_hosts *t = *state;

	goodbye(t, true, true);
	assert_string_equal(analyze(t), "php/501>web/301 | php/501>web/301");
	assert_int_equal(vp_call__outcome(t->c.reqs[0]->root), VP_OUTCOME_COMPLETE);
	assert_int_equal(vp_call__outcome(t->c.reqs[1]->root), VP_OUTCOME_ONE_WAY);
	assert_true(t->c.reqs[1]->complete);
}

/* The database read it all and closed: the reset (unread bytes, or its own) came after. */
static void test_one_way_read_then_reset(void **state)
{
	struct two_hosts *t = *state;

	goodbye(t, false, true);
	assert_string_equal(analyze(t), "php/501>web/301 | php/501>web/301");
	assert_int_equal(vp_call__outcome(t->c.reqs[1]->root), VP_OUTCOME_ONE_WAY);
}

/* A reset before the database read the message: cut in the middle, incomplete. */
static void test_one_way_cut_by_reset(void **state)
{
	struct two_hosts *t = *state;

	goodbye(t, false, false);
	/* The database never read it: no server end of that call. */
	assert_string_equal(analyze(t), "php/501>web/301 | php/501>10.0.0.1:3306");
	assert_int_equal(vp_call__outcome(t->c.reqs[1]->root), VP_OUTCOME_INCOMPLETE);
	assert_false(t->c.reqs[1]->complete);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tail_read_after_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tail_and_next_request_in_one_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_body_read_after_early_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_half_close_then_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reply_streamed_around_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tls_handshake_then_request_on_another_thread,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_tls_after_the_stream_began, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_way_before_fin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_way_read_then_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_way_cut_by_reset, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
