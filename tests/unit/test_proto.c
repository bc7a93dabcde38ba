// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Protocol witnesses (analyzer/proto/): each parser on requests and replies
 * written byte by byte as the servers and clients send them, the dispatch
 * that wants both sides to agree, and bytes that must give no witness:
 * cut before they decide, another protocol, handshakes, garbage.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/fields.h"
#include "proto/proto.h"

static struct vp_bytes bytes_n(const void *p, size_t n)
{
	struct vp_bytes b = {p, n, n};

	return b;
}

#define B(lit) bytes_n(lit, sizeof(lit) - 1)

static bool wit(struct vp_bytes req, struct vp_bytes rep, struct vp_witness *w)
{
	return vp_proto_witness(&req, &rep, w);
}

static const char *label(const struct vp_witness *w)
{
	static char buf[400];

	return vp_witness_label(w, 60, buf, sizeof(buf));
}

static const char *key(const struct vp_witness *w)
{
	static char buf[400];

	return vp_witness_pattern_key(w, buf, sizeof(buf));
}

static void test_http(void **state)
{
	struct vp_witness w;

	assert_true(wit(B("GET /cart?id=7 HTTP/1.1\r\nHost: x\r\n\r\n"),
			B("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), &w));
	assert_int_equal(w.proto, VP_PROTO_HTTP);
	assert_string_equal(w.verb, "GET");
	assert_string_equal(w.text, "/cart?id=7");
	assert_int_equal(w.status, 200);
	assert_int_equal(w.count, 1);
	assert_string_equal(label(&w), "GET /cart?id=7 200");
	assert_string_equal(key(&w), "GET /cart");

	assert_true(wit(B("POST /login/4711 HTTP/1.0\r\n"), B("HTTP/1.0 404 Not Found\r\n"), &w));
	assert_string_equal(label(&w), "POST /login/4711 404");
	assert_string_equal(key(&w), "POST /login/?");

	/* The request line not yet whole, a method nobody sends, no version, a bad status. */
	assert_false(wit(B("GET /cart HTTP/1.1"), B("HTTP/1.1 200 OK\r\n"), &w));
	assert_int_equal(w.proto, VP_PROTO_NONE);
	assert_false(wit(B("FETCH /cart HTTP/1.1\r\n"), B("HTTP/1.1 200 OK\r\n"), &w));
	assert_false(wit(B("GET /cart\r\n"), B("HTTP/1.1 200 OK\r\n"), &w));
	assert_false(wit(B("GET / HTTP/1.1\r\n"), B("HTTP/1.1 2x0 OK\r\n"), &w));
	assert_false(wit(B("GET / HTTP/1.1\r\n"), B("HTTP/2 200\r\n"), &w));
	/* A request without its reply's bytes decides nothing. */
	assert_false(wit(B("GET / HTTP/1.1\r\n"), bytes_n("", 0), &w));
}

static void test_http_pipeline(void **state)
{
	struct vp_witness w;
	static const char req[] = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
				  "POST /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
				  "GET /c HTTP/1.1\r\n\r\n";
	struct vp_bytes b = B(req);

	assert_true(wit(b, B("HTTP/1.1 200 OK\r\n"), &w));
	assert_int_equal(w.count, 3);
	assert_string_equal(w.text, "/a");
	assert_int_equal(vp_proto_http.request_len(&b),
			 strlen("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"));
	b.p += 28;
	b.len -= 28;
	b.total -= 28;
	assert_int_equal(vp_proto_http.request_len(&b),
			 strlen("POST /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"));
	/* A chunked body has no length the prefix can give. */
	b = B("POST /u HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
	assert_int_equal(vp_proto_http.request_len(&b), 0);
	b = B("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 204 No Content\r\n\r\n");
	assert_int_equal(vp_proto_http.reply_len(&b), 40);
	b.p += 40;
	b.len -= 40;
	b.total -= 40;
	assert_int_equal(vp_proto_http.reply_len(&b), b.len);
}

static const uint8_t pg_q[] = "Q\0\0\0\x21SELECT * FROM t WHERE id = 5";
static const uint8_t pg_reply_ok[] = "T\0\0\0\x06\0\0C\0\0\0\x0dSELECT 1\0Z\0\0\0\x05I";
static const uint8_t pg_reply_err[] =
	"E\0\0\0\x37SERROR\0VERROR\0C42P01\0Mrelation \"t\" does not exist\0\0Z\0\0\0\x05I";

static void test_pgsql(void **state)
{
	struct vp_witness w;
	/* Parse (unnamed), Bind, Describe, Execute, Sync: the statement of the Parse. */
	static const uint8_t ext[] = "P\0\0\0\x25\0SELECT v FROM kv WHERE k = $1\0\0\0"
				     "B\0\0\0\x0e\0\0\0\0\0\0\0\0\0\0"
				     "S\0\0\0\x04";

	assert_true(wit(bytes_n(pg_q, sizeof(pg_q)), bytes_n(pg_reply_ok, sizeof(pg_reply_ok) - 1),
			&w));
	assert_int_equal(w.proto, VP_PROTO_PGSQL);
	assert_string_equal(w.text, "SELECT * FROM t WHERE id = 5");
	assert_string_equal(key(&w), "SELECT * FROM t WHERE id = ?");
	assert_false(w.flags & VP_WIT_ERROR);

	assert_true(wit(bytes_n(pg_q, sizeof(pg_q)),
			bytes_n(pg_reply_err, sizeof(pg_reply_err) - 1), &w));
	assert_true(w.flags & VP_WIT_ERROR);
	assert_string_equal(w.err, "ERROR 42P01");
	assert_string_equal(label(&w), "SELECT * FROM t WHERE id = 5 ERROR 42P01");

	assert_true(wit(bytes_n(ext, sizeof(ext) - 1),
			B("1\0\0\0\x04"
			  "2\0\0\0\x04"),
			&w));
	assert_string_equal(w.text, "SELECT v FROM kv WHERE k = $1");

	/* Cut by the capture: the statement's start, marked. */
	{
		struct vp_bytes req = {pg_q, 20, sizeof(pg_q)}, rep = bytes_n(pg_reply_ok, 5);

		assert_true(vp_proto_witness(&req, &rep, &w));
		assert_string_equal(w.text, "SELECT * FROM t");
		assert_true(w.flags & VP_WIT_CUT);
	}
	/* An empty Query; a startup message; a length below 4. */
	assert_false(wit(B("Q\0\0\0\x05\0"), bytes_n(pg_reply_ok, 5), &w));
	assert_false(wit(B("\0\0\0\x08\x04\xd2\x16\x2f"), B("N"), &w));
	assert_false(wit(B("Q\0\0\0\x02x\0"), bytes_n(pg_reply_ok, 5), &w));
	/* A reply whose first message is of no known type. */
	assert_false(wit(bytes_n(pg_q, sizeof(pg_q)),
			 B("\x01\0\0\0\x04"
			   "C\0\0\0\x04"),
			 &w));
}

static void test_redis(void **state)
{
	struct vp_witness w;
	static const char pipe[] = "*2\r\n$3\r\nGET\r\n$1\r\na\r\n"
				   "*3\r\n$3\r\nset\r\n$1\r\nb\r\n$1\r\n1\r\n"
				   "*1\r\n$4\r\nPING\r\n";
	struct vp_bytes b = B(pipe), r = B("$-1\r\n+OK\r\n+PONG\r\n");

	assert_true(wit(B("*2\r\n$3\r\nget\r\n$4\r\ncart\r\n"), B("$3\r\nabc\r\n"), &w));
	assert_int_equal(w.proto, VP_PROTO_REDIS);
	assert_string_equal(w.verb, "GET");
	assert_string_equal(label(&w), "GET");
	assert_string_equal(key(&w), "GET");

	assert_true(wit(b, r, &w));
	assert_int_equal(w.count, 3);
	assert_false(w.flags & VP_WIT_MORE);
	assert_string_equal(label(&w), "GET (3 commands)");
	assert_int_equal(vp_proto_redis.request_len(&b), 20);
	assert_int_equal(vp_proto_redis.reply_len(&r), 5);
	r.p += 5;
	r.len -= 5;
	assert_int_equal(vp_proto_redis.reply_len(&r), 5);
	r = B("*2\r\n$1\r\na\r\n*1\r\n:5\r\n+x");
	assert_int_equal(vp_proto_redis.reply_len(&r), 19);

	/* Inline, and an error reply. */
	assert_true(wit(B("PING\r\n"), B("+PONG\r\n"), &w));
	assert_string_equal(w.verb, "PING");
	assert_true(wit(B("*1\r\n$5\r\nHELLO\r\n"), B("-ERR unknown command 'HELLO'\r\n"), &w));
	assert_true(w.flags & VP_WIT_ERROR);
	assert_string_equal(w.err, "ERR");
	/* Bytes after a command that are no command end the count, not the witness. */
	assert_true(wit(B("*1\r\n$4\r\nPING\r\nxyz"), B("+PONG\r\n"), &w));
	assert_int_equal(w.count, 1);
	/* Not a command name; a reply cut before its line ends. */
	assert_false(wit(B("*1\r\n$2\r\n1x\r\n"), B("+OK\r\n"), &w));
	assert_false(wit(B("*1\r\n$4\r\nPING\r\n"), B("+PO"), &w));
	/* "GET / HTTP/1.1" is an inline command too: the reply says which. */
	assert_true(wit(B("GET / HTTP/1.1\r\n"), B("HTTP/1.1 200 OK\r\n"), &w));
	assert_int_equal(w.proto, VP_PROTO_HTTP);
	assert_true(wit(B("GET / HTTP/1.1\r\n"), B("-ERR wrong number of arguments\r\n"), &w));
	assert_int_equal(w.proto, VP_PROTO_REDIS);
}

/* A Redis list's messages: the one an LPUSH puts, the one a BRPOP reply delivers, the same. */
static void test_redis_queue(void **state)
{
	struct vp_witness w;
	uint64_t pushed;

	(void)state;
	assert_true(wit(B("*3\r\n$5\r\nLPUSH\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), B(":1\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_PUSH);
	pushed = w.qmsg;
	assert_true(pushed != 0);
	assert_true(wit(B("*3\r\n$5\r\nBRPOP\r\n$4\r\njobs\r\n$1\r\n0\r\n"),
			B("*2\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_POP);
	assert_true(w.qmsg == pushed);
	/* Another list, other bytes: another message. */
	assert_true(wit(B("*3\r\n$5\r\nrpush\r\n$4\r\njobz\r\n$5\r\nhello\r\n"), B(":1\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_PUSH);
	assert_true(w.qmsg != pushed);
	assert_true(wit(B("*3\r\n$5\r\nBLPOP\r\n$4\r\njobs\r\n$1\r\n0\r\n"),
			B("*2\r\n$4\r\njobs\r\n$5\r\nhellO\r\n"), &w));
	assert_true(w.qmsg != pushed);
	/* No message: a timeout, an error, two values pushed at once, a value cut by the capture. */
	assert_true(wit(B("*3\r\n$5\r\nBRPOP\r\n$4\r\njobs\r\n$1\r\n1\r\n"), B("*-1\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_NONE);
	assert_true(wit(B("*3\r\n$5\r\nLPUSH\r\n$4\r\njobs\r\n$5\r\nhello\r\n"),
			B("-WRONGTYPE Operation against a key\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_NONE);
	assert_true(wit(B("*4\r\n$5\r\nLPUSH\r\n$4\r\njobs\r\n$1\r\na\r\n$1\r\nb\r\n"), B(":2\r\n"),
			&w));
	assert_int_equal(w.qkind, VP_WIT_Q_NONE);
	{
		static const char cut[] = "*3\r\n$5\r\nLPUSH\r\n$4\r\njobs\r\n$9\r\nhello";
		struct vp_bytes req = {(const uint8_t *)cut, sizeof(cut) - 1, sizeof(cut) + 5};
		struct vp_bytes rep = B(":1\r\n");

		assert_true(vp_proto_witness(&req, &rep, &w));
		assert_int_equal(w.qkind, VP_WIT_Q_NONE);
	}
}

/* A reliable queue's move: the list in the request, the message in the reply. */
static void test_redis_queue_move(void **state)
{
	struct vp_witness w;
	uint64_t pushed;

	(void)state;
	assert_true(wit(B("*3\r\n$5\r\nLPUSH\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), B(":1\r\n"), &w));
	pushed = w.qmsg;
	assert_true(wit(B("*6\r\n$6\r\nBLMOVE\r\n$4\r\njobs\r\n$4\r\nwork\r\n$5\r\nRIGHT\r\n"
			  "$4\r\nLEFT\r\n$1\r\n0\r\n"),
			B("$5\r\nhello\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_POP);
	assert_true(w.qmsg == pushed);
	assert_true(vp_witness_waits(&w));
	assert_true(wit(B("*4\r\n$10\r\nBRPOPLPUSH\r\n$4\r\njobs\r\n$4\r\nwork\r\n$1\r\n0\r\n"),
			B("$5\r\nhello\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_POP && w.qmsg == pushed);
	assert_true(wit(B("*3\r\n$9\r\nRPOPLPUSH\r\n$4\r\njobs\r\n$4\r\nwork\r\n"),
			B("$5\r\nhello\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_POP && w.qmsg == pushed);
	/* Another source list; a timeout (nil, RESP2 and RESP3); an error. */
	assert_true(wit(B("*4\r\n$10\r\nBRPOPLPUSH\r\n$4\r\nwork\r\n$4\r\njobs\r\n$1\r\n0\r\n"),
			B("$5\r\nhello\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_POP && w.qmsg != pushed);
	assert_true(wit(B("*4\r\n$10\r\nBRPOPLPUSH\r\n$4\r\njobs\r\n$4\r\nwork\r\n$1\r\n1\r\n"),
			B("$-1\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_NONE && w.qmsg == 0 && vp_witness_waits(&w));
	assert_true(wit(B("*4\r\n$10\r\nBRPOPLPUSH\r\n$4\r\njobs\r\n$4\r\nwork\r\n$1\r\n1\r\n"),
			B("_\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_NONE && w.qmsg == 0);
	assert_true(wit(B("*3\r\n$5\r\nLMOVE\r\n$4\r\njobs\r\n$4\r\nwork\r\n"),
			B("-WRONGTYPE Operation\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_NONE && w.qmsg == 0);
	/* Not a wait: GET's reply is a bulk string too. */
	assert_true(wit(B("*2\r\n$3\r\nGET\r\n$4\r\njobs\r\n"), B("$5\r\nhello\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_NONE && w.qmsg == 0 && !vp_witness_waits(&w));
}

/* A stream's entry: XADD's fields and id, the same in XREADGROUP's reply (RESP2 and RESP3). */
static void test_redis_queue_stream(void **state)
{
	struct vp_witness w;
	uint64_t pushed, id;

	(void)state;
	assert_true(
		wit(B("*7\r\n$4\r\nXADD\r\n$4\r\njobs\r\n$6\r\nMAXLEN\r\n$1\r\n~\r\n$4\r\n1000\r\n"
		      "$1\r\n*\r\n$3\r\njob\r\n"),
		    B("$15\r\n1700000000000-0\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_NONE); /* a field without its value */
	assert_true(
		wit(B("*8\r\n$4\r\nXADD\r\n$4\r\njobs\r\n$6\r\nMAXLEN\r\n$1\r\n~\r\n$4\r\n1000\r\n"
		      "$1\r\n*\r\n$3\r\njob\r\n$5\r\nhello\r\n"),
		    B("$15\r\n1700000000000-0\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_PUSH);
	pushed = w.qmsg;
	id = w.qid;
	assert_true(pushed && id);
	assert_true(wit(B("*4\r\n$4\r\nXADD\r\n$4\r\njobs\r\n$1\r\n*\r\n$3\r\njob\r\n"),
			B("$15\r\n1700000000000-0\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_NONE);
	assert_true(
		wit(B("*5\r\n$4\r\nXADD\r\n$4\r\njobs\r\n$1\r\n*\r\n$3\r\njob\r\n$5\r\nhello\r\n"),
		    B("$15\r\n1700000000000-1\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_PUSH && w.qmsg == pushed && w.qid != id);
	assert_true(wit(
		B("*8\r\n$10\r\nXREADGROUP\r\n$5\r\nGROUP\r\n$1\r\ng\r\n$1\r\nc\r\n$5\r\nBLOCK\r\n"
		  "$1\r\n0\r\n$7\r\nSTREAMS\r\n$4\r\njobs\r\n"),
		B("*1\r\n*2\r\n$4\r\njobs\r\n*1\r\n*2\r\n$15\r\n1700000000000-0\r\n*2\r\n"
		  "$3\r\njob\r\n$5\r\nhello\r\n"),
		&w));
	assert_true(w.qkind == VP_WIT_Q_POP && w.qmsg == pushed && w.qid == id);
	assert_true(vp_witness_waits(&w));
	assert_true(wit(B("*4\r\n$5\r\nXREAD\r\n$7\r\nSTREAMS\r\n$4\r\njobs\r\n$1\r\n0\r\n"),
			B("%1\r\n$4\r\njobs\r\n*1\r\n*2\r\n$15\r\n1700000000000-0\r\n*2\r\n"
			  "$3\r\njob\r\n$5\r\nhello\r\n"),
			&w));
	assert_true(w.qkind == VP_WIT_Q_POP && w.qmsg == pushed && w.qid == id);
	/* A list's message with the same bytes is another message. */
	assert_true(wit(B("*3\r\n$5\r\nBRPOP\r\n$4\r\njobs\r\n$1\r\n0\r\n"),
			B("*2\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), &w));
	assert_true(w.qmsg != pushed);
	/* Two entries in one reply, none (a timeout), a deleted entry: no message. */
	assert_true(wit(
		B("*4\r\n$5\r\nXREAD\r\n$7\r\nSTREAMS\r\n$4\r\njobs\r\n$1\r\n0\r\n"),
		B("*1\r\n*2\r\n$4\r\njobs\r\n*2\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n"
		  "*2\r\n$3\r\n1-1\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n"),
		&w));
	assert_true(w.qkind == VP_WIT_Q_NONE && w.qmsg == 0 && w.qid == 0);
	assert_true(wit(B("*4\r\n$5\r\nXREAD\r\n$7\r\nSTREAMS\r\n$4\r\njobs\r\n$1\r\n0\r\n"),
			B("*-1\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_NONE && w.qmsg == 0);
	assert_true(wit(B("*4\r\n$5\r\nXREAD\r\n$7\r\nSTREAMS\r\n$4\r\njobs\r\n$1\r\n0\r\n"),
			B("*1\r\n*2\r\n$4\r\njobs\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*-1\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_NONE && w.qid == 0);
	/* XADD refused, or no stream (NOMKSTREAM): nothing added. */
	assert_true(wit(B("*6\r\n$4\r\nXADD\r\n$4\r\njobs\r\n$10\r\nNOMKSTREAM\r\n$1\r\n*\r\n"
			  "$3\r\njob\r\n$5\r\nhello\r\n"),
			B("$-1\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_NONE && w.qmsg == 0);
	assert_true(
		wit(B("*5\r\n$4\r\nXADD\r\n$4\r\njobs\r\n$1\r\n*\r\n$3\r\njob\r\n$5\r\nhello\r\n"),
		    B("-ERR The ID specified in XADD is equal or smaller\r\n"), &w));
	assert_true(w.qkind == VP_WIT_Q_NONE && w.qmsg == 0 && w.qid == 0);
}

static bool push(struct vp_bytes b, struct vp_witness *w)
{
	return vp_witness_push(&b, w);
}

/*
 * Pub/sub: PUBLISH's message, the same in each subscriber's push (message,
 * pmessage, smessage; RESP2 and RESP3), fanned out; a push needs all its
 * bytes and no other push with it.
 */
static void test_redis_pubsub(void **state)
{
	struct vp_witness w;
	uint64_t pub;

	(void)state;
	assert_true(
		wit(B("*3\r\n$7\r\nPUBLISH\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), B(":2\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_PUSH);
	assert_true(w.flags & VP_WIT_FANOUT);
	pub = w.qmsg;
	assert_true(pub != 0);
	assert_true(push(B("*3\r\n$7\r\nmessage\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), &w));
	assert_int_equal(w.proto, VP_PROTO_REDIS);
	assert_string_equal(w.verb, "MESSAGE");
	assert_int_equal(w.qkind, VP_WIT_Q_POP);
	assert_true(w.flags & VP_WIT_FANOUT);
	assert_true(w.qmsg == pub);
	assert_true(
		push(B(">4\r\n$8\r\npmessage\r\n$2\r\nj*\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), &w));
	assert_string_equal(w.verb, "PMESSAGE");
	assert_true(w.qmsg == pub);
	assert_true(
		wit(B("*3\r\n$8\r\nSPUBLISH\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), B(":1\r\n"), &w));
	assert_true(w.qmsg == pub);
	assert_true(push(B("*3\r\n$8\r\nsmessage\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), &w));
	assert_true(w.qmsg == pub);
	/* A list of the channel's name holding the same bytes is another queue. */
	assert_true(wit(B("*3\r\n$5\r\nLPUSH\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), B(":1\r\n"), &w));
	assert_true(w.qmsg != pub);
	assert_false(w.flags & VP_WIT_FANOUT);
	/* Another channel; nobody subscribed (nothing delivered). */
	assert_true(push(B("*3\r\n$7\r\nmessage\r\n$4\r\njobz\r\n$5\r\nhello\r\n"), &w));
	assert_true(w.qmsg != pub);
	assert_true(
		wit(B("*3\r\n$7\r\nPUBLISH\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), B(":0\r\n"), &w));
	assert_int_equal(w.qkind, VP_WIT_Q_NONE);
	assert_false(w.flags & VP_WIT_FANOUT);
	/* No delivery: one cut by the capture, a reply, a subscribe's. */
	{
		static const char m[] = "*3\r\n$7\r\nmessage\r\n$4\r\njobs\r\n$5\r\nhello\r\n";
		struct vp_bytes b = {(const uint8_t *)m, sizeof(m) - 2, sizeof(m) - 1};

		assert_false(push(b, &w));
	}
	assert_false(push(B("*2\r\n$4\r\njobs\r\n$5\r\nhello\r\n"), &w));
	assert_false(push(B("*3\r\n$9\r\nsubscribe\r\n$4\r\njobs\r\n:1\r\n"), &w));
	assert_true(wit(B("*2\r\n$9\r\nSUBSCRIBE\r\n$4\r\njobs\r\n"),
			B("*3\r\n$9\r\nsubscribe\r\n$4\r\njobs\r\n:1\r\n"), &w));
	assert_true(vp_witness_subscribes(&w));
	assert_false(vp_witness_unsubscribes(&w));
	assert_true(wit(B("*2\r\n$11\r\nUNSUBSCRIBE\r\n$4\r\njobs\r\n"),
			B("*3\r\n$11\r\nunsubscribe\r\n$4\r\njobs\r\n:0\r\n"), &w));
	assert_true(vp_witness_unsubscribes(&w));
	assert_false(vp_witness_subscribes(&w));
	assert_true(wit(B("*2\r\n$9\r\nSUBSCRIBE\r\n$4\r\njobs\r\n"), B("-ERR no\r\n"), &w));
	assert_false(vp_witness_subscribes(&w));
}

#define JOB(id, k) "{\"id\": " #id ", \"k\": " #k ", \"kind\": \"resize\"}"
#define MSG(id, k) "*3\r\n$7\r\nmessage\r\n$4\r\njobs\r\n$36\r\n" JOB(id, k) "\r\n"

/* The fields of s (proto/fields.h), into h. */
static size_t fields_of(const char *s, uint64_t *h, size_t max)
{
	return vp_fields((const uint8_t *)s, strlen(s), h, max);
}

/*
 * Pushes read together: each message's hash, in order, and the fields that
 * tell them apart (id and k, not kind); a read cut by the capture after
 * whole pushes says more came (VP_WIT_MORE); bytes after them that begin
 * no push give none.
 */
static void test_redis_pushes_together(void **state)
{
	struct vp_witness w, one;
	uint64_t h[8], q[4];

	(void)state;
	assert_true(push(B(MSG(17, 3)), &one));
	assert_int_equal(one.nqmsgs, 0);
	assert_true(push(B(MSG(17, 3) MSG(18, 2)), &w));
	assert_int_equal(w.nqmsgs, 2);
	assert_true(w.qmsg == one.qmsg && w.qmsgs[0] == one.qmsg && w.qmsgs[1] != one.qmsg);
	assert_false(w.flags & VP_WIT_MORE);
	assert_int_equal(w.nqkeys, 4); /* id and k of each */
	assert_int_equal(fields_of("/w?id=18&step=2", q, 4), 2);
	for (size_t i = 0; i < w.nqkeys; i++)
		if (w.qkeys[i] == q[0])
			assert_int_equal(w.qkey_of[i], 1);
	assert_int_equal(fields_of(JOB(17, 3), h, 8), 3);
	assert_true(h[0] == w.qkeys[0] && w.qkey_of[0] == 0);
	{
		static const char m[] = MSG(17, 3) MSG(18, 2);
		struct vp_bytes b = {(const uint8_t *)m, sizeof(m) - 1 - 10, sizeof(m) - 1};

		assert_true(push(b, &w));
		assert_true(w.flags & VP_WIT_MORE);
		assert_int_equal(w.nqmsgs, 1);
		assert_true(w.qmsg == one.qmsg);
	}
	assert_false(push(B(MSG(17, 3) "+OK\r\n"), &w));
	assert_true(push(B(MSG(17, 3) MSG(18, 2) MSG(19, 1) MSG(20, 4) MSG(21, 1)), &w));
	assert_true(w.flags & VP_WIT_MORE); /* more than are kept */
	assert_int_equal(w.nqmsgs, VP_WIT_QMSGS_MAX);
	/* Fields: JSON members and a query's pairs alike, each once; no value, no field. */
	assert_int_equal(fields_of("a=1&a=1&b: \"x-y\" c= {d:2} e", h, 8), 3);
	assert_int_equal(fields_of("http://host/", h, 8), 0);
}

static void test_mysql(void **state)
{
	struct vp_witness w;
	static const uint8_t q[] = "\x13\0\0\0\x03SELECT * FROM t1 t";
	static const uint8_t err[] = "\x1a\0\0\x01\xff\x7a\x04#42S02Table 'x' doesn't";

	assert_true(wit(bytes_n(q, sizeof(q) - 1), B("\x01\0\0\x01\x02"), &w));
	assert_int_equal(w.proto, VP_PROTO_MYSQL);
	assert_string_equal(w.text, "SELECT * FROM t1 t");
	assert_true(wit(bytes_n(q, sizeof(q) - 1), bytes_n(err, sizeof(err) - 1), &w));
	assert_string_equal(w.err, "ERR 1146 (42S02)");
	assert_true(wit(bytes_n(q, sizeof(q) - 1), B("\x07\0\0\x01\0\x01\0\x02\0\0\0"), &w));
	/* The handshake response (sequence 1), a reply with sequence 0, COM_QUIT. */
	assert_false(wit(B("\x14\0\0\x01\x03SELECT * FROM t1 t"), B("\x01\0\0\x01\x02"), &w));
	assert_false(wit(bytes_n(q, sizeof(q) - 1), B("\x01\0\0\0\x02"), &w));
	assert_false(wit(B("\x01\0\0\0\x01"), B("\x07\0\0\x01\0\x01\0\x02\0\0\0"), &w));
}

static void test_labels_bounded(void **state)
{
	struct vp_witness w;
	char req[300], buf[80];

	memcpy(req, "GET /", 5);
	memset(req + 5, 'x', sizeof(req) - 5);
	memcpy(req + 280, " HTTP/1.1\r\n", 11);
	{
		struct vp_bytes a = bytes_n(req, 291), r = B("HTTP/1.1 200 OK\r\n");

		assert_true(vp_proto_witness(&a, &r, &w));
	}
	assert_true(w.flags & VP_WIT_CUT);
	assert_int_equal(strlen(w.text), VP_WIT_TEXT_MAX - 1);
	vp_witness_label(&w, 20, buf, sizeof(buf));
	assert_string_equal(buf, "GET /xxxxxxxxxxxxxxxx... 200");
	/* Control bytes and white space in SQL. */
	{
		static const uint8_t q[] = "Q\0\0\0\x18SELECT\n\t1,\x01  'a''b'";

		assert_true(wit(bytes_n(q, sizeof(q)), bytes_n(pg_reply_ok, 5), &w));
		assert_string_equal(w.text, "SELECT 1,? 'a''b'");
		assert_string_equal(key(&w), "SELECT ?,? ?");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http),
		cmocka_unit_test(test_http_pipeline),
		cmocka_unit_test(test_pgsql),
		cmocka_unit_test(test_redis),
		cmocka_unit_test(test_redis_queue),
		cmocka_unit_test(test_redis_queue_move),
		cmocka_unit_test(test_redis_queue_stream),
		cmocka_unit_test(test_redis_pubsub),
		cmocka_unit_test(test_redis_pushes_together),
		cmocka_unit_test(test_mysql),
		cmocka_unit_test(test_labels_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
