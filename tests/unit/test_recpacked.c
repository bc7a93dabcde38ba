// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Format 2's packed records (common/reccodec.h through recfile.h): every
 * record comes back from the reader byte for byte as it was given to the
 * writer, whatever its fields do (time going back within a block, gaps of
 * years, lengths of 2^32 - 1, stream positions wrapping, thousands of
 * sockets in one block, a socket changing threads), in version 2 as in
 * version 1; a socket operation that follows on takes a few bytes; damage
 * inside a packed block is corruption, never a misread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "recfile.h"
#include "../lib/tmpfile.h"

/* The records written, back to back, to compare with what is read. */
struct recs {
	unsigned char *p;
	size_t len, cap, n;
};

static void recs_add(struct recs *rs, const void *rec)
{
	size_t size = ((const struct vpr_hdr *)rec)->size;

	if (rs->len + size > rs->cap) {
		rs->cap = (rs->cap + size) * 2;
		rs->p = realloc(rs->p, rs->cap);
		assert_non_null(rs->p);
	}
	memcpy(rs->p + rs->len, rec, size);
	rs->len += size;
	rs->n++;
}

static struct vpr_sock_op make_op(uint64_t ts, uint64_t cookie, uint32_t tid, uint32_t bytes,
				  uint32_t seq_end, uint8_t dir)
{
	struct vpr_sock_op op = {
		.h = {.type = VPR_SOCK_OP, .size = sizeof(op), .tid = tid, .ts_ns = ts},
		.cookie = cookie,
		.pid = tid - tid % 100,
		.bytes = bytes,
		.seq_end = seq_end,
		.dir = dir,
	};
	return op;
}

/* Writes rs in the given version; returns the file's size. */
static off_t write_recs(const struct recs *rs, uint32_t version)
{
	struct vpr_file_header h = {.version = version};
	struct vpr_writer *w;
	struct stat st;

	strcpy(h.hostname, "packed");
	w = vpr_writer__create(tmpfile_path, &h);
	assert_non_null(w);
	for (size_t off = 0; off < rs->len; off += ((const struct vpr_hdr *)(rs->p + off))->size)
		assert_int_equal(vpr_writer__append(w, rs->p + off), 0);
	assert_int_equal(vpr_writer__records(w), rs->n);
	assert_int_equal(vpr_writer__close(w), 0);
	assert_int_equal(stat(tmpfile_path, &st), 0);
	return st.st_size;
}

/* Reads the file back and compares it with rs, record for record, byte for byte. */
static void read_back(const struct recs *rs, uint32_t version)
{
	char err[256];
	struct vpr_reader *r = vpr_reader__open(tmpfile_path, err, sizeof(err));
	const struct vpr_hdr *rec;
	size_t off = 0, n = 0;

	assert_non_null(r);
	assert_int_equal(vpr_reader__header(r)->version, version);
	while (vpr_reader__next(r, &rec) == 1) {
		assert_true(off + rec->size <= rs->len);
		if (memcmp(rec, rs->p + off, rec->size))
			fail_msg("record %zu (type %u, %u bytes) differs", n, rec->type, rec->size);
		off += rec->size;
		n++;
	}
	if (vpr_reader__status(r) != VPR_READ_OK)
		fail_msg("%s", vpr_reader__error(r));
	assert_int_equal(n, rs->n);
	assert_int_equal(off, rs->len);
	vpr_reader__close(r);
}

static void round_trip(const struct recs *rs)
{
	write_recs(rs, 1);
	read_back(rs, 1);
	write_recs(rs, 2);
	read_back(rs, 2);
	write_recs(rs, 0); /* 0: the current version */
	read_back(rs, VPR_VERSION);
}

static void test_edge_values(void **state)
{
	struct recs rs = {0};
	struct vpr_sock_op op;
	struct vpr_conn conn;
	struct vpr_payload pl;

	/* A socket's first operation, then ones that follow on. */
	op = make_op(1000000, 7, 101, 10, 100, VPR_DIR_SEND);
	recs_add(&rs, &op);
	op = make_op(1000500, 7, 101, 20, 120, VPR_DIR_SEND);
	recs_add(&rs, &op);
	/* Time going back within the block, by a little and by a lot. */
	op = make_op(999000, 7, 101, 5, 125, VPR_DIR_SEND);
	recs_add(&rs, &op);
	op = make_op(3, 7, 101, 5, 130, VPR_DIR_SEND);
	recs_add(&rs, &op);
	/* Gaps of hours and of the whole clock. */
	op = make_op(3 + 7200000000000ull, 7, 101, 1, 131, VPR_DIR_RECV);
	recs_add(&rs, &op);
	op = make_op(UINT64_MAX, 7, 101, 1, 132, VPR_DIR_RECV);
	recs_add(&rs, &op);
	op = make_op(0, 7, 101, 1, 133, VPR_DIR_RECV);
	recs_add(&rs, &op);
	/* Lengths of 2^32 - 1, positions wrapping past 2^32, a stream that jumps. */
	op = make_op(10, 8, 202, UINT32_MAX, UINT32_MAX - 1, VPR_DIR_SEND);
	recs_add(&rs, &op);
	op = make_op(11, 8, 202, UINT32_MAX, UINT32_MAX - 2, VPR_DIR_SEND);
	recs_add(&rs, &op);
	op = make_op(12, 8, 202, 4, 2, VPR_DIR_SEND);
	recs_add(&rs, &op);
	op = make_op(13, 8, 202, 4, 77777, VPR_DIR_SEND);
	recs_add(&rs, &op);
	/* Another thread and process on the same socket, then back; every flag; odd cookies. */
	op = make_op(14, 8, 303, 4, 77781, VPR_DIR_SEND);
	op.flags = 0xff;
	recs_add(&rs, &op);
	op = make_op(15, 8, 202, 4, 77785, VPR_DIR_SEND);
	op.pid = UINT32_MAX;
	recs_add(&rs, &op);
	op = make_op(16, UINT64_MAX, UINT32_MAX, 1, 0, VPR_DIR_RECV);
	recs_add(&rs, &op);
	op = make_op(17, 0, 0, 0, 0, VPR_DIR_SEND);
	recs_add(&rs, &op);
	/* What packs as plain bytes: padding set, a direction unknown, a longer record. */
	op = make_op(18, 9, 404, 1, 1, VPR_DIR_SEND);
	op.pad = 0xabcd;
	recs_add(&rs, &op);
	op = make_op(19, 9, 404, 1, 2, 7);
	recs_add(&rs, &op);
	memset(&conn, 0x5a, sizeof(conn));
	conn.h = (struct vpr_hdr){.type = VPR_CONN, .size = sizeof(conn), .tid = 1, .ts_ns = 20};
	recs_add(&rs, &conn);
	memset(&pl, 0xa5, sizeof(pl));
	pl.h = (struct vpr_hdr){.type = VPR_PAYLOAD, .size = VPR_PAYLOAD_SIZE(13), .ts_ns = 5};
	pl.len = 13;
	recs_add(&rs, &pl);
	/* A type this build does not know, as a newer writer may give it. */
	conn.h.type = 999;
	recs_add(&rs, &conn);
	round_trip(&rs);
	free(rs.p);
}

/*
 * Thousands of sockets interleaved, over many blocks (each block's table
 * starts afresh), and the size a following-on operation takes.
 */
static void test_many_sockets_many_blocks(void **state)
{
	enum {
		SOCKS = 5000,
		ROUNDS = 60
	};
	static uint32_t seq[SOCKS][2];
	struct recs rs = {0};
	uint64_t ts = 1000000000;
	off_t v1, v2;

	for (int r = 0; r < ROUNDS; r++)
		for (int s = 0; s < SOCKS; s++) {
			uint8_t dir = (uint8_t)((r + s) & 1);
			uint32_t bytes = 1 + (uint32_t)((r * 7 + s) % 300);
			struct vpr_sock_op op;

			seq[s][dir] += bytes;
			ts += 1500 + (uint64_t)(s % 7) * 100;
			op = make_op(ts, 0x8000000000000000ull + (uint64_t)s * 4099, 1000 + s % 50,
				     bytes, seq[s][dir], dir);
			recs_add(&rs, &op);
		}
	round_trip(&rs);
	v1 = write_recs(&rs, 1);
	v2 = write_recs(&rs, 2);
	print_message("%zu operations: version 1 %lld bytes, version 2 %lld (%.2f per operation)\n",
		      rs.n, (long long)v1, (long long)v2, (double)v2 / (double)rs.n);
	/*
	 * 9.5 bytes here: 5000 sockets cost a two-byte index, and each block
	 * names again (cookie, thread, position) every socket it holds.
	 */
	assert_true(v2 * 4 < v1);
	assert_true((double)v2 / (double)rs.n < 10.0);
	free(rs.p);
}

/* The first packed block of the file, rewritten by fix() and sealed again. */
static void damage_first_block(void (*fix)(unsigned char *body, struct vpr_block_header *bh))
{
	FILE *f = fopen(tmpfile_path, "r+");
	struct vpr_block_header bh;
	unsigned char body[4096];

	assert_non_null(f);
	assert_int_equal(fseek(f, sizeof(struct vpr_file_header), SEEK_SET), 0);
	assert_int_equal(fread(&bh, sizeof(bh), 1, f), 1);
	assert_true(bh.len <= sizeof(body));
	assert_int_equal(fread(body, bh.len, 1, f), 1);
	fix(body, &bh);
	bh.crc = (uint32_t)crc32(0, body, bh.len);
	assert_int_equal(fseek(f, sizeof(struct vpr_file_header), SEEK_SET), 0);
	assert_int_equal(fwrite(&bh, sizeof(bh), 1, f), 1);
	assert_int_equal(fwrite(body, bh.len, 1, f), 1);
	assert_int_equal(fclose(f), 0);
}

static void expect_corrupt(const char *what)
{
	char err[256];
	struct vpr_reader *r = vpr_reader__open(tmpfile_path, err, sizeof(err));
	const struct vpr_hdr *rec;

	assert_non_null(r);
	while (vpr_reader__next(r, &rec) == 1)
		;
	assert_int_equal(vpr_reader__status(r), VPR_READ_CORRUPT);
	if (!strstr(vpr_reader__error(r), what))
		fail_msg("wanted \"%s\", got \"%s\"", what, vpr_reader__error(r));
	vpr_reader__close(r);
}

static void pad_byte(unsigned char *body, struct vpr_block_header *bh)
{
	body[bh->len - 1] = 1;
}

static void one_more(unsigned char *body, struct vpr_block_header *bh)
{
	bh->count++;
}

static void one_less(unsigned char *body, struct vpr_block_header *bh)
{
	bh->count--;
}

static void unknown_socket(unsigned char *body, struct vpr_block_header *bh)
{
	/*
	 * The first operation takes 8 bytes (tag, time, cookie, tid, pid, bytes,
	 * position); the second follows on: tag 0, time, socket index 0.
	 */
	assert_int_equal(body[8], 0);
	body[10] = 5;
}

static void test_damaged_packed_blocks(void **state)
{
	static const struct {
		void (*fix)(unsigned char *body, struct vpr_block_header *bh);
		int ops;    /* in the block: 8 bytes, then 4 each */
		size_t len; /* the block's length, padded */
		const char *what;
	} cases[] = {
		{pad_byte, 4, 24, "bad block padding"},
		{one_more, 3, 16, "record count mismatch"},
		{one_less, 3, 16, "bad block padding"},
		{unknown_socket, 3, 16, "bad packed record"},
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct recs rs = {0};

		for (int i = 0; i < cases[k].ops; i++) {
			struct vpr_sock_op op =
				make_op(100 + (uint64_t)i, 7, 101, 1, 1 + (uint32_t)i, 0);

			recs_add(&rs, &op);
		}
		assert_int_equal(write_recs(&rs, 2),
				 sizeof(struct vpr_file_header) + 16 + cases[k].len);
		read_back(&rs, 2);
		damage_first_block(cases[k].fix);
		expect_corrupt(cases[k].what);
		free(rs.p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_edge_values, tmpfile_make, tmpfile_remove),
		cmocka_unit_test_setup_teardown(test_many_sockets_many_blocks, tmpfile_make,
						tmpfile_remove),
		cmocka_unit_test_setup_teardown(test_damaged_packed_blocks, tmpfile_make,
						tmpfile_remove),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
