// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the recording reader, the whole analysis and every
 * output (text, JSON, table, CSV, patterns, DOT, dump), on recordings whose
 * records come from the fuzzer and whose framing (headers, blocks, CRCs) is
 * made valid here, so that mutations reach the record parsers and the
 * analysis stages instead of dying at the CRC check.  Inputs with bit 6 of
 * the flags set are given to the reader exactly as they are instead, for the
 * header and block checks.
 *
 * The files live in memory: one memfd per host, rewritten for each input
 * and opened by the analyzer as /proc/self/fd/N through the same open-by-path
 * code a real recording goes through.  `make fuzz` builds and runs it.
 * cJSON's items come from json_arena.c, still checked, at a fraction of
 * the sanitizer's cost per allocation.
 *
 * Input: byte 0 = flags (bits 0-1: hosts - 1; bit 2: every host on one
 * machine; bits 3-5: records per block - 1, times 4; bit 6: raw bytes);
 * byte 1 = the outputs to write (OUT_* bits below: each input picks some,
 * because formatting every output, and dumping, for every input would
 * cost most of the time an input takes); then per host a little-endian u32
 * length and that many bytes.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis.h"
#include "dump.h"
#include "json_arena.h"
#include "output.h"
#include "recfile.h"

#define MAX_HOSTS 4

enum {
	OUT_TEXT = 1 << 0,
	OUT_JSON = 1 << 1,
	OUT_TABLE = 1 << 2,
	OUT_CSV = 1 << 3,
	OUT_DOT = 1 << 4,
	OUT_PATTERNS = 1 << 5,
	OUT_DUMP = 1 << 6,
};

struct fuzz_ctx {
	unsigned outputs; /* OUT_* */
	struct vp_out_ctx out, csv;
	struct vp_patterns *patterns;
	struct vp_analysis *a;
};

/* One growing buffer per host, written to its memfd in one go. */
struct image {
	uint8_t *p;
	size_t len, cap;
};

static int memfds[MAX_HOSTS];
static char paths[MAX_HOSTS][32];
static struct image images[MAX_HOSTS];
static FILE *devnull;

static void put(struct image *im, const void *p, size_t n)
{
	if (!n)
		return;
	if (im->len + n > im->cap) {
		im->cap = (im->len + n) * 2;
		im->p = realloc(im->p, im->cap);
		if (!im->p)
			abort();
	}
	memcpy(im->p + im->len, p, n);
	im->len += n;
}

static void on_request(void *ctx, struct vp_request *r)
{
	struct fuzz_ctx *c = ctx;

	c->out.a = c->csv.a = c->a;
	if (c->outputs & OUT_TEXT)
		vp_out_text(&c->out, r);
	if (c->outputs & OUT_JSON)
		vp_out_json_request(&c->out, r);
	if (c->outputs & OUT_TABLE)
		vp_out_table_row(&c->out, r);
	if (c->outputs & OUT_CSV)
		vp_out_table_row(&c->csv, r);
	if (c->outputs & OUT_DOT)
		vp_out_dot_request(&c->out, r);
	if (c->outputs & OUT_PATTERNS)
		vp_patterns__add(c->patterns, c->a, r);
	vp_request__free(r);
}

/* Records in blocks of `per` records; a record whose size cannot be walked ends the last block. */
static void frame_records(struct image *im, int host, bool one_machine, size_t per,
			  const uint8_t *p, size_t n)
{
	struct vpr_file_header h = {.version = 1}; /* the records as they are: unpacked */
	size_t off = 0;

	snprintf(h.hostname, sizeof(h.hostname), "h%d", host);
	snprintf(h.boot_id, sizeof(h.boot_id), "boot-%d", one_machine ? 0 : host);
	h.netns = (uint32_t)host + 1;
	h.start_real_ns = 1700000000000000000ull;
	vpr_file_header__seal(&h);
	put(im, &h, sizeof(h));
	while (off < n) {
		struct vpr_block_header bh = {.magic = VPR_BLOCK_MAGIC};
		size_t end = off;

		while (end + sizeof(struct vpr_hdr) <= n && bh.count < per) {
			uint16_t rsize;

			memcpy(&rsize, p + end + 2, sizeof(rsize)); /* the fuzzer's bytes are not aligned */
			if (rsize < sizeof(struct vpr_hdr) || rsize % 8 || rsize > n - end)
				break;
			end += rsize;
			bh.count++;
		}
		if (end == off) /* not walkable: the rest as one block, as damage */
			end = n - (n - off) % 8;
		if (end == off)
			break;
		bh.len = (uint32_t)(end - off);
		bh.crc = (uint32_t)crc32(0, p + off, bh.len);
		put(im, &bh, sizeof(bh));
		put(im, p + off, bh.len);
		off = end;
	}
}

/* The image becomes the whole content of the host's memfd. */
static void store(int host)
{
	const struct image *im = &images[host];

	if (ftruncate(memfds[host], 0) ||
	    (im->len && pwrite(memfds[host], im->p, im->len, 0) != (ssize_t)im->len))
		abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	for (int i = 0; i < MAX_HOSTS; i++) {
		memfds[i] = memfd_create("fuzz-recording", MFD_CLOEXEC);
		if (memfds[i] < 0)
			abort();
		snprintf(paths[i], sizeof(paths[i]), "/proc/self/fd/%d", memfds[i]);
	}
	/* A large buffer: the outputs' text is thrown away, one write per input at most. */
	devnull = fopen("/dev/null", "w");
	if (!devnull || setvbuf(devnull, NULL, _IOFBF, 1 << 20))
		abort();
	json_arena__install();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *files[MAX_HOSTS], err[512];
	struct vp_analysis_opts opts = {0};
	struct fuzz_ctx c = {0};
	size_t off = 2;
	int nh;

	if (size < 2)
		return 0;
	nh = 1 + (data[0] & 3);
	for (int i = 0; i < nh; i++) {
		uint32_t len = 0;

		if (off + 4 <= size) {
			memcpy(&len, data + off, 4);
			off += 4;
		}
		if (len > size - off)
			len = (uint32_t)(size - off);
		images[i].len = 0;
		if (data[0] & 0x40)
			put(&images[i], data + off, len);
		else
			frame_records(&images[i], i, data[0] & 4, 4 * (1 + ((data[0] >> 3) & 7)),
				      data + off, len);
		store(i);
		files[i] = paths[i];
		off += len;
	}
	c.outputs = data[1];
	c.out.f = c.csv.f = devnull;
	c.csv.csv = true;
	c.patterns = vp_patterns__new();
	opts.on_request = on_request;
	opts.ctx = &c;
	/* The steps are the same for every thread count (test_threads.sh): no thread start per input. */
	opts.threads = 1;
	for (int i = 0; (c.outputs & OUT_DUMP) && i < nh; i++)
		vp_dump_file(files[i], devnull, devnull);
	if (!vp_analysis__new(&c.a, files, nh, &opts, err, sizeof(err))) {
		c.out.a = c.csv.a = c.a;
		if (c.outputs & OUT_TABLE)
			vp_out_table_header(&c.out);
		if (c.outputs & OUT_CSV)
			vp_out_table_header(&c.csv);
		if (c.outputs & OUT_JSON)
			vp_out_json_begin(&c.out);
		vp_analysis__run(c.a);
		if (c.outputs & OUT_JSON)
			vp_out_json_end(&c.out);
		if (c.outputs & OUT_PATTERNS) {
			vp_patterns__print(c.patterns, &c.out);
			vp_patterns__dot(c.patterns, &c.out, 1);
		}
		vp_analysis__free(c.a);
	}
	vp_patterns__free(c.patterns);
	json_arena__reset();
	return 0;
}
