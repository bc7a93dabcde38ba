// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blockio.h"
#include "reccodec.h"
#include "recfile.h"

/*
 * Version 1 stores records exactly as they sit in memory; version 2 packs
 * them (reccodec.h), its varints little-endian by definition.  The structs
 * are the file's little-endian layout only on little-endian hosts.  That is the file's
 * little-endian layout only on little-endian hosts; a big-endian port would
 * byte-swap here, in one place.
 */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "recording files are little-endian; byte swapping is not implemented"
#endif

/*
 * The pending block of a version 2 file is packed in enc.buf behind room
 * for its block header; a version 1 file's records are copied to buf.
 */
struct vpr_writer {
	int fd;
	int err; /* first write error, sticky */
	uint32_t version;
	uint64_t bytes;
	uint64_t records;
	uint32_t count; /* records in the pending block */
	uint32_t len;	/* bytes in the pending block (version 2: packed, unpadded) */
	struct vp_recenc enc;
	unsigned char buf[sizeof(struct vpr_block_header) + VPR_WRITER_BLOCK_BYTES];
};

void vpr_file_header__seal(struct vpr_file_header *hdr)
{
	memcpy(hdr->magic, VPR_MAGIC, sizeof(hdr->magic));
	if (!hdr->version)
		hdr->version = VPR_VERSION;
	hdr->header_size = sizeof(*hdr);
	vp_header_seal(hdr, sizeof(*hdr), &hdr->header_crc);
}

struct vpr_writer *vpr_writer__from_fd(int fd, const struct vpr_file_header *hdr)
{
	struct vpr_file_header h = *hdr;
	struct vpr_writer *w;
	int err;

	if (h.version && (h.version < VPR_VERSION_MIN || h.version > VPR_VERSION)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	vpr_file_header__seal(&h);
	w->version = h.version;
	err = vp_write_all(fd, &h, sizeof(h));
	if (err) {
		close(fd);
		free(w);
		errno = -err;
		return NULL;
	}
	w->bytes = sizeof(h);
	return w;
}

struct vpr_writer *vpr_writer__create(const char *path, const struct vpr_file_header *hdr)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		return NULL;
	return vpr_writer__from_fd(fd, hdr);
}

/* Version 2: the packed block, padded to a multiple of 8, and its length with the padding. */
static unsigned char *packed_block(struct vpr_writer *w, uint32_t *len)
{
	static const uint8_t zero[8];
	struct vp_wbuf *b = &w->enc.buf;

	vp_wbuf__bytes(b, zero, (8 - w->len % 8) % 8);
	if (b->oom)
		return NULL;
	*len = (uint32_t)(b->len - sizeof(struct vpr_block_header));
	b->len = sizeof(struct vpr_block_header) + w->len; /* the padding goes again if kept */
	return b->p;
}

int vpr_writer__flush(struct vpr_writer *w)
{
	unsigned char *blk = w->buf;
	struct vpr_block_header *bh;
	uint32_t len = w->len;
	size_t total;
	bool cut;
	int err;

	if (w->err)
		return w->err;
	if (!w->count)
		return 0;
	if (w->version >= 2 && !(blk = packed_block(w, &len)))
		return -ENOMEM;
	bh = (struct vpr_block_header *)blk;
	bh->magic = VPR_BLOCK_MAGIC;
	bh->len = len;
	bh->count = w->count;
	bh->crc = vp_crc32(blk + sizeof(*bh), len);
	total = sizeof(*bh) + len;
	err = vp_block_append(w->fd, w->bytes, blk, total, &cut);
	if (err) {
		/* The file was cut back to its whole blocks (vp_block_append); this one stays pending. */
		if (cut && err != -ENOSPC)
			return err;
		w->err = err;
		return err;
	}
	w->bytes += total;
	w->count = 0;
	w->len = 0;
	if (w->version >= 2)
		vp_recenc__reset(&w->enc);
	return 0;
}

/*
 * Version 2: pack rec behind the room left for the block header.  The room
 * for its bytes is made first, so that running out of memory leaves the
 * block as it was (the codec adds to its tables only what it wrote).
 */
static int pack(struct vpr_writer *w, const struct vpr_hdr *h)
{
	static const struct vpr_block_header room;
	struct vp_wbuf *b = &w->enc.buf;

	b->oom = false;
	if (!b->len)
		vp_wbuf__bytes(b, &room, sizeof(room));
	if (b->oom || !vp_wbuf__room(b, h->size + 8u))
		return -ENOMEM;
	vp_recenc__record(&w->enc, h);
	if (b->oom)
		return -ENOMEM;
	w->len = (uint32_t)(b->len - sizeof(room));
	return 0;
}

int vpr_writer__append(struct vpr_writer *w, const void *rec)
{
	const struct vpr_hdr *h = rec;
	int err;

	if (h->size < sizeof(*h) || h->size % 8)
		return -EINVAL;
	/* Packed, a record is at most 8 bytes longer than its struct (reccodec.h). */
	if (w->len + h->size + (w->version >= 2 ? 8 : 0) > VPR_WRITER_BLOCK_BYTES) {
		err = vpr_writer__flush(w);
		if (err)
			return err;
	}
	if (w->version >= 2) {
		err = pack(w, h);
		if (err)
			return err;
	} else {
		memcpy(w->buf + sizeof(struct vpr_block_header) + w->len, rec, h->size);
		w->len += h->size;
	}
	w->count++;
	w->records++;
	return 0;
}

int vpr_writer__sync(struct vpr_writer *w)
{
	int err = vpr_writer__flush(w);

	if (err)
		return err;
	if (fsync(w->fd) && errno != EINVAL) /* EINVAL: a pipe or a special file */
		return -errno;
	return 0;
}

uint64_t vpr_writer__bytes(const struct vpr_writer *w)
{
	return w->bytes + (w->count ? sizeof(struct vpr_block_header) + (w->len + 7) / 8 * 8 : 0);
}

uint64_t vpr_writer__records(const struct vpr_writer *w)
{
	return w->records;
}

int vpr_writer__close(struct vpr_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = vpr_writer__sync(w);
	if (close(w->fd) && !err)
		err = -errno;
	vp_recenc__free(&w->enc);
	free(w);
	return err;
}

struct vpr_reader {
	int fd;
	uint64_t file_size;
	uint64_t off; /* file offset of the next block */
	uint64_t blocks;
	struct vpr_file_header hdr;
	enum vpr_read_status status;
	bool done;
	unsigned char *buf;	  /* the current block's records, or a small file whole */
	const unsigned char *blk; /* the current block's records, in buf */
	bool whole;		  /* buf holds the whole file: read once, not per block */
	uint32_t len, pos, count, seen;
	char err[256];
	struct vp_recdec dec; /* version 2: unpacks the current block's records */
};

size_t vpr_record_min_size(uint16_t type)
{
	switch (type) {
	case VPR_SOCK_OP:
		return sizeof(struct vpr_sock_op);
	case VPR_CONN:
		return sizeof(struct vpr_conn);
	case VPR_TASK:
		return sizeof(struct vpr_task);
	case VPR_CLOCK:
		return sizeof(struct vpr_clock);
	case VPR_DROPS:
		return sizeof(struct vpr_drops);
	case VPR_ADDR:
		return sizeof(struct vpr_addr);
	case VPR_PAYLOAD:
		return VPR_PAYLOAD_HDR_SIZE; /* data[] is stored only as far as len */
	case VPR_WAKEUP:
		return sizeof(struct vpr_wakeup);
	case VPR_GOROUTINE:
		return sizeof(struct vpr_goroutine);
	case VPR_SEND_FAILED:
		return sizeof(struct vpr_send_failed);
	case VPR_H2_FRAME:
		return sizeof(struct vpr_h2_frame);
	case VPR_WRITER:
		return sizeof(struct vpr_writer_info);
	case VPR_LOG:
		return VPR_LOG_HDR_SIZE; /* data[] is stored only as far as len */
	case VPR_TLS_OP:
		return sizeof(struct vpr_tls_op);
	case VPR_PAYLOAD_HASH:
		return sizeof(struct vpr_payload_hash);
	default:
		return 0;
	}
}

const char *vpr_type_name(uint16_t type)
{
	static const char *const names[VPR_TYPE_MAX] = {
		[VPR_SOCK_OP] = "sock_op",
		[VPR_CONN] = "conn",
		[VPR_TASK] = "task",
		[VPR_CLOCK] = "clock",
		[VPR_DROPS] = "drops",
		[VPR_ADDR] = "addr",
		[VPR_PAYLOAD] = "payload",
		[VPR_WAKEUP] = "wakeup",
		[VPR_GOROUTINE] = "goroutine",
		[VPR_SEND_FAILED] = "send_failed",
		[VPR_H2_FRAME] = "h2_frame",
		[VPR_WRITER] = "writer",
		[VPR_TLS_OP] = "tls_op",
		[VPR_LOG] = "log",
		[VPR_PAYLOAD_HASH] = "payload_hash",
	};
	return type < VPR_TYPE_MAX && names[type] ? names[type] : "unknown";
}

static void fail(char *err, size_t errlen, const char *fmt, const char *arg)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, arg);
}

struct vpr_reader *vpr_reader__open(const char *path, char *err, size_t errlen)
{
	struct vpr_reader *r;
	struct stat st;
	int fd;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		fail(err, errlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fail(err, errlen, "%s",
		     S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return NULL;
	}
	/* No block is longer than the file: small files get a small buffer. */
	r = calloc(1, sizeof(*r));
	if (r)
		r->buf = malloc(st.st_size <= 0
					? 1
					: (size_t)(st.st_size < VPR_BLOCK_MAX ? st.st_size
									      : VPR_BLOCK_MAX));
	if (!r || !r->buf) {
		fail(err, errlen, "%s", strerror(ENOMEM));
		goto fail_free;
	}
	r->fd = fd;
	r->file_size = (uint64_t)st.st_size;
	if (!r->file_size) {
		fail(err, errlen, "%s", "empty file (not a vpath recording)");
		goto fail_free;
	}
	/*
	 * A file no larger than a block (its buffer is its size, above) is read
	 * whole, once, instead of twice per block: short recordings and every
	 * input of fuzz_analyze.  Should that read fail (the file cut short since
	 * fstat), it is read piece by piece as a large file is, so that the blocks
	 * before the damage still count.
	 */
	r->whole = r->file_size <= VPR_BLOCK_MAX && !vp_read_at(fd, r->buf, r->file_size, 0);
	if (r->whole)
		memcpy(&r->hdr, r->buf,
		       r->file_size < sizeof(r->hdr) ? r->file_size : sizeof(r->hdr));
	if (r->file_size < 8 || (!r->whole && vp_read_at(fd, r->hdr.magic, 8, 0)) ||
	    memcmp(r->hdr.magic, VPR_MAGIC, 8)) {
		fail(err, errlen, "%s", "not a vpath recording (bad magic)");
		goto fail_free;
	}
	if (r->file_size < sizeof(r->hdr) ||
	    (!r->whole && vp_read_at(fd, &r->hdr, sizeof(r->hdr), 0))) {
		fail(err, errlen, "%s", "truncated header (file shorter than 256 bytes)");
		goto fail_free;
	}
	if (r->hdr.version < VPR_VERSION_MIN || r->hdr.version > VPR_VERSION) {
		if (err && errlen)
			snprintf(err, errlen,
				 "unsupported format version %u (this build reads %u to %u)",
				 r->hdr.version, VPR_VERSION_MIN, VPR_VERSION);
		goto fail_free;
	}
	if (r->hdr.header_size != sizeof(r->hdr) ||
	    !vp_header_intact(&r->hdr, sizeof(r->hdr), &r->hdr.header_crc)) {
		fail(err, errlen, "%s", "damaged header (checksum mismatch)");
		goto fail_free;
	}
	r->off = sizeof(r->hdr);
	return r;

fail_free:
	if (r)
		free(r->buf);
	free(r);
	close(fd);
	return NULL;
}

const struct vpr_file_header *vpr_reader__header(const struct vpr_reader *r)
{
	return &r->hdr;
}

/* Stop reading: status says whether the damage is a torn tail or corruption. */
static __attribute__((noinline, cold)) int stop(struct vpr_reader *r, enum vpr_read_status st,
						const char *what)
{
	r->status = st;
	r->done = true;
	vp_block_damage(r->err, sizeof(r->err), st == VPR_READ_TORN_TAIL, r->off, r->blocks, what);
	return 0;
}

static __attribute__((noinline)) int load_block(struct vpr_reader *r)
{
	struct vpr_block_header bh;
	uint64_t left = r->file_size - r->off;
	const unsigned char *at = NULL; /* the block in buf, when read whole */

	if (left < sizeof(bh))
		return stop(r, VPR_READ_TORN_TAIL, "incomplete block header");
	if (r->whole) {
		at = r->buf + r->off;
		memcpy(&bh, at, sizeof(bh));
	} else if (vp_read_at(r->fd, &bh, sizeof(bh), r->off)) {
		return stop(r, VPR_READ_CORRUPT, "read error");
	}
	if (bh.magic != VPR_BLOCK_MAGIC) {
		/* A crash can leave zeroed pages at the end, but only there. */
		bool zero_tail = bh.magic == 0 && bh.len == 0;

		return stop(r, zero_tail ? VPR_READ_TORN_TAIL : VPR_READ_CORRUPT,
			    "bad block magic");
	}
	/* The writer never writes an empty block: one would also stall the reader on it. */
	if (!bh.len || bh.len > VPR_BLOCK_MAX || bh.len % 8 || !bh.count ||
	    bh.count > bh.len / (r->hdr.version >= 2 ? 1 : sizeof(struct vpr_hdr)))
		return stop(r, VPR_READ_CORRUPT, "impossible block length");
	if (left - sizeof(bh) < bh.len)
		return stop(r, VPR_READ_TORN_TAIL, "incomplete block");
	if (at)
		r->blk = at + sizeof(bh);
	else if (vp_read_at(r->fd, r->buf, bh.len, r->off + sizeof(bh)))
		return stop(r, VPR_READ_CORRUPT, "read error");
	else
		r->blk = r->buf;
	if (vp_crc32(r->blk, bh.len) != bh.crc) {
		bool last = r->off + sizeof(bh) + bh.len == r->file_size;

		return stop(r, last ? VPR_READ_TORN_TAIL : VPR_READ_CORRUPT,
			    "block checksum mismatch");
	}
	r->len = bh.len;
	r->count = bh.count;
	r->pos = 0;
	r->seen = 0;
	if (r->hdr.version >= 2)
		vp_recdec__block(&r->dec, r->blk, r->len, r->count);
	return 1;
}

/* A record as a version 1 block holds it, or as a version 2 block unpacks to. */
static bool sound(const struct vpr_hdr *h, size_t room)
{
	return room >= sizeof(*h) && h->size >= sizeof(*h) && h->size % 8 == 0 && h->size <= room &&
	       h->size >= vpr_record_min_size(h->type);
}

/*
 * Version 2: the next packed record of the block, its last one followed by
 * fewer than 8 bytes of zero padding; r->pos is how far unpacking came.
 */
static int next_packed(struct vpr_reader *r, const struct vpr_hdr **rec)
{
	const struct vpr_hdr *h = (const struct vpr_hdr *)r->dec.rec;
	const uint8_t *p;

	if (vp_recdec__next(&r->dec) != VP_ITEM_RECORD)
		return stop(r, VPR_READ_CORRUPT, "bad packed record");
	if (!sound(h, sizeof(r->dec.rec)))
		return stop(r, VPR_READ_CORRUPT, "bad record size");
	r->pos = (uint32_t)(r->dec.b.p - r->blk);
	if (++r->seen == r->count) {
		if (r->len - r->pos >= 8)
			return stop(r, VPR_READ_CORRUPT, "record count mismatch");
		for (p = r->dec.b.p; p < r->dec.b.end; p++)
			if (*p)
				return stop(r, VPR_READ_CORRUPT, "bad block padding");
		r->pos = r->len;
	}
	*rec = h;
	return 1;
}

int vpr_reader__next(struct vpr_reader *r, const struct vpr_hdr **rec)
{
	const struct vpr_hdr *h;

	for (;;) {
		if (r->done)
			return 0;
		if (r->pos < r->len)
			break;
		if (r->len) {
			if (r->seen != r->count)
				return stop(r, VPR_READ_CORRUPT, "record count mismatch");
			r->off += sizeof(struct vpr_block_header) + r->len;
			r->blocks++;
			r->len = r->pos = 0;
		}
		if (r->off == r->file_size) {
			r->done = true;
			return 0;
		}
		if (load_block(r) <= 0)
			return 0;
	}
	if (r->hdr.version >= 2)
		return next_packed(r, rec);
	h = (const struct vpr_hdr *)(r->blk + r->pos);
	if (!sound(h, r->len - r->pos))
		return stop(r, VPR_READ_CORRUPT, "bad record size");
	r->pos += h->size;
	r->seen++;
	*rec = h;
	return 1;
}

enum vpr_read_status vpr_reader__status(const struct vpr_reader *r)
{
	return r->status;
}

const char *vpr_reader__error(const struct vpr_reader *r)
{
	return r->err;
}

uint64_t vpr_reader__blocks(const struct vpr_reader *r)
{
	return r->blocks;
}

uint64_t vpr_reader__offset(const struct vpr_reader *r)
{
	/* Inside a block, as far as its records were read: a packed block holds some 40,000. */
	return r->off + (r->len ? sizeof(struct vpr_block_header) + r->pos : 0);
}

void vpr_reader__close(struct vpr_reader *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r->buf);
	vp_recdec__free(&r->dec);
	free(r);
}
