// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recorder's redaction (user/redact.c): secret values are replaced byte
 * for byte, what the witnesses need (URL, statement, command name) stays,
 * values cut off by the capture length are replaced up to the cut, and an
 * operation that may continue a cut secret loses its first line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../user/redact.h"

/*
 * Redacts the first len bytes of `in` (an operation of `bytes` bytes, all of
 * `in` when 0) and compares with `want` (same length).
 */
static unsigned check(const char *in, size_t len, uint32_t bytes, const char *want)
{
	uint8_t buf[1024];
	unsigned res;

	assert_true(len <= sizeof(buf));
	memcpy(buf, in, len);
	res = redact_payload(buf, len, bytes ? bytes : (uint32_t)len);
	if (memcmp(buf, want, len)) {
		print_error("got  %.*s\nwant %.*s\n", (int)len, buf, (int)len, want);
		fail();
	}
	return res;
}

#define CHECK(in, want) check(in, sizeof(in) - 1, 0, want)

static void test_http_headers(void **state)
{
	unsigned res =
		CHECK("GET /login/4711 HTTP/1.1\r\nHost: a\r\nauthorization: Bearer abc.def\r\n"
		      "COOKIE:sid=1; x=2\r\nX-Cookie: keep\r\n\r\n",
		      "GET /login/4711 HTTP/1.1\r\nHost: a\r\nauthorization: **************\r\n"
		      "COOKIE:**********\r\nX-Cookie: keep\r\n\r\n");

	assert_int_equal(res, REDACT_DONE);
	CHECK("HTTP/1.1 200 OK\r\nSet-Cookie: a=b; HttpOnly\r\nProxy-Authorization : Basic "
	      "Zm9v\r\n",
	      "HTTP/1.1 200 OK\r\nSet-Cookie: *************\r\nProxy-Authorization : "
	      "**********\r\n");
	/* Obsolete folding continues the value. */
	CHECK("GET / HTTP/1.0\r\nCookie: a=1\r\n b=2\r\nHost: h\r\n",
	      "GET / HTTP/1.0\r\nCookie: ***\r\n****\r\nHost: h\r\n");
	assert_int_equal(
		CHECK("GET /x HTTP/1.1\r\nHost: h\r\n\r\n", "GET /x HTTP/1.1\r\nHost: h\r\n\r\n"),
		REDACT_NONE);
}

/* A value cut by the capture length: replaced to the cut, and the stream is left open. */
static void test_http_value_cut(void **state)
{
	const char *in = "GET /a HTTP/1.1\r\nCookie: session=0123456789abcdef\r\n\r\n";
	unsigned res = check(in, 30, 200, "GET /a HTTP/1.1\r\nCookie: *****");

	assert_true(res & REDACT_DONE);
	assert_true(res & REDACT_OPEN);
	/* Cut inside the name: nothing to replace yet, but the next operation may hold the value. */
	res = check(in, 20, 20, "GET /a HTTP/1.1\r\nCoo");
	assert_int_equal(res, REDACT_OPEN);
}

static void test_continued_operation(void **state)
{
	uint8_t buf[64];
	const char *tail = "ef0123\r\nHost: x\r\nCookie: y\r\n";
	const char *next = "GET /b HTTP/1.1\r\nHost: x\r\n";
	unsigned res;

	memcpy(buf, tail, strlen(tail));
	res = redact_continued(buf, strlen(tail), (uint32_t)strlen(tail));
	assert_true(res & REDACT_DONE);
	assert_memory_equal(buf, "******\r\nHost: x\r\nCookie: *\r\n", strlen(tail));
	memcpy(buf, next, strlen(next));
	assert_int_equal(redact_continued(buf, strlen(next), (uint32_t)strlen(next)), REDACT_NONE);
	assert_memory_equal(buf, next, strlen(next));
}

static void test_postgres(void **state)
{
	/* PasswordMessage, then a SASLResponse cut by the capture. */
	static const char pw[] = "p\0\0\0\x0dhunter2!\0";
	static const char pw_want[] = "p\0\0\0\x0d*********";
	static const char sasl[] = "p\0\0\0\x40"
				   "c=biws,r=abc,p=PROOF";
	static const char sasl_want[] = "p\0\0\0\x40"
					"********************";
	static const char query[] = "Q\0\0\0\x0eSELECT 1;\0";

	assert_int_equal(check(pw, sizeof(pw) - 1, 0, pw_want), REDACT_DONE);
	assert_int_equal(check(sasl, sizeof(sasl) - 1, 0, sasl_want), REDACT_DONE | REDACT_OPEN);
	assert_int_equal(check(query, sizeof(query) - 1, 0, query), REDACT_NONE);
}

static void test_mysql(void **state)
{
	uint8_t hs[128], want[128];
	size_t n = 0, user;

	/* Handshake response 4.1: caps, max packet, charset, 23 zero bytes, user, auth data, db. */
	memset(hs, 0, sizeof(hs));
	hs[3] = 1;
	n = 4;
	hs[n] = 0x85;
	hs[n + 1] = 0xa6; /* CLIENT_PROTOCOL_41 among them */
	n += 32;
	user = n;
	memcpy(hs + n, "app\0", 4);
	n += 4;
	hs[n++] = 20;
	memcpy(hs + n, "SCRAMBLESCRAMBLE1234", 20);
	n += 20;
	memcpy(hs + n, "shop\0", 5);
	n += 5;
	hs[0] = (uint8_t)(n - 4);
	memcpy(want, hs, n);
	memset(want + user + 4, '*', n - user - 4);
	assert_int_equal(check((const char *)hs, n, 0, (const char *)want), REDACT_DONE);
	/* MariaDB's clients put extended capabilities in the filler's last 4 bytes. */
	hs[4 + 28] = 0x1d;
	want[4 + 28] = 0x1d;
	assert_int_equal(check((const char *)hs, n, 0, (const char *)want), REDACT_DONE);
	/* Any other byte there is no handshake response: the whole packet goes. */
	hs[4 + 20] = 1;
	memcpy(want, hs, 4);
	memset(want + 4, '*', n - 4);
	assert_int_equal(check((const char *)hs, n, 0, (const char *)want), REDACT_DONE);
	/* An auth switch response: the whole body. */
	assert_int_equal(check("\x14\0\0\x03"
			       "abcdefghijklmnopqrst",
			       24, 0,
			       "\x14\0\0\x03"
			       "********************"),
			 REDACT_DONE);
	/* COM_QUERY (sequence 0) stays. */
	assert_int_equal(check("\x09\0\0\0\x03SELECT 1", 13, 0, "\x09\0\0\0\x03SELECT 1"),
			 REDACT_NONE);
	/* COM_CHANGE_USER: the user stays, the rest goes. */
	assert_int_equal(check("\x0a\0\0\0\x11"
			       "bob\0\x04pass",
			       14, 0,
			       "\x0a\0\0\0\x11"
			       "bob\0*****"),
			 REDACT_DONE);
}

/* Redacts as check() for an operation whose direction is known to be `side`. */
static unsigned check_side(const char *in, size_t len, uint8_t side, const char *want)
{
	uint8_t buf[256];
	unsigned res;

	memcpy(buf, in, len);
	res = redact_payload_side(buf, len, (uint32_t)len, side);
	assert_memory_equal(buf, want, len);
	return res;
}

/*
 * A server's OK or ERR packet is framed as a client's auth switch response:
 * only what the stream told of its direction keeps it.
 */
static void test_mysql_sides(void **state)
{
	static const char ok[] = "\x07\0\0\x01\0\0\0\x02\0\0\0";
	static const char err[] = "\x17\0\0\x01\xff\x7a\x04#42S02Table 'x' doesn't";
	static const char auth[] = "\x14\0\0\x03"
				   "abcdefghijklmnopqrst";
	static const char greeting[] = "\x0e\0\0\0\x0a"
				       "8.0.36\0\x01\0\0\0\0";
	uint8_t side = 0, other = 0;

	/* Nothing known: replaced, as every doubt. */
	assert_int_equal(check_side(ok, 11, REDACT_SIDE_UNKNOWN, "\x07\0\0\x01*******"),
			 REDACT_DONE);
	/* The server's direction, or a client's sending commands: kept. */
	assert_int_equal(check_side(ok, 11, REDACT_SIDE_SERVER, ok), REDACT_NONE);
	assert_int_equal(check_side(err, 27, REDACT_SIDE_SERVER, err), REDACT_NONE);
	assert_int_equal(check_side(ok, 11, REDACT_SIDE_CLIENT, ok), REDACT_NONE);
	/* A client authenticating: its auth switch response goes whole. */
	assert_int_equal(check_side(auth, 24, REDACT_SIDE_CLIENT_AUTH,
				    "\x14\0\0\x03"
				    "********************"),
			 REDACT_DONE);

	/* The greeting makes its direction the server's and the other a client's authenticating. */
	assert_true(redact_mysql_side((const uint8_t *)greeting, 18, 18, &side, &other));
	assert_int_equal(side, REDACT_SIDE_SERVER);
	assert_int_equal(other, REDACT_SIDE_CLIENT_AUTH);
	/* A command (COM_QUERY): the client's after authentication; the other the server's. */
	assert_true(redact_mysql_side((const uint8_t *)"\x09\0\0\0\x03SELECT 1", 13, 13, &side,
				      &other));
	assert_int_equal(side, REDACT_SIDE_CLIENT);
	assert_int_equal(other, REDACT_SIDE_SERVER);
	/* COM_CHANGE_USER authenticates again. */
	assert_true(redact_mysql_side((const uint8_t *)"\x0a\0\0\0\x11"
						       "bob\0\x04pass",
				      14, 14, &side, &other));
	assert_int_equal(side, REDACT_SIDE_CLIENT_AUTH);
	/* A reply packet, HTTP, Redis: they tell nothing. */
	assert_false(redact_mysql_side((const uint8_t *)ok, 11, 11, &side, &other));
	assert_false(redact_mysql_side((const uint8_t *)"GET / HTTP/1.1\r\n\r\n", 18, 18, &side,
				       &other));
	assert_false(
		redact_mysql_side((const uint8_t *)"*1\r\n$4\r\nPING\r\n", 14, 14, &side, &other));
}

static void test_redis(void **state)
{
	CHECK("*2\r\n$4\r\nAUTH\r\n$6\r\nsecret\r\n*1\r\n$4\r\nPING\r\n",
	      "*2\r\n$4\r\nAUTH\r\n$6\r\n******\r\n*1\r\n$4\r\nPING\r\n");
	CHECK("*3\r\n$4\r\nauth\r\n$4\r\nuser\r\n$4\r\npass\r\n",
	      "*3\r\n$4\r\nauth\r\n$4\r\n****\r\n$4\r\n****\r\n");
	CHECK("*5\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$4\r\nAUTH\r\n$1\r\nu\r\n$2\r\npw\r\n",
	      "*5\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$4\r\nAUTH\r\n$1\r\n*\r\n$2\r\n**\r\n");
	CHECK("PING\r\nAUTH hunter2\r\nGET k\r\n", "PING\r\nAUTH *******\r\nGET k\r\n");
	CHECK("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n",
	      "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n");
	/* Cut inside the password. */
	assert_int_equal(check("*2\r\n$4\r\nAUTH\r\n$10\r\nsecretpass\r\n", 22, 0,
			       "*2\r\n$4\r\nAUTH\r\n$10\r\n***"),
			 REDACT_DONE | REDACT_OPEN);
}

/* AMQP connection.start-ok: the PLAIN response (user and password) only. */
#define START_OK(resp)           \
	"AMQP\0\0\x09\x01"       \
	"\x01\0\0\0\0\0\x2a"     \
	"\0\x0a\0\x0b"           \
	"\0\0\0\x05"             \
	"table"                  \
	"\x05"                   \
	"PLAIN"                  \
	"\0\0\0\x0d" resp "\x05" \
	"en_US"                  \
	"\xce"

static void test_amqp(void **state)
{
	static const char in[] = START_OK("\0guest\0secret");

	assert_int_equal(check(in, sizeof(in) - 1, 0, START_OK("*************")), REDACT_DONE);
	/* Cut inside the response: the rest may come in the next operation. */
	assert_int_equal(check(in, sizeof(in) - 10, sizeof(in) - 1, START_OK("*************")),
			 REDACT_DONE);
	assert_int_equal(check(in, sizeof(in) - 12, sizeof(in) - 12, START_OK("*************")),
			 REDACT_DONE | REDACT_OPEN);
	/* Other methods (connection.tune-ok here) keep their bytes. */
	CHECK("\x01\0\0\0\0\0\x0c\0\x0a\0\x1f\x07\xff\0\x02\0\0\0\x3c\xce",
	      "\x01\0\0\0\0\0\x0c\0\x0a\0\x1f\x07\xff\0\x02\0\0\0\x3c\xce");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http_headers),
		cmocka_unit_test(test_http_value_cut),
		cmocka_unit_test(test_continued_operation),
		cmocka_unit_test(test_postgres),
		cmocka_unit_test(test_mysql),
		cmocka_unit_test(test_mysql_sides),
		cmocka_unit_test(test_redis),
		cmocka_unit_test(test_amqp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
