/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The records vpath writes: defined once, here.
 *
 * The same structs cross the BPF ring buffer.  A version 1 recording
 * stores them unchanged in its blocks; version 2 packs them (socket
 * operations as differences within their block, every other record's
 * header in varints: common/reccodec.h), and its reader hands out these
 * same structs again.  Every field is fixed-width, naturally aligned, explicitly padded,
 * and stored little-endian; every record is a multiple of 8 bytes and starts
 * with struct vpr_hdr.  docs/format.md is the prose version of this file:
 * change both together and bump VPR_VERSION on any incompatible change.
 *
 * This header is included by BPF code (vmlinux.h provides __u8.. __u64) and
 * by user code (linux/types.h provides them).
 */
#ifndef VPATH_RECORD_H
#define VPATH_RECORD_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define VPR_MAGIC "VPATHREC" /* 8 bytes, no NUL stored */
/*
 * 2: blocks hold packed records (common/reccodec.h), about 7 bytes for a
 * socket operation instead of 40.  Readers read 1 and 2; writers write 2
 * unless told 1 (vpr_file_header.version).
 */
#define VPR_VERSION 2
#define VPR_VERSION_MIN 1	    /* the oldest version this build reads */
#define VPR_BLOCK_MAGIC 0x4b4c4256u /* "VBLK" little-endian */

enum vpr_type {
	VPR_SOCK_OP = 1,      /* one TCP send or receive */
	VPR_CONN = 2,	      /* connection state change or pre-existing connection */
	VPR_TASK = 3,	      /* thread/process fork, exec, exit, or snapshot */
	VPR_CLOCK = 4,	      /* monotonic <-> realtime pair (written by the recorder) */
	VPR_DROPS = 5,	      /* cumulative lost records of one CPU (written by the recorder) */
	VPR_ADDR = 6,	      /* one of the host's own addresses (written by the recorder) */
	VPR_PAYLOAD = 7,      /* first bytes of an operation's data (opt-in: --capture) */
	VPR_WAKEUP = 8,	      /* one thread woke another (scheduler wake-up) */
	VPR_GOROUTINE = 9,    /* Go runtime: a goroutine on a thread, created, made ready */
	VPR_SEND_FAILED = 10, /* a send refused: the connection was reset or shut */
	VPR_H2_FRAME =
		11,	 /* an HTTP/2 frame header at its stream position, or where they are lost */
	VPR_WRITER = 12, /* the program and package version that wrote the file */
	VPR_TLS_OP = 13, /* one libssl read or write: plaintext bytes at their plaintext position */
	VPR_LOG =
		14, /* first bytes of a write to a log: file, pipe, unix socket (opt-in: --logs) */
	VPR_PAYLOAD_HASH = 15, /* keyed hashes of an operation's first bytes (--capture-hash) */
	VPR_TYPE_MAX,
};

/* Common prefix.  ts_ns is CLOCK_MONOTONIC (bpf_ktime_get_ns) of the host. */
struct vpr_hdr {
	__u16 type;
	__u16 size; /* whole record, bytes, multiple of 8 */
	__u32 tid;  /* kernel thread id (0 when no thread applies) */
	__u64 ts_ns;
};

enum vpr_dir {
	VPR_DIR_SEND = 0,
	VPR_DIR_RECV = 1,
};

/*
 * One successful TCP send or receive.  The byte range of the operation in
 * the connection's stream is [seq_end - bytes, seq_end) (mod 2^32): seq_end
 * is write_seq after a send and copied_seq after a receive (less the peer's
 * FIN when the read consumed it), which are equal
 * at the two ends of a connection for the same bytes.
 */
struct vpr_sock_op {
	struct vpr_hdr h;
	__u64 cookie; /* socket cookie, unique per socket per boot */
	__u32 pid;    /* thread group id */
	__u32 bytes;
	__u32 seq_end;
	__u8 dir;   /* enum vpr_dir */
	__u8 flags; /* VPR_OP_* */
	__u16 pad;
};

#define VPR_OP_FALLBACK 0x01 /* captured by the syscall fallback */
/*
 * The range begins at the connection's first data byte in this direction.
 * Compatible addition (no version change): older readers ignore these bits.
 */
#define VPR_OP_STREAM_START 0x02
/*
 * The first bytes are a TLS handshake record header (type 22, version
 * 3.0-3.4, a plausible length); looked at only for operations that begin
 * within the first 4 KiB of their stream.  The bytes are not stored.
 */
#define VPR_OP_TLS_HS 0x04
/*
 * The operation begins its stream and its first bytes are the HTTP/2
 * client connection preface "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" (RFC 9113
 * 3.4): all 24 when the operation has them, else at least the 16 of its
 * request line.  The client's first send and the server's first receive
 * carry it.  The bytes are not stored.
 */
#define VPR_OP_H2_PREFACE 0x08
#define VPR_H2_PREFACE_LEN 24

enum vpr_conn_origin {
	VPR_CONN_STATE = 0,	  /* inet_sock_set_state */
	VPR_CONN_PREEXISTING = 1, /* enumerated when recording (or a segment) started */
};

enum vpr_role {
	VPR_ROLE_UNKNOWN = 0,
	VPR_ROLE_CONNECTED = 1, /* this end called connect(): the client */
	VPR_ROLE_ACCEPTED = 2,	/* this end came from accept(): the server */
};

/*
 * A TCP state change of a socket, or a connection that existed when the
 * recording started.  Addresses are in network byte order as the kernel
 * holds them; IPv4 uses the first 4 bytes of saddr/daddr.  Ports are in host
 * byte order.  snd_seq/rcv_seq are write_seq and copied_seq at that moment.
 */
struct vpr_conn {
	struct vpr_hdr h;
	__u64 cookie;
	__u32 pid;   /* 0 when the change happened outside a process (softirq) */
	__u32 netns; /* network namespace inode number */
	__u8 family; /* AF_INET or AF_INET6 */
	__u8 oldstate;
	__u8 newstate; /* TCP_* as in the kernel: 1 ESTABLISHED .. 12 NEW_SYN_RECV */
	__u8 origin;   /* enum vpr_conn_origin */
	__u8 role;     /* enum vpr_role */
	__u8 pad[3];
	__u16 sport;
	__u16 dport;
	__u32 snd_seq;
	__u32 rcv_seq;
	__u32 pad2;
	__u8 saddr[16];
	__u8 daddr[16];
};

enum vpr_task_kind {
	VPR_TASK_FORK = 0,     /* new thread or process: tid is the child */
	VPR_TASK_EXEC = 1,     /* tid's process image changed: comm is the new name */
	VPR_TASK_EXIT = 2,     /* tid exited */
	VPR_TASK_SNAPSHOT = 3, /* tid existed when recording (or a segment) started */
	VPR_TASK_RENAME = 4,   /* name seen changed (prctl PR_SET_NAME) */
};

#define VPR_COMM_LEN 16

struct vpr_task {
	struct vpr_hdr h;
	__u32 pid;	   /* thread group id of tid */
	__u32 parent_tid;  /* for FORK: the thread that forked; else 0 */
	__u32 kind;	   /* enum vpr_task_kind */
	__u32 exit_signal; /* EXIT: the signal that killed it (SIGKILL, SIGSEGV...); 0 otherwise */
	char comm[VPR_COMM_LEN]; /* NUL-padded */
};

struct vpr_clock {
	struct vpr_hdr h;  /* ts_ns: CLOCK_MONOTONIC */
	__u64 realtime_ns; /* CLOCK_REALTIME read next to ts_ns */
};

/*
 * Records lost on one CPU since recording started (cumulative; h.tid holds
 * the CPU number).  Loss happened between the previous VPR_DROPS record of
 * the same CPU and this one.
 */
struct vpr_drops {
	struct vpr_hdr h;
	__u64 lost;
};

struct vpr_addr {
	struct vpr_hdr h;
	__u32 netns;
	__u32 ifindex;
	__u8 family;
	__u8 prefixlen;
	__u8 pad[6];
	__u8 addr[16];
};

/*
 * The first bytes of one socket operation's data, written only when the
 * user asks for them (vpath-record --capture; docs/security.md).  It follows
 * its operation's VPR_SOCK_OP and names the same operation (tid, ts_ns,
 * cookie, dir, seq_end).  Only len bytes of data are stored: the record's
 * size is VPR_PAYLOAD_SIZE(len), shorter than the struct.  Secrets are
 * replaced before the record reaches a file (VPR_PAYLOAD_REDACTED).
 */
#define VPR_PAYLOAD_MAX 256

struct vpr_payload {
	struct vpr_hdr h;
	__u64 cookie;
	__u32 pid;
	__u32 seq_end; /* as in the operation's vpr_sock_op */
	__u32 bytes;   /* the operation's bytes; data[] holds the first len of them */
	__u16 len;     /* 0..VPR_PAYLOAD_MAX */
	__u8 dir;      /* enum vpr_dir */
	__u8 flags;    /* VPR_PAYLOAD_* */
	__u8 data[VPR_PAYLOAD_MAX];
};

#define VPR_PAYLOAD_REDACTED 0x01 /* some bytes of data[] were replaced (docs/security.md) */
/*
 * The bytes are an HTTP/2 HEADERS or CONTINUATION frame's, not an
 * operation's: seq_end and bytes are the frame's end and its size (the
 * 9-byte header and its payload), data[] its header and the first bytes of
 * its header block fragment, all of that the operation's buffer held (at
 * most the capture length).  Written on connections whose frames are
 * followed (VPR_H2_FRAME), after the frame's record; h.tid and h.ts_ns are
 * the frame record's.  HPACK (RFC 7541) needs every block of a direction
 * whole and in order, so the two flags after this one say where that holds.
 */
#define VPR_PAYLOAD_H2_FRAME 0x02
/* The direction's first header block: HPACK's dynamic table is empty before it. */
#define VPR_PAYLOAD_H2_FIRST 0x04
/* An earlier block of the direction was not captured whole (cut, lost, unreadable). */
#define VPR_PAYLOAD_H2_BROKEN 0x08
/*
 * With H2_FRAME: a DATA frame's, not a header block's: data[] its header
 * and its payload's first bytes (a message, as an operation's first bytes
 * are one).  Outside HPACK's order: H2_FIRST and H2_BROKEN are not set.
 */
#define VPR_PAYLOAD_H2_DATA 0x10
#define VPR_PAYLOAD_HDR_SIZE 40u
#define VPR_PAYLOAD_SIZE(len) (VPR_PAYLOAD_HDR_SIZE + (((__u32)(len) + 7u) & ~7u))

/*
 * Keyed hashes of the first bytes of one socket operation's data, never the
 * bytes, written only when the user asks for them (vpath-record
 * --capture-hash N; docs/recorder.md).  Like a VPR_PAYLOAD it follows its
 * operation's VPR_SOCK_OP and names it by the same fields, at the same
 * offsets (the recorder holds it with the payloads).  Each hash is
 * SipHash-2-4 under a key drawn at random for the recording and stored
 * nowhere: equal hashes within one recording mean equal bytes, and nothing
 * else can be learnt from them.  hash covers the first len bytes; hash_8
 * and hash_24 the first 8 and 24 (0 when len is shorter), so that two
 * operations hashed over different lengths still compare on a common prefix.
 * A compatible addition to version 2: older readers step over it.
 */
#define VPR_PAYLOAD_HASH_MAX 256

struct vpr_payload_hash {
	struct vpr_hdr h;
	__u64 cookie;
	__u32 pid;
	__u32 seq_end; /* as in the operation's vpr_sock_op */
	__u32 bytes;   /* the operation's bytes; the first len of them were hashed */
	__u16 len;     /* 1..VPR_PAYLOAD_HASH_MAX */
	__u8 dir;      /* enum vpr_dir */
	__u8 flags;    /* 0 */
	__u64 hash;    /* of the first len bytes */
	__u64 hash_8;  /* of the first 8 bytes, 0 when len < 8 */
	__u64 hash_24; /* of the first 24 bytes, 0 when len < 24 */
};

/*
 * A thread made another runnable (sched_waking), recorded only between
 * threads that can matter (docs/recorder.md).  h.tid is the waker (0 when
 * the wake-up came from interrupt context), h.ts_ns when it happened.
 */
struct vpr_wakeup {
	struct vpr_hdr h;
	__u32 pid; /* the waker's thread group, 0 from interrupt context */
	__u32 woken_tid;
	__u32 woken_pid;
	__u32 flags;
};

enum vpr_go_kind {
	VPR_GO_RUN = 0,	  /* thread h.tid runs goroutine goid (from this moment on) */
	VPR_GO_NEW = 1,	  /* goroutine goid created goroutine other */
	VPR_GO_READY = 2, /* goroutine goid made goroutine other runnable */
	/*
	 * goroutine goid called grpc-go's client transport Write for its
	 * HTTP/2 stream `other` (docs/format.md); readers older than it skip it.
	 */
	VPR_GO_H2_WRITE = 3,
	/*
	 * process pid exec'ed a Go binary whose probes are not in place yet
	 * (stamped at the exec; goid, other 0): its threads' operations until
	 * their goroutine's RUN are a goroutine's, not the thread's
	 * (docs/format.md); readers older than it skip it.
	 */
	VPR_GO_PENDING = 4,
};

/* What the Go runtime probes saw (docs/recorder.md).  h.tid: the OS thread. */
struct vpr_goroutine {
	struct vpr_hdr h;
	__u32 pid;
	__u32 kind; /* enum vpr_go_kind */
	__u64 goid;
	__u64 other; /* NEW, READY: the goroutine created or made ready; H2_WRITE: stream id */
};

/*
 * A send on a TCP connection that the kernel refused because the
 * connection was reset or shut down (EPIPE, ECONNRESET): what the thread
 * meant to send never left, so no operation stands for it.  Rare by nature
 * (a peer killed, a connection torn down under a request); every other
 * failure (EAGAIN on a full buffer, EINTR) is not recorded.
 */
struct vpr_send_failed {
	struct vpr_hdr h; /* h.tid: the thread whose send failed */
	__u64 cookie;
	__u32 pid;
	__s32 err; /* the negative errno the send returned */
};

/*
 * One HTTP/2 frame header (RFC 9113 4.1) of a connection whose stream began
 * with the client preface (VPR_OP_H2_PREFACE), at its stream position:
 * never its payload.  kind VPR_H2_LOST says instead that this direction's
 * frames are unknown from seq on (the recorder lost its place: a reason in
 * type), and no more records follow for it.  h.tid and h.ts_ns are those
 * of the operation that carried the header's last byte.
 */
struct vpr_h2_frame {
	struct vpr_hdr h;
	__u64 cookie;	 /* socket cookie, as in vpr_sock_op */
	__u32 seq;	 /* stream position of the frame's first byte (its header's) */
	__u32 stream_id; /* 31 bits: the reserved bit is dropped */
	__u32 length;	 /* payload bytes after the 9-byte header: 24 bits */
	__u8 type;  /* frame type: 0 DATA .. 9 CONTINUATION, or another; LOST: enum vpr_h2_lost */
	__u8 flags; /* the frame's flags (END_STREAM 0x1, END_HEADERS 0x4, ...); LOST: 0 */
	__u8 dir;   /* enum vpr_dir, as seen by this socket */
	__u8 kind;  /* enum vpr_h2_kind */
};

enum vpr_h2_kind {
	VPR_H2_HEADER = 0, /* a frame header */
	VPR_H2_LOST = 1,   /* frames unknown from seq on */
};

/*
 * Or'ed into kind: the frame was read in a TLS connection's plaintext
 * (libssl, VPR_TLS_OP), and seq is a plaintext position.  Older readers see
 * a kind they do not know and skip the record.
 */
#define VPR_H2_IN_TLS 0x10

/* Why a direction's frames are lost (vpr_h2_frame.type of a VPR_H2_LOST). */
enum vpr_h2_lost {
	VPR_H2_LOST_GAP = 1, /* bytes went by unseen (filtered, a call without a buffer, a race) */
	VPR_H2_LOST_UNREADABLE = 2,  /* the caller's buffer could not be found or read */
	VPR_H2_LOST_TOO_MANY = 3,    /* more headers in one operation than the recorder walks */
	VPR_H2_LOST_IMPLAUSIBLE = 4, /* bytes no peer may send as a header: the place was lost */
	VPR_H2_LOST_NO_STATE = 5,    /* no room to follow the connection */
};

/*
 * Which program wrote the file: its name and package version (the top-level
 * VERSION file, as its --version prints), NUL-padded, for the user who meets
 * a recording and an analyzer of different releases.  Written once at the
 * start of every file and ring segment, beside the first VPR_CLOCK and with
 * its stamp.  A compatible addition to version 1: older readers step over it
 * by size.  (struct vpr_writer, common/recfile.h, is the object writing files.)
 */
#define VPR_WRITER_VERSION_LEN 32
#define VPR_WRITER_PROGRAM_LEN 16

struct vpr_writer_info {
	struct vpr_hdr h;		      /* h.tid: 0 */
	char version[VPR_WRITER_VERSION_LEN]; /* "0.1": NUL-padded, at most 31 characters */
	char program[VPR_WRITER_PROGRAM_LEN]; /* "vpath-record": NUL-padded */
};

/*
 * The first bytes of one write by a recorded thread to a regular file, a
 * pipe or a unix socket (write, writev, pwrite64, pwritev, sendto, sendmsg),
 * written only when the user asks for them (vpath-record --logs N;
 * docs/security.md).  h.tid wrote them; h.ts_ns is when the write returned.
 * Only len bytes of data are stored: the record's size is VPR_LOG_SIZE(len).
 * Secrets are replaced before the record reaches a file (VPR_LOG_REDACTED).
 * The same size as a vpr_payload at most, so that the recorder holds both in
 * one queue.  A compatible addition to version 1: older readers step over it.
 */
#define VPR_LOG_MAX 256

enum vpr_log_kind {
	VPR_LOG_FILE = 1, /* a regular file */
	VPR_LOG_PIPE = 2, /* a pipe or FIFO (a logging collector, a container's stdout) */
	VPR_LOG_UNIX = 3, /* a unix socket (journald, syslog) */
};

struct vpr_log {
	struct vpr_hdr h;
	__u32 pid;
	__u32 fd;    /* the descriptor written */
	__u64 ino;   /* inode number of the file, pipe or socket: lines are cut per (thread, ino) */
	__u32 bytes; /* what the write wrote; data[] holds the first len of them */
	__u16 len;   /* 1..VPR_LOG_MAX */
	__u8 kind;   /* enum vpr_log_kind */
	__u8 flags;  /* VPR_LOG_* */
	__u8 data[VPR_LOG_MAX];
};

#define VPR_LOG_REDACTED 0x01 /* some bytes of data[] were replaced (docs/security.md) */
#define VPR_LOG_HDR_SIZE 40u
#define VPR_LOG_SIZE(len) (VPR_LOG_HDR_SIZE + (((__u32)(len) + 7u) & ~7u))

/*
 * One SSL_read/SSL_write (or their _ex forms) of OpenSSL's libssl that moved
 * plaintext on a TCP connection the recorder tied to the SSL object
 * (docs/recorder.md, "TLS"), written only on connections whose plaintext
 * carries HTTP/2 (it begins with the client preface, or a server's
 * SETTINGS on trust): the operations the frame records (VPR_H2_FRAME with
 * VPR_H2_IN_TLS) that follow it belong to.  Its layout is vpr_sock_op's;
 * what differs is the space of seq_end.  A connection's plaintext is one
 * stream per direction, the same bytes at both ends whatever the TLS
 * records and TCP segments were, and its positions are the direction's
 * first TCP sequence number (that of the handshake's first byte, which
 * both ends know) plus the plaintext bytes before: so both ends give a
 * plaintext byte the same position, and connections do not share positions.
 * h.tid and h.ts_ns are the calling thread's and the call's return.
 */
struct vpr_tls_op {
	struct vpr_hdr h;
	__u64 cookie; /* the TCP socket's cookie, as in vpr_sock_op */
	__u32 pid;
	__u32 bytes;   /* plaintext bytes the call read or wrote */
	__u32 seq_end; /* plaintext position after them (above) */
	__u8 dir;      /* enum vpr_dir */
	__u8 flags;    /* VPR_OP_STREAM_START, VPR_OP_H2_PREFACE: of the plaintext */
	__u16 pad;
};

/*
 * Any one record of fixed size: room for the largest, for code that holds
 * records of every type.  A vpr_payload is not among them (up to 296 bytes).
 */
union vpr_any {
	struct vpr_hdr h;
	struct vpr_sock_op op;
	struct vpr_conn conn;
	struct vpr_task task;
	struct vpr_clock clock;
	struct vpr_drops drops;
	struct vpr_addr addr;
	struct vpr_wakeup wakeup;
	struct vpr_goroutine go;
	struct vpr_send_failed send_failed;
	struct vpr_h2_frame h2;
	struct vpr_tls_op tls_op;
	struct vpr_payload_hash payload_hash;
};

#ifndef __VMLINUX_H__
_Static_assert(sizeof(struct vpr_hdr) == 16, "vpr_hdr layout");
_Static_assert(sizeof(struct vpr_sock_op) == 40, "vpr_sock_op layout");
_Static_assert(sizeof(struct vpr_conn) == 88, "vpr_conn layout");
_Static_assert(sizeof(struct vpr_task) == 48, "vpr_task layout");
_Static_assert(sizeof(struct vpr_clock) == 24, "vpr_clock layout");
_Static_assert(sizeof(struct vpr_drops) == 24, "vpr_drops layout");
_Static_assert(sizeof(struct vpr_addr) == 48, "vpr_addr layout");
_Static_assert(__builtin_offsetof(struct vpr_payload, data) == VPR_PAYLOAD_HDR_SIZE,
	       "vpr_payload layout");
_Static_assert(sizeof(struct vpr_payload_hash) == 64, "vpr_payload_hash layout");
_Static_assert(__builtin_offsetof(struct vpr_payload_hash, flags) ==
		       __builtin_offsetof(struct vpr_payload, flags),
	       "vpr_payload_hash: held like a payload");
_Static_assert(sizeof(struct vpr_wakeup) == 32, "vpr_wakeup layout");
_Static_assert(sizeof(struct vpr_goroutine) == 40, "vpr_goroutine layout");
_Static_assert(sizeof(struct vpr_send_failed) == 32, "vpr_send_failed layout");
_Static_assert(sizeof(struct vpr_h2_frame) == 40, "vpr_h2_frame layout");
_Static_assert(__builtin_offsetof(struct vpr_h2_frame, seq) == 24, "vpr_h2_frame layout");
_Static_assert(__builtin_offsetof(struct vpr_h2_frame, type) == 36, "vpr_h2_frame layout");
_Static_assert(sizeof(struct vpr_tls_op) == 40, "vpr_tls_op layout");
_Static_assert(__builtin_offsetof(struct vpr_tls_op, seq_end) == 32, "vpr_tls_op layout");
_Static_assert(sizeof(struct vpr_writer_info) == 64, "vpr_writer_info layout");
_Static_assert(__builtin_offsetof(struct vpr_writer_info, program) == 48, "vpr_writer_info layout");
_Static_assert(__builtin_offsetof(struct vpr_log, data) == VPR_LOG_HDR_SIZE, "vpr_log layout");
_Static_assert(__builtin_offsetof(struct vpr_log, bytes) == 32, "vpr_log layout");
_Static_assert(sizeof(struct vpr_log) == 296, "vpr_log layout");
_Static_assert(sizeof(struct vpr_log) == sizeof(struct vpr_payload),
	       "vpr_log: held like a payload");
_Static_assert(sizeof(union vpr_any) == sizeof(struct vpr_conn),
	       "vpr_any: the largest is vpr_conn");
#endif

/*
 * File layout (docs/format.md): one struct vpr_file_header, then blocks.
 * Each block is struct vpr_block_header followed by `len` bytes of records
 * (version 1: the structs; version 2: count packed records, then zero
 * padding to a multiple of 8); crc is zlib crc32 of those bytes.  A reader stops at the first block that
 * is short or whose CRC fails; everything before it is intact.
 */
#define VPR_HOSTNAME_LEN 64
#define VPR_ID_LEN 40
#define VPR_KERNEL_LEN 64

#define VPR_FILE_FALLBACK 0x1	   /* recorded with the syscall fallback */
#define VPR_FILE_SEGMENT 0x2	   /* one segment of a --ring recording */
#define VPR_FILE_PAYLOAD 0x4	   /* may hold VPR_PAYLOAD records (--capture; docs/security.md) */
#define VPR_FILE_LOGS 0x8	   /* may hold VPR_LOG records (--logs; docs/security.md) */
#define VPR_FILE_PAYLOAD_HASH 0x10 /* may hold VPR_PAYLOAD_HASH records (--capture-hash) */

struct vpr_file_header {
	char magic[8];	     /* VPR_MAGIC */
	__u32 version;	     /* VPR_VERSION, or 1 (VPR_VERSION_MIN) */
	__u32 header_size;   /* sizeof(struct vpr_file_header) */
	__u64 start_mono_ns; /* CLOCK_MONOTONIC when the file was started */
	__u64 start_real_ns; /* CLOCK_REALTIME at the same moment */
	__u32 flags;	     /* VPR_FILE_* */
	__u32 segment;	     /* segment number in a ring (0 otherwise) */
	__u32 netns;	     /* netns filter, 0 when all namespaces */
	__u32 header_crc;    /* crc32 of this header with header_crc = 0 */
	char hostname[VPR_HOSTNAME_LEN];
	char machine_id[VPR_ID_LEN]; /* /etc/machine-id, 32 hex digits */
	char boot_id[VPR_ID_LEN];    /* /proc/sys/kernel/random/boot_id */
	char kernel[VPR_KERNEL_LEN]; /* uname -r */
};

struct vpr_block_header {
	__u32 magic; /* VPR_BLOCK_MAGIC */
	__u32 len;   /* bytes of records that follow */
	__u32 crc;   /* crc32 of those bytes */
	__u32 count; /* records in the block */
};

#define VPR_BLOCK_MAX (1u << 20) /* a reader rejects longer blocks as corrupt */

#ifndef __VMLINUX_H__
_Static_assert(sizeof(struct vpr_file_header) == 48 + 64 + 40 + 40 + 64, "header layout");
_Static_assert(sizeof(struct vpr_block_header) == 16, "block header layout");
#endif

#endif /* VPATH_RECORD_H */
