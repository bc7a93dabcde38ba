// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recorder's redaction of log lines (user/redact_log.c): values named
 * as secrets are replaced byte for byte, the rest of the line stays, a
 * value cut at the end of a write is replaced there and, with `open`, at
 * the start of the next.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../user/redact_log.h"

static unsigned check(const char *in, size_t len, uint32_t bytes, int open, const char *want)
{
	uint8_t buf[512];
	unsigned res;

	assert_true(len <= sizeof(buf));
	memcpy(buf, in, len);
	res = redact_log(buf, len, bytes ? bytes : (uint32_t)len, open);
	if (memcmp(buf, want, len)) {
		print_error("got  %.*s\nwant %.*s\n", (int)len, buf, (int)len, want);
		fail();
	}
	return res;
}

#define CHECK(in, want) check(in, sizeof(in) - 1, 0, 0, want)

static void test_key_values(void **state)
{
	(void)state;
	assert_int_equal(CHECK("login user=bob password=hunter2 ok\n",
			       "login user=bob password=******* ok\n"),
			 REDACT_DONE);
	CHECK("db_passwd: s3cr3t, host: db\n", "db_passwd: ******, host: db\n");
	CHECK("{\"api_key\": \"abc123\", \"n\": 1}\n", "{\"api_key\": \"******\", \"n\": 1}\n");
	CHECK("token='x y z' next\n", "token='*****' next\n");
	CHECK("SESSIONID=abcd&x=1\n", "SESSIONID=****&x=1\n");
	/* A session's number is no secret; its id is. */
	CHECK("{\"session\": 3, \"session_id\": \"ab\"}\n",
	      "{\"session\": 3, \"session_id\": \"**\"}\n");
	CHECK("auth=pw1 author=me\n", "auth=*** author=me\n");
	assert_int_equal(CHECK("GET /x 200 12ms rid=17\n", "GET /x 200 12ms rid=17\n"),
			 REDACT_NONE);
	CHECK("at 12:30:01 user: bob\n", "at 12:30:01 user: bob\n");
}

static void test_headers_and_schemes(void **state)
{
	(void)state;
	CHECK("hdr Authorization: Bearer abc.def\nnext line\n",
	      "hdr Authorization: **************\nnext line\n");
	CHECK("calling with bearer eyJhbGc.x.y done\n", "calling with bearer *********** done\n");
	CHECK("Cookie: a=1; b=2\n", "Cookie: ********\n");
	CHECK("basic dXNlcjpwdw== sent\n", "basic ************ sent\n");
}

static void test_cut_and_open(void **state)
{
	(void)state;
	/* The write ends inside the value: replaced to its end, and open for the next. */
	assert_int_equal(check("x password=hunt", 15, 0, 0, "x password=****"),
			 REDACT_DONE | REDACT_OPEN);
	/* Cut by the capture length, not by the write: nothing goes on in the next write. */
	assert_int_equal(check("x password=hunt", 15, 40, 0, "x password=****"), REDACT_DONE);
	/* The next write begins with the rest of the value. */
	assert_int_equal(check("er2 ok\n", 7, 0, 1, "*** ok\n"), REDACT_DONE);
	assert_int_equal(check("abc", 3, 0, 1, "***"), REDACT_DONE | REDACT_OPEN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_values),
		cmocka_unit_test(test_headers_and_schemes),
		cmocka_unit_test(test_cut_and_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
