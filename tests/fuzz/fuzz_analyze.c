// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the read + analyze library entry point and every
 * output, on recordings whose records come from the fuzzer and whose
 * framing (headers, blocks, CRCs) is made valid here, so that mutations
 * reach the record parsers and the analysis stages instead of dying at the
 * CRC check.  Not built by `make`; build and run it with (clang 14):
 *
 *   mkdir -p .output/fuzz && clang -O1 -g -fsanitize=fuzzer,address,undefined \
 *        -Iinclude -Icommon -Ianalyzer tests/fuzz/fuzz_analyze.c common/[a-z]*.c \
 *        $(ls analyzer/[a-z]*.c | grep -v main.c) -lz -lcjson -lm -o .output/fuzz/fuzz_analyze
 *   .output/fuzz/fuzz_analyze -max_total_time=300 CORPUS_DIR
 *
 * Input: byte 0 = flags (bits 0-1: hosts - 1; bit 2: every host on one
 * machine; bits 3-5: records per block - 1, times 4), then per host a
 * little-endian u32 length and that many bytes of records.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis.h"
#include "dump.h"
#include "output.h"
#include "recfile.h"

struct fuzz_ctx {
	struct vp_out_ctx out;
	struct vp_patterns *patterns;
	struct vp_analysis *a;
};

static void on_request(void *ctx, struct vp_request *r)
{
	struct fuzz_ctx *c = ctx;

	c->out.a = c->a;
	vp_out_text(&c->out, r);
	vp_out_json_request(&c->out, r);
	vp_out_table_row(&c->out, r);
	vp_out_dot_request(&c->out, r);
	vp_patterns__add(c->patterns, c->a, r);
	vp_request__free(r);
}

/* Records in blocks of `per` records; a record whose size cannot be walked ends the last block. */
static void write_file(const char *path, int host, bool one_machine, size_t per,
		       const uint8_t *p, size_t n)
{
	struct vpr_file_header h = {0};
	FILE *f = fopen(path, "wb");
	size_t off = 0;

	if (!f)
		abort();
	snprintf(h.hostname, sizeof(h.hostname), "h%d", host);
	snprintf(h.boot_id, sizeof(h.boot_id), "boot-%d", one_machine ? 0 : host);
	h.netns = (uint32_t)host + 1;
	h.start_real_ns = 1700000000000000000ull;
	vpr_file_header__seal(&h);
	fwrite(&h, sizeof(h), 1, f);
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
		fwrite(&bh, sizeof(bh), 1, f);
		fwrite(p + off, 1, bh.len, f);
		off = end;
	}
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[64];
	char paths[4][96], *files[4], err[512];
	struct vp_analysis_opts opts = {0};
	struct fuzz_ctx c = {0};
	size_t off = 1;
	int nh;

	if (size < 1)
		return 0;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-analyze.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	nh = 1 + (data[0] & 3);
	for (int i = 0; i < nh; i++) {
		uint32_t len = 0;

		if (off + 4 <= size) {
			memcpy(&len, data + off, 4);
			off += 4;
		}
		if (len > size - off)
			len = (uint32_t)(size - off);
		snprintf(paths[i], sizeof(paths[i]), "%s/h%d.vpr", dir, i);
		write_file(paths[i], i, data[0] & 4, 4 * (1 + ((data[0] >> 3) & 7)), data + off, len);
		files[i] = paths[i];
		off += len;
	}
	c.out.f = fopen("/dev/null", "w");
	c.patterns = vp_patterns__new();
	opts.on_request = on_request;
	opts.ctx = &c;
	for (int i = 0; i < nh; i++)
		vp_dump_file(files[i], c.out.f, c.out.f);
	if (!vp_analysis__new(&c.a, files, nh, &opts, err, sizeof(err))) {
		c.out.a = c.a;
		vp_out_json_begin(&c.out);
		vp_analysis__run(c.a);
		vp_out_json_end(&c.out);
		vp_patterns__print(c.patterns, &c.out);
		vp_patterns__dot(c.patterns, &c.out, 1);
		vp_analysis__free(c.a);
	}
	vp_patterns__free(c.patterns);
	fclose(c.out.f);
	return 0;
}
