// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * HTTP/2 header blocks: the analyzer's decoder (analyzer/proto/hpack.c) on
 * blocks that libnghttp2's own deflater codes, as peers send them (the
 * dynamic table across blocks, CONTINUATION, padding), and what it must
 * refuse (a cut block, a missed one, a recording that says one was
 * broken); and the recorder's redaction (user/redact_h2.c): secret values
 * replaced whatever way their name is coded, the rest kept, the blocks
 * after still decoded right.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <nghttp2/nghttp2.h>

#include "proto/hpack.h"
#include "../../user/redact.h"
#include "../../user/redact_h2.h"
#include "vpath/record.h"

#define TID "4bf92f3577b34da6a3ce929d0e0e4736"
#define TID2 "0af7651916cd43dd8448eb211c80319c"
#define TP(t) "00-" t "-00f067aa0ba902b7-01"

#define NV(n, v)                                                                                   \
	{                                                                                          \
		(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, NGHTTP2_NV_FLAG_NONE \
	}

struct frame {
	uint8_t b[VPR_PAYLOAD_MAX];
	size_t len; /* bytes captured */
	uint64_t total;
};

/* A frame of type/flags on stream 1 around block[0..n). */
static void frame_of(struct frame *f, uint8_t type, uint8_t flags, const uint8_t *block, size_t n)
{
	assert_true(9 + n <= sizeof(f->b));
	f->b[0] = (uint8_t)(n >> 16);
	f->b[1] = (uint8_t)(n >> 8);
	f->b[2] = (uint8_t)n;
	f->b[3] = type;
	f->b[4] = flags;
	f->b[5] = f->b[6] = f->b[7] = 0;
	f->b[8] = 1;
	memcpy(f->b + 9, block, n);
	f->len = f->total = 9 + n;
}

/* A HEADERS frame (END_HEADERS) of the fields, coded by the deflater. */
static void headers(nghttp2_hd_deflater *def, struct frame *f, const nghttp2_nv *nv, size_t n)
{
	uint8_t block[VPR_PAYLOAD_MAX];
	ssize_t k = nghttp2_hd_deflate_hd(def, block, sizeof(block), nv, n);

	assert_true(k > 0);
	frame_of(f, 1, 0x4, block, (size_t)k);
}

static const nghttp2_nv req1[] = {
	NV(":method", "POST"),
	NV(":scheme", "http"),
	NV(":path", "/vpath.h2.Work/Call"),
	NV(":authority", "10.0.0.2:7100"),
	NV("content-type", "application/grpc"),
	NV("traceparent", TP(TID)),
};
static const nghttp2_nv req2[] = {
	NV(":method", "POST"),
	NV(":scheme", "http"),
	NV(":path", "/vpath.h2.Work/Call"),
	NV(":authority", "10.0.0.2:7100"),
	NV("content-type", "application/grpc"),
	NV("traceparent", TP(TID2)),
};

struct fixture {
	nghttp2_hd_deflater *def;
	struct vp_hpack *h;
	struct vp_h2_fields out;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	assert_int_equal(nghttp2_hd_deflate_new(&fx->def, 4096), 0);
	fx->h = vp_hpack__new();
	assert_non_null(fx->h);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	nghttp2_hd_deflate_del(fx->def);
	vp_hpack__free(fx->h);
	free(fx);
	return 0;
}

static int feed(struct fixture *fx, const struct frame *f, uint8_t pflags)
{
	return vp_hpack__frame(fx->h, f->b, f->len, f->total, pflags, &fx->out);
}

#define FIRST (VPR_PAYLOAD_H2_FRAME | VPR_PAYLOAD_H2_FIRST)
#define NEXT VPR_PAYLOAD_H2_FRAME

static void test_request_fields_across_the_dynamic_table(void **state)
{
	struct fixture *fx = *state;
	struct frame f1, f2;

	headers(fx->def, &f1, req1, 6);
	headers(fx->def, &f2, req2, 6);
	/* The second block names the first's fields by the dynamic table. */
	assert_true(f2.len < f1.len);
	assert_int_equal(feed(fx, &f1, FIRST), VP_HPACK_DONE);
	assert_true(fx->out.whole);
	assert_string_equal(fx->out.method, "POST");
	assert_string_equal(fx->out.path, "/vpath.h2.Work/Call");
	assert_int_equal(fx->out.id.kind, VP_PROPID_TRACE);
	assert_string_equal(fx->out.id.id, TID);
	assert_int_equal(fx->out.grpc_status, -1);
	assert_int_equal(feed(fx, &f2, NEXT), VP_HPACK_DONE);
	assert_true(fx->out.whole);
	assert_string_equal(fx->out.path, "/vpath.h2.Work/Call");
	assert_string_equal(fx->out.id.id, TID2);
	assert_true(vp_hpack__in_sync(fx->h));
}

static void test_reply_status_and_grpc_status(void **state)
{
	struct fixture *fx = *state;
	const nghttp2_nv rep[] = {NV(":status", "200"), NV("content-type", "application/grpc")};
	const nghttp2_nv trailers[] = {NV("grpc-status", "14"), NV("grpc-message", "unavailable")};
	struct frame f;

	headers(fx->def, &f, rep, 2);
	assert_int_equal(feed(fx, &f, FIRST), VP_HPACK_DONE);
	assert_int_equal(fx->out.status, 200);
	assert_int_equal(fx->out.grpc_status, -1);
	assert_string_equal(fx->out.method, "");
	headers(fx->def, &f, trailers, 2);
	assert_int_equal(feed(fx, &f, NEXT), VP_HPACK_DONE);
	assert_int_equal(fx->out.status, 0);
	assert_int_equal(fx->out.grpc_status, 14);
}

/* A block cut by the capture length: the fields before the cut, then nothing more. */
static void test_cut_block_ends_the_direction(void **state)
{
	struct fixture *fx = *state;
	struct frame f1, f2;

	headers(fx->def, &f1, req1, 6);
	headers(fx->def, &f2, req2, 6);
	f1.len = 9 + 20;
	assert_int_equal(feed(fx, &f1, FIRST), VP_HPACK_DONE);
	assert_false(fx->out.whole);
	assert_string_equal(fx->out.method, "POST");
	assert_int_equal(fx->out.id.kind, VP_PROPID_NONE);
	assert_false(vp_hpack__in_sync(fx->h));
	/* Its references to the first block's fields would be guesses. */
	assert_int_equal(feed(fx, &f2, NEXT), VP_HPACK_UNKNOWN);
}

static void test_missed_block_ends_the_direction(void **state)
{
	struct fixture *fx = *state;
	struct frame f1, f2;

	headers(fx->def, &f1, req1, 6);
	headers(fx->def, &f2, req2, 6);
	vp_hpack__missed(fx->h);
	assert_int_equal(feed(fx, &f1, FIRST), VP_HPACK_UNKNOWN);
	assert_int_equal(feed(fx, &f2, NEXT), VP_HPACK_UNKNOWN);
}

/* The recorder says an earlier block was not captured whole, or this is not the first. */
static void test_recorder_flags_decide(void **state)
{
	struct fixture *fx = *state;
	struct frame f1, f2;
	struct vp_hpack *h2 = vp_hpack__new();

	headers(fx->def, &f1, req1, 6);
	headers(fx->def, &f2, req2, 6);
	assert_int_equal(feed(fx, &f1, FIRST), VP_HPACK_DONE);
	assert_int_equal(feed(fx, &f2, NEXT | VPR_PAYLOAD_H2_BROKEN), VP_HPACK_UNKNOWN);
	/* A first block not marked first: the table may hold what was not seen. */
	assert_int_equal(vp_hpack__frame(h2, f1.b, f1.len, f1.total, NEXT, &fx->out),
			 VP_HPACK_UNKNOWN);
	vp_hpack__free(h2);
}

static void test_continuation_and_padding(void **state)
{
	struct fixture *fx = *state;
	uint8_t block[VPR_PAYLOAD_MAX], padded[VPR_PAYLOAD_MAX];
	ssize_t k = nghttp2_hd_deflate_hd(fx->def, block, sizeof(block), req1, 6);
	struct frame f;
	size_t half;

	assert_true(k > 10);
	half = (size_t)k / 2;
	frame_of(&f, 1, 0, block, half);
	assert_int_equal(feed(fx, &f, FIRST), VP_HPACK_MORE);
	frame_of(&f, 9, 0x4, block + half, (size_t)k - half);
	assert_int_equal(feed(fx, &f, NEXT), VP_HPACK_DONE);
	assert_true(fx->out.whole);
	assert_string_equal(fx->out.id.id, TID);
	/* PADDED and PRIORITY: a pad length, 5 bytes of priority, the block, the pad. */
	k = nghttp2_hd_deflate_hd(fx->def, block, sizeof(block), req2, 6);
	padded[0] = 3;
	memset(padded + 1, 0, 5);
	memcpy(padded + 6, block, (size_t)k);
	memset(padded + 6 + k, 0, 3);
	frame_of(&f, 1, 0x4 | 0x8 | 0x20, padded, 6 + (size_t)k + 3);
	assert_int_equal(feed(fx, &f, NEXT), VP_HPACK_DONE);
	assert_true(fx->out.whole);
	assert_string_equal(fx->out.id.id, TID2);
}

/* A CONTINUATION that does not go on with a block is no HPACK to trust. */
static void test_stray_continuation(void **state)
{
	struct fixture *fx = *state;
	struct frame f;

	headers(fx->def, &f, req1, 6);
	f.b[3] = 9;
	assert_int_equal(feed(fx, &f, FIRST), VP_HPACK_UNKNOWN);
}

/* Redaction: a block as the recorder's take_payload() hands it over. */
static unsigned redact(struct redact_h2 *r, struct frame *f, uint8_t pflags)
{
	return redact_h2__frame(r, 7, 0, pflags, f->b, f->len, f->total);
}

static bool has(const struct frame *f, const char *s)
{
	return memmem(f->b, f->len, s, strlen(s)) != NULL;
}

/* Hand-coded fields: literal with incremental indexing (0x40) or without (0x00). */
static void test_redact_secret_names_however_coded(void **state)
{
	struct fixture *fx = *state;
	struct redact_h2 *r = redact_h2__new();
	/*
	 * authorization by static index 23, inserted; then by dynamic index 62
	 * (the latest inserted); then a plain literal name "cookie"; then
	 * x-keep: kept, inserted, and by dynamic index 62 again (now x-keep).
	 */
	static const uint8_t b1[] = "\x57\x0d"
				    "Bearer secret"
				    "\x40\x06x-keep\x04open";
	static const uint8_t b2[] = "\x0f\x30\x0c"
				    "Bearer other" /* 63: authorization */
				    "\x00\x06"
				    "cookie\x03"
				    "abc"
				    "\x0f\x2f\x04"
				    "open"; /* 62: x-keep */
	struct frame f;

	assert_non_null(r);
	frame_of(&f, 1, 0x4, b1, sizeof(b1) - 1);
	assert_int_equal(redact(r, &f, FIRST), REDACT_DONE);
	assert_false(has(&f, "secret"));
	assert_true(has(&f, "x-keep") && has(&f, "open"));
	assert_int_equal(feed(fx, &f, FIRST), VP_HPACK_DONE);
	frame_of(&f, 1, 0x4, b2, sizeof(b2) - 1);
	assert_int_equal(redact(r, &f, NEXT), REDACT_DONE);
	assert_false(has(&f, "other"));
	assert_false(has(&f, "abc"));
	assert_true(has(&f, "open"));
	/* The analyzer still decodes the redacted blocks. */
	assert_int_equal(feed(fx, &f, NEXT), VP_HPACK_DONE);
	assert_true(fx->out.whole);
	redact_h2__free(r);
}

/* What nghttp2's deflater sends: Huffman-coded literal names, kept when not secret. */
static void test_redact_keeps_the_rest(void **state)
{
	struct fixture *fx = *state;
	struct redact_h2 *r = redact_h2__new();
	const nghttp2_nv auth[] = {NV(":method", "GET"), NV(":path", "/a"),
				   NV("authorization", "Bearer 0123456789abcdefghijklmnop"),
				   NV("traceparent", TP(TID))};
	struct frame f1, f2, f3;

	assert_non_null(r);
	headers(fx->def, &f1, req1, 6);
	headers(fx->def, &f2, auth, 4);
	headers(fx->def, &f3, req2, 6);
	assert_int_equal(redact(r, &f1, FIRST), 0);
	assert_int_equal(redact(r, &f2, NEXT), REDACT_DONE);
	assert_int_equal(redact(r, &f3, NEXT), 0);
	assert_int_equal(feed(fx, &f1, FIRST), VP_HPACK_DONE);
	assert_string_equal(fx->out.id.id, TID);
	assert_int_equal(feed(fx, &f2, NEXT), VP_HPACK_DONE);
	assert_string_equal(fx->out.path, "/a");
	assert_string_equal(fx->out.id.id, TID);
	assert_int_equal(feed(fx, &f3, NEXT), VP_HPACK_DONE);
	assert_string_equal(fx->out.id.id, TID2);
	redact_h2__free(r);
}

/* Earlier blocks unknown: every value of a field named by the dynamic table goes. */
static void test_redact_without_the_table(void **state)
{
	struct fixture *fx = *state;
	struct redact_h2 *r = redact_h2__new();
	struct frame f1, f2;

	assert_non_null(r);
	headers(fx->def, &f1, req1, 6);
	headers(fx->def, &f2, req2, 6);
	/* f1 never reaches the redactor: f2 names its fields by the table. */
	assert_int_equal(redact(r, &f2, NEXT | VPR_PAYLOAD_H2_BROKEN), REDACT_DONE);
	assert_false(has(&f2, TID2));
	/* Bytes that are no header block go whole. */
	f1.b[3] = 0;
	assert_int_equal(redact(r, &f1, NEXT), REDACT_DONE);
	for (size_t i = 9; i < f1.len; i++)
		assert_int_equal(f1.b[i], REDACT_MASK);
	redact_h2__free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_request_fields_across_the_dynamic_table, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reply_status_and_grpc_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_block_ends_the_direction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missed_block_ends_the_direction, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_recorder_flags_decide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_continuation_and_padding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stray_continuation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_redact_secret_names_however_coded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_redact_keeps_the_rest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_redact_without_the_table, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
