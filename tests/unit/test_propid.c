// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Propagated ids (analyzer/proto/propid.c): each header as propagators send
 * it, names in any case, the sqlcommenter comment in PostgreSQL and MySQL
 * queries, and bytes that must give no id: cut values, malformed ids, a
 * reply, another protocol, a traceparent outside a comment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "idseen.h"
#include "proto/propid.h"

#define TID "4bf92f3577b34da6a3ce929d0e0e4736"
#define TP "00-" TID "-00f067aa0ba902b7-01"

static struct vp_propid id;

static bool rd(const char *s)
{
	return vp_propid__read((const uint8_t *)s, strlen(s), &id);
}

static bool rdn(const void *p, size_t n)
{
	return vp_propid__read(p, n, &id);
}

static void test_traceparent(void **state)
{
	assert_true(rd("GET /a HTTP/1.1\r\nHost: gw\r\ntraceparent: " TP "\r\n\r\n"));
	assert_int_equal(id.kind, VP_PROPID_TRACE);
	assert_string_equal(id.id, TID);
	assert_int_equal(id.len, 32);
	/* Any case, the trace id kept in lowercase; no blank line captured yet. */
	assert_true(rd(
		"POST /b "
		"HTTP/"
		"1.0\r\nTraceParent:00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-00\r\n"));
	assert_string_equal(id.id, TID);
	/* A later version may add fields. */
	assert_true(rd("GET / HTTP/1.1\r\ntraceparent: 01-" TID "-00f067aa0ba902b7-01-zz\r\n\r\n"));
	/* Cut before its line end: no id. */
	assert_false(rd("GET /a HTTP/1.1\r\ntraceparent: " TP));
	assert_false(rd("GET /a HTTP/1.1\r\ntraceparent: 00-4bf92f3577b34da6a3ce929d0e0e\r\n\r\n"));
	/* Version ff, all-zero trace id, bad hex, 00 with more fields. */
	assert_false(rd("GET / HTTP/1.1\r\ntraceparent: ff-" TID "-00f067aa0ba902b7-01\r\n\r\n"));
	assert_false(rd("GET / HTTP/1.1\r\ntraceparent: "
			"00-00000000000000000000000000000000-00f067aa0ba902b7-01\r\n\r\n"));
	assert_false(rd("GET / HTTP/1.1\r\ntraceparent: 00-" TID "-00f067aa0ba902bx-01\r\n\r\n"));
	assert_false(rd("GET / HTTP/1.1\r\ntraceparent: " TP "-x\r\n\r\n"));
	/* A header after the blank line is the body's; a reply carries none. */
	assert_false(rd("GET / HTTP/1.1\r\nHost: x\r\n\r\ntraceparent: " TP "\r\n"));
	assert_false(rd("HTTP/1.1 200 OK\r\ntraceparent: " TP "\r\n\r\n"));
	assert_int_equal(id.kind, VP_PROPID_NONE);
	assert_false(rd("GET / HTTP/2.0\r\ntraceparent: " TP "\r\n\r\n"));
}

static void test_others(void **state)
{
	assert_true(rd("GET / HTTP/1.1\r\nX-B3-TraceId: 80f198ee56343ba864fe8b2a57d3eff7\r\n\r\n"));
	assert_string_equal(id.id, "80f198ee56343ba864fe8b2a57d3eff7");
	/* 64-bit ids padded as W3C says: the same trace as its traceparent. */
	assert_true(rd("GET / HTTP/1.1\r\nb3: a3ce929d0e0e4736-00f067aa0ba902b7-1\r\n\r\n"));
	assert_string_equal(id.id, "0000000000000000a3ce929d0e0e4736");
	assert_false(rd("GET / HTTP/1.1\r\nb3: 1\r\n\r\n"));
	assert_true(rd("GET / HTTP/1.1\r\nuber-trace-id: 5ee0e4736:7b:0:1\r\n\r\n"));
	assert_string_equal(id.id, "000000000000000000000005ee0e4736");
	assert_true(rd("GET / HTTP/1.1\r\nX-Amzn-Trace-Id: "
		       "Self=1-x;Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1\r\n\r\n"));
	assert_int_equal(id.kind, VP_PROPID_AMZN);
	assert_string_equal(id.id, "1-5759e988-bd862e3fe1be46a994272793");
	assert_true(rd(
		"GET / HTTP/1.1\r\nx-request-id:  f3b1c2d0-77aa-4a0e-9d3c-0b8d1e2f3a4b \r\n\r\n"));
	assert_int_equal(id.kind, VP_PROPID_REQUEST_ID);
	assert_string_equal(id.id, "f3b1c2d0-77aa-4a0e-9d3c-0b8d1e2f3a4b");
	assert_false(rd("GET / HTTP/1.1\r\nx-request-id: two words\r\n\r\n"));
	/* A trace id wins over a request id, whatever their order. */
	assert_true(rd("GET / HTTP/1.1\r\nX-Request-Id: r1\r\ntraceparent: " TP
		       "\r\nx-amzn-trace-id: Root=1-a-b\r\n\r\n"));
	assert_int_equal(id.kind, VP_PROPID_TRACE);
	assert_string_equal(id.id, TID);
}

static void test_sql(void **state)
{
	static const char q[] = "SELECT 1 /*traceparent='" TP "'*/";
	uint8_t pg[128], my[128];
	size_t n = sizeof(q); /* with its NUL */

	pg[0] = 'Q';
	pg[1] = pg[2] = 0;
	pg[3] = (uint8_t)((n + 4) >> 8);
	pg[4] = (uint8_t)(n + 4);
	memcpy(pg + 5, q, n);
	assert_true(rdn(pg, 5 + n));
	assert_string_equal(id.id, TID);
	/* The closing quote not captured: no id. */
	assert_false(rdn(pg, 5 + n - 5));
	my[0] = (uint8_t)n;
	my[1] = my[2] = my[3] = 0;
	my[4] = 0x03;
	memcpy(my + 5, q, n - 1);
	assert_true(rdn(my, 5 + n - 1));
	assert_string_equal(id.id, TID);
	my[4] = 0x16; /* COM_STMT_PREPARE */
	assert_true(rdn(my, 5 + n - 1));
	my[4] = 0x0e; /* COM_PING: no text */
	assert_false(rdn(my, 5 + n - 1));
	my[4] = 0x03;
	/* Not in a comment: a string of the query. */
	{
		static const char s[] = "SELECT x FROM t WHERE traceparent='" TP "'";

		my[0] = (uint8_t)(sizeof(s));
		memcpy(my + 5, s, sizeof(s) - 1);
		assert_false(rdn(my, 5 + sizeof(s) - 1));
	}
	assert_false(rdn("", 0));
	assert_false(rdn(NULL, 0));
}

static void test_decided(void **state)
{
	static const char h[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\nbody";

	/* The header block ends in the capture, or everything was captured. */
	assert_true(vp_propid__decided((const uint8_t *)h, sizeof(h) - 1, 4096));
	assert_true(vp_propid__decided((const uint8_t *)h, 28, 4096));
	assert_true(vp_propid__decided((const uint8_t *)"\x01\x02", 2, 2));
	/* Cut inside the header block, or bytes of no protocol cut anywhere. */
	assert_false(vp_propid__decided((const uint8_t *)h, 25, 4096));
	assert_false(vp_propid__decided((const uint8_t *)"\x01\x02", 2, 10));
	assert_false(vp_propid__decided(NULL, 0, 10));
}

static void test_equal(void **state)
{
	struct vp_propid a, b;

	assert_true(rd("GET / HTTP/1.1\r\ntraceparent: " TP "\r\n\r\n"));
	a = id;
	assert_true(rd("PUT /x HTTP/1.1\r\ntraceparent: 00-" TID "-1111111111111111-01\r\n\r\n"));
	b = id;
	assert_true(vp_propid__equal(&a, &b));
	/* The same text as another kind is another id. */
	assert_true(rd("GET / HTTP/1.1\r\nx-request-id: " TID "\r\n\r\n"));
	assert_false(vp_propid__equal(&a, &id));
	memset(&b, 0, sizeof(b));
	assert_false(vp_propid__equal(&b, &b));
}

static struct vp_propid request_id(unsigned n)
{
	struct vp_propid id = {.kind = VP_PROPID_REQUEST_ID};

	id.len = (uint8_t)snprintf(id.id, sizeof(id.id), "req-%u", n);
	return id;
}

/* A process's latest ids: counted while among the latest VP_IDSEEN_MAX, then forgotten. */
static void test_idseen(void **state)
{
	struct vp_idseen s = {0};
	struct vp_propid a = request_id(0), b = request_id(1), c;

	(void)state;
	assert_int_equal(vp_idseen__count(&s, &a), 0);
	assert_int_equal(vp_idseen__add(&s, &a), 0);
	assert_int_equal(vp_idseen__add(&s, &b), 0);
	assert_int_equal(vp_idseen__add(&s, &a), 0);
	assert_int_equal(vp_idseen__count(&s, &a), 2);
	assert_int_equal(vp_idseen__count(&s, &b), 1);
	/* The same value as another kind is another id. */
	b.kind = VP_PROPID_AMZN;
	assert_int_equal(vp_idseen__count(&s, &b), 0);
	/* Up to VP_IDSEEN_MAX: the first a is the oldest, forgotten by the next; then b. */
	for (unsigned i = 3; i < VP_IDSEEN_MAX; i++) {
		struct vp_propid x = request_id(i + 1000000);

		assert_int_equal(vp_idseen__add(&s, &x), 0);
	}
	assert_int_equal(vp_idseen__count(&s, &a), 2);
	b = request_id(7);
	assert_int_equal(vp_idseen__add(&s, &b), 0);
	assert_int_equal(vp_idseen__count(&s, &a), 1);
	b = request_id(1);
	assert_int_equal(vp_idseen__count(&s, &b), 1);
	c = request_id(8);
	assert_int_equal(vp_idseen__add(&s, &c), 0);
	assert_int_equal(vp_idseen__count(&s, &b), 0);
	assert_int_equal(vp_idseen__count(&s, &a), 1);
	vp_idseen__free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_traceparent), cmocka_unit_test(test_others),
		cmocka_unit_test(test_sql),	    cmocka_unit_test(test_decided),
		cmocka_unit_test(test_equal),	    cmocka_unit_test(test_idseen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
