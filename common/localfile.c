// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "blockio.h"
#include "localfile.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "local files are little-endian; byte swapping is not implemented"
#endif

struct vpl_writer {
	int fd;
	int err;
	uint64_t bytes;
	uint8_t *zbuf; /* a block: its header, then its deflated bytes */
	size_t zcap;
};

struct vpl_writer *vpl_writer__create(const char *path)
{
	struct vpl_file_header h = {.version = VPL_VERSION, .header_size = sizeof(h)};
	struct vpl_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		err = errno;
		free(w);
		errno = err;
		return NULL;
	}
	memcpy(h.magic, VPL_MAGIC, sizeof(h.magic));
	vp_header_seal(&h, sizeof(h), &h.header_crc);
	if ((err = vp_write_all(w->fd, &h, sizeof(h)))) {
		close(w->fd);
		free(w);
		errno = -err;
		return NULL;
	}
	w->bytes = sizeof(h);
	return w;
}

int vpl_writer__block(struct vpl_writer *w, enum vpl_block_kind kind, const void *raw, size_t len,
		      uint32_t count)
{
	struct vpl_block_header bh = {.magic = VPL_BLOCK_MAGIC, .kind = kind};
	uLongf zlen;
	bool cut;
	int err;

	if (w->err)
		return w->err;
	if (len > VPL_BLOCK_MAX)
		return w->err = -EFBIG;
	zlen = compressBound((uLong)len);
	if (sizeof(bh) + zlen > w->zcap) {
		uint8_t *z = realloc(w->zbuf, sizeof(bh) + zlen);

		if (!z)
			return w->err = -ENOMEM;
		w->zbuf = z;
		w->zcap = sizeof(bh) + zlen;
	}
	/* Level 1: the records deflate to a third at a fraction of level 6's time. */
	if (compress2(w->zbuf + sizeof(bh), &zlen, raw, (uLong)len, 1) != Z_OK ||
	    zlen > VPL_BLOCK_MAX)
		return w->err = -EIO;
	bh.len = (uint32_t)zlen;
	bh.raw_len = (uint32_t)len;
	bh.crc = vp_crc32(w->zbuf + sizeof(bh), zlen);
	bh.count = count;
	memcpy(w->zbuf, &bh, sizeof(bh));
	if ((err = vp_block_append(w->fd, w->bytes, w->zbuf, sizeof(bh) + zlen, &cut)))
		return w->err = err;
	w->bytes += sizeof(bh) + zlen;
	return 0;
}

uint64_t vpl_writer__bytes(const struct vpl_writer *w)
{
	return w->bytes;
}

int vpl_writer__close(struct vpl_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = w->err;
	if (!err && fsync(w->fd))
		err = -errno;
	if (close(w->fd) && !err)
		err = -errno;
	free(w->zbuf);
	free(w);
	return err;
}

struct vpl_reader {
	int fd;
	uint64_t off, size, blocks;
	enum vpl_status status;
	bool done, ended;
	uint32_t want; /* kinds inflated, 1 << kind; 0: all */
	uint8_t *zbuf, *raw;
	char err[320];
};

bool vpl_is_local(const char *path)
{
	/* Not blocking on a FIFO or device: only a regular file can be one. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char m[8];
	bool yes;

	if (fd < 0)
		return false;
	yes = !fstat(fd, &st) && S_ISREG(st.st_mode) && read(fd, m, sizeof(m)) == sizeof(m) &&
	      !memcmp(m, VPL_MAGIC, sizeof(m));
	close(fd);
	return yes;
}

struct vpl_reader *vpl_reader__open(const char *path, char *err, size_t errlen)
{
	struct vpl_file_header h;
	struct vpl_reader *r = calloc(1, sizeof(*r));
	struct stat st;
	const char *why = NULL;

	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if ((r->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(r->fd, &st)) {
		snprintf(err, errlen, "%s", strerror(errno));
		goto fail;
	}
	r->size = (uint64_t)st.st_size;
	if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (vp_read_at(r->fd, &h, sizeof(h), 0) || memcmp(h.magic, VPL_MAGIC, 8))
		why = "not a vpath local file (bad magic or shorter than its header)";
	if (why) {
		snprintf(err, errlen, "%s", why);
		goto fail;
	}
	if (h.version != VPL_VERSION) {
		snprintf(err, errlen, "unsupported local file version %u (this build reads %u)",
			 h.version, VPL_VERSION);
		goto fail;
	}
	if (h.header_size != sizeof(h) || !vp_header_intact(&h, sizeof(h), &h.header_crc)) {
		snprintf(err, errlen, "damaged local file header (checksum mismatch)");
		goto fail;
	}
	r->off = sizeof(h);
	r->zbuf = malloc(VPL_BLOCK_MAX);
	r->raw = malloc(VPL_BLOCK_MAX);
	if (!r->zbuf || !r->raw) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return r;
fail:
	vpl_reader__close(r);
	return NULL;
}

static int stop(struct vpl_reader *r, enum vpl_status st, const char *what)
{
	r->status = st;
	r->done = true;
	vp_block_damage(r->err, sizeof(r->err), st == VPL_TORN, r->off, r->blocks, what);
	return 0;
}

int vpl_reader__next(struct vpl_reader *r, uint32_t *kind, const uint8_t **raw, size_t *len,
		     uint32_t *count)
{
	struct vpl_block_header bh;
	uLongf rlen;

again:
	if (r->done)
		return 0;
	if (r->off == r->size)
		return r->ended ? (r->done = true, 0) : stop(r, VPL_TORN, "no END block");
	if (r->ended)
		return stop(r, VPL_CORRUPT, "data after the END block");
	if (r->size - r->off < sizeof(bh) || vp_read_at(r->fd, &bh, sizeof(bh), r->off))
		return stop(r, VPL_TORN, "incomplete block header");
	if (bh.magic != VPL_BLOCK_MAGIC)
		return stop(r, bh.magic == 0 && bh.len == 0 ? VPL_TORN : VPL_CORRUPT,
			    "bad block magic");
	if (!bh.len || bh.len > VPL_BLOCK_MAX || bh.raw_len > VPL_BLOCK_MAX || !bh.kind ||
	    bh.kind > VPL_END)
		return stop(r, VPL_CORRUPT, "impossible block length or kind");
	if (r->size - r->off - sizeof(bh) < bh.len ||
	    vp_read_at(r->fd, r->zbuf, bh.len, r->off + sizeof(bh)))
		return stop(r, VPL_TORN, "incomplete block");
	if (vp_crc32(r->zbuf, bh.len) != bh.crc)
		return stop(r, r->off + sizeof(bh) + bh.len == r->size ? VPL_TORN : VPL_CORRUPT,
			    "block checksum mismatch");
	if (r->want && !(r->want & (1u << bh.kind)) && bh.kind != VPL_END) {
		r->off += sizeof(bh) + bh.len;
		r->blocks++;
		goto again;
	}
	rlen = bh.raw_len;
	if (uncompress(r->raw, &rlen, r->zbuf, bh.len) != Z_OK || rlen != bh.raw_len)
		return stop(r, VPL_CORRUPT, "block does not inflate to its length");
	r->off += sizeof(bh) + bh.len;
	r->blocks++;
	r->ended = bh.kind == VPL_END;
	*kind = bh.kind;
	*raw = r->raw;
	*len = rlen;
	*count = bh.count;
	return 1;
}

enum vpl_status vpl_reader__status(const struct vpl_reader *r)
{
	return r->status;
}

const char *vpl_reader__error(const struct vpl_reader *r)
{
	return r->err;
}

uint64_t vpl_reader__offset(const struct vpl_reader *r)
{
	return r->off;
}

void vpl_reader__want(struct vpl_reader *r, uint32_t mask)
{
	r->want = mask;
}

void vpl_reader__close(struct vpl_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->zbuf);
	free(r->raw);
	free(r);
}
