/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Payload capture (vpath-record --capture N): the first bytes of each send
 * and receive on the sockets the user named, as a VPR_PAYLOAD record that
 * follows its operation.  Off unless asked for: capture_len is a .rodata
 * constant, so with 0 the verifier drops this code and an uncaptured
 * operation pays nothing.  Secrets are replaced by the recorder before the
 * first write (user/redact.c); the bytes never reach a file unredacted.
 *
 * Included by vpath.bpf.c after stream_start.h (user_data_first).
 */
#ifndef VPATH_CAPTURE_H
#define VPATH_CAPTURE_H

#include "vpath/record.h"
#include "vpath.h"

/* Set by the recorder between open and load; 0: capture off. */
const volatile __u32 capture_len = 0; /* 1..VPR_PAYLOAD_MAX */
const volatile __u32 capture_pids[VPATH_MAX_PIDS] = {};
const volatile __u32 capture_npids = 0;
const volatile __u16 capture_ports[VPATH_MAX_PORTS] = {};
const volatile __u32 capture_nports = 0;

/* Both lists must match when both are given: the narrower reading of the user's words. */
static __always_inline bool capture_wanted(const struct sock *sk, __u32 tgid)
{
	bool found;

	if (capture_npids) {
		found = false;
		for (int i = 0; i < VPATH_MAX_PIDS; i++) {
			if (i >= capture_npids)
				break;
			if (capture_pids[i] == tgid) {
				found = true;
				break;
			}
		}
		if (!found)
			return false;
	}
	if (capture_nports) {
		__u16 lport = BPF_CORE_READ(sk, __sk_common.skc_num);
		__u16 rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));

		found = false;
		for (int i = 0; i < VPATH_MAX_PORTS; i++) {
			if (i >= capture_nports)
				break;
			if (capture_ports[i] == lport || capture_ports[i] == rport) {
				found = true;
				break;
			}
		}
		if (!found)
			return false;
	}
	return true;
}

/*
 * Bytes reserved in the ring for a payload's data: capture_len and one
 * spare word, so that the word holding the stored record's padding is
 * always inside the reservation (as the verifier reckons it).
 */
#define CAPTURE_ROOM ((capture_len + 8) & ~7u)

/*
 * The payload of the operation emit_op() just stamped ts.  Reserved at the
 * size capture_len needs (a constant to the verifier), stored at the size
 * the bytes need: the recorder keeps h.size bytes.  An operation whose
 * buffer cannot be found or read (sendfile, a kernel socket, a page gone)
 * gets no payload record.
 */
static __always_inline void emit_payload(__u64 pid_tgid, __u64 ts, __u64 cookie, __u32 bytes,
					 __u32 seq_end, __u8 dir, __u32 kind, __u64 arg)
{
	struct vpr_payload *p;
	__u64 buf, room;
	__u32 len = bytes;

	if (!user_data_first(kind, arg, &buf, &room))
		return;
	if (len > room)
		len = room;
	if (len > capture_len)
		len = capture_len;
	if (len == 0)
		return;
	p = bpf_ringbuf_reserve(&events, VPR_PAYLOAD_HDR_SIZE + CAPTURE_ROOM, 0);
	if (!p) {
		count_lost(1);
		return;
	}
	/* Bounded again where the verifier sees it: 1 <= len <= capture_len. */
	len &= VPR_PAYLOAD_MAX * 2 - 1;
	if (len == 0 || len > capture_len || len > VPR_PAYLOAD_MAX) {
		bpf_ringbuf_discard(p, 0);
		return;
	}
	/* Or the compiler may compute with len from before the checks. */
	barrier_var(len);
	/* The stored record's padding after the data must not be old ring memory. */
	*(__u64 *)(p->data + ((len >> 3) << 3)) = 0;
	if (bpf_probe_read_user(p->data, len, (const void *)buf)) {
		bpf_ringbuf_discard(p, 0);
		return;
	}
	p->h.type = VPR_PAYLOAD;
	p->h.size = VPR_PAYLOAD_SIZE(len);
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

#endif /* VPATH_CAPTURE_H */
