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
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../lib/twohosts.h"

#define US(x) ((uint64_t)(x) * 1000)
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
	struct synth_link *l = synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001",
						"10.0.0.2:8080", 0);
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
	struct synth_link *l = synth_link__open(t->a, 1, 300, t->b, 11, 500, "10.0.0.1:40001",
						"10.0.0.2:5432", 0);
	static const uint8_t q[] = "Q\0\0\0\x21SELECT * FROM t WHERE id = 5";
	static const uint8_t rep[] = "C\0\0\0\x0dSELECT 1\0Z\0\0\0\x05I";

	synth_xfer_data(l, SYNTH_C2S, q, sizeof(q), 16, 301, US(100), 501, US(110));
	synth_xfer_data(l, SYNTH_S2C, rep, sizeof(rep) - 1, 256, 501, US(200), 301, US(210));
	synth_req(l, 34, 301, US(1000), 501);
	synth_payload(t->b, US(1000) + 50000, 500, 501, 11, VPR_DIR_RECV, 34, l->seq[SYNTH_C2S], q, 300);
	synth_rep(l, 19, 501, US(1100), 301);
	synth_link__close(l, US(3000));
	analyze(t);
	assert_int_equal(t->c.n, 2);
	assert_string_equal(label_of(t->c.reqs[0]->root), "SELECT * FR...");
	assert_true(t->c.reqs[0]->root->wit.flags & VP_WIT_CUT);
	assert_int_equal(t->c.reqs[1]->root->wit.proto, VP_PROTO_NONE);
	assert_int_equal(vp_analysis__host(t->c.a, 1)->payloads_bad, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_labels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_and_damaged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
