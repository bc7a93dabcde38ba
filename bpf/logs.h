/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Log lines (vpath-record --logs N): the first bytes of each write by a
 * recorded thread to a regular file, a pipe or a unix socket, as a VPR_LOG
 * record with the thread and the time the write returned.  The analyzer
 * gives each line to the request its thread served then (docs/analyzer.md).
 *
 * Off unless asked for: the recorder does not load these programs at all
 * without --logs (their names begin with "log_"), so a host that does not
 * ask pays nothing, not even the syscall tracepoints' entry.  With --logs,
 * a write by a thread the filters leave out costs the filter test; one
 * to anything else (a TCP socket, a tty, /dev/null) one descriptor lookup.
 *
 * Syscall tracepoints: the call's buffer is known at entry, its outcome at
 * exit (a write that failed, EAGAIN on a full pipe, wrote nothing).  Only
 * the first buffer of a vector (writev, sendmsg) is read, as for payloads.
 *
 * Included at the end of vpath.bpf.c (it uses the filters, the flight
 * marks, fd lookup and user_data_first from stream_start.h).
 */
#ifndef VPATH_LOGS_H
#define VPATH_LOGS_H

#include "vpath/record.h"
#include "vpath.h"

#define LOGS_S_IFREG 0100000
#define LOGS_S_IFIFO 0010000
#define LOGS_AF_UNIX 1

/* Set by the recorder between open and load; 0: --logs off (and the programs not loaded). */
const volatile __u32 logs_len = 0; /* 1..VPR_LOG_MAX */
/* The recorder itself: its own writes (the recording) would feed back into it. */
const volatile __u32 logs_self_pid = 0;

/* A write in progress, per thread, from entry to exit. */
struct log_call {
	__u64 data; /* what the call's buffer argument points at */
	__u64 ino;
	__u32 fd;
	__u16 data_kind; /* enum user_data_kind */
	__u8 kind;	 /* enum vpr_log_kind */
	__u8 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct log_call);
} log_calls SEC(".maps");

/* What fd of the current task is, as a log: enum vpr_log_kind, 0 for anything else. */
static __always_inline __u8 log_kind_of(__u32 fd, __u64 *ino)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds;
	struct file *file;
	struct socket *sock;
	umode_t mode;

	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return 0;
	mode = BPF_CORE_READ(file, f_inode, i_mode) & S_IFMT;
	*ino = BPF_CORE_READ(file, f_inode, i_ino);
	if (mode == LOGS_S_IFREG)
		return VPR_LOG_FILE;
	if (mode == LOGS_S_IFIFO)
		return VPR_LOG_PIPE;
	if (mode != S_IFSOCK)
		return 0;
	sock = BPF_CORE_READ(file, private_data);
	if (!sock || BPF_CORE_READ(sock, sk, __sk_common.skc_family) != LOGS_AF_UNIX)
		return 0;
	return VPR_LOG_UNIX;
}

static __always_inline int log_enter(__u64 fd, __u32 data_kind, __u64 data)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct log_call call = {.data = data, .data_kind = (__u16)data_kind};

	if (fd > 0x7fffffff || (pid_tgid >> 32) == logs_self_pid || !current_wanted(pid_tgid) ||
	    !task_netns_wanted((struct task_struct *)bpf_get_current_task()))
		return 0;
	call.fd = (__u32)fd;
	call.kind = log_kind_of(call.fd, &call.ino);
	if (!call.kind)
		return 0;
	/* A full table loses this write's record: count it like one. */
	if (bpf_map_update_elem(&log_calls, &tid, &call, BPF_ANY))
		count_lost(1);
	return 0;
}

/* Bytes reserved for a line's data: logs_len and a spare word (as CAPTURE_ROOM, capture.h). */
#define LOGS_ROOM ((logs_len + 8) & ~7u)

static __always_inline int log_exit(long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct log_call *callp, call;
	struct vpr_log *l;
	struct flight f;
	__u64 buf, room;
	__u32 len;

	callp = bpf_map_lookup_elem(&log_calls, &tid);
	if (!callp)
		return 0;
	call = *callp;
	bpf_map_delete_elem(&log_calls, &tid);
	if (ret <= 0 || !user_data_first(call.data_kind, call.data, &buf, &room))
		return 0;
	len = ret > 0xffffffffl ? 0xffffffffu : (__u32)ret;
	if (len > room)
		len = room;
	if (len > logs_len)
		len = logs_len;
	if (len == 0)
		return 0;
	/* The goroutine the thread runs, for a Go process (the line is its, not the thread's). */
	go_note_running(pid_tgid);
	flight_begin(&f);
	l = bpf_ringbuf_reserve(&events, VPR_LOG_HDR_SIZE + LOGS_ROOM, 0);
	if (!l) {
		count_lost(1);
		flight_end(&f);
		return 0;
	}
	/* Bounded again where the verifier sees it: 1 <= len <= logs_len. */
	len &= VPR_LOG_MAX * 2 - 1;
	if (len == 0 || len > logs_len || len > VPR_LOG_MAX) {
		bpf_ringbuf_discard(l, 0);
		flight_end(&f);
		return 0;
	}
	barrier_var(len);
	/* The stored record's padding after the data must not be old ring memory. */
	*(__u64 *)(l->data + ((len >> 3) << 3)) = 0;
	if (bpf_probe_read_user(l->data, len, (const void *)buf)) {
		bpf_ringbuf_discard(l, 0);
		flight_end(&f);
		return 0;
	}
	l->h.type = VPR_LOG;
	l->h.size = VPR_LOG_SIZE(len);
	l->h.tid = tid;
	l->h.ts_ns = f.ts;
	l->pid = pid_tgid >> 32;
	l->fd = call.fd;
	l->ino = call.ino;
	l->bytes = ret > 0xffffffffl ? 0xffffffffu : (__u32)ret;
	l->len = len;
	l->kind = call.kind;
	l->flags = 0;
	ring_submit(l);
	flight_end(&f);
	return 0;
}

#define LOG_ENTER(name, data_kind)                                       \
	SEC("tracepoint/syscalls/sys_enter_" #name)                      \
	int log_enter_##name(struct trace_event_raw_sys_enter *ctx)      \
	{                                                                \
		return log_enter(ctx->args[0], data_kind, ctx->args[1]); \
	}
#define LOG_EXIT(name)                                            \
	SEC("tracepoint/syscalls/sys_exit_" #name)                \
	int log_exit_##name(struct trace_event_raw_sys_exit *ctx) \
	{                                                         \
		return log_exit(ctx->ret);                        \
	}

LOG_ENTER(write, USER_DATA_BUF)
LOG_EXIT(write)
LOG_ENTER(writev, USER_DATA_IOVEC)
LOG_EXIT(writev)
LOG_ENTER(pwrite64, USER_DATA_BUF)
LOG_EXIT(pwrite64)
LOG_ENTER(pwritev, USER_DATA_IOVEC)
LOG_EXIT(pwritev)
LOG_ENTER(sendto, USER_DATA_BUF)
LOG_EXIT(sendto)
LOG_ENTER(sendmsg, USER_DATA_MSGHDR)
LOG_EXIT(sendmsg)

#endif /* VPATH_LOGS_H */
