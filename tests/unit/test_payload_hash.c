// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --capture-hash: the BPF program's SipHash-2-4 (bpf/siphash.h) against the
 * paper's vectors, the prefix hashes it records (synth_hash_prefixes, the
 * same steps), and how the analyzer compares hashed contents
 * (vp_fwd__fit, analyzer/forward.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "forward.h"
#include "pipeline.h"
#include "../lib/synth.h"
#include "../../bpf/siphash.h"

/* The key of the reference vectors: bytes 00..0f. */
static const uint64_t ref_key[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};

/* The vectors of the SipHash paper (appendix A): messages 00, 01, .. of 0 and 15 bytes. */
static void test_siphash_vectors(void **state)
{
	struct vpr_payload_hash p = {0};
	uint8_t m[15];

	(void)state;
	for (int i = 0; i < 15; i++)
		m[i] = (uint8_t)i;
	synth_hash_prefixes(ref_key, m, 0, &p);
	assert_true(p.hash == 0x726fdb47dd0e0e31ull);
	synth_hash_prefixes(ref_key, m, 15, &p);
	assert_true(p.hash == 0xa129ca6149be45e5ull);
}

/* hash_8 and hash_24 are the hashes of those prefixes as whole messages; 0 when shorter. */
static void test_prefix_hashes(void **state)
{
	struct vpr_payload_hash whole = {0}, p8 = {0}, p24 = {0}, p7 = {0};
	const char m[80] =
		"Q\0\0\0\x40SELECT val FROM items WHERE id = 17 /* request 1 */ AND x = 1";

	(void)state;
	synth_hash_prefixes(ref_key, m, 64, &whole);
	synth_hash_prefixes(ref_key, m, 8, &p8);
	synth_hash_prefixes(ref_key, m, 24, &p24);
	synth_hash_prefixes(ref_key, m, 7, &p7);
	assert_true(whole.hash_8 == p8.hash);
	assert_true(whole.hash_24 == p24.hash);
	assert_true(p24.hash_8 == p8.hash);
	assert_true(whole.hash != p24.hash);
	assert_true(p7.hash_8 == 0 && p7.hash_24 == 0 && p8.hash_24 == 0);
}

/* A hashed content of the first len (of total) bytes of m. */
static struct vp_wit_req *hashed(const char *m, uint16_t len, uint32_t total)
{
	struct vpr_payload_hash p = {0};
	struct vp_wit_req *w;

	synth_hash_prefixes(ref_key, m, len, &p);
	p.len = len;
	p.bytes = total;
	w = vp_wit_req__hashed(&p);
	assert_non_null(w);
	return w;
}

#define Q1 "SELECT val FROM items WHERE id = 17 /* request 1 */ -- padded to 64 bytes.."
#define Q2 "SELECT val FROM items WHERE id = 18 /* request 2 */ -- padded to 64 bytes.."

static enum vp_fwd_fit fit(struct vp_wit_req *c, struct vp_wit_req *r, size_t *k)
{
	enum vp_fwd_fit f = vp_fwd__fit(c, r, k);

	free(c);
	free(r);
	return f;
}

/* The same length hashed: equal hashes agree on all of it, unequal ones differ. */
static void test_fit_same_length(void **state)
{
	size_t k;

	(void)state;
	assert_int_equal(fit(hashed(Q1, 64, 80), hashed(Q1, 64, 80), &k), VP_FWD_AGREE);
	assert_int_equal(k, 64);
	assert_int_equal(fit(hashed(Q1, 64, 80), hashed(Q2, 64, 80), &k), VP_FWD_DIFFER);
	assert_int_equal(k, 0);
	/* Short and equal: they agree, on too few bytes to decide (VP_FWD_MIN). */
	assert_int_equal(fit(hashed("BEGIN", 5, 5), hashed("BEGIN", 5, 5), &k), VP_FWD_AGREE);
	assert_true(k < VP_FWD_MIN);
}

/*
 * Different lengths hashed (a message shorter than N, or cut by the relay):
 * compared on the longest prefix both have, 24 or 8 bytes.
 */
static void test_fit_common_prefix(void **state)
{
	size_t k;

	(void)state;
	/* A relay's first piece of Q1 (40 bytes) against Q1 hashed over 64. */
	assert_int_equal(fit(hashed(Q1, 40, 40), hashed(Q1, 64, 80), &k), VP_FWD_AGREE);
	assert_int_equal(k, 24);
	/* Q2 differs from Q1 only at byte 34: not within the common 24. */
	assert_int_equal(fit(hashed(Q2, 40, 40), hashed(Q1, 64, 80), &k), VP_FWD_AGREE);
	assert_int_equal(k, 24);
	/* Different within the first 24 bytes: different messages. */
	assert_int_equal(
		fit(hashed("UPDATE items SET val = 1 WHERE", 30, 30), hashed(Q1, 64, 80), &k),
		VP_FWD_DIFFER);
	/* Only 8 bytes in common: compared there, too few to decide. */
	assert_int_equal(fit(hashed(Q1, 12, 12), hashed(Q1, 64, 80), &k), VP_FWD_AGREE);
	assert_int_equal(k, 8);
	assert_int_equal(fit(hashed("INSERT INTO", 11, 11), hashed(Q1, 64, 80), &k), VP_FWD_DIFFER);
	/* Fewer than 8: nothing to compare. */
	assert_int_equal(fit(hashed("SEL", 3, 3), hashed(Q1, 64, 80), &k), VP_FWD_UNKNOWN);
}

/* Whole messages both, the call longer: it would join another's (as with bytes). */
static void test_fit_join_differs(void **state)
{
	size_t k;

	(void)state;
	assert_int_equal(fit(hashed(Q1, 60, 60), hashed(Q1, 40, 40), &k), VP_FWD_DIFFER);
}

/* Bytes against hashes: the analyzer has no key to hash the bytes with. */
static void test_fit_bytes_against_hashes(void **state)
{
	struct vp_wit_req *b = vp_wit_req__new((const uint8_t *)Q1, 64, 80);
	size_t k;

	(void)state;
	assert_non_null(b);
	assert_int_equal(fit(b, hashed(Q1, 64, 80), &k), VP_FWD_UNKNOWN);
}

/* Repeats are counted by content: equal hashes count as one content, others apart. */
static void test_repeat_hash(void **state)
{
	struct vp_wit_req *a = hashed(Q1, 64, 80), *b = hashed(Q1, 64, 80), *c = hashed(Q2, 64, 80),
			  *d = hashed(Q1, 64, 90);

	(void)state;
	assert_true(vp_fwd__hash(a) == vp_fwd__hash(b));
	assert_true(vp_fwd__hash(a) != vp_fwd__hash(c));
	assert_true(vp_fwd__hash(a) != vp_fwd__hash(d));
	free(a);
	free(b);
	free(c);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test(test_prefix_hashes),
		cmocka_unit_test(test_fit_same_length),
		cmocka_unit_test(test_fit_common_prefix),
		cmocka_unit_test(test_fit_join_differs),
		cmocka_unit_test(test_fit_bytes_against_hashes),
		cmocka_unit_test(test_repeat_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
