// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Witnesses on calls (stage 4 with analyzer/proto/): the first bytes of a
 * request's first operation and of its reply's, recorded as VPR_PAYLOAD,
 * give the call its label; a call without them, or whose bytes no protocol
 * reads on both sides, has none; a payload record whose len runs past it
 * is counted and not used.  Host a ("web", 10.0.0.1) calls host b ("app",
 * 10.0.0.2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../lib/twohosts.h"

#define US(x) ((uint64_t)(x)*1000)
#define S(lit) lit, sizeof(lit) - 1

static int setup(void **state)
{
	struct two_hosts *t = two_hosts__new("web", "10.0.0.1", "app", "10.0.0.2");

	if (!t)
		return -1;
	synth_task(t->a, 0, 300, 300, VPR_TASK_SNAPSHOT, "web");
	synth_task(t->b, 0, 500, 500, VPR_TASK_SNAPSHOT, "app");
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	two_hosts__free(*state);
	return 0;
}

static void analyze(struct two_hosts *t)
{
	assert_int_equal(two_hosts__close(t), 0);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
}

static const char *label_of(const struct vp_call *c)
{
	static char buf[512];

	return vp_witness_label(&c->wit, 60, buf, sizeof(buf));
}

/* Three calls on one keep-alive connection: HTTP captured, HTTP not captured, unknown bytes. */
static void test_labels(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l =
		synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001", "10.0.0.2:8080", 0);
	static const char get[] = "GET /cart?id=7 HTTP/1.1\r\nHost: app\r\n\r\n";
	static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

	synth_xfer_data(l, SYNTH_C2S, S(get), 256, 301, US(100), 501, US(110));
	synth_xfer_data(l, SYNTH_S2C, S(ok), 256, 501, US(200), 301, US(210));
	synth_req(l, 40, 301, US(1000), 501);
	synth_rep(l, 50, 501, US(1100), 301);
	synth_xfer_data(l, SYNTH_C2S, S("\x16\x03\x01 hello"), 256, 301, US(2000), 501, US(2010));
	synth_xfer_data(l, SYNTH_S2C, S("HTTP/1.1 200 OK\r\n"), 256, 501, US(2100), 301, US(2110));
	synth_link__close(l, US(3000));
	analyze(t);
	assert_int_equal(t->c.n, 3);
	assert_int_equal(t->c.reqs[0]->root->wit.proto, VP_PROTO_HTTP);
	assert_string_equal(label_of(t->c.reqs[0]->root), "GET /cart?id=7 200");
	assert_int_equal(t->c.reqs[1]->root->wit.proto, VP_PROTO_NONE);
	assert_int_equal(t->c.reqs[2]->root->wit.proto, VP_PROTO_NONE);
	assert_int_equal(vp_analysis__host(t->c.a, 0)->payloads, 4);
	assert_int_equal(vp_analysis__host(t->c.a, 0)->payloads_bad, 0);
}

/* A request cut by the capture still names its statement's start; a damaged record is counted. */
static void test_cut_and_damaged(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l =
		synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001", "10.0.0.2:5432", 0);
	static const uint8_t q[] = "Q\0\0\0\x21SELECT * FROM t WHERE id = 5";
	static const uint8_t rep[] = "C\0\0\0\x0dSELECT 1\0Z\0\0\0\x05I";

	synth_xfer_data(l, SYNTH_C2S, q, sizeof(q), 16, 301, US(100), 501, US(110));
	synth_xfer_data(l, SYNTH_S2C, rep, sizeof(rep) - 1, 256, 501, US(200), 301, US(210));
	synth_req(l, 34, 301, US(1000), 501);
	synth_payload(t->b, US(1000) + 50000, 500, 501, 11, VPR_DIR_RECV, 34, l->seq[SYNTH_C2S], q,
		      300);
	synth_rep(l, 19, 501, US(1100), 301);
	synth_link__close(l, US(3000));
	analyze(t);
	assert_int_equal(t->c.n, 2);
	assert_string_equal(label_of(t->c.reqs[0]->root), "SELECT * FR...");
	assert_true(t->c.reqs[0]->root->wit.flags & VP_WIT_CUT);
	assert_int_equal(t->c.reqs[1]->root->wit.proto, VP_PROTO_NONE);
	assert_int_equal(vp_analysis__host(t->c.a, 1)->payloads_bad, 1);
}

/* One end's operation of data[from, from + n) of the next bytes in direction d, with its first cap. */
static void part(struct synth_link *l, enum synth_dir d, bool recv_side, const char *data,
		 uint32_t from, uint32_t n, uint16_t cap, uint32_t tid, uint64_t ts)
{
	int side = (d == SYNTH_C2S) == !recv_side ? 0 : 1;
	uint8_t dir = recv_side ? VPR_DIR_RECV : VPR_DIR_SEND;
	uint32_t end = l->seq[d] + from + n;

	synth_op(l->host[side], ts, l->pid[side], tid, l->cookie[side], dir, n, end);
	synth_payload(l->host[side], ts, l->pid[side], tid, l->cookie[side], dir, n, end,
		      data + from, cap < n ? cap : (uint16_t)n);
}

static const char get2[] =
	"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b?q=1 HTTP/1.1\r\nHost: x\r\n\r\n";
#define GET_A 28 /* the first request's length */
static const char rep_a[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
static const char rep_b[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";

/*
 * Two HTTP/1.1 requests in one write and one read; the server answers each
 * with a write of its own (calling out between them), the client reads both
 * replies at once.  capture: how many first bytes each operation keeps.
 */
static void http_pair(struct two_hosts *t, uint16_t capture, const char *second_reply)
{
	struct synth_link *l =
		synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001", "10.0.0.2:8080", 0);
	struct synth_link *out =
		synth_link__open(t->b, 12, 500, NULL, 0, 0, "10.0.0.2:40100", "10.0.0.9:5432", 0);
	char both[256];
	uint32_t na = sizeof(rep_a) - 1, nb = (uint32_t)strlen(second_reply);

	snprintf(both, sizeof(both), "%s%s", rep_a, second_reply);
	synth_xfer_data(l, SYNTH_C2S, S(get2), capture, 301, US(100), 501, US(110));
	/* The server's call while it holds both requests: whose it is, the evidence does not say. */
	synth_xfer(out, SYNTH_C2S, 20, 501, US(120), 0, 0);
	synth_xfer(out, SYNTH_S2C, 20, 0, 0, 501, US(130));
	part(l, SYNTH_S2C, false, both, 0, na, capture, 501, US(200));
	part(l, SYNTH_S2C, false, both, na, nb, capture, 501, US(220));
	part(l, SYNTH_S2C, true, both, 0, na + nb, capture, 301, US(230));
	l->seq[SYNTH_S2C] += na + nb;
	synth_link__close(out, US(2900));
	synth_link__close(l, US(3000));
	analyze(t);
}

/* Pipelined HTTP/1.1: one exchange per request at both ends, each with its own label and sizes. */
static void test_http_pipeline(void **state)
{
	struct two_hosts *t = *state;
	const struct vp_call *a, *b;

	http_pair(t, 256, rep_b);
	assert_int_equal(t->c.n, 2);
	a = t->c.reqs[0]->root;
	b = t->c.reqs[1]->root;
	assert_string_equal(label_of(a), "GET /a 200");
	assert_string_equal(label_of(b), "GET /b?q=1 404");
	assert_int_equal(a->wit.count, 1);
	assert_int_equal(a->request_bytes, GET_A);
	assert_int_equal(b->request_bytes, sizeof(get2) - 1 - GET_A);
	assert_int_equal(a->reply_bytes, sizeof(rep_a) - 1);
	assert_int_equal(b->reply_bytes, sizeof(rep_b) - 1);
	assert_true(a->complete && b->complete);
	assert_int_equal(a->conn_index + 1, b->conn_index);
	/* Both were read at 110 us: each its own time; the second's reply is its own write. */
	assert_int_equal(a->srv_req_first, b->srv_req_first);
	assert_true(b->srv_rep_first > a->srv_rep_first);
	/* The call made while both were held is the first's, inferred. */
	assert_int_equal(a->ncalls, 1);
	assert_false(a->calls[0]->link.exact);
	assert_false(t->c.reqs[0]->exact);
}

/* A capture too short for the first request's end: one exchange, counted as before. */
static void test_http_pipeline_cut(void **state)
{
	struct two_hosts *t = *state;

	http_pair(t, 20, rep_b);
	assert_int_equal(t->c.n, 1);
	assert_string_equal(label_of(t->c.reqs[0]->root), "GET /a 200");
	assert_int_equal(t->c.reqs[0]->root->request_bytes, sizeof(get2) - 1);
	assert_true(t->c.reqs[0]->root->calls[0]->link.exact);
}

/* The first reply's end is not known (chunked): one exchange holding both, as before. */
static void test_http_pipeline_chunked(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l =
		synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001", "10.0.0.2:8080", 0);
	static const char chunked[] =
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"2\r\nok\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";

	synth_xfer_data(l, SYNTH_C2S, S(get2), 256, 301, US(100), 501, US(110));
	synth_xfer_data(l, SYNTH_S2C, S(chunked), 256, 501, US(200), 301, US(210));
	synth_link__close(l, US(3000));
	analyze(t);
	assert_int_equal(t->c.n, 1);
	assert_string_equal(label_of(t->c.reqs[0]->root), "GET /a 200");
	assert_int_equal(t->c.reqs[0]->root->wit.count, 2);
	assert_int_equal(t->c.reqs[0]->root->request_bytes, sizeof(get2) - 1);
}

/* The client writes the two requests apart, before any reply; the server reads them at once. */
static void test_http_pipeline_two_writes(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l =
		synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001", "10.0.0.2:8080", 0);
	uint32_t n = sizeof(get2) - 1;

	part(l, SYNTH_C2S, false, get2, 0, GET_A, 256, 301, US(100));
	part(l, SYNTH_C2S, false, get2, GET_A, n - GET_A, 256, 301, US(105));
	part(l, SYNTH_C2S, true, get2, 0, n, 256, 501, US(110));
	l->seq[SYNTH_C2S] += n;
	synth_xfer_data(l, SYNTH_S2C, S(rep_a), 256, 501, US(200), 301, US(210));
	synth_xfer_data(l, SYNTH_S2C, S(rep_b), 256, 501, US(300), 301, US(310));
	synth_link__close(l, US(3000));
	analyze(t);
	assert_int_equal(t->c.n, 2);
	assert_string_equal(label_of(t->c.reqs[0]->root), "GET /a 200");
	assert_string_equal(label_of(t->c.reqs[1]->root), "GET /b?q=1 404");
	assert_true(t->c.reqs[0]->complete && t->c.reqs[1]->complete);
	/* At the client the second was sent by a write of its own. */
	assert_int_equal(t->c.reqs[1]->root->start_ns - t->c.reqs[0]->root->start_ns, US(5));
}

/* A Redis pipeline of three commands and their three replies, each in one operation. */
static void test_redis_pipeline(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l =
		synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001", "10.0.0.2:6379", 0);
	static const char cmds[] = "*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
				   "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
	static const char reps[] = "+PONG\r\n+OK\r\n$1\r\nv\r\n";

	synth_xfer_data(l, SYNTH_C2S, S(cmds), 256, 301, US(100), 501, US(110));
	synth_xfer_data(l, SYNTH_S2C, S(reps), 256, 501, US(200), 301, US(210));
	/* Then one command alone on the same connection. */
	synth_xfer_data(l, SYNTH_C2S, S("*1\r\n$4\r\nPING\r\n"), 256, 301, US(300), 501, US(310));
	synth_xfer_data(l, SYNTH_S2C, S("+PONG\r\n"), 256, 501, US(400), 301, US(410));
	synth_link__close(l, US(3000));
	analyze(t);
	assert_int_equal(t->c.n, 4);
	assert_string_equal(label_of(t->c.reqs[0]->root), "PING");
	assert_string_equal(label_of(t->c.reqs[1]->root), "SET");
	assert_string_equal(label_of(t->c.reqs[2]->root), "GET");
	assert_string_equal(label_of(t->c.reqs[3]->root), "PING");
	assert_int_equal(t->c.reqs[0]->root->reply_bytes, 7);
	assert_int_equal(t->c.reqs[1]->root->reply_bytes, 5);
	assert_int_equal(t->c.reqs[2]->root->reply_bytes, 7);
	assert_int_equal(t->c.reqs[1]->root->request_bytes, 27);
	for (int i = 0; i < 4; i++)
		assert_true(t->c.reqs[i]->complete);
}

/*
 * The client reads the three replies in two reads that cut the second
 * reply: the first read's bytes are held until the second's complete the
 * value, so both ends cut at the same places.
 */
static void test_redis_pipeline_reads_cut(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l =
		synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001", "10.0.0.2:6379", 0);
	static const char cmds[] = "*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
				   "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
	static const char reps[] = "+PONG\r\n+OK\r\n$1\r\nv\r\n";
	uint32_t n = sizeof(reps) - 1;

	synth_xfer_data(l, SYNTH_C2S, S(cmds), 256, 301, US(100), 501, US(110));
	part(l, SYNTH_S2C, false, reps, 0, n, 256, 501, US(200));
	part(l, SYNTH_S2C, true, reps, 0, 9, 256, 301, US(210));
	part(l, SYNTH_S2C, true, reps, 9, n - 9, 256, 301, US(215));
	l->seq[SYNTH_S2C] += n;
	synth_link__close(l, US(3000));
	analyze(t);
	assert_int_equal(t->c.n, 3);
	assert_string_equal(label_of(t->c.reqs[0]->root), "PING");
	assert_string_equal(label_of(t->c.reqs[1]->root), "SET");
	assert_string_equal(label_of(t->c.reqs[2]->root), "GET");
	assert_int_equal(t->c.reqs[1]->root->request_bytes, 27);
	assert_int_equal(t->c.reqs[1]->root->reply_bytes, 5);
	for (int i = 0; i < 3; i++)
		assert_true(t->c.reqs[i]->complete);
}

/*
 * The same, but the client's second read is captured too short to finish
 * the second reply: the client keeps SET and GET as one exchange, as
 * without the split, while the server cut three.  The server's GET, left
 * without its other end, is a path of its own: incomplete, never exact.
 */
static void test_redis_pipeline_ends_disagree(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *l =
		synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001", "10.0.0.2:6379", 0);
	static const char cmds[] = "*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"
				   "*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";
	static const char reps[] = "+PONG\r\n+OK\r\n$1\r\nv\r\n";
	uint32_t n = sizeof(reps) - 1;

	synth_xfer_data(l, SYNTH_C2S, S(cmds), 256, 301, US(100), 501, US(110));
	part(l, SYNTH_S2C, false, reps, 0, n, 256, 501, US(200));
	part(l, SYNTH_S2C, true, reps, 0, 9, 256, 301, US(210));
	part(l, SYNTH_S2C, true, reps, 9, n - 9, 2, 301, US(215));
	l->seq[SYNTH_S2C] += n;
	synth_link__close(l, US(3000));
	analyze(t);
	assert_int_equal(t->c.n, 3);
	assert_string_equal(label_of(t->c.reqs[0]->root), "PING");
	assert_true(t->c.reqs[0]->complete && t->c.reqs[0]->exact);
	assert_int_equal(t->c.reqs[1]->root->request_bytes, 47);
	assert_int_equal(t->c.reqs[1]->root->conn_index, 1);
	assert_int_equal(t->c.reqs[2]->root->conn_index, 2);
	assert_string_equal(label_of(t->c.reqs[2]->root), "GET");
	assert_false(t->c.reqs[2]->complete);
	assert_false(t->c.reqs[2]->exact);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_and_damaged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_pipeline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_pipeline_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_pipeline_chunked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_http_pipeline_two_writes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_redis_pipeline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_redis_pipeline_reads_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_redis_pipeline_ends_disagree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
