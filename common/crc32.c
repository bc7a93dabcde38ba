// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CRC-32 of every block and header (zlib's polynomial, zlib's values): the
 * analyzer checks some 40 bytes of format 1 per record, and zlib's table
 * code took 6.6% of its instructions.  On x86-64 CPUs with carry-less
 * multiplication (PCLMULQDQ) the bulk is folded 64 bytes a step, as in
 * Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ";
 * what is left over (under 16 bytes, or the whole of a short buffer) and
 * every other CPU go to zlib.  The values are zlib's bit for bit
 * (test_recfile compares the two on random buffers of every length to 4 KiB),
 * so every corruption zlib's check detected is still detected.
 */
#include <stdint.h>
#include <zlib.h>

#include "blockio.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define PCLMUL_TARGET __attribute__((target("pclmul,sse4.1")))

/* x's two halves carried 128 and 192 (or 512 and 576) bits on, folded into next. */
PCLMUL_TARGET static __m128i fold16(__m128i x, __m128i next, __m128i k)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00), hi = _mm_clmulepi64_si128(x, k, 0x11);

	return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

static __m128i load16(const uint8_t *p)
{
	__m128i v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The CRC register (not inverted at either end) after n bytes, n a multiple
 * of 16 and at least 64.  The constants are x^k mod P for the bit-reflected
 * polynomial P = 0x104C11DB7: k = 4*128+32 and +64 to fold 64 bytes, 128+32
 * and +64 to fold 16, 64 and 32 for the last 128 -> 64 -> 32 bits, then
 * Barrett's mu = floor(x^64 / P) and P itself.
 */
PCLMUL_TARGET static uint32_t crc32_folded(uint32_t reg, const uint8_t *p, size_t n)
{
	const __m128i k_64 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
	const __m128i k_16 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
	const __m128i k_32 = _mm_set_epi64x(0, 0x163cd6124);
	const __m128i mu_p = _mm_set_epi64x(0x1f7011641, 0x1db710641);
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i x0 = _mm_xor_si128(load16(p), _mm_cvtsi32_si128((int)reg));
	__m128i x1 = load16(p + 16), x2 = load16(p + 32), x3 = load16(p + 48), t;

	for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
		x0 = fold16(x0, load16(p), k_64);
		x1 = fold16(x1, load16(p + 16), k_64);
		x2 = fold16(x2, load16(p + 32), k_64);
		x3 = fold16(x3, load16(p + 48), k_64);
	}
	x0 = fold16(x0, x1, k_16);
	x0 = fold16(x0, x2, k_16);
	x0 = fold16(x0, x3, k_16);
	for (; n >= 16; p += 16, n -= 16)
		x0 = fold16(x0, load16(p), k_16);
	/* 128 -> 64 bits */
	t = _mm_clmulepi64_si128(x0, k_16, 0x10);
	x0 = _mm_xor_si128(t, _mm_srli_si128(x0, 8));
	/* 64 -> 32 bits */
	t = _mm_clmulepi64_si128(_mm_and_si128(x0, low32), k_32, 0x00);
	x0 = _mm_xor_si128(t, _mm_srli_si128(x0, 4));
	/* Barrett reduction to the 32-bit remainder */
	t = _mm_clmulepi64_si128(_mm_and_si128(x0, low32), mu_p, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), mu_p, 0x00);
	x0 = _mm_xor_si128(x0, t);
	return (uint32_t)_mm_extract_epi32(x0, 1);
}

static int can_fold(void)
{
	return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#else
static uint32_t crc32_folded(uint32_t reg, const uint8_t *p, size_t n)
{
	return reg;
}

static int can_fold(void)
{
	return 0;
}
#endif

uint32_t vp_crc32_zlib(const void *p, size_t n)
{
	return (uint32_t)crc32_z(crc32_z(0L, Z_NULL, 0), p, n);
}

uint32_t vp_crc32(const void *p, size_t n)
{
	const uint8_t *c = p;
	size_t bulk = n & ~(size_t)15;
	uint32_t crc;

	if (bulk < 64 || !can_fold())
		return vp_crc32_zlib(p, n);
	/* zlib's CRC is the register's complement, started from all ones */
	crc = ~crc32_folded(0xffffffffu, c, bulk);
	return (uint32_t)crc32_z(crc, c + bulk, n - bulk);
}
