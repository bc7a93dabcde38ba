// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: format 2's packed blocks (common/reccodec.h) as the
 * recording reader unpacks them, from bytes the fuzzer chooses, framed here
 * with valid CRCs so that mutations reach the unpacking.  Whatever the
 * reader hands out must be a sound record, and must survive a round trip:
 * written again in version 2 and in version 1, the records read back are
 * the same bytes (else abort()).  A payload's hashes (VPR_PAYLOAD_HASH)
 * that the analyzer takes as valid must make a content (forward.h) that
 * agrees with itself on all it hashed.
 *
 * Input: blocks, each a u8 record count, a little-endian u16 length and
 * that many bytes (zero padded to a multiple of 8 here).  `make fuzz`
 * builds and runs it.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "recfile.h"
#include "forward.h"
#include "payloads.h"
#include "pipeline.h"

static int memfd, copyfd;
static char path[32], copy_path[32];

/* The records read, back to back. */
struct image {
	uint8_t *p;
	size_t len, cap;
};

static struct image file, got;

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

static void store(int fd, const struct image *im)
{
	if (ftruncate(fd, 0) || pwrite(fd, im->p, im->len, 0) != (ssize_t)im->len)
		abort();
}

static void frame(const uint8_t *data, size_t size)
{
	struct vpr_file_header h = {.version = 2};
	size_t off = 0;

	file.len = 0;
	strcpy(h.hostname, "fuzz");
	vpr_file_header__seal(&h);
	put(&file, &h, sizeof(h));
	while (off + 3 <= size) {
		struct vpr_block_header bh = {.magic = VPR_BLOCK_MAGIC, .count = data[off]};
		uint16_t len;

		memcpy(&len, data + off + 1, 2);
		off += 3;
		if (len > size - off)
			len = (uint16_t)(size - off);
		bh.len = (len + 7u) & ~7u;
		{
			uint8_t body[65536 + 8];

			memcpy(body, data + off, len);
			memset(body + len, 0, bh.len - len);
			bh.crc = (uint32_t)crc32(0, body, bh.len);
			put(&file, &bh, sizeof(bh));
			put(&file, body, bh.len);
		}
		off += len;
	}
	store(memfd, &file);
}

/* The analyzer's reading of a payload's hashes (input.c, exchanges.c), checked. */
static void hashes_sound(const struct vpr_hdr *rec)
{
	const struct vpr_payload_hash *p = (const struct vpr_payload_hash *)rec;
	struct vp_wit_req *w;
	size_t k;

	if (!vp_payload_hash__valid(p))
		return;
	w = vp_wit_req__hashed(p);
	if (!w)
		abort();
	if (!w->hashed || w->len != p->len || w->total != p->bytes ||
	    vp_fwd__fit(w, w, &k) != VP_FWD_AGREE || k != p->len)
		abort();
	free(w);
}

/* Every record the file at p holds, appended to im; the reader's status. */
static enum vpr_read_status read_all(const char *p, struct image *im)
{
	char err[256];
	struct vpr_reader *r = vpr_reader__open(p, err, sizeof(err));
	const struct vpr_hdr *rec;
	enum vpr_read_status st;

	if (!r)
		abort(); /* the header is always valid */
	while (vpr_reader__next(r, &rec) == 1) {
		if (rec->size < sizeof(*rec) || rec->size % 8 ||
		    rec->size < vpr_record_min_size(rec->type))
			abort();
		if (rec->type == VPR_PAYLOAD_HASH)
			hashes_sound(rec);
		put(im, rec, rec->size);
	}
	st = vpr_reader__status(r);
	vpr_reader__close(r);
	return st;
}

static void round_trip(uint32_t version)
{
	struct vpr_file_header h = {.version = version};
	struct vpr_writer *w;
	struct image again = {0};

	strcpy(h.hostname, "fuzz");
	if (ftruncate(copyfd, 0) || lseek(copyfd, 0, SEEK_SET))
		abort();
	w = vpr_writer__from_fd(dup(copyfd), &h);
	if (!w)
		abort();
	for (size_t off = 0; off < got.len; off += ((const struct vpr_hdr *)(got.p + off))->size)
		if (vpr_writer__append(w, got.p + off))
			abort();
	if (vpr_writer__close(w))
		abort();
	if (read_all(copy_path, &again) != VPR_READ_OK || again.len != got.len ||
	    (got.len && memcmp(again.p, got.p, got.len)))
		abort();
	free(again.p);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	memfd = memfd_create("fuzz-recfile", MFD_CLOEXEC);
	copyfd = memfd_create("fuzz-recfile-copy", MFD_CLOEXEC);
	if (memfd < 0 || copyfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	snprintf(copy_path, sizeof(copy_path), "/proc/self/fd/%d", copyfd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	frame(data, size);
	got.len = 0;
	read_all(path, &got);
	round_trip(2);
	round_trip(1);
	return 0;
}
