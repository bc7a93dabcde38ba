// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Messages and exchanges of one connection end, stage by stage, without
 * the rest of the pipeline: operations in one direction merge into a
 * message (and a gap in stream positions is noticed), direction changes
 * make request/reply exchanges, greetings are connection setup.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exchanges.h"
#include "messages.h"

static struct vpr_sock_op op_of(uint64_t ts, uint32_t tid, uint8_t dir, uint32_t bytes,
				uint32_t seq_end)
{
	struct vpr_sock_op op = {0};

	op.h.type = VPR_SOCK_OP;
	op.h.size = sizeof(op);
	op.h.ts_ns = ts;
	op.h.tid = tid;
	op.pid = 1;
	op.dir = dir;
	op.bytes = bytes;
	op.seq_end = seq_end;
	return op;
}

static void test_message_merges_ops(void **state)
{
	struct vpr_sock_op a = op_of(10, 5, VPR_DIR_SEND, 100, 0xfffffff0u);
	struct vpr_sock_op b = op_of(20, 6, VPR_DIR_SEND, 50, 0x22u); /* wraps around 2^32 */
	struct vpr_sock_op c = op_of(30, 6, VPR_DIR_SEND, 10, 0x40u); /* 0x22..0x36 missing */
	struct vp_msg m;

	vp_msg__start(&m, &a);
	vp_msg__add(&m, &b);
	assert_int_equal(m.seq_start, 0xfffffff0u - 100);
	assert_int_equal(m.seq_end, 0x22u);
	assert_int_equal(m.bytes, 150);
	assert_int_equal(m.first_ts, 10);
	assert_int_equal(m.last_ts, 20);
	assert_int_equal(m.first_tid, 5);
	assert_int_equal(m.last_tid, 6);
	assert_int_equal(m.nthreads, 2);
	assert_false(m.gap);
	vp_msg__add(&m, &c);
	assert_true(m.gap);
	(void)state;
}

struct end {
	struct vp_sock s;
	struct vp_xpool pool;
	struct vp_xchg *done[8];
	int ndone;
};

static enum vp_op_kind feed(struct end *e, uint64_t ts, uint8_t dir, uint32_t bytes,
			    uint32_t seq_end)
{
	struct vpr_sock_op op = op_of(ts, 7, dir, bytes, seq_end);
	struct vp_op_result res;

	assert_int_equal(vp_exchanges__op(&e->s, &op, 0, &e->pool, &res), 0);
	if (res.finished)
		e->done[e->ndone++] = res.finished;
	return res.kind;
}

static void end_free(struct end *e)
{
	for (int i = 0; i < e->ndone; i++)
		vp_xpool__put(&e->pool, e->done[i]);
	vp_xpool__free(&e->pool);
}

/* An accepted end: request in, reply out, twice; split ops form one message each. */
static void test_server_exchanges(void **state)
{
	struct end e = {.s = {.role = VPR_ROLE_ACCEPTED, .dir = -1}};

	assert_int_equal(feed(&e, 10, VPR_DIR_RECV, 60, 1060), VP_OP_REQ_FIRST);
	assert_int_equal(feed(&e, 11, VPR_DIR_RECV, 40, 1100), VP_OP_REQ_MORE);
	assert_int_equal(feed(&e, 20, VPR_DIR_SEND, 500, 9500), VP_OP_REP_FIRST);
	assert_int_equal(feed(&e, 21, VPR_DIR_SEND, 0, 9500), VP_OP_IGNORED);
	assert_int_equal(feed(&e, 22, VPR_DIR_SEND, 500, 10000), VP_OP_REP_MORE);
	assert_int_equal(feed(&e, 30, VPR_DIR_RECV, 10, 1110), VP_OP_REQ_FIRST);
	assert_int_equal(e.ndone, 1);
	assert_int_equal(e.done[0]->side, VP_SERVER);
	assert_int_equal(e.done[0]->req.bytes, 100);
	assert_int_equal(e.done[0]->req.seq_start, 1000);
	assert_int_equal(e.done[0]->rep.bytes, 1000);
	assert_int_equal(e.done[0]->rep.seq_start, 9000);
	assert_int_equal(e.done[0]->conn_index, 0);
	assert_true(e.done[0]->done);
	assert_false(e.done[0]->incomplete);
	e.done[e.ndone++] = vp_exchanges__finish(&e.s); /* closed before its reply */
	assert_int_equal(e.done[1]->conn_index, 1);
	assert_true(e.done[1]->incomplete);
	assert_null(e.s.x);
	end_free(&e);
	(void)state;
}

/* A connected end that is greeted first: the greeting is setup, not an exchange. */
static void test_greeting_is_setup(void **state)
{
	struct end e = {.s = {.role = VPR_ROLE_CONNECTED, .dir = -1}};

	assert_int_equal(feed(&e, 10, VPR_DIR_RECV, 78, 5078), VP_OP_SETUP);
	assert_int_equal(feed(&e, 11, VPR_DIR_RECV, 2, 5080), VP_OP_SETUP);
	assert_int_equal(e.s.nsetup, 1);
	assert_int_equal(feed(&e, 20, VPR_DIR_SEND, 30, 130), VP_OP_REQ_FIRST);
	assert_int_equal(e.s.x->side, VP_CLIENT);
	assert_int_equal(e.s.x->conn_index, 0);
	assert_int_equal(feed(&e, 30, VPR_DIR_RECV, 11, 5091), VP_OP_REP_FIRST);
	assert_int_equal(e.s.x->rep.seq_start, 5080);
	e.done[e.ndone++] = vp_exchanges__finish(&e.s);
	assert_false(e.done[0]->incomplete);
	end_free(&e);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message_merges_ops),
		cmocka_unit_test(test_server_exchanges),
		cmocka_unit_test(test_greeting_is_setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
