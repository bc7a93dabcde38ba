/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Hashed capture (vpath-record --capture-hash N): keyed hashes of the
 * first bytes of each send and receive on the sockets --capture-port and
 * --capture-pid name, as a VPR_PAYLOAD_HASH record that follows its
 * operation; the bytes themselves never leave this program (they pass
 * through a per-CPU scratch buffer, overwritten by the next operation).
 * Enough for a relay that forwards messages byte for byte to be linked
 * (analyzer/forward.h), without a copy of what it forwards.  Off unless
 * asked for: capture_hash_len is a .rodata constant, so with 0 the
 * verifier drops this code.
 *
 * Included by vpath.bpf.c after capture.h (capture_wanted).
 */
#ifndef VPATH_PAYLOAD_HASH_H
#define VPATH_PAYLOAD_HASH_H

#include "vpath/record.h"
#include "vpath.h"
#include "siphash.h"

/* Set by the recorder between open and load; 0: hashing off. */
const volatile __u32 capture_hash_len = 0; /* 1..VPR_PAYLOAD_HASH_MAX */
/* Drawn at random per recording and written nowhere else (docs/recorder.md). */
const volatile __u64 capture_hash_key[2] = {};

#define HASH_WORDS (VPR_PAYLOAD_HASH_MAX / 8)

/*
 * The bytes being hashed (one word more than the most, the tail word of a
 * full read), how many, and their hashes once hash_prefixes() is done.
 */
struct hash_scratch {
	__u64 w[HASH_WORDS + 1];
	__u32 len;
	__u32 pad;
	__u64 hash, hash_8, hash_24;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hash_scratch);
} hash_scratch SEC(".maps");

/*
 * The hashes of the sc->len bytes in sc->w (zero after them).  A global
 * function, so verified once on its own: its loop's many exits would
 * otherwise each go on through the rest of its caller, past the
 * verifier's limit at 256 bytes.
 */
__noinline int hash_prefixes(struct hash_scratch *sc)
{
	struct siphash s;
	__u32 i, len;

	if (!sc)
		return 0;
	len = sc->len;
	if (len > VPR_PAYLOAD_HASH_MAX)
		return 0;
	sip_init(&s, capture_hash_key[0], capture_hash_key[1]);
	sc->hash_8 = sc->hash_24 = 0;
	for (i = 0; i < HASH_WORDS; i++) {
		if ((i + 1) * 8 > len)
			break;
		sip_word(&s, sc->w[i]);
		if (i == 0)
			sc->hash_8 = sip_final(&s, 0, 8);
		if (i == 2)
			sc->hash_24 = sip_final(&s, 0, 24);
	}
	/* i == len / 8 here: the tail word holds the last len % 8 bytes. */
	sc->hash = sip_final(&s, sc->w[i < HASH_WORDS ? i : HASH_WORDS], len);
	return 1;
}

/*
 * The hashes of the operation emit_op() just stamped ts, as capture.h's
 * emit_payload() would have taken its bytes: the same buffer, the first
 * min(bytes, capture_hash_len, first buffer) of them.
 */
static __always_inline void emit_payload_hash(__u64 pid_tgid, __u64 ts, __u64 cookie, __u32 bytes,
					      __u32 seq_end, __u8 dir, __u32 kind, __u64 arg)
{
	struct vpr_payload_hash *p;
	struct hash_scratch *sc;
	__u32 zero = 0, len = bytes;
	__u64 buf, room;

	if (!user_data_first(kind, arg, &buf, &room))
		return;
	if (len > room)
		len = room;
	if (len > capture_hash_len)
		len = capture_hash_len;
	sc = bpf_map_lookup_elem(&hash_scratch, &zero);
	if (!sc || len == 0)
		return;
	/* Bounded again where the verifier sees it: 1 <= len <= VPR_PAYLOAD_HASH_MAX. */
	len &= VPR_PAYLOAD_HASH_MAX * 2 - 1;
	if (len == 0 || len > VPR_PAYLOAD_HASH_MAX)
		return;
	barrier_var(len);
	/* The tail word's bytes after len are hashed as zeros; the read overwrites the rest. */
	sc->w[len >> 3] = 0;
	if (bpf_probe_read_user(sc->w, len, (const void *)buf))
		return;
	sc->len = len;
	if (!hash_prefixes(sc))
		return;
	p = bpf_ringbuf_reserve(&events, sizeof(*p), 0);
	if (!p) {
		count_lost(1);
		return;
	}
	p->hash = sc->hash;
	p->hash_8 = sc->hash_8;
	p->hash_24 = sc->hash_24;
	p->h.type = VPR_PAYLOAD_HASH;
	p->h.size = sizeof(*p);
	p->h.tid = (__u32)pid_tgid;
	p->h.ts_ns = ts;
	p->cookie = cookie;
	p->pid = pid_tgid >> 32;
	p->seq_end = seq_end;
	p->bytes = bytes;
	p->len = len;
	p->dir = dir;
	p->flags = 0;
	ring_submit(p);
}

#endif /* VPATH_PAYLOAD_HASH_H */
