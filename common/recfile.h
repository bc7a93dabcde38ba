/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Writing and reading recording files (docs/format.md).  The recorder, the
 * analyzer and the tests all go through these two objects, so the file
 * layout is encoded in exactly one place.
 */
#ifndef VPATH_RECFILE_H
#define VPATH_RECFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "vpath/record.h"

/* Records per block are bounded by bytes; the writer flushes at this size. */
#define VPR_WRITER_BLOCK_BYTES (256u * 1024u)

struct vpr_writer;

/*
 * Create (truncate) path and write hdr to it.  magic, version, header_size
 * and header_crc are filled in here.  Returns NULL and sets errno on error.
 */
struct vpr_writer *vpr_writer__create(const char *path, const struct vpr_file_header *hdr);
/* Same, on an fd the caller opened; the writer owns it from then on. */
struct vpr_writer *vpr_writer__from_fd(int fd, const struct vpr_file_header *hdr);
/* Append one record (size = rec->size).  May write a full block.  -errno. */
int vpr_writer__append(struct vpr_writer *w, const void *rec);
/* Write the pending block, if any.  -errno (ENOSPC: the pending block is kept). */
int vpr_writer__flush(struct vpr_writer *w);
/* Flush and fsync.  -errno. */
int vpr_writer__sync(struct vpr_writer *w);
/* Bytes written to the file so far, header included. */
uint64_t vpr_writer__bytes(const struct vpr_writer *w);
uint64_t vpr_writer__records(const struct vpr_writer *w);
/* Flush, fsync, close.  NULL-safe.  Returns the first error seen, -errno. */
int vpr_writer__close(struct vpr_writer *w);

/* Fill the fixed fields of a header (magic, version, size, crc). */
void vpr_file_header__seal(struct vpr_file_header *hdr);

struct vpr_reader;

enum vpr_read_status {
	VPR_READ_OK = 0,	/* all blocks intact to the end of the file */
	VPR_READ_TORN_TAIL = 1, /* the last block is incomplete: earlier ones are intact */
	VPR_READ_CORRUPT = 2,	/* a block in the middle is damaged: reading stopped there */
};

/*
 * Open and validate the header.  On error returns NULL and writes a one-line
 * reason (without the path) into err.
 */
struct vpr_reader *vpr_reader__open(const char *path, char *err, size_t errlen);
const struct vpr_file_header *vpr_reader__header(const struct vpr_reader *r);
/*
 * Next record: 1 and *rec set (valid until the next call), 0 at the end.
 * Damage ends the stream (returns 0); vpr_reader__status() and
 * vpr_reader__error() then say what and where.  Records are size-checked:
 * a record is at least as long as its type's struct; unknown types are
 * returned too (skip them by type).
 */
int vpr_reader__next(struct vpr_reader *r, const struct vpr_hdr **rec);
enum vpr_read_status vpr_reader__status(const struct vpr_reader *r);
const char *vpr_reader__error(const struct vpr_reader *r);
uint64_t vpr_reader__blocks(const struct vpr_reader *r);
/* How far reading has come (progress): the file offset of the next record. */
uint64_t vpr_reader__offset(const struct vpr_reader *r);
void vpr_reader__close(struct vpr_reader *r);

/* Minimum size of a known record type, 0 for unknown types. */
size_t vpr_record_min_size(uint16_t type);
const char *vpr_type_name(uint16_t type);

#endif /* VPATH_RECFILE_H */
