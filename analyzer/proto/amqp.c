// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * AMQP 0-9-1 witness (RabbitMQ): the first method a message's frames carry
 * ("basic.publish", "basic.ack"), its exchange and routing key where it has
 * them, and whether the reply closes a channel or the connection with an
 * error.  Every frame is a type (1 method, 2 content header, 3 body, 8
 * heartbeat), a channel, a 32-bit size, the payload and the frame-end octet
 * 0xCE (AMQP 0-9-1 §4.2.3); a frame whose end is in the captured bytes must
 * end there, and every method must be one of the specification's, so other
 * protocols' bytes are refused.
 *
 * Queues (qkind, qmsg: the analyzer's queue hops, queues.h): a request that
 * is one basic.publish with its content header and its whole body, and
 * nothing else, puts one message on the broker (push); a reply that holds
 * one basic.deliver or basic.get-ok with its whole content, and nothing else
 * but heartbeats, delivers one (pop).  Both hash the exchange, the routing
 * key and the body, which a delivery carries as they were published.  A
 * consumer's request that asks for deliveries (basic.consume, basic.qos,
 * basic.ack, basic.nack, basic.reject, basic.recover) is a wait on the
 * queue when its reply delivers nothing.
 */
#include <stdio.h>
#include <string.h>

#include "fnv.h"
#include "proto.h"

#define FRAME_METHOD 1
#define FRAME_HEADER 2
#define FRAME_BODY 3
#define FRAME_HEARTBEAT 8
#define FRAME_END 0xce
#define FRAME_HEAD 7		  /* type, channel, size */
#define FRAME_SIZE_MAX (1u << 24) /* RabbitMQ's frame_max is at most 128 KiB by default */
#define CLASS_CONNECTION 10
#define CLASS_CHANNEL 20
#define CLASS_BASIC 60
#define BASIC_PUBLISH 40
#define BASIC_DELIVER 60
#define BASIC_GET_OK 71

static const char protocol_header[8] = {'A', 'M', 'Q', 'P', 0, 0, 9, 1};

struct amqp_method {
	uint16_t class_id, method_id;
	const char *name;
	bool wait; /* a consumer's request that asks for deliveries */
};

static const struct amqp_method methods[] = {
	{10, 10, "connection.start", false},
	{10, 11, "connection.start-ok", false},
	{10, 20, "connection.secure", false},
	{10, 21, "connection.secure-ok", false},
	{10, 30, "connection.tune", false},
	{10, 31, "connection.tune-ok", false},
	{10, 40, "connection.open", false},
	{10, 41, "connection.open-ok", false},
	{10, 50, "connection.close", false},
	{10, 51, "connection.close-ok", false},
	{10, 60, "connection.blocked", false},
	{10, 61, "connection.unblocked", false},
	{20, 10, "channel.open", false},
	{20, 11, "channel.open-ok", false},
	{20, 20, "channel.flow", false},
	{20, 21, "channel.flow-ok", false},
	{20, 40, "channel.close", false},
	{20, 41, "channel.close-ok", false},
	{40, 10, "exchange.declare", false},
	{40, 11, "exchange.declare-ok", false},
	{40, 20, "exchange.delete", false},
	{40, 21, "exchange.delete-ok", false},
	{40, 30, "exchange.bind", false},
	{40, 31, "exchange.bind-ok", false},
	{40, 40, "exchange.unbind", false},
	{40, 51, "exchange.unbind-ok", false},
	{50, 10, "queue.declare", false},
	{50, 11, "queue.declare-ok", false},
	{50, 20, "queue.bind", false},
	{50, 21, "queue.bind-ok", false},
	{50, 30, "queue.purge", false},
	{50, 31, "queue.purge-ok", false},
	{50, 40, "queue.delete", false},
	{50, 41, "queue.delete-ok", false},
	{50, 50, "queue.unbind", false},
	{50, 51, "queue.unbind-ok", false},
	{60, 10, "basic.qos", true},
	{60, 11, "basic.qos-ok", false},
	{60, 20, "basic.consume", true},
	{60, 21, "basic.consume-ok", false},
	{60, 30, "basic.cancel", false},
	{60, 31, "basic.cancel-ok", false},
	{60, 40, "basic.publish", false},
	{60, 50, "basic.return", false},
	{60, 60, "basic.deliver", false},
	{60, 70, "basic.get", false},
	{60, 71, "basic.get-ok", false},
	{60, 72, "basic.get-empty", false},
	{60, 80, "basic.ack", true},
	{60, 90, "basic.reject", true},
	{60, 100, "basic.recover-async", true},
	{60, 110, "basic.recover", true},
	{60, 111, "basic.recover-ok", false},
	{60, 120, "basic.nack", true},
	{85, 10, "confirm.select", false},
	{85, 11, "confirm.select-ok", false},
	{90, 10, "tx.select", false},
	{90, 11, "tx.select-ok", false},
	{90, 20, "tx.commit", false},
	{90, 21, "tx.commit-ok", false},
	{90, 30, "tx.rollback", false},
	{90, 31, "tx.rollback-ok", false},
};

/* One frame as the captured bytes show it. */
struct frame {
	uint8_t type;
	uint16_t channel;
	uint32_t size;
	const uint8_t *payload; /* its captured bytes: plen of size */
	size_t plen;
	bool whole; /* its payload and frame-end are in the captured bytes */
};

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)vp_be32(p) << 32 | vp_be32(p + 4);
}

/*
 * The frame at `at`: 1 when it is a frame (whole, or going on past the
 * captured bytes but within the operation's), 0 when the captured bytes
 * end inside its header, -1 when the bytes are no frame.
 */
static int frame_at(const struct vp_bytes *b, size_t at, struct frame *f)
{
	uint64_t end;

	if (at + FRAME_HEAD > b->len)
		return at < b->len && b->len < b->total ? 0 : -1;
	f->type = b->p[at];
	f->channel = be16(b->p + at + 1);
	f->size = vp_be32(b->p + at + 3);
	if ((f->type != FRAME_METHOD && f->type != FRAME_HEADER && f->type != FRAME_BODY &&
	     f->type != FRAME_HEARTBEAT) ||
	    f->size > FRAME_SIZE_MAX || (f->type == FRAME_HEARTBEAT && (f->size || f->channel)))
		return -1;
	end = at + FRAME_HEAD + (uint64_t)f->size;
	if (end + 1 > b->total)
		return -1;
	f->payload = b->p + at + FRAME_HEAD;
	f->whole = end + 1 <= b->len;
	f->plen = f->whole ? f->size : b->len - at - FRAME_HEAD;
	if (f->whole && b->p[end] != FRAME_END)
		return -1;
	return 1;
}

static const struct amqp_method *method_of(const struct frame *f)
{
	uint16_t c, m;

	if (f->type != FRAME_METHOD || f->plen < 4)
		return NULL;
	c = be16(f->payload);
	m = be16(f->payload + 2);
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (methods[i].class_id == c && methods[i].method_id == m)
			return &methods[i];
	return NULL;
}

/* A short string at *at of the n bytes at p: advances *at; false when it does not fit. */
static bool shortstr(const uint8_t *p, size_t n, size_t *at, const uint8_t **s, size_t *len)
{
	if (*at >= n || *at + 1 + p[*at] > n)
		return false;
	*len = p[*at];
	*s = p + *at + 1;
	*at += 1 + *len;
	return true;
}

/* Hash (FNV-1a) state of a message, fed its parts each after its length. */
static uint64_t hash_part(uint64_t h, const uint8_t *p, size_t n, uint64_t len)
{
	return vp_fnv1a(vp_fnv1a_u64(h, len), p, n);
}

/* Where a message's exchange and routing key are in a method's arguments. */
struct route {
	const uint8_t *ex, *rk;
	size_t exlen, rklen;
};

/*
 * The exchange and routing key of basic.publish (reserved short, exchange,
 * routing key), basic.deliver (consumer tag, delivery tag, redelivered,
 * exchange, routing key) or basic.get-ok (delivery tag, redelivered,
 * exchange, routing key); false when not all in the captured bytes.
 */
static bool route_of(const struct frame *f, uint16_t method, struct route *r)
{
	const uint8_t *p = f->payload, *tag;
	size_t n = f->plen, at = 4, taglen;

	if (method == BASIC_PUBLISH)
		at += 2;
	else if (method == BASIC_DELIVER && !shortstr(p, n, &at, &tag, &taglen))
		return false;
	if (method != BASIC_PUBLISH)
		at += 9; /* delivery tag, redelivered */
	return shortstr(p, n, &at, &r->ex, &r->exlen) && shortstr(p, n, &at, &r->rk, &r->rklen);
}

/*
 * The content after a method frame ending at `at`: its header frame (class
 * 60, body size) and body frames, all whole; the hash of the message with
 * route r, and where its frames end (0: not whole in the captured bytes).
 */
static size_t content_at(const struct vp_bytes *b, size_t at, uint16_t channel,
			 const struct route *r, uint64_t *msg)
{
	struct frame f;
	uint64_t size, got = 0, h = VP_FNV_BASIS;

	if (frame_at(b, at, &f) != 1 || !f.whole || f.type != FRAME_HEADER ||
	    f.channel != channel || f.size < 14 || be16(f.payload) != CLASS_BASIC)
		return 0;
	size = be64(f.payload + 4);
	at += FRAME_HEAD + f.size + 1;
	h = hash_part(h, r->ex, r->exlen, r->exlen);
	h = hash_part(h, r->rk, r->rklen, r->rklen);
	h = vp_fnv1a_u64(h, size);
	while (got < size) {
		if (frame_at(b, at, &f) != 1 || !f.whole || f.type != FRAME_BODY ||
		    f.channel != channel || f.size > size - got)
			return 0;
		h = vp_fnv1a(h, f.payload, f.size);
		got += f.size;
		at += FRAME_HEAD + f.size + 1;
	}
	*msg = h ? h : 1;
	return at;
}

/*
 * The one message a publish (request) or a delivery (reply) carries whose
 * frames start at `at` (a method frame f): its hash when the method, its
 * content and everything after it (heartbeats only) are whole; 0 otherwise.
 */
static uint64_t message_of(const struct vp_bytes *b, size_t at, const struct frame *f,
			   uint16_t method)
{
	struct route r;
	struct frame g;
	uint64_t msg = 0;

	if (!f->whole || !route_of(f, method, &r) ||
	    !(at = content_at(b, at + FRAME_HEAD + f->size + 1, f->channel, &r, &msg)))
		return 0;
	for (; at < b->total; at += FRAME_HEAD + 1)
		if (frame_at(b, at, &g) != 1 || g.type != FRAME_HEARTBEAT || !g.whole)
			return 0;
	return b->len == b->total ? msg : 0;
}

/*
 * Text of a route after `what`: the routing key alone on the default
 * exchange, else "exchange/key".
 */
static void route_text(struct vp_witness *w, const char *what, const struct route *r)
{
	char ex[VP_WIT_TEXT_MAX / 2], rk[VP_WIT_TEXT_MAX / 2];

	vp_proto_text(ex, sizeof(ex), r->ex, r->exlen);
	if (!vp_proto_text(rk, sizeof(rk), r->rk, r->rklen))
		w->flags |= VP_WIT_CUT;
	/* Cut to the witness's text like any other (the length is not needed). */
	if (snprintf(w->text, sizeof(w->text), "%s%s%s%s", what, ex, ex[0] ? "/" : "", rk) < 0)
		w->text[0] = '\0';
}

/*
 * The first method of the frames from `at`, heartbeats skipped: 1 and *f,
 * *m filled; 0 when the captured bytes end before its end; -1 when not AMQP.
 */
static int first_method(const struct vp_bytes *b, size_t *at, struct frame *f,
			const struct amqp_method **m)
{
	int r;

	while ((r = frame_at(b, *at, f)) == 1 && f->type == FRAME_HEARTBEAT && f->whole)
		*at += FRAME_HEAD + 1;
	if (r != 1)
		return r;
	if (f->type != FRAME_METHOD)
		return -1;
	/* Only a frame whose end octet was seen decides: more bytes might refuse it. */
	if (!f->whole)
		return 0;
	return (*m = method_of(f)) ? 1 : -1;
}

static int amqp_request(const struct vp_bytes *b, struct vp_witness *w)
{
	const struct amqp_method *m;
	struct frame f;
	struct route r;
	size_t at = 0;

	if (b->len >= sizeof(protocol_header) && !memcmp(b->p, protocol_header, 8)) {
		snprintf(w->verb, sizeof(w->verb), "amqp");
		w->count = 1;
		return 1;
	}
	if (b->len == FRAME_HEAD + 1 && b->total == b->len && frame_at(b, 0, &f) == 1 &&
	    f.type == FRAME_HEARTBEAT) {
		snprintf(w->verb, sizeof(w->verb), "heartbeat"); /* its reply may deliver */
		w->count = 1;
		return 1;
	}
	if (first_method(b, &at, &f, &m) != 1)
		return 0;
	snprintf(w->verb, sizeof(w->verb), "%s", m->name);
	w->count = 1;
	if (m->class_id == CLASS_BASIC && m->method_id == BASIC_PUBLISH &&
	    !route_of(&f, m->method_id, &r)) {
		w->flags |= VP_WIT_CUT; /* its route beyond the captured bytes */
	} else if (m->class_id == CLASS_BASIC && m->method_id == BASIC_PUBLISH) {
		route_text(w, "", &r);
		if ((w->qmsg = message_of(b, at, &f, BASIC_PUBLISH)))
			w->qkind = VP_WIT_Q_PUSH;
	} else if (m->wait) {
		w->qkind = VP_WIT_Q_WAIT;
	}
	return 1;
}

/* channel.close or connection.close: reply code and text, an error from 300 up. */
static void close_error(const struct frame *f, const struct amqp_method *m, struct vp_witness *w)
{
	const uint8_t *s = NULL;
	size_t at = 6, n;
	uint16_t code;

	if (!(m->class_id == CLASS_CONNECTION || m->class_id == CLASS_CHANNEL) ||
	    m->method_id != 40 + 10 * (m->class_id == CLASS_CONNECTION) || f->plen < 6)
		return;
	code = be16(f->payload + 4);
	if (code < 300)
		return;
	w->flags |= VP_WIT_ERROR;
	if (!shortstr(f->payload, f->plen, &at, &s, &n))
		n = 0;
	snprintf(w->err, sizeof(w->err), "%u ", code);
	vp_proto_text(w->err + strlen(w->err), sizeof(w->err) - strlen(w->err), s, n);
}

static int amqp_reply(const struct vp_bytes *b, struct vp_witness *w)
{
	const struct amqp_method *m;
	struct frame f;
	struct route r;
	size_t at = 0;
	uint64_t msg;

	/* Heartbeats alone decide nothing: the reply's next part may deliver. */
	if (first_method(b, &at, &f, &m) != 1)
		return 0;
	close_error(&f, m, w);
	/*
	 * basic.consume's reply goes on with the first delivery when the queue
	 * holds one: consume-ok alone, read whole, does not decide it.
	 */
	if (!strcmp(w->verb, "basic.consume") && m->class_id == CLASS_BASIC && m->method_id == 21 &&
	    f.whole && b->len == b->total && at + FRAME_HEAD + f.size + 1 == b->len)
		return 0;
	if (m->class_id != CLASS_BASIC ||
	    (m->method_id != BASIC_DELIVER && m->method_id != BASIC_GET_OK))
		return 1;
	if (!route_of(&f, m->method_id, &r)) {
		w->flags |= w->text[0] ? 0 : VP_WIT_CUT;
		return 1;
	}
	if (!w->text[0])
		route_text(w, "deliver ", &r);
	if (w->qkind != VP_WIT_Q_PUSH && (msg = message_of(b, at, &f, m->method_id))) {
		w->qkind = VP_WIT_Q_POP;
		w->qmsg = msg;
	}
	return 1;
}

const struct vp_proto_ops vp_proto_amqp = {
	.name = "rabbitmq",
	.request = amqp_request,
	.reply = amqp_reply,
};
