// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recording file format: every record type round-trips field by field
 * through the writer and the reader, and damaged files are rejected with
 * the right status instead of being misread.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "blockio.h"
#include "recfile.h"
#include "../lib/tmpfile.h"

/* Fill with 0xff first so that a field the writer or reader drops shows. */
#define INIT(var, t)                       \
	memset(&(var), 0xff, sizeof(var)); \
	(var).h.type = (t);                \
	(var).h.size = sizeof(var)

static struct vpr_sock_op op;
static struct vpr_conn conn;
static struct vpr_task task;
static struct vpr_clock clk;
static struct vpr_drops drops;
static struct vpr_addr addr;

static void fill_records(void)
{
	INIT(op, VPR_SOCK_OP);
	op.h.tid = 4312;
	op.h.ts_ns = 123456789012345ull;
	op.cookie = 0x1122334455667788ull;
	op.pid = 4300;
	op.bytes = 1448;
	op.seq_end = 0xfffffff0u;
	op.dir = VPR_DIR_RECV;
	op.flags = VPR_OP_FALLBACK;

	INIT(conn, VPR_CONN);
	conn.cookie = 77;
	conn.family = 10;
	conn.sport = 443;
	conn.dport = 50123;
	conn.oldstate = 2;
	conn.newstate = 1;
	conn.role = VPR_ROLE_CONNECTED;
	for (int i = 0; i < 16; i++) {
		conn.saddr[i] = (unsigned char)i;
		conn.daddr[i] = (unsigned char)(0xf0 + i);
	}

	INIT(task, VPR_TASK);
	task.kind = VPR_TASK_EXEC;
	memset(task.comm, 0, sizeof(task.comm));
	strcpy(task.comm, "nginx");

	INIT(clk, VPR_CLOCK);
	clk.realtime_ns = 1790000000000000000ull;

	INIT(drops, VPR_DROPS);
	drops.h.tid = 1;
	drops.lost = 42;

	INIT(addr, VPR_ADDR);
	addr.family = 2;
	addr.prefixlen = 24;
}

static struct vpr_file_header header(void)
{
	struct vpr_file_header h;

	memset(&h, 0, sizeof(h));
	strcpy(h.hostname, "db-1");
	strcpy(h.machine_id, "0123456789abcdef0123456789abcdef");
	strcpy(h.boot_id, "11111111-2222-3333-4444-555555555555");
	strcpy(h.kernel, "6.18.0");
	h.start_mono_ns = 5;
	h.start_real_ns = 6;
	h.flags = VPR_FILE_SEGMENT;
	h.segment = 3;
	h.netns = 4026531840u;
	return h;
}

/* Writes n copies of all six records, flushing a block every `per_block` rounds. */
static void write_file(int n, int per_block)
{
	struct vpr_file_header h = header();
	struct vpr_writer *w = vpr_writer__create(tmpfile_path, &h);

	assert_non_null(w);
	for (int i = 0; i < n; i++) {
		const void *recs[] = {&op, &conn, &task, &clk, &drops, &addr};

		for (size_t k = 0; k < 6; k++)
			assert_int_equal(vpr_writer__append(w, recs[k]), 0);
		if (per_block && (i + 1) % per_block == 0)
			assert_int_equal(vpr_writer__flush(w), 0);
	}
	assert_int_equal(vpr_writer__close(w), 0);
}

/* Reads the file; returns records read, checks each against its original. */
static int read_file(enum vpr_read_status *st)
{
	const void *recs[] = {&op, &conn, &task, &clk, &drops, &addr};
	struct vpr_reader *r;
	const struct vpr_hdr *rec;
	char err[256];
	int n = 0;

	r = vpr_reader__open(tmpfile_path, err, sizeof(err));
	assert_non_null(r);
	while (vpr_reader__next(r, &rec) == 1) {
		const struct vpr_hdr *want = recs[n % 6];

		assert_int_equal(rec->size, want->size);
		assert_memory_equal(rec, want, want->size);
		n++;
	}
	*st = vpr_reader__status(r);
	vpr_reader__close(r);
	return n;
}

static void test_round_trip_every_record_type(void **state)
{
	struct vpr_file_header want = header(), got;
	enum vpr_read_status st;
	struct vpr_reader *r;
	char err[256];

	fill_records();
	write_file(1000, 7);
	assert_int_equal(read_file(&st), 6000);
	assert_int_equal(st, VPR_READ_OK);

	r = vpr_reader__open(tmpfile_path, err, sizeof(err));
	assert_non_null(r);
	got = *vpr_reader__header(r);
	vpr_reader__close(r);
	assert_string_equal(got.hostname, want.hostname);
	assert_string_equal(got.machine_id, want.machine_id);
	assert_string_equal(got.boot_id, want.boot_id);
	assert_string_equal(got.kernel, want.kernel);
	assert_int_equal(got.start_mono_ns, 5);
	assert_int_equal(got.start_real_ns, 6);
	assert_int_equal(got.flags, VPR_FILE_SEGMENT);
	assert_int_equal(got.segment, 3);
	assert_int_equal(got.netns, 4026531840u);
	assert_int_equal(got.version, VPR_VERSION);
}

/* A file of one record cut to size bytes, shorter than its type's struct, reads as corrupt. */
static void expect_short_is_damage(struct vpr_hdr *rec, uint16_t size)
{
	struct vpr_file_header h = header();
	struct vpr_writer *w = vpr_writer__create(tmpfile_path, &h);
	const struct vpr_hdr *got;
	struct vpr_reader *r;

	assert_non_null(w);
	rec->size = size;
	assert_int_equal(vpr_writer__append(w, rec), 0);
	assert_int_equal(vpr_writer__close(w), 0);
	r = vpr_reader__open(tmpfile_path, (char[64]){0}, 64);
	assert_non_null(r);
	assert_int_equal(vpr_reader__next(r, &got), 0);
	assert_int_equal(vpr_reader__status(r), VPR_READ_CORRUPT);
	vpr_reader__close(r);
}

/*
 * The HTTP/2 frame header record round-trips field by field, as a frame and
 * as a lost marker; and a reader steps over a record type it does not know
 * (as readers older than VPR_H2_FRAME step over it) by its size.
 */
static void test_round_trip_h2_frame(void **state)
{
	struct vpr_h2_frame fr, lost;
	struct {
		struct vpr_hdr h;
		unsigned char body[40];
	} future;
	struct vpr_file_header h = header();
	struct vpr_writer *w = vpr_writer__create(tmpfile_path, &h);
	const struct vpr_hdr *rec;
	struct vpr_reader *r;

	INIT(fr, VPR_H2_FRAME);
	fr.h.tid = 811;
	fr.h.ts_ns = 99887766554433ull;
	fr.cookie = 0x8877665544332211ull;
	fr.seq = 0xfffffffbu;
	fr.stream_id = 0x7fffffffu;
	fr.length = 0xffffffu;
	fr.type = 1;
	fr.flags = 0x25;
	fr.dir = VPR_DIR_SEND;
	fr.kind = VPR_H2_HEADER;
	INIT(lost, VPR_H2_FRAME);
	lost.kind = VPR_H2_LOST;
	lost.type = VPR_H2_LOST_TOO_MANY;
	lost.dir = VPR_DIR_RECV;
	INIT(future, 0x7777);
	fill_records();
	assert_non_null(w);
	assert_int_equal(vpr_writer__append(w, &future), 0);
	assert_int_equal(vpr_writer__append(w, &fr), 0);
	assert_int_equal(vpr_writer__append(w, &lost), 0);
	assert_int_equal(vpr_writer__append(w, &op), 0);
	assert_int_equal(vpr_writer__close(w), 0);

	r = vpr_reader__open(tmpfile_path, (char[64]){0}, 64);
	assert_non_null(r);
	assert_int_equal(vpr_reader__next(r, &rec), 1);
	assert_int_equal(rec->type, 0x7777);
	assert_int_equal(rec->size, sizeof(future));
	assert_string_equal(vpr_type_name(rec->type), "unknown");
	assert_int_equal(vpr_reader__next(r, &rec), 1);
	{
		const struct vpr_h2_frame *got = (const void *)rec;

		assert_int_equal(got->h.type, VPR_H2_FRAME);
		assert_int_equal(got->h.size, 40);
		assert_int_equal(got->h.tid, 811);
		assert_int_equal(got->h.ts_ns, 99887766554433ull);
		assert_int_equal(got->cookie, 0x8877665544332211ull);
		assert_int_equal(got->seq, 0xfffffffbu);
		assert_int_equal(got->stream_id, 0x7fffffffu);
		assert_int_equal(got->length, 0xffffffu);
		assert_int_equal(got->type, 1);
		assert_int_equal(got->flags, 0x25);
		assert_int_equal(got->dir, VPR_DIR_SEND);
		assert_int_equal(got->kind, VPR_H2_HEADER);
		assert_string_equal(vpr_type_name(got->h.type), "h2_frame");
	}
	assert_int_equal(vpr_reader__next(r, &rec), 1);
	assert_memory_equal(rec, &lost, sizeof(lost));
	assert_int_equal(vpr_reader__next(r, &rec), 1);
	assert_memory_equal(rec, &op, sizeof(op));
	assert_int_equal(vpr_reader__next(r, &rec), 0);
	assert_int_equal(vpr_reader__status(r), VPR_READ_OK);
	vpr_reader__close(r);

	/* Shorter than its type's struct: damage, not a record. */
	expect_short_is_damage(&fr.h, 32);
}

/*
 * The writer record (which program and release wrote the file) round-trips
 * field by field, its text NUL-padded to the end of each field; a reader
 * that does not know the type (version 1 before it) steps over it by size
 * to the next record, as it steps over any other type it does not know.
 */
static void test_round_trip_writer(void **state)
{
	struct vpr_writer_info wi;
	struct vpr_file_header h = header();
	struct vpr_writer *w = vpr_writer__create(tmpfile_path, &h);
	const struct vpr_hdr *rec;
	struct vpr_reader *r;
	char name[VPR_WRITER_PROGRAM_LEN] = "vpath-record";
	char version[VPR_WRITER_VERSION_LEN] = "0.1";

	INIT(wi, VPR_WRITER);
	wi.h.tid = 0;
	wi.h.ts_ns = 12345678901234ull;
	memset(wi.version, 0, sizeof(wi.version));
	memset(wi.program, 0, sizeof(wi.program));
	strcpy(wi.version, "0.1");
	strcpy(wi.program, "vpath-record");
	fill_records();
	assert_non_null(w);
	assert_int_equal(vpr_record_min_size(VPR_WRITER), 64);
	assert_int_equal(vpr_writer__append(w, &wi), 0);
	assert_int_equal(vpr_writer__append(w, &clk), 0);
	assert_int_equal(vpr_writer__close(w), 0);

	r = vpr_reader__open(tmpfile_path, (char[64]){0}, 64);
	assert_non_null(r);
	assert_int_equal(vpr_reader__next(r, &rec), 1);
	{
		const struct vpr_writer_info *got = (const void *)rec;

		assert_int_equal(got->h.type, VPR_WRITER);
		assert_int_equal(got->h.size, 64);
		assert_int_equal(got->h.tid, 0);
		assert_int_equal(got->h.ts_ns, 12345678901234ull);
		assert_memory_equal(got->version, version, sizeof(version));
		assert_memory_equal(got->program, name, sizeof(name));
		assert_string_equal(vpr_type_name(got->h.type), "writer");
	}
	/* By its size to the next record, whatever a reader makes of the type. */
	assert_int_equal(vpr_reader__next(r, &rec), 1);
	assert_memory_equal(rec, &clk, sizeof(clk));
	assert_int_equal(vpr_reader__next(r, &rec), 0);
	assert_int_equal(vpr_reader__status(r), VPR_READ_OK);
	vpr_reader__close(r);

	/* Shorter than its struct (a version string cut off): damage, not a record. */
	expect_short_is_damage(&wi.h, 48);
}

static void test_large_volume_spans_many_blocks(void **state)
{
	enum vpr_read_status st;
	struct vpr_reader *r;
	char err[256];

	fill_records();
	write_file(20000, 0); /* 5.6 MB: the writer must split blocks itself */
	assert_int_equal(read_file(&st), 120000);
	assert_int_equal(st, VPR_READ_OK);
	r = vpr_reader__open(tmpfile_path, err, sizeof(err));
	assert_non_null(r);
	while (vpr_reader__next(r, &(const struct vpr_hdr *){NULL}) == 1)
		;
	assert_true(vpr_reader__blocks(r) > 10);
	vpr_reader__close(r);
}

static off_t file_size(void)
{
	struct stat st;

	assert_int_equal(stat(tmpfile_path, &st), 0);
	return st.st_size;
}

static void test_torn_tail_keeps_complete_blocks(void **state)
{
	enum vpr_read_status st;
	off_t size;

	fill_records();
	write_file(10, 1); /* ten blocks of six records */
	size = file_size();
	for (off_t cut = 1; cut < 40; cut += 7) {
		write_file(10, 1);
		assert_int_equal(truncate(tmpfile_path, size - cut), 0);
		assert_int_equal(read_file(&st), 54);
		assert_int_equal(st, VPR_READ_TORN_TAIL);
	}
}

static void test_bit_flip_in_middle_is_corruption(void **state)
{
	enum vpr_read_status st;
	unsigned char b;
	int fd;

	fill_records();
	write_file(10, 1);
	fd = open(tmpfile_path, O_RDWR);
	assert_true(fd >= 0);
	/* a byte inside the third block's records */
	off_t at = sizeof(struct vpr_file_header) + 2 * (16 + 256) + 16 + 50;
	assert_int_equal(pread(fd, &b, 1, at), 1);
	b ^= 0x10;
	assert_int_equal(pwrite(fd, &b, 1, at), 1);
	close(fd);
	assert_int_equal(read_file(&st), 12);
	assert_int_equal(st, VPR_READ_CORRUPT);
}

/*
 * The folded CRC (common/crc32.c) is zlib's on every length around its
 * 16- and 64-byte steps and at every alignment, and a flipped bit anywhere
 * in a block changes it.
 */
static void test_crc32_is_zlibs(void **state)
{
	static unsigned char buf[4096 + 16];
	uint32_t x = 2463534242u;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (unsigned char)x;
	}
	assert_int_equal(vp_crc32("123456789", 9), 0xcbf43926);
	for (size_t n = 0; n <= 4096; n++)
		assert_int_equal(vp_crc32(buf + n % 16, n), vp_crc32_zlib(buf + n % 16, n));
	for (size_t bit = 0; bit < 1000 * 8; bit++) {
		uint32_t want = vp_crc32(buf, 1000);

		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		assert_int_not_equal(vp_crc32(buf, 1000), want);
		buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
}

static void test_rejects_bad_headers(void **state)
{
	struct vpr_reader *r;
	char err[256];
	int fd;

	fill_records();
	write_file(1, 1);
	fd = open(tmpfile_path, O_RDWR);
	assert_int_equal(pwrite(fd, "X", 1, 0), 1);
	close(fd);
	r = vpr_reader__open(tmpfile_path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "not a vpath recording"));

	write_file(1, 1);
	fd = open(tmpfile_path, O_RDWR);
	uint32_t v = 99;
	assert_int_equal(pwrite(fd, &v, 4, 8), 4);
	close(fd);
	r = vpr_reader__open(tmpfile_path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "version 99"));

	write_file(1, 1);
	fd = open(tmpfile_path, O_RDWR);
	assert_int_equal(pwrite(fd, "Z", 1, 60), 1); /* inside the hostname */
	close(fd);
	r = vpr_reader__open(tmpfile_path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "checksum"));

	write_file(1, 1);
	assert_int_equal(truncate(tmpfile_path, 100), 0);
	r = vpr_reader__open(tmpfile_path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "truncated header"));

	r = vpr_reader__open("/nonexistent/x.vpr", err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, "No such file"));
}

static void test_rejects_malformed_records(void **state)
{
	struct vpr_hdr bad = {.type = VPR_SOCK_OP, .size = 12};

	struct vpr_file_header h = header();
	struct vpr_writer *w = vpr_writer__create(tmpfile_path, &h);

	assert_non_null(w);
	assert_int_equal(vpr_writer__append(w, &bad), -EINVAL);
	bad.size = 16; /* a sock_op must be 40 bytes: the reader must refuse it */
	assert_int_equal(vpr_writer__append(w, &bad), 0);
	assert_int_equal(vpr_writer__close(w), 0);

	struct vpr_reader *r = vpr_reader__open(tmpfile_path, (char[64]){0}, 64);
	const struct vpr_hdr *rec;

	assert_non_null(r);
	assert_int_equal(vpr_reader__next(r, &rec), 0);
	assert_int_equal(vpr_reader__status(r), VPR_READ_CORRUPT);
	assert_non_null(strstr(vpr_reader__error(r), "bad record size"));
	vpr_reader__close(r);
}

static void test_disk_full_keeps_whole_blocks(void **state)
{
	/* /dev/full fails every write with ENOSPC: the writer must say so. */
	struct vpr_file_header h = header();
	int fd = open("/dev/full", O_WRONLY);

	assert_true(fd >= 0);
	errno = 0;
	assert_null(vpr_writer__from_fd(fd, &h));
	assert_int_equal(errno, ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip_every_record_type, tmpfile_make,
						tmpfile_remove),
		cmocka_unit_test_setup_teardown(test_round_trip_h2_frame, tmpfile_make,
						tmpfile_remove),
		cmocka_unit_test_setup_teardown(test_round_trip_writer, tmpfile_make,
						tmpfile_remove),
		cmocka_unit_test_setup_teardown(test_large_volume_spans_many_blocks, tmpfile_make,
						tmpfile_remove),
		cmocka_unit_test_setup_teardown(test_torn_tail_keeps_complete_blocks, tmpfile_make,
						tmpfile_remove),
		cmocka_unit_test_setup_teardown(test_bit_flip_in_middle_is_corruption, tmpfile_make,
						tmpfile_remove),
		cmocka_unit_test_setup_teardown(test_rejects_bad_headers, tmpfile_make,
						tmpfile_remove),
		cmocka_unit_test_setup_teardown(test_rejects_malformed_records, tmpfile_make,
						tmpfile_remove),
		cmocka_unit_test(test_disk_full_keeps_whole_blocks),
		cmocka_unit_test(test_crc32_is_zlibs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
