/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What both file formats are made of (docs/format.md): a recording
 * (recfile.h) and a local file (localfile.h) are each a header sealed by a
 * CRC, then blocks that carry their own CRC; a block is written whole or cut
 * off again, and reading stops at the first damage and says where.  The two
 * formats differ in their headers and in what a block holds, and share
 * these steps, written once here.
 */
#ifndef VPATH_BLOCKIO_H
#define VPATH_BLOCKIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * CRC-32 (zlib's crc32) of n bytes: every checksum of both formats, by
 * ISA-L's carry-less multiplication where the CPU has it (common/crc32.c);
 * vp_crc32_zlib is zlib's own code, which the tests compare it with.
 */
uint32_t vp_crc32(const void *p, size_t n);
uint32_t vp_crc32_zlib(const void *p, size_t n);
/*
 * A header's CRC covers its size bytes with the CRC field (*crc, inside
 * hdr) counted as 0.  seal writes it; intact says whether it matches, and
 * leaves the header as it was.
 */
void vp_header_seal(void *hdr, size_t size, uint32_t *crc);
bool vp_header_intact(void *hdr, size_t size, uint32_t *crc);
/* write() until done; 0 or -errno (-EIO when nothing could be written). */
int vp_write_all(int fd, const void *p, size_t n);
/* pread() of n bytes at off; 0, -errno, or -ENODATA when the file ends first. */
int vp_read_at(int fd, void *p, size_t n, uint64_t off);
/*
 * Write block p (n bytes, its header included) at the end of fd's whole
 * blocks, offset end.  Should that fail, the partly written block is cut
 * off again, so that the file ends on a whole block and everything already
 * in it stays valid: *cut says whether that worked.  0 or -errno.
 */
int vp_block_append(int fd, uint64_t end, const void *p, size_t n, bool *cut);
/* Why reading stopped, as both readers say it: "truncated|corrupt at offset O (block B): what". */
void vp_block_damage(char *buf, size_t len, bool torn, uint64_t off, uint64_t block,
		     const char *what);

#endif
