/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * SipHash-2-4 (Aumasson and Bernstein, 2012) over 64-bit little-endian
 * words, the form the BPF program needs for --capture-hash (payload_hash.h):
 * the state is kept, so that the hashes of a message's prefixes are
 * finished from it on the way.  A keyed function whose output says nothing
 * of the bytes without the key.  Written for the BPF program and also
 * compiled by the unit test that checks it against the paper's vectors.
 */
#ifndef VPATH_SIPHASH_H
#define VPATH_SIPHASH_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

struct siphash {
	__u64 v0, v1, v2, v3;
};

#define SIP_ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

static __always_inline void sip_round(struct siphash *s)
{
	s->v0 += s->v1;
	s->v1 = SIP_ROTL(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = SIP_ROTL(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = SIP_ROTL(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = SIP_ROTL(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = SIP_ROTL(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = SIP_ROTL(s->v2, 32);
}

static __always_inline void sip_init(struct siphash *s, __u64 k0, __u64 k1)
{
	s->v0 = k0 ^ 0x736f6d6570736575ull;
	s->v1 = k1 ^ 0x646f72616e646f6dull;
	s->v2 = k0 ^ 0x6c7967656e657261ull;
	s->v3 = k1 ^ 0x7465646279746573ull;
}

/* One whole 8-byte word of the message. */
static __always_inline void sip_word(struct siphash *s, __u64 m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

/*
 * The hash of a message of len bytes whose whole words s has taken; tail
 * holds its last len % 8 bytes (zero above them).  s is left as it was.
 */
static __always_inline __u64 sip_final(const struct siphash *s, __u64 tail, __u32 len)
{
	struct siphash f = *s;
	__u64 b = ((__u64)(len & 0xff) << 56) | tail;

	f.v3 ^= b;
	sip_round(&f);
	sip_round(&f);
	f.v0 ^= b;
	f.v2 ^= 0xff;
	sip_round(&f);
	sip_round(&f);
	sip_round(&f);
	sip_round(&f);
	return f.v0 ^ f.v1 ^ f.v2 ^ f.v3;
}

#endif /* VPATH_SIPHASH_H */
