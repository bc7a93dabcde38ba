/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which socket operations begin their connection's byte stream, and whether
 * such an operation's first bytes are a TLS handshake record header
 * or the HTTP/2 client preface (VPR_OP_STREAM_START, VPR_OP_TLS_HS,
 * VPR_OP_H2_PREFACE in include/vpath/record.h).
 *
 * "Begins the stream" is decided from counters TCP keeps anyway, so every
 * other operation pays two loads and a compare.  Only an operation that
 * begins within the stream's first EARLY_BYTES reads its first bytes, from
 * the caller's own buffer, and keeps nothing of them but one bit: no
 * payload is ever recorded.
 *
 * Included by vpath.bpf.c after vmlinux.h and the libbpf headers.
 */
#ifndef VPATH_STREAM_START_H
#define VPATH_STREAM_START_H

#include "vpath/record.h"
#include "h2.h"

/* Keeps the compiler from reordering the loads around it (see below). */
#define LOAD_ORDER() asm volatile("" ::: "memory")

/*
 * How far into its stream a receive's range [start, ...) begins: the first
 * data byte's sequence number is rcv_nxt less bytes_received.  The kernel adds
 * to bytes_received every advance of rcv_nxt after the SYN, the FIN's
 * included, so the difference is that number for the socket's whole life
 * (checked on 6.18; start must be corrected for a FIN the read consumed, as
 * recv_seq_end() does).
 *
 * Callers load rcv_nxt first, then bytes_received: the kernel adds to
 * bytes_received before it moves rcv_nxt, so a segment arriving between the
 * two loads can only make a stream start be missed, never invented.
 */
static __always_inline __u32 recv_offset(__u32 start, __u32 rcv_nxt, __u64 bytes_received)
{
	return start - (rcv_nxt - (__u32)bytes_received); /* 0: it begins the stream */
}

/*
 * For a send, snd_una less bytes_acked, which the kernel keeps in step the
 * same way (callers load snd_una first, for the same reason).  On a
 * connected socket snd_una starts at the SYN's own number and the SYN's
 * acknowledgement is counted, so the difference is one before the first
 * data byte; an accepted socket is born with its SYN-ACK acknowledged, and
 * the difference is the first data byte (both checked on 6.18).  Returns
 * how far start lies past that base:
 * - 0: an accepted socket's first byte (a connected socket's data never
 *   starts at its SYN's number);
 * - 1: a connected socket's first byte, or an accepted socket's second.
 *   Accepted sockets inherit their listener's backlog, connected ones have
 *   none: send_starts_stream() tells them apart.  It errs for an accepted
 *   socket of a listen(fd, 0) listener whose first send is a single byte:
 *   its second send is marked too;
 * - anything else: not the stream's start.
 */
static __always_inline __u32 send_lead(__u32 start, __u32 snd_una, __u64 bytes_acked)
{
	return start - (snd_una - (__u32)bytes_acked);
}

static __always_inline bool send_starts_stream(__u32 lead, __u32 max_ack_backlog)
{
	return lead == 0 || (lead == 1 && max_ack_backlog == 0);
}

/*
 * The sequence number of the socket's first sent byte, from the same
 * counters: snd_una less bytes_acked is that byte on an accepted socket and
 * one before it on a connected one, told apart as send_starts_stream() does.
 */
static __always_inline __u32 send_stream_start(__u32 snd_una, __u64 bytes_acked,
					       __u32 max_ack_backlog)
{
	return snd_una - (__u32)bytes_acked + (max_ack_backlog == 0);
}

/* ---- the first bytes ---- */

#define TLS_RECORD_HEADER_LEN 5
#define TLS_CONTENT_HANDSHAKE 22
#define TLS_RECORD_MAX (16384 + 2048) /* TLSCiphertext (RFC 5246 6.2.3) */

/*
 * A TLS record header (RFC 8446 5.1): content type, protocol version, length.
 * A handshake record of SSL 3.0 to TLS 1.3 (whose records say 3.1 or 3.3),
 * with a length a record can have.
 */
static __always_inline bool tls_handshake_header(const __u8 *h)
{
	__u32 len = (__u32)h[3] << 8 | h[4];

	return h[0] == TLS_CONTENT_HANDSHAKE && h[1] == 3 && h[2] <= 4 && len > 0 &&
	       len <= TLS_RECORD_MAX;
}

/* What a socket call's second argument points at. */
enum user_data_kind {
	USER_DATA_NONE = 0, /* no user buffer: sendfile, unknown calls */
	USER_DATA_BUF,	    /* the bytes: read, write, recvfrom, sendto */
	USER_DATA_IOVEC,    /* an iovec array: readv, writev */
	USER_DATA_MSGHDR,   /* a struct user_msghdr: recvmsg, sendmsg */
};

/*
 * The caller's first buffer of the data at arg and how many bytes it holds
 * (an iovec's length; ~0 for a plain buffer, whose length is the call's).
 * Only the first iovec is looked at: the rest would cost a read each.
 */
/* A msghdr's data is its iovec array: USER_DATA_IOVEC and *arg that array (NONE: unreadable). */
static __always_inline __u32 user_data_unwrap(__u32 kind, __u64 *arg)
{
	const struct user_msghdr *m = (const void *)*arg;

	if (kind != USER_DATA_MSGHDR)
		return kind;
	return bpf_probe_read_user(arg, sizeof(*arg), &m->msg_iov) ? USER_DATA_NONE
								   : USER_DATA_IOVEC;
}

static __always_inline bool user_data_first(__u32 kind, __u64 arg, __u64 *buf, __u64 *room)
{
	struct iovec iov;

	kind = user_data_unwrap(kind, &arg);
	if (kind == USER_DATA_IOVEC) {
		if (bpf_probe_read_user(&iov, sizeof(iov), (const void *)arg))
			return false;
		*buf = (__u64)iov.iov_base;
		*room = iov.iov_len;
		return true;
	}
	*buf = arg;
	*room = ~0ull;
	return kind == USER_DATA_BUF;
}

/*
 * The first bytes of the data at arg, as many as want, the operation's
 * bytes and its first buffer allow; 0 when that is fewer than a TLS record
 * header or they cannot be read.  After a receive they are what it
 * returned; after a send, what it sent (the buffer is the caller's and
 * unchanged).  head has room for H2_PREFACE_LEN bytes.
 */
static __always_inline __u32 user_data_head(__u32 kind, __u64 arg, __u32 bytes, __u32 want,
					    __u8 *head)
{
	__u64 buf, room;
	__u32 n = bytes < want ? bytes : want;

	if (!user_data_first(kind, arg, &buf, &room))
		return 0;
	if (n > room)
		n = room;
	/* Bounded again where the verifier sees it. */
	n &= 31;
	if (n < TLS_RECORD_HEADER_LEN || n > H2_PREFACE_LEN)
		return 0;
	barrier_var(n);
	return bpf_probe_read_user(head, n, (const void *)buf) ? 0 : n;
}

/*
 * Operations that begin this close to their stream's start are sampled: a
 * handshake may follow a protocol's own opening (MySQL's greeting and
 * SSLRequest, STARTTLS) or be TLS 1.2's second flight.  Later ones never
 * are, so a long connection pays the sampling a few times at most.
 */
#define EARLY_BYTES 4096

/*
 * Not an operation flag: a stream's first operation begins with what may be
 * an HTTP/2 server's SETTINGS (h2_server_settings()): sent by a server, or
 * received by a client.  Above the 8 bits of vpr_sock_op.flags, so it never
 * reaches a record.
 */
#define EARLY_H2_SETTINGS 0x100

/*
 * The flags of an operation of `bytes` bytes that begins early in its
 * stream.  A stream's first operation reads up to 24 bytes (the HTTP/2
 * preface), the others 5 (a TLS record header): still one read each.
 */
static __always_inline __u32 early_flags(bool at_start, __u32 bytes, __u32 kind, __u64 arg)
{
	__u8 head[H2_PREFACE_LEN] __attribute__((aligned(8))) = {};
	__u32 flags = at_start ? VPR_OP_STREAM_START : 0, n = 0;

	if (bytes >= TLS_RECORD_HEADER_LEN)
		n = user_data_head(kind, arg, bytes,
				   at_start ? H2_PREFACE_LEN : TLS_RECORD_HEADER_LEN, head);
	if (n && tls_handshake_header(head))
		flags |= VPR_OP_TLS_HS;
	if (at_start && h2_preface_match(head, n))
		flags |= VPR_OP_H2_PREFACE;
	else if (at_start && h2_server_settings(head, n))
		flags |= EARLY_H2_SETTINGS;
	return flags;
}

#endif /* VPATH_STREAM_START_H */
