/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Synthetic recordings for the analyzer's tests and benchmarks, written
 * through common/recfile.h exactly as the recorder would write them.
 *
 * Low level: one call per record (synth_op, synth_conn, synth_task, ...).
 * High level: a synth_link is one TCP connection between two recorded (or
 * one recorded and one external) hosts; synth_xfer() moves bytes across it
 * and writes the send op on one end and the matching receive op on the
 * other, with stream positions kept consistent, so a test reads like the
 * story it tells:
 *
 *	l = synth_link__open(lg, 11, 900, web, 21, 4300, "10.0.0.9:40000", "10.0.0.1:80", 0);
 *	synth_xfer(l, SYNTH_C2S, 100, 901, 1000, 4301, 1100);  // request
 *	synth_xfer(l, SYNTH_S2C, 500, 4301, 5000, 901, 5100);  // reply
 *
 * Times given to the synth_* calls are on one global timeline; each host
 * adds its own clock shift (synth_host__set_clock) when writing, like hosts
 * whose monotonic clocks differ.
 */
#ifndef VPATH_SYNTH_H
#define VPATH_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vpath/record.h"

struct synth_host;

/*
 * The format version that hosts created from now on are written in: 0 (the
 * default) for the current one, 1 for the records unpacked (a test whose
 * story needs several blocks of few records).
 */
extern uint32_t synth_version;

/* Creates path; boot_id may be NULL (derived from hostname). NULL on error. */
struct synth_host *synth_host__new(const char *path, const char *hostname, const char *boot_id,
				   uint32_t netns);
/* Same, with the header's wall clock (start_real) this far ahead of the others'. */
struct synth_host *synth_host__new_wall(const char *path, const char *hostname, const char *boot_id,
					uint32_t netns, int64_t wall_ahead_ns);
/* Same, as segment `segment` of a --ring recording (VPR_FILE_SEGMENT). */
struct synth_host *synth_host__new_segment(const char *path, const char *hostname,
					   const char *boot_id, uint32_t netns, uint32_t segment);
/* Shift every timestamp written from now on by delta_ns (this host's clock). */
void synth_host__set_clock(struct synth_host *h, int64_t delta_ns);
/*
 * The network namespace that the VPR_CONN and VPR_ADDR records written from
 * now on name (0 until set), as a recorder of every namespace writes them.
 */
void synth_host__set_netns(struct synth_host *h, uint32_t netns);
/*
 * Buffered mode: records are kept in memory until synth_host__drain(), which
 * writes them sorted by time, the way a recorder writes them.  Lets a
 * generator write requests one after another although they overlap in time.
 */
void synth_host__set_buffered(struct synth_host *h, bool on);
/* Write the buffered records with ts < before (all with UINT64_MAX), sorted. */
void synth_host__drain(struct synth_host *h, uint64_t before);
/* Records written so far. */
uint64_t synth_host__records(const struct synth_host *h);
/* Flush and close; returns 0 or -errno.  NULL-safe. */
int synth_host__close(struct synth_host *h);

void synth_addr(struct synth_host *h, const char *addr);
void synth_task(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint32_t kind,
		const char *comm);
/* Thread tid of process pid exited; signal: what killed it (0: it exited itself). */
void synth_task_exit(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid,
		     uint32_t signal);
/* addrs are "ip:port", local first. */
void synth_conn(struct synth_host *h, uint64_t ts, uint64_t cookie, uint32_t pid, uint8_t role,
		uint8_t origin, uint8_t newstate, const char *local, const char *remote,
		uint32_t snd_seq, uint32_t rcv_seq);
/* connect() by thread tid: the SYN_SENT record, which names the thread. */
void synth_connecting(struct synth_host *h, uint64_t ts, uint64_t cookie, uint32_t pid,
		      uint32_t tid, const char *local, const char *remote);
/* The connection of synth_connecting never came up (SYN_SENT -> CLOSE: refused). */
void synth_refused(struct synth_host *h, uint64_t ts, uint64_t cookie, uint32_t pid,
		   const char *local, const char *remote);
void synth_op(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint64_t cookie,
	      uint8_t dir, uint32_t bytes, uint32_t seq_end);
void synth_op_flags(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint64_t cookie,
		    uint8_t dir, uint32_t bytes, uint32_t seq_end, uint8_t flags);
/* The first len bytes of the operation (tid, ts, cookie, dir, seq_end), as --capture writes them. */
void synth_payload(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint64_t cookie,
		   uint8_t dir, uint32_t bytes, uint32_t seq_end, const void *data, uint16_t len);
/* A write of text (up to VPR_LOG_MAX bytes recorded) by tid to file ino, as --logs writes it. */
void synth_log(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint64_t ino,
	       const char *text);
void synth_drops(struct synth_host *h, uint64_t ts, uint32_t cpu, uint64_t lost);
void synth_clock(struct synth_host *h, uint64_t ts, uint64_t realtime_ns);
/* Thread waker of process pid made thread woken runnable (VPR_WAKEUP). */
void synth_wake(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t waker, uint32_t woken);
/* Thread tid's send on cookie was refused with err (-EPIPE, -ECONNRESET): VPR_SEND_FAILED. */
void synth_send_failed(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid,
		       uint64_t cookie, int32_t err);
/* Go (VPR_GOROUTINE): RUN (thread tid runs goid), NEW or READY (goid created or readied other). */
void synth_go(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint32_t kind,
	      uint64_t goid, uint64_t other);

enum synth_dir {
	SYNTH_C2S, /* client to server */
	SYNTH_S2C,
};

struct synth_link {
	struct synth_host *host[2]; /* [0] client, [1] server; NULL: not recorded */
	uint64_t cookie[2];
	uint32_t pid[2];
	uint32_t seq[2]; /* next stream position of c2s, s2c */
	char addr[2][64];
	bool no_conn_records; /* ops only, as for a socket the recorder never saw open */
	uint8_t op_flags;     /* VPR_OP_* of the operations written from now on */
	uint32_t plain[2];    /* TLS (synth_tls_handshake): next plaintext position of c2s, s2c */
	/*
	 * synth_h2_xfer and synth_h2_tls_xfer follow each HEADERS frame's
	 * record with its block's (VPR_PAYLOAD_H2_FRAME), as --capture 256
	 * writes it: GET / to the server, 200 back, padded to the frame's
	 * length by a literal field (a length of 0, or 6 and more).
	 */
	bool h2_blocks;
	/*
	 * The next synth_h2_xfer's (or synth_h2_tls_xfer's) DATA frames'
	 * payloads, one per frame (NULL: none; NUL-terminated, their first
	 * `length` bytes): each such frame's record is followed by its first
	 * bytes' (VPR_PAYLOAD_H2_DATA), as --capture 256 writes them.  Reset
	 * by the transfer.
	 */
	const char *const *h2_bodies;
	/* By side and enum vpr_dir: a block went (the next is not FIRST). */
	bool h2_block_seen[2][2];
};

/*
 * Open a connection: client (connected) end on ch, server (accepted) end on
 * sh, either may be NULL.  Writes ESTABLISHED conn records on both sides at
 * ts unless origin is VPR_CONN_PREEXISTING (then a preexisting record).
 * Initial sequence numbers are derived from the cookies (distinct, random-looking).
 */
struct synth_link *synth_link__open(struct synth_host *ch, uint64_t ccookie, uint32_t cpid,
				    struct synth_host *sh, uint64_t scookie, uint32_t spid,
				    const char *caddr, const char *saddr, uint64_t ts);
/* Same with the conn record origin/role chosen: role VPR_ROLE_UNKNOWN allowed. */
struct synth_link *synth_link__open_as(struct synth_host *ch, uint64_t ccookie, uint32_t cpid,
				       struct synth_host *sh, uint64_t scookie, uint32_t spid,
				       const char *caddr, const char *saddr, uint64_t ts,
				       uint8_t origin, bool known_roles);
/* Same but writes no conn record at all (a socket only seen through its ops). */
struct synth_link *synth_link__open_silent(struct synth_host *ch, uint64_t ccookie, uint32_t cpid,
					   struct synth_host *sh, uint64_t scookie, uint32_t spid);
/*
 * bytes from one end to the other: one send op by stid at send_ts and one
 * receive op by rtid at recv_ts (an end on a NULL host writes nothing).
 */
void synth_xfer(struct synth_link *l, enum synth_dir d, uint32_t bytes, uint32_t stid,
		uint64_t send_ts, uint32_t rtid, uint64_t recv_ts);
/* Only one side's op: the send (side 0) or the receive (side 1) of the next bytes. */
void synth_xfer_half(struct synth_link *l, enum synth_dir d, bool recv_side, uint32_t bytes,
		     uint32_t tid, uint64_t ts, bool advance);
/* One-way delay of synth_req/synth_rep. */
#define SYNTH_DELAY_NS 5000
/* A request of `bytes` sent by ctid at t, read by stid SYNTH_DELAY_NS later. */
void synth_req(struct synth_link *l, uint32_t bytes, uint32_t ctid, uint64_t t, uint32_t stid);
/* A reply sent by stid at t, read by ctid SYNTH_DELAY_NS later. */
void synth_rep(struct synth_link *l, uint32_t bytes, uint32_t stid, uint64_t t, uint32_t ctid);
/* Reset both ends (conn records straight to CLOSE) and free the link. */
void synth_link__close(struct synth_link *l, uint64_t ts);
/* Close in order, the client first (FIN_WAIT1 / CLOSE_WAIT, then CLOSE), and free the link. */
void synth_link__close_orderly(struct synth_link *l, uint64_t ts);
/* Close in order, the server first (its FIN_WAIT1 made by its process), and free the link. */
void synth_link__close_server_first(struct synth_link *l, uint64_t ts);
/* Free without writing anything (connection still open at the end). */
/* synth_xfer of data, each recorded end's operation followed by its first capture bytes. */
void synth_xfer_data(struct synth_link *l, enum synth_dir d, const void *data, uint32_t bytes,
		     uint16_t capture, uint32_t stid, uint64_t send_ts, uint32_t rtid,
		     uint64_t recv_ts);
/*
 * The hashes of the first len bytes of data as the BPF program computes
 * them for --capture-hash (bpf/payload_hash.h), under key (two words).
 */
void synth_hash_prefixes(const uint64_t key[2], const void *data, uint16_t len,
			 struct vpr_payload_hash *p);
/* synth_xfer of data, each recorded end's operation followed by its hashes (--capture-hash). */
void synth_xfer_hash(struct synth_link *l, enum synth_dir d, const void *data, uint32_t bytes,
		     uint16_t capture, uint32_t stid, uint64_t send_ts, uint32_t rtid,
		     uint64_t recv_ts);
void synth_link__free(struct synth_link *l);
/* One HTTP/2 frame header record (VPR_H2_FRAME) at stream position seq. */
void synth_h2_frame(struct synth_host *h, uint64_t ts, uint32_t tid, uint64_t cookie, uint8_t dir,
		    uint32_t seq, uint8_t type, uint8_t flags, uint32_t stream, uint32_t length);
/* A VPR_H2_LOST record: the recorder lost its place in dir's frames at seq (why: vpr_h2_lost). */
void synth_h2_lost(struct synth_host *h, uint64_t ts, uint32_t tid, uint64_t cookie, uint8_t dir,
		   uint32_t seq, uint8_t why);
/* A frame of synth_h2_xfer: type, flags, stream id, payload length. */
struct synth_h2 {
	uint8_t type, flags;
	uint32_t stream, length;
};
/*
 * One operation at each end carrying frames f[0..n) (after HTTP/2's 24-byte
 * client preface when `preface`, the op then marked VPR_OP_H2_PREFACE), each
 * followed by its frame records as the recorder writes them.
 */
void synth_h2_xfer(struct synth_link *l, enum synth_dir d, bool preface, const struct synth_h2 *f,
		   unsigned n, uint32_t stid, uint64_t send_ts, uint32_t rtid, uint64_t recv_ts);

/*
 * A TLS handshake as the recorder sees it at both ends: the ClientHello and
 * the ServerHello begin their streams (VPR_OP_TLS_HS), then the client's
 * Finished; the plaintext positions of synth_h2_tls_xfer start where the
 * handshake did (record.h, vpr_tls_op).
 */
void synth_tls_handshake(struct synth_link *l, uint32_t ctid, uint32_t stid, uint64_t ts);
/*
 * synth_h2_xfer inside TLS: each end's ciphertext operation (the plaintext
 * and 22 bytes of record), then its VPR_TLS_OP and its frame records marked
 * VPR_H2_IN_TLS at plaintext positions.
 */
void synth_h2_tls_xfer(struct synth_link *l, enum synth_dir d, bool preface,
		       const struct synth_h2 *f, unsigned n, uint32_t stid, uint64_t send_ts,
		       uint32_t rtid, uint64_t recv_ts);

/* A private temporary directory and paths in it, for tests. */
int synth_tmpdir(char *dir, size_t len);
void synth_rmdir(const char *dir);

#endif
