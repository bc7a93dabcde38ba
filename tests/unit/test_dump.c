// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dump's line for a captured payload: its operation, and its bytes escaped
 * so that the line stays one line whatever they are; a damaged one says so.
 * An HTTP/2 frame header by its type's name, and a lost marker by its reason.
 * The program and release that wrote the file as words.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dump.h"
#include "vpath/record.h"

static char *dumped_hdr(const struct vpr_hdr *h)
{
	static char text[1024];
	FILE *f = fmemopen(text, sizeof(text), "w");

	assert_non_null(f);
	vp_dump_record(f, h);
	fclose(f);
	return text;
}

static char *dumped(const struct vpr_payload *p)
{
	return dumped_hdr(&p->h);
}

static void payload(struct vpr_payload *p, const char *bytes, unsigned len)
{
	memset(p, 0, sizeof(*p));
	p->h.type = VPR_PAYLOAD;
	p->h.size = (uint16_t)VPR_PAYLOAD_SIZE(len);
	p->h.ts_ns = 1000;
	p->h.tid = 7;
	p->pid = 7;
	p->cookie = 0x2a;
	p->dir = VPR_DIR_SEND;
	p->bytes = 100;
	p->seq_end = 100;
	p->len = (uint16_t)len;
	memcpy(p->data, bytes, len);
}

static void test_payload_bytes_escaped(void **state)
{
	static const char req[] = "GET /a\"b\\ HTTP/1.1\r\nX: \x01\xff\n";
	struct vpr_payload p;
	char *line;

	payload(&p, req, sizeof(req) - 1);
	p.flags = VPR_PAYLOAD_REDACTED;
	line = dumped(&p);
	assert_non_null(
		strstr(line, "pid=7 cookie=0x2a send bytes=100 seq_end=100 len=26 redacted"));
	assert_non_null(strstr(line, "data=\"GET /a\\\"b\\\\ HTTP/1.1\\r\\nX: \\x01\\xff\\n\""));
	assert_null(strchr(line, '\n'));
	assert_null(strstr(line, "unknown type"));
}

static void test_damaged_payload_is_named(void **state)
{
	struct vpr_payload p;

	payload(&p, "GET / HTTP/1.1\r\n", 16);
	p.len = 200; /* more than the record holds */
	assert_non_null(strstr(dumped(&p), "damaged"));
	p.h.size = 16; /* shorter than a payload's head */
	assert_non_null(strstr(dumped(&p), "damaged"));
}

static void test_h2_frame(void **state)
{
	struct vpr_h2_frame f = {
		.h = {.type = VPR_H2_FRAME, .size = sizeof(f), .tid = 7, .ts_ns = 1000},
		.cookie = 0x2a,
		.seq = 4294967295u,
		.stream_id = 2147483647u,
		.length = 16777215u,
		.type = 9,
		.flags = 0x4,
		.dir = VPR_DIR_RECV,
		.kind = VPR_H2_HEADER,
	};

	assert_non_null(strstr(dumped_hdr(&f.h),
			       "h2_frame ts=1000 tid=7 cookie=0x2a recv seq=4294967295 "
			       "type=CONTINUATION flags=0x4 stream=2147483647 "
			       "length=16777215"));
	f.type = 0;
	assert_non_null(strstr(dumped_hdr(&f.h), " type=DATA "));
	f.type = 0x10; /* an extension (PRIORITY_UPDATE): by number */
	assert_non_null(strstr(dumped_hdr(&f.h), " type=0x10 "));
	f.kind = VPR_H2_LOST;
	f.type = VPR_H2_LOST_GAP;
	f.dir = VPR_DIR_SEND;
	assert_non_null(strstr(dumped_hdr(&f.h), "cookie=0x2a send seq=4294967295 lost why=gap"));
	assert_null(strstr(dumped_hdr(&f.h), "stream="));
}

/* Which program wrote the file, as words; bytes a word cannot hold as \xNN. */
static void test_writer(void **state)
{
	struct vpr_writer_info wi = {
		.h = {.type = VPR_WRITER, .size = sizeof(wi), .tid = 0, .ts_ns = 1000},
		.version = "0.1",
		.program = "vpath-record",
	};

	assert_non_null(strstr(dumped_hdr(&wi.h), "writer  ts=1000 tid=0 version=0.1 "
						  "program=vpath-record"));
	memset(wi.version, 'x', sizeof(wi.version)); /* no NUL: the field ends it */
	wi.version[2] = ' ';
	wi.version[3] = '\n';
	assert_non_null(strstr(dumped_hdr(&wi.h),
			       " version=xx\\x20\\x0axxxxxxxxxxxxxxxxxxxxxxxxxxxx"
			       " program=vpath-record"));
	assert_null(strchr(dumped_hdr(&wi.h), '\n'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_payload_bytes_escaped),
		cmocka_unit_test(test_damaged_payload_is_named),
		cmocka_unit_test(test_h2_frame),
		cmocka_unit_test(test_writer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
