/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the BPF side and the recorder agree on besides the records
 * (include/vpath/record.h): limits of the filters set in .rodata, and the
 * batch that carries socket operations through the ring buffer.
 */
#ifndef VPATH_BPF_H
#define VPATH_BPF_H

#include "vpath/record.h"

#define VPATH_MAX_PIDS 16
#define VPATH_MAX_PORTS 16

/* Default ring buffer size; the recorder may change it before load. */
#define VPATH_RINGBUF_DEFAULT (16u << 20)

/*
 * Socket operations are staged per CPU and cross the ring buffer
 * VPATH_BATCH_OPS at a time: one ring reservation (a spinlock shared by
 * all CPUs) per batch instead of per operation.  Within a batch, and
 * between the batches of one CPU, operations are in timestamp order.  The
 * recorder unpacks batches and merges the CPUs' streams by timestamp; a
 * batch never reaches a file.  Other records cross the ring one by one.
 */
#define VPATH_BATCH_OPS 64
#define VPATH_RING_BATCH 0x8000 /* in the place of vpr_hdr.type; no record type has it */

struct vpath_batch {
	__u16 type;  /* VPATH_RING_BATCH */
	__u16 count; /* 1..VPATH_BATCH_OPS operations follow */
	__u32 cpu;   /* the CPU whose operations these are */
	struct vpr_sock_op ops[VPATH_BATCH_OPS];
};

/*
 * A CPU's batch being filled, in a per-CPU array.  busy is held by the
 * program filling or sending it; flush_req is left by a flush that found it
 * held, for the holder to send the batch when it lets go.
 *
 * depth and since say what the recorder cannot see yet: while depth > 0 a
 * program on this CPU is writing records (nested ones in interrupts count
 * too), and none of them is stamped before since.  The recorder reads them
 * each round and writes nothing stamped at or after since until that CPU
 * is done, however long it is held up (preempted, or its vCPU descheduled
 * by the host).  since may be older than the program now running, never
 * newer: that only makes the recorder wait a round longer.
 */
struct vpath_stage {
	__u32 busy;
	__u32 flush_req;
	__u32 depth;
	__u32 pad;
	__u64 since;
	struct vpath_batch batch;
};

/* The bytes of a batch of n operations in the ring. */
#define VPATH_BATCH_SIZE(n) \
	(__builtin_offsetof(struct vpath_batch, ops) + (n) * sizeof(struct vpr_sock_op))

/*
 * Go processes (user/golang.c, docs/recorder.md): where a thread's running
 * goroutine is found, by process (go_procs) and by executable (go_exes, so
 * that a process exec'ed later from a named binary is known at exec).
 */
struct vpath_go_offsets {
	__s32 tls_g;  /* the g pointer is at fs base + tls_g */
	__u32 g_goid; /* offset of goid in runtime.g */
};

struct vpath_go_exe {
	__u64 ino;
	__u32 dev; /* the kernel's encoding: major << 20 | minor */
	__u32 pad;
};

#define VPATH_MAX_GO_PROCS 4096
#define VPATH_MAX_GO_EXES 64

/*
 * go_pid_bits: a bit per process id that may be in go_procs, set before
 * its entry and never cleared, 64 ids a word, every id up to the kernel's
 * PID_MAX_LIMIT (2^22): 512 KiB.
 */
#define VPATH_GO_PID_WORDS (1u << 16)
#define VPATH_GO_PID_WORD(pid) ((pid) >> 6)
#define VPATH_GO_PID_BIT(pid) (1ull << ((pid)&63))

/*
 * An executable file as the exec watch (bpf/exec_watch.h, user/exec_watch.c)
 * tells it apart: the inode, and its modification time so that an inode
 * number reused, or a file rewritten in place, is a new executable.
 */
struct vpath_exe_id {
	__u64 ino;
	__u32 dev; /* the kernel's encoding: major << 20 | minor */
	__u32 mtime_nsec;
	__s64 mtime_sec;
};

/*
 * Through the exec_news ring: a process exec'ed an executable the recorder
 * has not decided about yet (the first exec of each, and every exec of it
 * while the recorder is still looking at it).
 */
struct vpath_exec_news {
	struct vpath_exe_id exe;
	__u32 pid; /* thread group id */
	__u32 pad;
	__u64 ts; /* bpf_ktime_get_ns() at the exec */
};

/* exec_seen's values: what the recorder knows of an executable. */
#define VPATH_EXE_PENDING 1 /* told, not decided yet: each exec of it is told too */
#define VPATH_EXE_DECIDED 2 /* its execs are not told again */

#endif /* VPATH_BPF_H */
