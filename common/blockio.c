// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "blockio.h"

void vp_header_seal(void *hdr, size_t size, uint32_t *crc)
{
	*crc = 0;
	*crc = vp_crc32(hdr, size);
}

bool vp_header_intact(void *hdr, size_t size, uint32_t *crc)
{
	uint32_t want = *crc;
	bool ok;

	*crc = 0;
	ok = vp_crc32(hdr, size) == want;
	*crc = want;
	return ok;
}

int vp_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = write(fd, c, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

int vp_read_at(int fd, void *p, size_t n, uint64_t off)
{
	char *c = p;

	while (n) {
		ssize_t k = pread(fd, c, n, (off_t)off);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -ENODATA;
		c += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

int vp_block_append(int fd, uint64_t end, const void *p, size_t n, bool *cut)
{
	int err = vp_write_all(fd, p, n);

	*cut = true;
	if (err)
		*cut = ftruncate(fd, (off_t)end) == 0 && lseek(fd, (off_t)end, SEEK_SET) >= 0;
	return err;
}

void vp_block_damage(char *buf, size_t len, bool torn, uint64_t off, uint64_t block,
		     const char *what)
{
	snprintf(buf, len, "%s at offset %llu (block %llu): %s", torn ? "truncated" : "corrupt",
		 (unsigned long long)off, (unsigned long long)block, what);
}
