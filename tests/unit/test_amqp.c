// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The AMQP 0-9-1 witness (analyzer/proto/amqp.c): frames built byte by byte
 * as pika and RabbitMQ send them; a publish and the delivery of its message
 * carry the same queue message, other messages another; bytes cut, frames
 * without their frame-end octet and other protocols give no witness.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/proto.h"

struct buf {
	uint8_t p[1024];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->p));
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put16(struct buf *b, unsigned v)
{
	uint8_t x[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	put(b, x, 2);
}

static void put32(struct buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};

	put(b, x, 4);
}

static void put64(struct buf *b, uint64_t v)
{
	put32(b, (uint32_t)(v >> 32));
	put32(b, (uint32_t)v);
}

static void shortstr(struct buf *b, const char *s)
{
	uint8_t n = (uint8_t)strlen(s);

	put(b, &n, 1);
	put(b, s, n);
}

/* A frame of type t on channel ch around the payload pl. */
static void frame(struct buf *b, uint8_t t, unsigned ch, const struct buf *pl)
{
	uint8_t end = 0xce;

	put(b, &t, 1);
	put16(b, ch);
	put32(b, (uint32_t)pl->n);
	put(b, pl->p, pl->n);
	put(b, &end, 1);
}

/* The content header and one body frame of body. */
static void content(struct buf *b, const char *body)
{
	struct buf h = {.n = 0}, d = {.n = 0};

	put16(&h, 60);
	put16(&h, 0);
	put64(&h, strlen(body));
	put16(&h, 0x1000); /* delivery-mode */
	put(&h, "\x02", 1);
	frame(b, 2, 1, &h);
	put(&d, body, strlen(body));
	frame(b, 3, 1, &d);
}

static void publish(struct buf *b, const char *ex, const char *rk, const char *body)
{
	struct buf m = {.n = 0};

	put16(&m, 60);
	put16(&m, 40);
	put16(&m, 0);
	shortstr(&m, ex);
	shortstr(&m, rk);
	put(&m, "\0", 1);
	frame(b, 1, 1, &m);
	content(b, body);
}

static void deliver(struct buf *b, const char *tag, uint64_t dtag, const char *ex, const char *rk,
		    const char *body)
{
	struct buf m = {.n = 0};

	put16(&m, 60);
	put16(&m, 60);
	shortstr(&m, tag);
	put64(&m, dtag);
	put(&m, "\0", 1);
	shortstr(&m, ex);
	shortstr(&m, rk);
	frame(b, 1, 1, &m);
	content(b, body);
}

/* A method with no arguments but a delivery tag and a bit (basic.ack), or none. */
static void method(struct buf *b, unsigned cls, unsigned id, bool tag)
{
	struct buf m = {.n = 0};

	put16(&m, cls);
	put16(&m, id);
	if (tag) {
		put64(&m, 7);
		put(&m, "\0", 1);
	}
	frame(b, 1, 1, &m);
}

static const uint8_t heartbeat[8] = {8, 0, 0, 0, 0, 0, 0, 0xce};

static bool wit(const struct buf *req, const struct buf *rep, struct vp_witness *w)
{
	struct vp_bytes a = {req->p, req->n, req->n}, b = {rep->p, rep->n, rep->n};

	return vp_proto_witness(&a, &b, w);
}

static const char *label(const struct vp_witness *w)
{
	static char buf[400];

	return vp_witness_label(w, 60, buf, sizeof(buf));
}

static void test_publish_and_deliver(void **state)
{
	struct buf pub = {.n = 0}, ack = {.n = 0}, req = {.n = 0}, del = {.n = 0}, other = {.n = 0};
	struct vp_witness w, d;

	publish(&pub, "", "jobs", "{\"id\": 1}");
	method(&ack, 60, 80, true); /* the broker's confirm */
	assert_true(wit(&pub, &ack, &w));
	assert_int_equal(w.proto, VP_PROTO_AMQP);
	assert_string_equal(w.verb, "basic.publish");
	assert_string_equal(w.text, "jobs");
	assert_string_equal(label(&w), "basic.publish jobs");
	assert_int_equal(w.qkind, VP_WIT_Q_PUSH);

	/* A consumer's ack, answered by the next delivery (with a heartbeat first). */
	put(&del, heartbeat, sizeof(heartbeat));
	deliver(&del, "ctag1.0123456789abcdef", 12, "", "jobs", "{\"id\": 1}");
	method(&req, 60, 80, true);
	assert_true(wit(&req, &del, &d));
	assert_string_equal(d.verb, "basic.ack");
	assert_string_equal(d.text, "deliver jobs");
	assert_int_equal(d.qkind, VP_WIT_Q_POP);
	assert_true(d.qmsg == w.qmsg);

	/* Another body, another routing key, another exchange: another message. */
	deliver(&other, "ctag1", 12, "", "jobs", "{\"id\": 2}");
	assert_true(wit(&req, &other, &d) && d.qkind == VP_WIT_Q_POP && d.qmsg != w.qmsg);
	other.n = 0;
	deliver(&other, "ctag1", 12, "", "jobs2", "{\"id\": 1}");
	assert_true(wit(&req, &other, &d) && d.qmsg != w.qmsg);
	other.n = 0;
	deliver(&other, "ctag1", 12, "x", "jobs", "{\"id\": 1}");
	assert_true(wit(&req, &other, &d) && d.qmsg != w.qmsg);
	assert_string_equal(d.text, "deliver x/jobs");

	/* Two deliveries in one reply: which one the work is for is not said. */
	deliver(&del, "ctag1", 13, "", "jobs", "{\"id\": 3}");
	assert_true(wit(&req, &del, &d));
	assert_int_equal(d.qkind, VP_WIT_Q_WAIT);
	/* Nothing delivered: a wait. */
	assert_true(wit(&req, &ack, &d));
	assert_int_equal(d.qkind, VP_WIT_Q_WAIT);
}

static void test_cut(void **state)
{
	struct buf pub = {.n = 0}, ack = {.n = 0};
	struct vp_witness w;
	struct vp_bytes a, b;

	publish(&pub, "", "jobs", "{\"id\": 1}");
	method(&ack, 60, 80, true);
	/* The body beyond the capture: the publish is known, its message is not. */
	a = (struct vp_bytes){pub.p, pub.n - 3, pub.n};
	b = (struct vp_bytes){ack.p, ack.n, ack.n};
	assert_true(vp_proto_witness(&a, &b, &w));
	assert_string_equal(w.verb, "basic.publish");
	assert_int_equal(w.qkind, VP_WIT_Q_NONE);
	/* More bytes after the publish in its operation (another publish): no message either. */
	a = (struct vp_bytes){pub.p, pub.n, pub.n + 40};
	assert_true(vp_proto_witness(&a, &b, &w));
	assert_int_equal(w.qkind, VP_WIT_Q_NONE);
	/* A body frame's end octet missing: no message; the method's: no AMQP. */
	pub.p[pub.n - 1] = 0;
	a = (struct vp_bytes){pub.p, pub.n, pub.n};
	assert_true(vp_proto_witness(&a, &b, &w));
	assert_int_equal(w.qkind, VP_WIT_Q_NONE);
	assert_int_equal(pub.p[20], 0xce);
	pub.p[20] = 0;
	assert_false(vp_proto_witness(&a, &b, &w) && w.proto == VP_PROTO_AMQP);
	/* A heartbeat alone decides no reply: its next part may deliver. */
	b = (struct vp_bytes){heartbeat, sizeof(heartbeat), sizeof(heartbeat)};
	a = (struct vp_bytes){ack.p, ack.n, ack.n};
	assert_false(vp_proto_witness(&a, &b, &w));
}

static void test_setup_and_errors(void **state)
{
	static const uint8_t hdr[] = {'A', 'M', 'Q', 'P', 0, 0, 9, 1};
	struct buf start = {.n = 0}, close = {.n = 0}, m = {.n = 0}, req = {.n = 0};
	struct vp_bytes a = {hdr, sizeof(hdr), sizeof(hdr)}, b;
	struct vp_witness w;

	method(&start, 10, 10, false);
	b = (struct vp_bytes){start.p, start.n, start.n};
	assert_true(vp_proto_witness(&a, &b, &w));
	assert_string_equal(w.verb, "amqp");
	/* A queue.declare refused: channel.close 404. */
	method(&req, 50, 10, false);
	put16(&m, 20);
	put16(&m, 40);
	put16(&m, 404);
	shortstr(&m, "NOT_FOUND - no queue 'x'");
	put32(&m, 50 << 16 | 10);
	frame(&close, 1, 1, &m);
	assert_true(wit(&req, &close, &w));
	assert_true(w.flags & VP_WIT_ERROR);
	assert_string_equal(w.err, "404 NOT_FOUND - no queue 'x'");
	assert_string_equal(label(&w), "queue.declare 404 NOT_FOUND - no queue 'x'");
	/* An unknown method, Redis and HTTP bytes: not AMQP. */
	req.n = 0;
	method(&req, 60, 41, false);
	assert_false(wit(&req, &close, &w));
	a = (struct vp_bytes){(const uint8_t *)"*1\r\n$4\r\nPING\r\n", 14, 14};
	assert_false(vp_proto_witness(&a, &b, &w) && w.proto == VP_PROTO_AMQP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_publish_and_deliver),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_setup_and_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
