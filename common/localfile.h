/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Local files (`.vpl`, docs/format.md "Local files"): what `vpath-analyze
 * local` keeps of one host's recording.  A file is a header and CRC'd,
 * deflated blocks:
 *
 *   HOST   the host: its recordings' file headers and paths, its addresses
 *          (analyzer/local/localhost.h)
 *   RECS   the records its recordings held, in their order, re-encoded
 *          without loss (common/reccodec.h): the analysis reads
 *          these instead of the recording and so takes every decision as it
 *          would have
 *   CALLS  every exchange its own stages found, with its connection key,
 *          stream ranges and in-host link (analyzer/local/localcalls.h):
 *          what an outside engine pairs and joins
 *   END    counts; a file without it was cut short
 *
 * This module is the framing only; a torn or damaged file reads up to the
 * damage and says where, as a recording does.
 */
#ifndef VPATH_LOCALFILE_H
#define VPATH_LOCALFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define VPL_MAGIC "VPATHLOC"
#define VPL_VERSION 1
#define VPL_BLOCK_MAGIC 0x4b424c56u /* "VLBK" */
/* A block's bytes before and after deflate are at most this. */
#define VPL_BLOCK_MAX (8u << 20)
/* Writers close a block once its raw bytes pass this. */
#define VPL_BLOCK_FILL (4u << 20)

enum vpl_block_kind {
	VPL_HOST = 1,
	VPL_RECS = 2,
	VPL_CALLS = 3,
	VPL_END = 4,
};

struct vpl_file_header {
	char magic[8];	      /* VPL_MAGIC */
	uint32_t version;     /* VPL_VERSION */
	uint32_t header_size; /* 32 */
	uint32_t flags;	      /* 0 */
	uint32_t pad[2];
	uint32_t header_crc; /* crc32 of the 32 bytes with this field 0 */
};

struct vpl_block_header {
	uint32_t magic;	  /* VPL_BLOCK_MAGIC */
	uint32_t kind;	  /* enum vpl_block_kind */
	uint32_t len;	  /* stored (deflated) bytes that follow */
	uint32_t raw_len; /* bytes once inflated */
	uint32_t crc;	  /* crc32 of the stored bytes */
	uint32_t count;	  /* items in the block */
};

_Static_assert(sizeof(struct vpl_file_header) == 32, "vpl header layout");
_Static_assert(sizeof(struct vpl_block_header) == 24, "vpl block header layout");

struct vpl_writer;

/* Create path (truncated) and write the header; NULL with errno set. */
struct vpl_writer *vpl_writer__create(const char *path);
/* One block of kind from raw bytes; -errno. */
int vpl_writer__block(struct vpl_writer *w, enum vpl_block_kind kind, const void *raw, size_t len,
		      uint32_t count);
uint64_t vpl_writer__bytes(const struct vpl_writer *w);
/* fsync and close; the first error seen, -errno.  NULL-safe. */
int vpl_writer__close(struct vpl_writer *w);

enum vpl_status {
	VPL_OK = 0,	 /* to the END block, intact */
	VPL_TORN = 1,	 /* cut short: the last block incomplete, or no END */
	VPL_CORRUPT = 2, /* a damaged block with data after it */
};

struct vpl_reader;

/* Whether path begins with the local-file magic (false when it cannot be read). */
bool vpl_is_local(const char *path);
/* Open and check the header; NULL and a one-line reason in err. */
struct vpl_reader *vpl_reader__open(const char *path, char *err, size_t errlen);
/*
 * Next intact block, inflated: 1 with *kind, *raw, *len, *count set (valid
 * until the next call), 0 at the end or at damage (vpl_reader__status and
 * __error say which).
 */
int vpl_reader__next(struct vpl_reader *r, uint32_t *kind, const uint8_t **raw, size_t *len,
		     uint32_t *count);
enum vpl_status vpl_reader__status(const struct vpl_reader *r);
const char *vpl_reader__error(const struct vpl_reader *r);
uint64_t vpl_reader__offset(const struct vpl_reader *r);
/* Blocks of kinds outside mask (bit 1 << kind) are checked but not inflated: next skips them. */
void vpl_reader__want(struct vpl_reader *r, uint32_t mask);
void vpl_reader__close(struct vpl_reader *r);

#endif
