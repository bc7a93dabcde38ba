// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CRC-32 of every block and header (zlib's polynomial, zlib's values): the
 * analyzer checks some 40 bytes of format 1 per record, and zlib's table
 * code took 6.6% of its instructions.  Intel's ISA-L (Debian's libisal)
 * computes the same reflected CRC-32 with the CPU's carry-less
 * multiplication where it has it, and picks its own code at run time
 * elsewhere; the values are zlib's bit for bit (test_recfile compares the
 * two on buffers of every length to 4 KiB at every alignment), so every
 * corruption zlib's check detected is still detected.
 */
#include <stdint.h>
#include <isa-l/crc.h>
#include <zlib.h>

#include "blockio.h"

uint32_t vp_crc32_zlib(const void *p, size_t n)
{
	return (uint32_t)crc32(0L, p, (uInt)n);
}

uint32_t vp_crc32(const void *p, size_t n)
{
	return crc32_gzip_refl(0, p, n);
}
