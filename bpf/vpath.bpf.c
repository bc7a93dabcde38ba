// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vpath kernel side: which thread sent or received how many bytes on which
 * TCP connection, when; plus connection state changes and thread lifecycles.
 *
 * Records go to one ring buffer as the structs of include/vpath/record.h;
 * socket operations, the bulk, go in per-CPU batches (bpf/vpath.h).  The
 * per-operation path is kept short: filters configured in .rodata are
 * resolved by the verifier at load time, so an unused filter costs nothing.
 *
 * Two ways to see socket operations, chosen by the recorder at load time:
 * - tp_btf/sock_{send,recv}_length (kernel 6.2+): one event per call with
 *   the struct sock at hand;
 * - the fallback: syscall tracepoints; enter remembers the fd per thread,
 *   exit walks task->files to the socket.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "vpath/record.h"
#include "vpath.h"
#include "stream_start.h"

#define AF_INET 2
#define AF_INET6 10
#define SOCK_STREAM 1
#define MSG_PEEK 2
#define EPIPE 32 /* errno values (uapi asm-generic/errno*.h): vmlinux.h has no macros */
#define ECONNRESET 104
#define S_IFMT 00170000
#define S_IFSOCK 0140000
#define PF_IO_WORKER 0x00000010
#define PF_USER_WORKER 0x00004000
#define PF_KTHREAD 0x00200000

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Filters, set by the recorder between open and load. */
const volatile __u32 filter_pids[VPATH_MAX_PIDS] = {};
const volatile __u32 filter_npids = 0;
const volatile __u64 filter_cgroup = 0;
const volatile __u32 filter_netns = 0;
const volatile __u16 filter_ports[VPATH_MAX_PORTS] = {};
const volatile __u32 filter_nports = 0;
/* Wake the reader only once this many bytes wait in the ring. */
const volatile __u64 wakeup_bytes = VPATH_RINGBUF_DEFAULT / 16;
/* Tests only (--test-stall): every test_stall_every-th operation stalls this long. */
const volatile __u64 test_stall_ns = 0;
const volatile __u32 test_stall_every = 1;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, VPATH_RINGBUF_DEFAULT);
} events SEC(".maps");

/*
 * Each CPU's batch of socket operations (bpf/vpath.h).  A program that
 * finds its CPU's batch held (it interrupted the holder) reserves its
 * record in the ring directly.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vpath_stage);
} stages SEC(".maps");

/* Set by the recorder when it cannot have CPUs flush their batches: then no batching. */
__u32 batches_off = 0;

/* Records that did not fit into the ring, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} lost SEC(".maps");

/*
 * Processes that did a recorded socket operation: only their threads'
 * wake-ups of one another can say where a request's work went.  Marked
 * from the operation path through a per-CPU memo of the last process
 * marked, so that a busy process costs an array lookup per operation.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} tcp_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tcp_proc_memo SEC(".maps");

/* Fallback: the socket call in progress, per thread. */
struct fallback_call {
	__u32 fd;
	__u32 data_kind; /* enum user_data_kind */
	__u64 data;	 /* what the call's second argument points at */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct fallback_call);
} fallback_fds SEC(".maps");

/* Fallback: sockets given a synthetic cookie whose VPR_CONN was written. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} fallback_announced SEC(".maps");

static __always_inline void count_lost(__u32 n)
{
	__u32 zero = 0;
	__u64 *count = bpf_map_lookup_elem(&lost, &zero);

	/* Atomic: a softirq program may interrupt us on this CPU. */
	if (count)
		__sync_fetch_and_add(count, n);
}

/*
 * Records in flight on this CPU (struct vpath_stage): marked before the
 * stamp is taken, unmarked once the record is in the ring or the batch.
 * Plain increments, not atomics: these programs run with preemption off,
 * so only an interrupt's program can come between the load and the store,
 * and it leaves depth as it found it.
 */
struct flight {
	struct vpath_stage *s; /* NULL only if the map lookup failed (never) */
	__u64 ts;	       /* the stamp of the records written under it */
};

static __always_inline void flight_begin(struct flight *f)
{
	__u32 zero = 0, depth;

	f->s = bpf_map_lookup_elem(&stages, &zero);
	if (!f->s) {
		f->ts = bpf_ktime_get_ns();
		return;
	}
	depth = *(volatile __u32 *)&f->s->depth;
	*(volatile __u32 *)&f->s->depth = depth + 1;
	/* Marked before stamped: a recorder that sees no mark sees no older stamp. */
	asm volatile("" ::: "memory");
	f->ts = bpf_ktime_get_ns();
	if (!depth)
		*(volatile __u64 *)&f->s->since = f->ts;
}

static __always_inline void flight_end(struct flight *f)
{
	asm volatile("" ::: "memory");
	if (f->s)
		*(volatile __u32 *)&f->s->depth = *(volatile __u32 *)&f->s->depth - 1;
}

/* Room in the ring, or NULL and one more record counted lost. */
static __always_inline void *ring_reserve(__u32 size)
{
	void *rec = bpf_ringbuf_reserve(&events, size, 0);

	if (!rec)
		count_lost(1);
	return rec;
}

/*
 * A wake-up per event would cost more than the event; the recorder's timed
 * poll picks records up.  Only when the ring fills faster than that is the
 * reader woken early.  The fill level is looked at for about one record in
 * 64 (the low bits of the nanosecond timestamp serve as the dice): that is
 * often enough at any rate that could fill the ring, and spares the query
 * on the hot path.
 */
static __always_inline void ring_submit(void *rec)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	if ((((struct vpr_hdr *)rec)->ts_ns & 63) == 0 &&
	    bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(rec, flags);
}

/* A lone record, in flight from here to submit(); f->ts is its stamp. */
static __always_inline void *reserve(__u32 size, struct flight *f)
{
	void *rec;

	flight_begin(f);
	rec = ring_reserve(size);
	if (!rec)
		flight_end(f);
	return rec;
}

static __always_inline void submit(void *rec, struct flight *f)
{
	ring_submit(rec);
	flight_end(f);
}

#include "capture.h"
#include "payload_hash.h"

/* ---- per-CPU batches of socket operations ---- */

/*
 * Sends this CPU's batch; the caller holds it.  The ring's fill level is
 * checked once per batch, which is cheap at this rate.
 */
static __always_inline void stage_send(struct vpath_stage *s)
{
	__u32 n = s->batch.count;
	__u64 flags = BPF_RB_NO_WAKEUP;

	s->flush_req = 0;
	if (n == 0)
		return;
	if (n > VPATH_BATCH_OPS)
		n = VPATH_BATCH_OPS;
	s->batch.type = VPATH_RING_BATCH;
	s->batch.cpu = bpf_get_smp_processor_id();
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&events, &s->batch, VPATH_BATCH_SIZE(n), flags))
		count_lost(n);
	s->batch.count = 0;
}

/*
 * Takes this CPU's batch if no program on this CPU holds it.  A plain test
 * and set, not an atomic exchange: these programs run with preemption off
 * (tracepoint probes; the flush in an IPI or with preemption off), so only
 * an interrupt can come between the test and the set, and a program run
 * from it ends before the interrupted one goes on, leaving the flag as it
 * found it.  (An atomic exchange costs a locked instruction per operation
 * and needs kernel 5.12.)
 */
static __always_inline bool stage_hold(struct vpath_stage *s)
{
	if (*(volatile __u32 *)&s->busy)
		return false;
	*(volatile __u32 *)&s->busy = 1;
	asm volatile("" ::: "memory");
	return true;
}

static __always_inline void stage_let_go(struct vpath_stage *s)
{
	asm volatile("" ::: "memory");
	*(volatile __u32 *)&s->busy = 0;
	asm volatile("" ::: "memory");
}

/*
 * This CPU's batch, held; NULL if another program on this CPU holds it.
 * It has a free slot: a batch is sent as soon as it is full.
 */
static __always_inline struct vpath_stage *stage_acquire(struct vpath_stage *s)
{
	if (batches_off || !s || !stage_hold(s))
		return NULL;
	return s;
}

/*
 * Lets go of the batch, sending it when full or when a flush came while it
 * was held.  flush_req is looked at after letting go: a flush arriving
 * before that is seen here, one arriving after finds the batch free.
 */
static __always_inline void stage_release(struct vpath_stage *s)
{
	if (s->batch.count >= VPATH_BATCH_OPS)
		stage_send(s);
	stage_let_go(s);
	if (*(volatile __u32 *)&s->flush_req && stage_hold(s)) {
		stage_send(s);
		stage_let_go(s);
	}
}

/*
 * Run by the recorder on each CPU in turn (BPF_PROG_TEST_RUN with
 * BPF_F_TEST_RUN_ON_CPU) before it drains the ring, so that operations of
 * a CPU that has gone quiet do not wait in its batch: after it, every
 * operation stamped before it was started is in the ring, unless it
 * returns 1: a program on that CPU held the batch, and sends it when done.
 */
SEC("raw_tp")
int flush_stage(void *ctx)
{
	__u32 zero = 0;
	struct vpath_stage *s = bpf_map_lookup_elem(&stages, &zero);

	if (!s)
		return 0;
	if (!stage_hold(s)) {
		*(volatile __u32 *)&s->flush_req = 1;
		return 1;
	}
	stage_send(s);
	stage_let_go(s);
	return 0;
}

/* The socket's cookie: generated once per socket, so the helper is needed only the first time. */
static __always_inline __u64 sk_cookie(struct sock *sk)
{
	__u64 cookie = sk->__sk_common.skc_cookie.counter;

	return cookie ? cookie : bpf_get_socket_cookie(sk);
}

static __always_inline void fill_hdr(struct vpr_hdr *h, __u16 type, __u16 size, __u32 tid, __u64 ts)
{
	h->type = type;
	h->size = size;
	h->tid = tid;
	h->ts_ns = ts;
}

static __always_inline bool pid_wanted(__u32 tgid)
{
	if (!filter_npids)
		return true;
	for (int i = 0; i < VPATH_MAX_PIDS; i++) {
		if (i >= filter_npids)
			break;
		if (filter_pids[i] == tgid)
			return true;
	}
	return false;
}

static __always_inline bool ports_wanted(__u16 lport, __u16 rport)
{
	if (!filter_nports)
		return true;
	for (int i = 0; i < VPATH_MAX_PORTS; i++) {
		if (i >= filter_nports)
			break;
		if (filter_ports[i] == lport || filter_ports[i] == rport)
			return true;
	}
	return false;
}

/* The calling thread passes the pid and cgroup filters. */
static __always_inline bool current_wanted(__u64 pid_tgid)
{
	if (!pid_wanted(pid_tgid >> 32))
		return false;
	if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
		return false;
	return true;
}

static __always_inline bool task_netns_wanted(struct task_struct *task)
{
	__u32 inum;

	if (!filter_netns)
		return true;
	inum = BPF_CORE_READ(task, nsproxy, net_ns, ns.inum);
	/* An exiting task may have dropped its namespaces: keep its record. */
	return inum == 0 || inum == filter_netns;
}

static __always_inline bool sk_is_inet(const struct sock *sk)
{
	__u16 family = sk->__sk_common.skc_family;

	return family == AF_INET || family == AF_INET6;
}

/* TCP over IPv4/IPv6, read through BTF pointers (tp_btf programs). */
static __always_inline bool sk_is_tcp(const struct sock *sk)
{
	if (!sk_is_inet(sk))
		return false;
	return BPF_CORE_READ_BITFIELD(sk, sk_protocol) == IPPROTO_TCP &&
	       BPF_CORE_READ_BITFIELD(sk, sk_type) == SOCK_STREAM;
}

/* The same for plain pointers (classic tracepoints). */
static __always_inline bool sk_is_tcp_probed(const struct sock *sk)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);

	if (family != AF_INET && family != AF_INET6)
		return false;
	return BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol) == IPPROTO_TCP &&
	       BPF_CORE_READ_BITFIELD_PROBED(sk, sk_type) == SOCK_STREAM;
}

/* Socket filters (netns, ports); they read through probes so both program kinds can use them. */
static __always_inline bool sk_wanted(const struct sock *sk)
{
	if (filter_netns && BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum) != filter_netns)
		return false;
	if (filter_nports) {
		__u16 lport = BPF_CORE_READ(sk, __sk_common.skc_num);
		__u16 rport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));

		return ports_wanted(lport, rport);
	}
	return true;
}

/*
 * The end of a read's byte range in the stream.  tcp_recvmsg() counts the
 * peer's FIN as one more sequence number when the read that returns the
 * last data also consumes the FIN, but the peer's write_seq for that data
 * does not include its FIN: without this the last message before a close
 * would be one byte off and its two ends would not pair.  The FIN was
 * consumed by this read iff one arrived (SOCK_DONE, set only by tcp_fin())
 * and nothing is left unread, not even the FIN (copied_seq == rcv_nxt).
 */
static __always_inline __u32 recv_seq_end(__u32 copied_seq, __u32 rcv_nxt, unsigned long sk_flags)
{
	unsigned long done = 1UL << bpf_core_enum_value(enum sock_flags, SOCK_DONE);

	return (sk_flags & done) && copied_seq == rcv_nxt ? copied_seq - 1 : copied_seq;
}

/* The struct sock behind fd of the current task, or NULL if fd is not a socket. */
static __always_inline struct sock *fd_to_sock(__u32 fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds;
	struct file *file;
	struct socket *sock;
	umode_t mode;

	if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return NULL;
	mode = BPF_CORE_READ(file, f_inode, i_mode);
	if ((mode & S_IFMT) != S_IFSOCK)
		return NULL;
	sock = BPF_CORE_READ(file, private_data);
	return sock ? BPF_CORE_READ(sock, sk) : NULL;
}

/* ---- socket operations: the fast path (kernel 6.2+) ---- */

/*
 * A cast the verifier turns into a register move (kernel 6.2+, like the
 * tracepoints that use it), where bpf_skc_to_tcp_sock() is a helper call
 * repeating checks sk_is_tcp() makes anyway.  Weak: the fallback programs
 * must still load on kernels without it, and libbpf resolves the externs
 * of every program, loaded or not.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* One socket operation, in this CPU's batch or alone in the ring. */
static __always_inline void fill_op(struct vpr_sock_op *op, __u64 ts, __u64 pid_tgid, __u64 cookie,
				    __u32 bytes, __u32 seq_end, __u8 dir, __u8 flags)
{
	fill_hdr(&op->h, VPR_SOCK_OP, sizeof(*op), (__u32)pid_tgid, ts);
	op->cookie = cookie;
	op->pid = pid_tgid >> 32;
	op->bytes = bytes;
	op->seq_end = seq_end;
	op->dir = dir;
	op->flags = flags;
	op->pad = 0;
}

/* ---- Go: the goroutine behind an operation (docs/recorder.md) ---- */

/*
 * Set by the recorder when it knows a Go process or binary: until then the
 * socket path pays one load, not a map lookup.
 */
__u32 go_active = 0;

/* Go processes being followed, by thread group id. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VPATH_MAX_GO_PROCS);
	__type(key, __u32);
	__type(value, struct vpath_go_offsets);
} go_procs SEC(".maps");

/* Go executables followed (named, found at start or at exec): a process exec'ed from one joins go_procs. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VPATH_MAX_GO_EXES);
	__type(key, struct vpath_go_exe);
	__type(value, struct vpath_go_offsets);
} go_exes SEC(".maps");

/* The goroutine last written as running on a thread (VPR_GO_RUN), by tid. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
} go_last SEC(".maps");

/* runtime.newproc1 in progress on a thread: the creating goroutine, until runqput names the new one. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} go_creating SEC(".maps");

/*
 * Once any Go process is followed, go_active is set for every process:
 * go_pid_bits (bpf/vpath.h) spares the others' operations the hash lookup
 * (a load and a test instead of a helper call).  Ids past it are looked up.
 */
__u64 go_pid_bits[VPATH_GO_PID_WORDS] = {};

static __always_inline bool go_pid_maybe(__u32 tgid)
{
	__u32 w = VPATH_GO_PID_WORD(tgid);

	if (w >= VPATH_GO_PID_WORDS)
		return true;
	/* Masked as well, where the verifier sees it: the compiler would index by tgid's register. */
	barrier_var(w);
	return go_pid_bits[w & (VPATH_GO_PID_WORDS - 1)] & VPATH_GO_PID_BIT(tgid);
}

/* Before tgid joins go_procs. */
static __always_inline void go_pid_mark(__u32 tgid)
{
	__u32 w = VPATH_GO_PID_WORD(tgid);

	if (w >= VPATH_GO_PID_WORDS)
		return;
	barrier_var(w); /* as in go_pid_maybe() */
	__sync_fetch_and_or(&go_pid_bits[w & (VPATH_GO_PID_WORDS - 1)], VPATH_GO_PID_BIT(tgid));
}

static __always_inline struct vpath_go_offsets *go_offsets(__u32 tgid)
{
	if (!go_active || !go_pid_maybe(tgid))
		return NULL;
	return bpf_map_lookup_elem(&go_procs, &tgid);
}

/* goid of the runtime.g at g; 0 when unreadable (0 is also the scheduler's g0: no goroutine). */
static __always_inline __u64 go_goid(const struct vpath_go_offsets *o, __u64 g)
{
	__u64 goid = 0;

	if (!g || bpf_probe_read_user(&goid, sizeof(goid), (void *)(g + o->g_goid)))
		return 0;
	return goid;
}

/* The goroutine running on this thread: Go keeps its g in thread-local storage. */
static __always_inline __u64 go_current(const struct vpath_go_offsets *o)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 g = 0;

	if (bpf_probe_read_user(&g, sizeof(g), (void *)(task->thread.fsbase + (__s64)o->tls_g)))
		return 0;
	return go_goid(o, g);
#else
	return 0;
#endif
}

static __always_inline bool go_emit(__u64 pid_tgid, __u32 kind, __u64 goid, __u64 other)
{
	struct flight f;
	struct vpr_goroutine *r = reserve(sizeof(*r), &f);

	if (!r)
		return false;
	fill_hdr(&r->h, VPR_GOROUTINE, sizeof(*r), (__u32)pid_tgid, f.ts);
	r->pid = pid_tgid >> 32;
	r->kind = kind;
	r->goid = goid;
	r->other = other;
	submit(r, &f);
	return true;
}

/*
 * Before an operation of a Go process: a VPR_GO_RUN when the thread's
 * goroutine is not the one last written for it.  Stamped before the
 * operation, so it precedes it in the recording.  Written to the map only
 * once it is in the ring: a lost record is tried again at the next one.
 * True for a Go process followed (the lookup the caller may reuse).
 */
static __always_inline bool go_note_running(__u64 pid_tgid)
{
	struct vpath_go_offsets *o = go_offsets(pid_tgid >> 32);
	__u32 tid = (__u32)pid_tgid;
	__u64 goid, *last;

	if (!o)
		return false;
	goid = go_current(o);
	if (!goid)
		return true;
	last = bpf_map_lookup_elem(&go_last, &tid);
	if (last && *last == goid)
		return true;
	if (go_emit(pid_tgid, VPR_GO_RUN, goid, 0))
		bpf_map_update_elem(&go_last, &tid, &goid, BPF_ANY);
	return true;
}

/*
 * Uprobes on the Go runtime (ABIInternal: arguments in RAX, RBX, RCX).
 * Entry probes only: a return probe rewrites the return address on a stack
 * that Go may move.
 */
#if defined(__TARGET_ARCH_x86)
/* newproc1(fn, callergp *g, callerpc): the creator; the new g is not made yet. */
SEC("uprobe")
int go_newproc1(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct vpath_go_offsets *o = go_offsets(pid_tgid >> 32);
	__u32 tid = (__u32)pid_tgid;
	__u64 creator;

	if (!o)
		return 0;
	creator = go_goid(o, ctx->bx);
	if (creator)
		bpf_map_update_elem(&go_creating, &tid, &creator, BPF_ANY);
	return 0;
}

/*
 * runqput(pp, gp *g, next): right after newproc1 on the same thread, with
 * the new g.  Set on newproc's call of it where that is found (golang.c).
 */
SEC("uprobe")
int go_runqput(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct vpath_go_offsets *o;
	__u64 *creatorp, creator, goid;

	creatorp = bpf_map_lookup_elem(&go_creating, &tid);
	if (!creatorp)
		return 0;
	creator = *creatorp;
	bpf_map_delete_elem(&go_creating, &tid);
	o = go_offsets(pid_tgid >> 32);
	if (!o)
		return 0;
	goid = go_goid(o, ctx->bx);
	if (goid)
		go_emit(pid_tgid, VPR_GO_NEW, creator, goid);
	return 0;
}

/*
 * goready(gp *g, traceskip): a goroutine makes gp runnable (channels,
 * select, mutexes, WaitGroups).  Wake-ups by the scheduler itself (timers,
 * the network poller) run on g0 and are not written.
 */
SEC("uprobe")
int go_goready(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct vpath_go_offsets *o = go_offsets(pid_tgid >> 32);
	__u64 waker, woken;

	if (!o)
		return 0;
	waker = go_current(o);
	woken = go_goid(o, ctx->ax);
	if (waker && woken)
		go_emit(pid_tgid, VPR_GO_READY, waker, woken);
	return 0;
}

/*
 * grpc-go's client transport (*http2Client).Write(s *Stream, hdr, data,
 * opts): runs on the goroutine making the call (SendMsg, CloseSend), not on
 * the loopy writer that writes the frames.  s in RBX; Stream.id, a uint32,
 * its first field (grpc-go 1.x).  A client's stream ids are odd: anything
 * else read there is no stream id, and is not written.
 */
SEC("uprobe")
int go_grpc_write(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct vpath_go_offsets *o = go_offsets(pid_tgid >> 32);
	__u32 id = 0;
	__u64 goid;

	if (!o || !ctx->bx || bpf_probe_read_user(&id, sizeof(id), (void *)ctx->bx) || !(id & 1))
		return 0;
	goid = go_current(o);
	if (goid)
		go_emit(pid_tgid, VPR_GO_H2_WRITE, goid, id);
	return 0;
}
#endif

/*
 * At exec: a process from a known Go executable is followed, any other
 * process with that id is not (ids are reused).  --netns keeps the runtime
 * probes to that namespace's processes: the others' goroutines are not the
 * user's to record.
 */
static __always_inline void go_exec(struct task_struct *p, struct linux_binprm *bprm)
{
	struct vpath_go_offsets *o;
	struct vpath_go_exe key = {};
	struct inode *inode;
	__u32 tgid = p->tgid;

	if (!go_active)
		return;
	inode = bprm->file->f_inode;
	key.ino = inode->i_ino;
	key.dev = inode->i_sb->s_dev;
	o = bpf_map_lookup_elem(&go_exes, &key);
	if (o && task_netns_wanted(p)) {
		go_pid_mark(tgid);
		bpf_map_update_elem(&go_procs, &tgid, o, BPF_ANY);
	} else {
		bpf_map_delete_elem(&go_procs, &tgid);
	}
}

/* A thread's last goroutine goes with it; a process's entry with its leader or its reuse. */
static __always_inline void go_forget(struct task_struct *p, bool new_process)
{
	__u32 tid = p->pid, tgid = p->tgid;

	if (!go_active)
		return;
	bpf_map_delete_elem(&go_last, &tid);
	if (new_process)
		bpf_map_delete_elem(&go_procs, &tgid);
}

static __always_inline void mark_tcp_proc(__u32 tgid)
{
	__u32 zero = 0, *memo = bpf_map_lookup_elem(&tcp_proc_memo, &zero);
	__u8 one = 1;

	if (!memo || *memo == tgid)
		return;
	*memo = tgid;
	bpf_map_update_elem(&tcp_procs, &tgid, &one, BPF_ANY);
}

static long stall_step(__u64 i, void *until)
{
	return bpf_ktime_get_ns() >= *(__u64 *)until;
}

__u32 test_stall_count = 0;

/*
 * Holds this CPU, between an operation's stamp and its arrival in the ring
 * or its CPU's batch, as a preempted program or a vCPU descheduled by its
 * host would.  Compiled away unless a test asks for it.
 */
static __always_inline void test_stall(void)
{
	__u64 until;

	if (!test_stall_ns || ++test_stall_count % test_stall_every)
		return;
	until = bpf_ktime_get_ns() + test_stall_ns;
	bpf_loop(1 << 23, stall_step, &until, 0);
}

/*
 * Under the caller's flight, stamped f->ts; returns that stamp, which its
 * payload record repeats, or 0 when the operation was lost.
 */
static __always_inline __u64 emit_op(const struct flight *f, __u64 pid_tgid, __u64 cookie,
				     __u32 bytes, __u32 seq_end, __u8 dir, __u8 flags)
{
	struct vpath_stage *s = stage_acquire(f->s);
	struct vpr_sock_op *op;
	__u64 ts = 0;

	if (s) {
		__u32 n = s->batch.count;

		/* Always true (a full batch is sent on release); the verifier wants the bound. */
		if (n < VPATH_BATCH_OPS) {
			fill_op(&s->batch.ops[n], f->ts, pid_tgid, cookie, bytes, seq_end, dir,
				flags);
			ts = f->ts;
			s->batch.count = n + 1;
			test_stall();
		} else {
			count_lost(1);
		}
		stage_release(s);
		return ts;
	}
	op = ring_reserve(sizeof(*op));
	if (!op)
		return 0;
	fill_op(op, f->ts, pid_tgid, cookie, bytes, seq_end, dir, flags);
	test_stall();
	ring_submit(op);
	return f->ts;
}

/*
 * The socket calls whose data a stream's first bytes are sampled from, by
 * syscall number (the tracepoints give no buffer; the syscall's registers
 * have it).  Other calls (sendfile, splice, io_uring, ...) are not sampled.
 */
#if defined(__TARGET_ARCH_x86)
#define SYSCALL_NR(regs) BPF_CORE_READ(regs, orig_ax)
enum {
	NR_read = 0,
	NR_write = 1,
	NR_readv = 19,
	NR_writev = 20,
	NR_sendto = 44,
	NR_recvfrom = 45,
	NR_sendmsg = 46,
	NR_recvmsg = 47
};
#elif defined(__TARGET_ARCH_arm64)
#define SYSCALL_NR(regs) BPF_CORE_READ(regs, syscallno)
enum {
	NR_read = 63,
	NR_write = 64,
	NR_readv = 65,
	NR_writev = 66,
	NR_sendto = 206,
	NR_recvfrom = 207,
	NR_sendmsg = 211,
	NR_recvmsg = 212
};
#endif

static __always_inline __u32 syscall_data_kind(long nr, __u8 dir)
{
#ifdef SYSCALL_NR
	bool sends = nr == NR_write || nr == NR_sendto || nr == NR_writev || nr == NR_sendmsg;
	__u32 kind;

	switch (nr) {
	case NR_read:
	case NR_write:
	case NR_recvfrom:
	case NR_sendto:
		kind = USER_DATA_BUF;
		break;
	case NR_readv:
	case NR_writev:
		kind = USER_DATA_IOVEC;
		break;
	case NR_recvmsg:
	case NR_sendmsg:
		kind = USER_DATA_MSGHDR;
		break;
	default:
		return USER_DATA_NONE;
	}
	return sends == (dir == VPR_DIR_SEND) ? kind : USER_DATA_NONE;
#else
	return USER_DATA_NONE;
#endif
}

/*
 * Where the data of this operation on sk is in the caller's memory: the
 * current thread's syscall, when it is a socket call on a descriptor of sk.
 * The descriptor is checked because an operation may run inside an
 * unrelated call (a kernel socket used on behalf of a write() to a file);
 * kernel and io_uring worker threads have no syscall of their own.
 */
static __always_inline __u32 current_call_data(struct sock *sk, __u8 dir, __u64 *data)
{
#ifdef SYSCALL_NR
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs;
	__u32 kind;

	if (task->flags & (PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER))
		return USER_DATA_NONE;
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	kind = syscall_data_kind(SYSCALL_NR(regs), dir);
	if (kind == USER_DATA_NONE || fd_to_sock(PT_REGS_PARM1_CORE_SYSCALL(regs)) != sk)
		return USER_DATA_NONE;
	*data = PT_REGS_PARM2_CORE_SYSCALL(regs);
	return kind;
#else
	return USER_DATA_NONE;
#endif
}

#include "h2_frames.h"
#include "tls.h"
#include "go_tls.h"

/*
 * A send the kernel refused on a reset or shut connection: the request the
 * thread serves lost what it was sending (the analyzer marks it incomplete).
 */
static __always_inline void record_send_failed(struct sock *sk, int err)
{
	struct vpr_send_failed *r;
	struct flight f;
	__u64 pid_tgid;

	if (!sk || !sk_is_tcp(sk))
		return;
	pid_tgid = bpf_get_current_pid_tgid();
	if (!current_wanted(pid_tgid) || !sk_wanted(sk))
		return;
	r = reserve(sizeof(*r), &f);
	if (!r)
		return;
	fill_hdr(&r->h, VPR_SEND_FAILED, sizeof(*r), (__u32)pid_tgid, f.ts);
	r->cookie = sk_cookie(sk);
	r->pid = pid_tgid >> 32;
	r->err = err;
	submit(r, &f);
}

static __always_inline int record_op(struct sock *sk, int ret, int flags, __u8 dir)
{
	struct tcp_sock *tp;
	struct flight f;
	__u64 pid_tgid, data = 0, cookie, ts;
	__u32 seq_end, ref, kind = USER_DATA_NONE;
	bool at_start, early, capture, hashed;
	__u32 early_bits = 0;
	__u8 op_flags;

	if (ret <= 0 || (dir == VPR_DIR_RECV && (flags & MSG_PEEK)) || !sk)
		return 0;
	/*
	 * The sock of a socket call is a full socket (never a request or
	 * time-wait sock), so TCP over IPv4/IPv6 makes it a tcp_sock.
	 */
	if (!sk_is_tcp(sk))
		return 0;
	tp = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct tcp_sock));
	pid_tgid = bpf_get_current_pid_tgid();
	if (!current_wanted(pid_tgid) || !sk_wanted(sk))
		return 0;
	/* ref first, then its counter: see stream_start.h. */
	if (dir == VPR_DIR_SEND) {
		__u32 lead;

		seq_end = tp->write_seq;
		ref = tp->snd_una;
		LOAD_ORDER();
		lead = send_lead(seq_end - ret, ref, tp->bytes_acked);
		at_start = lead <= 1 && send_starts_stream(lead, sk->sk_max_ack_backlog);
		early = lead < EARLY_BYTES;
	} else {
		__u32 offset;

		ref = tp->rcv_nxt;
		seq_end = recv_seq_end(tp->copied_seq, ref, sk->__sk_common.skc_flags);
		LOAD_ORDER();
		offset = recv_offset(seq_end - ret, ref, tp->bytes_received);
		at_start = offset == 0;
		early = offset < EARLY_BYTES;
	}
	/* capture_len is a .rodata constant: with capture off this is the old path. */
	capture = capture_len && capture_wanted(sk, pid_tgid >> 32);
	hashed = capture_hash_len && capture_wanted(sk, pid_tgid >> 32);
	/*
	 * Finding the caller's buffer (its registers, the walk from its fd to
	 * the socket) costs more than the rest of this program: done only when
	 * something reads the buffer, a capture or an early operation long
	 * enough to hold a record header (a 1-byte echo is early for its first
	 * 4096 round trips).
	 */
	if (capture || hashed || (early && ret >= TLS_RECORD_HEADER_LEN))
		kind = current_call_data(sk, dir, &data);
	if (early)
		early_bits = early_flags(at_start, ret, kind, data);
	op_flags = (__u8)early_bits;
	cookie = sk_cookie(sk);
	/*
	 * A Go crypto/tls Write's plaintext, stamped with its send (go_tls.h),
	 * just before it: decided here, so that nothing stays live across the
	 * frame walk below (the verifier would walk it twice).
	 */
	if (go_note_running(pid_tgid) && go_tls_active && dir == VPR_DIR_SEND)
		go_tls_sent(pid_tgid, cookie);
	/* A handshake's first send: which libssl object speaks on this connection (tls.h). */
	if (tls_active && dir == VPR_DIR_SEND && at_start && (early_bits & VPR_OP_TLS_HS))
		tls_bind(pid_tgid, cookie, seq_end - ret, tp->rcv_nxt - (__u32)tp->bytes_received,
			 capture);
	/* The payload, stamped like its operation, is in flight with it. */
	flight_begin(&f);
	ts = emit_op(&f, pid_tgid, cookie, ret, seq_end, dir, op_flags);
	if (capture && ts && !h2_followed(sk, early_bits))
		emit_payload(pid_tgid, ts, cookie, ret, seq_end, dir, kind, data);
	if (hashed && ts)
		emit_payload_hash(pid_tgid, ts, cookie, ret, seq_end, dir, kind, data);
	/* Stamped like the operation, in flight with it. */
	h2_op(sk, tp, dir, early_bits, at_start, pid_tgid, cookie, f.ts, seq_end - ret, seq_end,
	      kind, data, capture && ts);
	flight_end(&f);
	mark_tcp_proc(pid_tgid >> 32);
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(sock_send_length, struct sock *sk, int ret, int flags)
{
	if (ret < 0) {
		if (ret == -EPIPE || ret == -ECONNRESET)
			record_send_failed(sk, ret);
		return 0;
	}
	return record_op(sk, ret, flags, VPR_DIR_SEND);
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(sock_recv_length, struct sock *sk, int ret, int flags)
{
	return record_op(sk, ret, flags, VPR_DIR_RECV);
}

/* ---- connections ---- */

/*
 * Addresses of a connection.  An AF_INET6 socket talking IPv4 (a v4-mapped
 * peer) is stored as AF_INET, so that both ends of a connection agree.
 */
static __always_inline void conn_addresses(struct vpr_conn *c, const struct sock *sk)
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);
	__u32 w[4];

	__builtin_memset(c->saddr, 0, sizeof(c->saddr));
	__builtin_memset(c->daddr, 0, sizeof(c->daddr));
	c->family = AF_INET;
	if (family == AF_INET6) {
		BPF_CORE_READ_INTO(&w, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr32);
		if (!(w[0] == 0 && w[1] == 0 && w[2] == bpf_htonl(0xffff))) {
			c->family = AF_INET6;
			__builtin_memcpy(c->daddr, w, 16);
			BPF_CORE_READ_INTO(&w, sk, __sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32);
			__builtin_memcpy(c->saddr, w, 16);
			return;
		}
	}
	BPF_CORE_READ_INTO(&w[0], sk, __sk_common.skc_rcv_saddr);
	__builtin_memcpy(c->saddr, &w[0], 4);
	BPF_CORE_READ_INTO(&w[0], sk, __sk_common.skc_daddr);
	__builtin_memcpy(c->daddr, &w[0], 4);
}

static __always_inline void conn_fill(struct vpr_conn *c, const struct sock *sk, __u64 cookie,
				      __u32 snd_seq, __u32 rcv_seq)
{
	c->cookie = cookie;
	c->netns = BPF_CORE_READ(sk, __sk_common.skc_net.net, ns.inum);
	c->sport = BPF_CORE_READ(sk, __sk_common.skc_num);
	c->dport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	c->snd_seq = snd_seq;
	c->rcv_seq = rcv_seq;
	c->pad[0] = c->pad[1] = c->pad[2] = 0;
	c->pad2 = 0;
	conn_addresses(c, sk);
}

/*
 * Transitions only a process makes (connect, listen, close, shutdown).  Not
 * LISTEN -> SYN_RECV: that is a new child socket, born in softirq.
 */
static __always_inline bool made_by_process(int oldstate, int newstate)
{
	return newstate == TCP_SYN_SENT || newstate == TCP_FIN_WAIT1 || newstate == TCP_LAST_ACK ||
	       newstate == TCP_LISTEN || (oldstate == TCP_LISTEN && newstate == TCP_CLOSE);
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(inet_sock_set_state, struct sock *sk, int oldstate, int newstate)
{
	struct tcp_sock *tp;
	struct vpr_conn *c;
	struct flight f;
	__u32 tid = 0, pid = 0;

	if (!sk_is_tcp(sk) || !sk_wanted(sk))
		return 0;
	if (made_by_process(oldstate, newstate)) {
		__u64 pid_tgid = bpf_get_current_pid_tgid();

		tid = (__u32)pid_tgid;
		pid = pid_tgid >> 32;
	}
	c = reserve(sizeof(*c), &f);
	if (!c)
		return 0;
	fill_hdr(&c->h, VPR_CONN, sizeof(*c), tid, f.ts);
	tp = bpf_skc_to_tcp_sock(sk);
	conn_fill(c, sk, bpf_get_socket_cookie(sk), tp ? tp->write_seq : 0,
		  tp ? tp->copied_seq : 0);
	c->pid = pid;
	c->oldstate = oldstate;
	c->newstate = newstate;
	c->origin = VPR_CONN_STATE;
	c->role = VPR_ROLE_UNKNOWN;
	if (newstate == TCP_ESTABLISHED && oldstate == TCP_SYN_SENT)
		c->role = VPR_ROLE_CONNECTED;
	else if (newstate == TCP_ESTABLISHED && oldstate == TCP_SYN_RECV)
		c->role = VPR_ROLE_ACCEPTED;
	submit(c, &f);
	return 0;
}

/* ---- threads ---- */

#include "exec_watch.h"

static __always_inline int record_task(struct task_struct *task, __u32 kind, __u32 parent_tid,
				       const char *comm, __u32 exit_signal)
{
	struct vpr_task *t;
	struct flight f;
	__u32 tgid = task->tgid;

	if (!pid_wanted(tgid))
		return 0;
	if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
		return 0;
	if (!task_netns_wanted(task))
		return 0;
	t = reserve(sizeof(*t), &f);
	if (!t)
		return 0;
	fill_hdr(&t->h, VPR_TASK, sizeof(*t), task->pid, f.ts);
	t->pid = tgid;
	t->parent_tid = parent_tid;
	t->kind = kind;
	t->exit_signal = exit_signal;
	__builtin_memset(t->comm, 0, sizeof(t->comm));
	bpf_probe_read_kernel_str(t->comm, sizeof(t->comm), comm);
	submit(t, &f);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_process_fork, struct task_struct *parent, struct task_struct *child)
{
	go_forget(child, child->pid == child->tgid);
	return record_task(child, VPR_TASK_FORK, parent->pid, child->comm, 0);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_process_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	go_exec(p, bprm);
	exec_watch_tell(p, bprm);
	return record_task(p, VPR_TASK_EXEC, 0, p->comm, 0);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_process_exit, struct task_struct *p)
{
	go_forget(p, p->pid == p->tgid);
	tls_forget_thread(p->pid);
	/*
	 * do_exit() has set exit_code before this tracepoint and before the
	 * thread's files are closed: a signal's number in its low 7 bits (a
	 * whole group killed shares it), exit(n) shifted left 8.  A server
	 * killed mid-reply closes its connections as if it had finished.
	 */
	return record_task(p, VPR_TASK_EXIT, 0, p->comm, p->exit_code & 0x7f);
}

/* Fires before the copy, so the new name is the argument, not task->comm. */
SEC("tp_btf/task_rename")
int BPF_PROG(task_rename, struct task_struct *task, const char *comm)
{
	return record_task(task, VPR_TASK_RENAME, 0, comm, 0);
}

/* ---- wake-ups between threads of one process ---- */

/*
 * Locks, conditions and parks (pthread, Java's LockSupport, CPython's
 * locks and GIL) wake through futexes.  A wake-up inside any other call is
 * the network's or a timer's on behalf of whatever thread it interrupted
 * (on loopback the sender runs the receiver's softirq), not a hand-off.
 * The preemption count that would say "interrupt" is not readable here
 * (no per-CPU symbols in kallsyms), the thread's system call is.
 */
#if defined(__TARGET_ARCH_x86)
#define NR_futex 202
#define NR_futex_wake 454
#elif defined(__TARGET_ARCH_arm64)
#define NR_futex 98
#define NR_futex_wake 454
#endif

static __always_inline bool current_in_futex(void)
{
#ifdef SYSCALL_NR
	struct task_struct *task = bpf_get_current_task_btf();
	long nr;

	if (task->flags & (PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER))
		return false;
	nr = SYSCALL_NR((struct pt_regs *)bpf_task_pt_regs(task));
	return nr == NR_futex || nr == NR_futex_wake;
#else
	return true;
#endif
}

/*
 * sched_waking runs in the waker's context, so current is the waker.  Only
 * a thread waking another of its own process, in a process that does TCP,
 * can hand a request's work on; everything else is left in the kernel.
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(sched_waking, struct task_struct *p)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	struct vpr_wakeup *w;
	struct flight f;

	if (p->tgid != tgid || (__u32)pid_tgid == (__u32)p->pid || !tgid)
		return 0;
	if (!bpf_map_lookup_elem(&tcp_procs, &tgid) || !current_in_futex())
		return 0;
	if (!current_wanted(pid_tgid) || !task_netns_wanted(p))
		return 0;
	w = reserve(sizeof(*w), &f);
	if (!w)
		return 0;
	fill_hdr(&w->h, VPR_WAKEUP, sizeof(*w), (__u32)pid_tgid, f.ts);
	w->pid = tgid;
	w->woken_tid = p->pid;
	w->woken_pid = tgid;
	w->flags = 0;
	submit(w, &f);
	return 0;
}

/* ---- socket operations: the syscall fallback (kernels before 6.2) ---- */

static __always_inline int fallback_enter(__u64 fd, __u64 flags, __u32 data_kind, __u64 data)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct fallback_call call = {.fd = (__u32)fd, .data_kind = data_kind, .data = data};

	if ((flags & MSG_PEEK) || fd > 0x7fffffff)
		return 0;
	if (!current_wanted(pid_tgid))
		return 0;
	/* A full table loses this operation's record: count it like one. */
	if (bpf_map_update_elem(&fallback_fds, &tid, &call, BPF_ANY))
		count_lost(1);
	return 0;
}

/*
 * A socket without a cookie was never seen by sock_diag or the state
 * program: name it by its address (kernel addresses have the top bit set,
 * cookies never do) and write its 4-tuple once.
 */
static __always_inline __u64 fallback_cookie(struct sock *sk)
{
	__u64 cookie = BPF_CORE_READ(sk, __sk_common.skc_cookie.counter);
	struct tcp_sock *tp = (struct tcp_sock *)sk;
	struct vpr_conn *c;
	struct flight f;
	__u8 one = 1;

	if (cookie)
		return cookie;
	cookie = (__u64)sk;
	if (bpf_map_lookup_elem(&fallback_announced, &cookie))
		return cookie;
	bpf_map_update_elem(&fallback_announced, &cookie, &one, BPF_ANY);
	c = reserve(sizeof(*c), &f);
	if (!c)
		return cookie;
	fill_hdr(&c->h, VPR_CONN, sizeof(*c), 0, f.ts);
	conn_fill(c, sk, cookie, BPF_CORE_READ(tp, write_seq), BPF_CORE_READ(tp, copied_seq));
	c->pid = 0;
	c->oldstate = 0;
	c->newstate = BPF_CORE_READ(sk, __sk_common.skc_state);
	c->origin = VPR_CONN_PREEXISTING;
	c->role = VPR_ROLE_UNKNOWN;
	submit(c, &f);
	return cookie;
}

static __always_inline int fallback_exit(long ret, __u8 dir)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct fallback_call *callp, call;
	struct flight f;
	struct tcp_sock *tp;
	struct sock *sk;
	__u32 seq_end, ref;
	__u64 cookie, ts;
	bool at_start, early;
	__u32 offset;

	callp = bpf_map_lookup_elem(&fallback_fds, &tid);
	if (!callp)
		return 0;
	call = *callp;
	bpf_map_delete_elem(&fallback_fds, &tid);
	if (ret <= 0)
		return 0;
	sk = fd_to_sock(call.fd);
	if (!sk || !sk_is_tcp_probed(sk) || !sk_wanted(sk))
		return 0;
	tp = (struct tcp_sock *)sk;
	/* First: it may write the socket's VPR_CONN, which must precede this op. */
	cookie = fallback_cookie(sk);
	go_note_running(pid_tgid);
	/* The same tests as record_op(), through probes; ref first (stream_start.h). */
	if (dir == VPR_DIR_SEND) {
		__u32 lead;

		seq_end = BPF_CORE_READ(tp, write_seq);
		ref = BPF_CORE_READ(tp, snd_una);
		lead = send_lead(seq_end - ret, ref, BPF_CORE_READ(tp, bytes_acked));
		at_start = lead <= 1 && send_starts_stream(lead, BPF_CORE_READ_BITFIELD_PROBED(
									 sk, sk_max_ack_backlog));
		early = lead < EARLY_BYTES;
	} else {
		ref = BPF_CORE_READ(tp, rcv_nxt);
		seq_end = recv_seq_end(BPF_CORE_READ(tp, copied_seq), ref,
				       BPF_CORE_READ(sk, __sk_common.skc_flags));
		offset = recv_offset(seq_end - ret, ref, BPF_CORE_READ(tp, bytes_received));
		at_start = offset == 0;
		early = offset < EARLY_BYTES;
	}
	flight_begin(&f);
	ts = emit_op(
		&f, pid_tgid, cookie, ret, seq_end, dir,
		VPR_OP_FALLBACK |
			(early ? (__u8)early_flags(at_start, ret, call.data_kind, call.data) : 0));
	if (capture_len && ts && capture_wanted(sk, pid_tgid >> 32))
		emit_payload(pid_tgid, ts, cookie, ret, seq_end, dir, call.data_kind, call.data);
	if (capture_hash_len && ts && capture_wanted(sk, pid_tgid >> 32))
		emit_payload_hash(pid_tgid, ts, cookie, ret, seq_end, dir, call.data_kind,
				  call.data);
	flight_end(&f);
	mark_tcp_proc(pid_tgid >> 32);
	return 0;
}

/*
 * flags_arg is a constant: the index of the recv flags argument, -1 when
 * there is none; data_kind says what the second argument points at.
 */
#define FALLBACK_ENTER(name, flags_arg, data_kind)                                                \
	SEC("tracepoint/syscalls/sys_enter_" #name)                                               \
	int fb_enter_##name(struct trace_event_raw_sys_enter *ctx)                                \
	{                                                                                         \
		__u64 flags = (flags_arg) < 0 ? 0 : ctx->args[(flags_arg) < 0 ? 0 : (flags_arg)]; \
		return fallback_enter(ctx->args[0], flags, data_kind, ctx->args[1]);              \
	}
#define FALLBACK_EXIT(name, dir)                                 \
	SEC("tracepoint/syscalls/sys_exit_" #name)               \
	int fb_exit_##name(struct trace_event_raw_sys_exit *ctx) \
	{                                                        \
		return fallback_exit(ctx->ret, dir);             \
	}

FALLBACK_ENTER(write, -1, USER_DATA_BUF)
FALLBACK_EXIT(write, VPR_DIR_SEND)
FALLBACK_ENTER(writev, -1, USER_DATA_IOVEC)
FALLBACK_EXIT(writev, VPR_DIR_SEND)
FALLBACK_ENTER(sendto, -1, USER_DATA_BUF)
FALLBACK_EXIT(sendto, VPR_DIR_SEND)
FALLBACK_ENTER(sendmsg, -1, USER_DATA_MSGHDR)
FALLBACK_EXIT(sendmsg, VPR_DIR_SEND)
FALLBACK_ENTER(sendfile64, -1, USER_DATA_NONE)
FALLBACK_EXIT(sendfile64, VPR_DIR_SEND)
FALLBACK_ENTER(read, -1, USER_DATA_BUF)
FALLBACK_EXIT(read, VPR_DIR_RECV)
FALLBACK_ENTER(readv, -1, USER_DATA_IOVEC)
FALLBACK_EXIT(readv, VPR_DIR_RECV)
FALLBACK_ENTER(recvfrom, 3, USER_DATA_BUF)
FALLBACK_EXIT(recvfrom, VPR_DIR_RECV)
FALLBACK_ENTER(recvmsg, 2, USER_DATA_MSGHDR)
FALLBACK_EXIT(recvmsg, VPR_DIR_RECV)

/* ---- log lines (opt-in: --logs) ---- */
#include "logs.h"
