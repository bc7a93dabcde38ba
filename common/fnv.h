/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * FNV-1a, 64 bits: the witnesses' message hashes (a queue message, a
 * field).  They are compared within one analysis, never stored, so only
 * agreement between the readers that compute them matters.
 */
#ifndef VPATH_FNV_H
#define VPATH_FNV_H

#include <stddef.h>
#include <stdint.h>

#define VP_FNV_BASIS 0xcbf29ce484222325ull
#define VP_FNV_PRIME 0x100000001b3ull

static inline uint64_t vp_fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * VP_FNV_PRIME;
	return h;
}

/* v's eight bytes, least significant first: a length before the bytes it counts. */
static inline uint64_t vp_fnv1a_u64(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		h = (h ^ (uint8_t)(v >> (8 * i))) * VP_FNV_PRIME;
	return h;
}

#endif
