// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Messages and exchanges of one connection end, stage by stage, without
 * the rest of the pipeline: operations in one direction merge into a
 * message (and a gap in stream positions is noticed), direction changes
 * make request/reply exchanges, greetings are connection setup, and on a
 * subscribed connection each push the server sends unasked is an exchange
 * of its own.
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

/* The first bytes of the operation just fed (tid 7, pid 1), as its payload record. */
static void pay(struct end *e, uint64_t ts, uint8_t dir, uint32_t seq_end, const char *data)
{
	struct vpr_payload p = {0};
	size_t n = strlen(data);

	p.h.type = VPR_PAYLOAD;
	p.h.ts_ns = ts;
	p.h.tid = 7;
	p.pid = 1;
	p.seq_end = seq_end;
	p.bytes = (uint32_t)n;
	p.len = (uint16_t)n;
	p.dir = dir;
	memcpy(p.data, data, n);
	assert_int_equal(vp_exchanges__payload(&e->s, &p), 0);
}

#define SUB "*2\r\n$9\r\nSUBSCRIBE\r\n$4\r\njobs\r\n"
#define SUBBED "*3\r\n$9\r\nsubscribe\r\n$4\r\njobs\r\n:1\r\n"
#define MSG(m) "*3\r\n$7\r\nmessage\r\n$4\r\njobs\r\n$1\r\n" m "\r\n"

/*
 * One end of a Redis subscriber's connection: after SUBSCRIBE's reply,
 * each push is an exchange with no request bytes, where the request stream
 * stands, its reply the push, its witness a delivery; two pushes in one
 * operation are one exchange delivering both.  Both ends cut alike.
 */
static void subscriber_end(uint8_t role)
{
	struct end e = {.s = {.role = role, .dir = -1}};
	uint8_t out = role == VPR_ROLE_CONNECTED ? VPR_DIR_SEND : VPR_DIR_RECV;
	uint8_t in = out == VPR_DIR_SEND ? VPR_DIR_RECV : VPR_DIR_SEND;
	uint32_t sub = sizeof(SUB) - 1, subbed = sizeof(SUBBED) - 1, msg = sizeof(MSG("a")) - 1;
	uint32_t q = 1000 + sub, r = 5000 + subbed;

	assert_int_equal(feed(&e, 10, out, sub, q), VP_OP_REQ_FIRST);
	pay(&e, 10, out, q, SUB);
	assert_int_equal(feed(&e, 11, in, subbed, r), VP_OP_REP_FIRST);
	assert_false(e.s.subscribed); /* its bytes decide */
	pay(&e, 11, in, r, SUBBED);
	assert_true(e.s.subscribed);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(feed(&e, 20 + (uint64_t)i, in, msg, r += msg), VP_OP_PUSH);
		pay(&e, 20 + (uint64_t)i, in, r, i ? MSG("b") : MSG("a"));
		assert_int_equal(e.ndone, i + 1);
		assert_true(e.s.x->push);
		assert_int_equal(e.s.x->conn_index, i + 1);
		assert_int_equal(e.s.x->req.bytes, 0);
		assert_int_equal(e.s.x->req.seq_start, q);
		assert_int_equal(e.s.x->req.first_ts, 20 + i);
		assert_int_equal(vp_xchg__actor(e.s.x), 7);
		assert_true(e.s.x->has_rep);
		assert_int_equal(e.s.x->rep.seq_start, r - msg);
		assert_int_equal(e.s.x->rep.bytes, msg);
		assert_non_null(e.s.x->wit);
		assert_int_equal(e.s.x->wit->qkind, VP_WIT_Q_POP);
	}
	assert_int_equal(e.done[0]->wit->qkind, VP_WIT_Q_NONE); /* SUBSCRIBE's */
	assert_true(e.done[1]->wit->qmsg != e.s.x->wit->qmsg);
	assert_int_equal(feed(&e, 30, in, 2 * msg, r += 2 * msg), VP_OP_PUSH);
	pay(&e, 30, in, r, MSG("c") MSG("d"));
	assert_non_null(e.s.x->wit);
	assert_int_equal(e.s.x->wit->nqmsgs, 2); /* both messages, for its work to tell apart */
	e.done[e.ndone++] = vp_exchanges__finish(&e.s);
	for (int i = 1; i < e.ndone; i++)
		assert_false(e.done[i]->incomplete);
	end_free(&e);
}

static void test_subscriber_pushes(void **state)
{
	subscriber_end(VPR_ROLE_CONNECTED);
	subscriber_end(VPR_ROLE_ACCEPTED);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message_merges_ops),
		cmocka_unit_test(test_server_exchanges),
		cmocka_unit_test(test_greeting_is_setup),
		cmocka_unit_test(test_subscriber_pushes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
