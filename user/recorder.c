// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * open -> set .rodata -> load -> attach -> enumerate what already exists ->
 * drop privileges -> drain the ring buffer into the output until told to
 * stop -> detach -> drain again -> flush, fsync, summary.
 *
 * Attaching comes before enumerating so that nothing falls between the
 * snapshot and the live stream (at worst a thread or connection is in both).
 *
 * Draining: socket operations wait in per-CPU batches in the kernel, so
 * each round first notes which CPUs are in the middle of writing records
 * (and since when), has every CPU send its batch (flush_stage, run on that
 * CPU), then empties the ring into the reorder buffer, which hands the
 * output, in time order, everything stamped before the line the watermark
 * draws from what was seen: the round's start less a margin, held back for
 * a CPU still writing or a batch still held, however long that lasts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "recorder.h"
#include "conns.h"
#include "golang.h"
#include "tlsprobe.h"
#include "clock.h"
#include "host.h"
#include "netns.h"
#include "output.h"
#include "exec_watch.h"
#include "inbox.h"
#include "priv_helper.h"
#include "privs.h"
#include "redact.h"
#include "redact_carry.h"
#include "redact_h2.h"
#include "probe.h"
#include "recfile.h"
#include "reorder.h"
#include "logs.h"
#include "tasks.h"
#include "watermark.h"
#include "vpath/version.h"
#include "../bpf/vpath.h"
#include "vpath.skel.h"

#define POLL_MS 100
#define TICK_NS 1000000000ull
#define RECORDER_NICE -10
/*
 * Behind each round's start the line stays this far: programs mark their
 * CPU before they read the clock, but the mark and the clock are seen from
 * another CPU, and this covers any way of theirs to disagree.  Waiting for
 * a CPU still writing is the watermark's, not this margin's.
 */
#define HOLD_NS (20 * 1000000ull)
/*
 * An exec the exec watch takes longer than this to decide about (or to
 * read) no longer holds the line: a record it writes then is stamped as
 * late as the records written already (exec_record).
 */
#define MAX_EXEC_HOLD_NS (1000 * 1000000ull)
/* A record reserved before the flush and not yet complete: looked at again this often. */
#define RING_RETRIES 20
#define RING_RETRY_US 100
/* A batch held by a program when its CPU is asked to flush: asked again this often. */
#define FLUSH_RETRIES 3
/*
 * A CPU marked busy writing for longer than this is not waited for: no
 * program runs that long, so the mark is broken (a program run where the
 * kernel lets another preempt it on the same CPU could leave it so), and
 * waiting would stop the recording for good.
 */
#define MAX_FLIGHT_NS (1000 * 1000000ull)

volatile sig_atomic_t recorder_exiting;

struct recorder {
	const struct record_opts *opts;
	struct vpath_bpf *skel;
	struct go_follow *go;
	struct priv_helper *ph; /* attaches uprobes after the privileges are dropped */
	struct exec_watch *ew;	/* programs started later, told to the probers */
	struct tls_follow *tls;
	struct inbox inbox;	    /* the exec watch's records (VPR_GO_PENDING), for the loop */
	uint64_t exec_unread_since; /* the first round an exec told held the line unread */
	uint64_t exec_holds_broken; /* rounds an exec was decided too slowly to wait for */
	struct ring_buffer *rb;
	struct reorder *ro;
	struct watermark *wm;
	struct vpath_stage *stages;			/* one per possible CPU: read each round */
	const volatile uint64_t *ring_prod, *ring_cons; /* the ring's positions, mapped */
	struct redact_carry *carry; /* with --capture: streams that may go on inside a secret */
	struct redact_h2 *h2;	    /* with --capture: what HTTP/2 header blocks inserted */
	struct output *out;
	struct task_table *tasks;
	uint32_t netns_filter; /* 0: every namespace */
	uint32_t netns_here;   /* the namespace enumerated (where the recorder is) */
	bool fallback;
	int ncpus;
	uint64_t *lost;		/* per CPU, as last read */
	uint64_t *lost_written; /* per CPU, as last written */
	uint64_t malformed;	/* ring records that failed the size check */
	uint64_t payloads,
		redacted;      /* VPR_PAYLOAD records taken, and how many had secrets replaced */
	struct log_taker logs; /* with --logs: VPR_LOG records (logs.h) */
	uint64_t emitted_ts;   /* stamp of the last record handed to the output */
	uint64_t late,
		late_max_ns;  /* records written behind a later one, and by how much at most */
	uint64_t stuck_marks; /* rounds that found a CPU marked busy for longer than can be */
	int write_err;
};

static int verbosity;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && verbosity < 2)
		return 0;
	if (level == LIBBPF_INFO && verbosity < 1)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void fill_hdr(struct vpr_hdr *h, uint16_t type, uint16_t size, uint32_t tid)
{
	h->type = type;
	h->size = size;
	h->tid = tid;
	h->ts_ns = mono_ns();
}

/*
 * Where the recorder's own records go: straight into a file being started,
 * or, while recording, into the reorder buffer with the kernel's records.
 */
typedef int (*sink_fn)(void *to, const void *rec);

static int to_output(void *out, const void *rec)
{
	return output__append(out, rec);
}

static int to_reorder(void *ro, const void *rec)
{
	return reorder__add(ro, rec);
}

/* Which program and release wrote the file (VPR_WRITER), stamped ts as the clock beside it. */
static int write_writer(struct output *out, uint64_t ts)
{
	struct vpr_writer_info wi;

	memset(&wi, 0, sizeof(wi));
	fill_hdr(&wi.h, VPR_WRITER, sizeof(wi), 0);
	if (ts && ts < wi.h.ts_ns)
		wi.h.ts_ns = ts;
	_Static_assert(sizeof(VPATH_VERSION) <= VPR_WRITER_VERSION_LEN, "VERSION: too long");
	memcpy(wi.version, VPATH_VERSION, sizeof(VPATH_VERSION));
	memcpy(wi.program, "vpath-record", sizeof("vpath-record"));
	return output__append(out, &wi);
}

/* ts: the record's stamp, 0 for now; the wall clock is read as it was then. */
static int write_clock(sink_fn sink, void *to, uint64_t ts)
{
	struct vpr_clock c;
	uint64_t now;

	memset(&c, 0, sizeof(c));
	fill_hdr(&c.h, VPR_CLOCK, sizeof(c), 0);
	now = c.h.ts_ns;
	c.realtime_ns = real_ns();
	if (ts && ts < now) {
		c.h.ts_ns = ts;
		c.realtime_ns -= now - ts;
	}
	return sink(to, &c);
}

static void read_lost(struct recorder *r)
{
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.lost), &zero, r->lost) && verbosity)
		fprintf(stderr, "vpath-record: cannot read drop counters: %s\n", strerror(errno));
}

/*
 * VPR_DROPS for every CPU whose count changed since last written (all: every
 * CPU), stamped ts (0: now).
 */
static int write_drops(struct recorder *r, sink_fn sink, void *to, bool all, uint64_t ts)
{
	read_lost(r);
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		struct vpr_drops d;
		int err;

		if (!all && r->lost[cpu] == r->lost_written[cpu])
			continue;
		memset(&d, 0, sizeof(d));
		fill_hdr(&d.h, VPR_DROPS, sizeof(d), (uint32_t)cpu);
		if (ts)
			d.h.ts_ns = ts;
		d.lost = r->lost[cpu];
		err = sink(to, &d);
		if (err)
			return err;
		r->lost_written[cpu] = r->lost[cpu];
	}
	return 0;
}

static uint64_t total_lost(const struct recorder *r)
{
	uint64_t sum = 0;

	for (int cpu = 0; cpu < r->ncpus; cpu++)
		sum += r->lost_written[cpu];
	return sum;
}

/*
 * What every file and segment starts with, so that it can be read alone.
 * All of it is stamped with the last record handed out (for the first file:
 * the moment before the probes were attached), not now: records held back
 * for time order follow it, and they must not be stamped before it (a
 * reader must also see a connection's recorded role before its first
 * operation there).
 */
static int write_start(void *ctx, struct output *out)
{
	struct recorder *r = ctx;
	int err;

	err = host_write_addresses(out, r->netns_here, r->emitted_ts);
	if (!err)
		err = write_writer(out, r->emitted_ts);
	if (!err)
		err = write_clock(to_output, out, r->emitted_ts);
	if (!err)
		err = write_drops(r, to_output, out, true, r->emitted_ts);
	if (!err)
		err = task_table__write_snapshot(r->tasks, out, r->emitted_ts);
	if (!err)
		err = conns_write_preexisting(out, r->netns_here, r->opts->ports, r->opts->nports,
					      r->emitted_ts);
	return err;
}

/*
 * A batch of one CPU's socket operations, checked as closely as a lone
 * record.  Read in place: a record in the ring does not change until it
 * has been consumed.
 */
static int take_batch(struct recorder *r, const void *data, size_t size)
{
	const struct vpath_batch *b = data;

	if (size < VPATH_BATCH_SIZE(1) || size > sizeof(*b) || b->count == 0 ||
	    size != VPATH_BATCH_SIZE(b->count) || b->cpu >= (unsigned)r->ncpus) {
		r->malformed++;
		return 0;
	}
	for (unsigned i = 0; i < b->count; i++)
		if (b->ops[i].h.type != VPR_SOCK_OP || b->ops[i].h.size != sizeof(b->ops[i])) {
			r->malformed++;
			return 0;
		}
	return reorder__add_ops(r->ro, b->cpu, b->ops, b->count);
}

/* An HTTP/2 frame header's size: a DATA frame's record holds one before its payload. */
#define H2_DATA_HDR 9u

/*
 * A payload, reserved in the ring larger than it is stored (capture.h).
 * Its secrets are replaced here, before it is held or written anywhere.
 */
static int take_payload(struct recorder *r, const void *data, size_t size)
{
	const struct vpr_payload *in = data;
	uint8_t side, other, joined[4 + VPR_PAYLOAD_MAX];
	struct vpr_payload p;
	uint8_t *d;
	size_t len;
	uint32_t bytes;
	unsigned res;

	/* Reserved with a spare word (capture.h): up to 8 bytes more than the largest stored. */
	if (size < VPR_PAYLOAD_HDR_SIZE || size > sizeof(p) + 8 || in->len == 0 ||
	    in->len > r->opts->capture || in->h.size != VPR_PAYLOAD_SIZE(in->len) ||
	    in->h.size > size) {
		r->malformed++;
		return 0;
	}
	memcpy(&p, in, in->h.size);
	/* A DATA frame's first bytes: a message's, redacted as an operation's bytes are. */
	if (p.flags & VPR_PAYLOAD_H2_DATA) {
		if (p.len > H2_DATA_HDR && p.bytes > H2_DATA_HDR &&
		    redact_payload(p.data + H2_DATA_HDR, p.len - H2_DATA_HDR,
				   p.bytes - H2_DATA_HDR) &
			    REDACT_DONE)
			p.flags |= VPR_PAYLOAD_REDACTED;
		r->payloads++;
		r->redacted += (p.flags & VPR_PAYLOAD_REDACTED) != 0;
		return reorder__add_payload(r->ro, &p);
	}
	/* A frame's header block: HPACK, read in its direction's order. */
	if ((p.flags & VPR_PAYLOAD_H2_FRAME) && !(p.flags & VPR_PAYLOAD_H2_DATA)) {
		if (redact_h2__frame(r->h2, p.cookie, p.dir, p.flags, p.data, p.len, p.bytes) &
		    REDACT_DONE)
			p.flags |= VPR_PAYLOAD_REDACTED;
		r->payloads++;
		r->redacted += (p.flags & VPR_PAYLOAD_REDACTED) != 0;
		return reorder__add_payload(r->ro, &p);
	}
	/*
	 * A body whose 4-byte header was read alone just before is judged with
	 * it in front, so the rules see the packet a writer sends in one piece.
	 */
	d = p.data;
	len = p.len;
	bytes = p.bytes;
	if (redact_carry__take_header(r->carry, p.cookie, p.dir, p.seq_end - p.bytes, joined)) {
		memcpy(joined + 4, p.data, p.len);
		d = joined;
		len += 4;
		bytes += 4;
	} else if (p.len == 4 && p.bytes == 4) {
		redact_carry__keep_header(r->carry, p.cookie, p.dir, p.seq_end, p.data);
	}
	/* What the stream told of its direction (MySQL), from the bytes as they came. */
	if (redact_mysql_side(d, len, bytes, &side, &other)) {
		redact_carry__set_side(r->carry, p.cookie, p.dir, side);
		redact_carry__set_side(r->carry, p.cookie, p.dir ^ 1, other);
	} else {
		side = redact_carry__side(r->carry, p.cookie, p.dir);
	}
	if (redact_carry__take(r->carry, p.cookie, p.dir, p.seq_end - p.bytes))
		res = redact_continued_side(d, len, bytes, side);
	else
		res = redact_payload_side(d, len, bytes, side);
	if (d == joined)
		memcpy(p.data, joined + 4, p.len);
	if (res & REDACT_OPEN)
		redact_carry__mark(r->carry, p.cookie, p.dir, p.seq_end);
	if (res & REDACT_DONE)
		p.flags |= VPR_PAYLOAD_REDACTED;
	r->payloads++;
	r->redacted += (p.flags & VPR_PAYLOAD_REDACTED) != 0;
	return reorder__add_payload(r->ro, &p);
}

/* A log line (bpf/logs.h), redacted before it is held; held with the payloads. */
static int take_log(struct recorder *r, const void *data, size_t size)
{
	struct vpr_log l;

	if (log_taker__take(&r->logs, data, size, &l))
		return 0;
	return reorder__add_payload(r->ro, (const struct vpr_payload *)&l);
}

/* A payload's hashes (payload_hash.h): held with the payloads, to follow their operation. */
static int take_payload_hash(struct recorder *r, const void *data, size_t size)
{
	const struct vpr_payload_hash *in = data;
	struct vpr_payload held;

	if (size != sizeof(*in) || in->h.size != sizeof(*in) || in->len == 0 ||
	    in->len > r->opts->capture_hash || in->len > in->bytes) {
		r->malformed++;
		return 0;
	}
	memset(&held, 0, sizeof(held));
	memcpy(&held, in, sizeof(*in));
	return reorder__add_payload(r->ro, &held);
}

static int handle_record(void *ctx, void *data, size_t size)
{
	union vpr_any rec;
	struct recorder *r = ctx;
	int err;

	if (size >= sizeof(uint16_t) && *(const uint16_t *)data == VPATH_RING_BATCH)
		err = take_batch(r, data, size);
	else if (size >= sizeof(uint16_t) && *(const uint16_t *)data == VPR_PAYLOAD)
		err = take_payload(r, data, size);
	else if (size >= sizeof(uint16_t) && *(const uint16_t *)data == VPR_PAYLOAD_HASH)
		err = take_payload_hash(r, data, size);
	else if (size >= sizeof(uint16_t) && *(const uint16_t *)data == VPR_LOG)
		err = take_log(r, data, size);
	else if (size < sizeof(rec.h) || size > sizeof(rec)) {
		r->malformed++;
		return 0;
	} else {
		memcpy(&rec, data, size);
		if (rec.h.size != size || size < vpr_record_min_size(rec.h.type)) {
			r->malformed++;
			return 0;
		}
		err = reorder__add(r->ro, &rec);
	}
	return err;
}

/* Records leave the reorder buffer for the output here, in time order. */
static int emit_record(void *ctx, const void *rec)
{
	struct recorder *r = ctx;
	const struct vpr_hdr *h = rec;
	int err;

	if (h->type == VPR_TASK) {
		err = task_table__update(r->tasks, rec);
		if (err)
			return err;
	}
	if (h->ts_ns < r->emitted_ts) {
		r->late++;
		if (r->emitted_ts - h->ts_ns > r->late_max_ns)
			r->late_max_ns = r->emitted_ts - h->ts_ns;
	} else {
		r->emitted_ts = h->ts_ns;
	}
	err = output__append(r->out, rec);
	if (err)
		r->write_err = err;
	return err;
}

/*
 * --capture-hash: the key of this recording's hashes, from the kernel's
 * random pool, kept only in the BPF program's read-only data: hashes of two
 * recordings cannot be compared, nor looked up in a table of likely messages.
 */
static int draw_hash_key(struct recorder *r)
{
	uint64_t key[2];

	if (!r->opts->capture_hash)
		return 0;
	if (getrandom(key, sizeof(key), 0) != (ssize_t)sizeof(key)) {
		fprintf(stderr, "vpath-record: cannot draw a key for --capture-hash: %s\n",
			strerror(errno));
		return -EIO;
	}
	r->skel->rodata->capture_hash_key[0] = key[0];
	r->skel->rodata->capture_hash_key[1] = key[1];
	explicit_bzero(key, sizeof(key));
	return 0;
}

static void set_filters(struct recorder *r, uint64_t cgroup_id)
{
	const struct record_opts *o = r->opts;
	struct vpath_bpf *skel = r->skel;

	for (unsigned i = 0; i < o->npids; i++)
		skel->rodata->filter_pids[i] = o->pids[i];
	skel->rodata->filter_npids = o->npids;
	for (unsigned i = 0; i < o->nports; i++)
		skel->rodata->filter_ports[i] = o->ports[i];
	skel->rodata->filter_nports = o->nports;
	skel->rodata->filter_cgroup = cgroup_id;
	skel->rodata->capture_len = o->capture;
	skel->rodata->capture_hash_len = o->capture_hash;
	for (unsigned i = 0; i < o->ncapture_pids; i++)
		skel->rodata->capture_pids[i] = o->capture_pids[i];
	skel->rodata->capture_npids = o->ncapture_pids;
	for (unsigned i = 0; i < o->ncapture_ports; i++)
		skel->rodata->capture_ports[i] = o->capture_ports[i];
	skel->rodata->capture_nports = o->ncapture_ports;
	skel->rodata->logs_len = o->logs;
	skel->rodata->logs_self_pid = (uint32_t)getpid();
	skel->rodata->filter_netns = r->netns_filter;
	/*
	 * Early enough that the ring does not fill while a busy host is slow
	 * to schedule us, late enough that one wake-up moves thousands of records.
	 */
	skel->rodata->wakeup_bytes = o->ringbuf_size / 16;
	skel->rodata->test_stall_ns = (uint64_t)o->test_stall_ms * 1000000;
	skel->rodata->test_stall_every = o->test_stall_every ? o->test_stall_every : 1;
}

/* Exactly one of the two ways to see socket operations is loaded. */
static void choose_programs(struct recorder *r)
{
	struct vpath_bpf *skel = r->skel;
	struct bpf_program *prog;

	r->fallback = r->opts->force_fallback || !probe_sock_length_tracepoints();
	bpf_object__for_each_program(prog, skel->obj)
	{
		bool is_fallback = strncmp(bpf_program__name(prog), "fb_", 3) == 0;

		if (is_fallback != r->fallback &&
		    (is_fallback || prog == skel->progs.sock_send_length ||
		     prog == skel->progs.sock_recv_length))
			bpf_program__set_autoload(prog, false);
	}
	if (r->opts->no_wakeups)
		bpf_program__set_autoload(skel->progs.sched_waking, false);
	/* Without --logs their tracepoints are not even entered (bpf/logs.h). */
	bpf_object__for_each_program(
		prog,
		skel->obj) if (!r->opts->logs && strncmp(bpf_program__name(prog), "log_", 4) == 0)
		bpf_program__set_autoload(prog, false);
	if (r->opts->verbose)
		fprintf(stderr, "vpath-record: socket operations via %s\n",
			r->fallback ? "syscall tracepoints (fallback)"
				    : "sock_*_length tracepoints");
}

static int cgroup_id_of(const char *path, uint64_t *id)
{
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "vpath-record: --cgroup %s: not a cgroup v2 directory\n", path);
		return -ENOENT;
	}
	*id = st.st_ino;
	return 0;
}

/*
 * Has every online CPU send its batch of socket operations to the ring.
 * A CPU whose batch a program holds is asked again; if it still is, the
 * watermark hears so (wm NULL: a trial before recording).
 */
static int flush_batches(struct recorder *r, struct watermark *wm)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU);
	int fd = bpf_program__fd(r->skel->progs.flush_stage);

	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		int err = 0;

		opts.cpu = (uint32_t)cpu;
		for (int i = 0; i < FLUSH_RETRIES; i++) {
			opts.retval = 0;
			err = bpf_prog_test_run_opts(fd, &opts);
			if (err || !opts.retval)
				break;
		}
		/* An offline CPU: its batch is picked up at the end (take_leftovers). */
		if (err == -ENXIO)
			continue;
		if (err)
			return err;
		if (wm)
			watermark__flushed(wm, (unsigned)cpu, opts.retval == 0);
	}
	return 0;
}

/* Which CPUs are writing records now (at start), and since when (struct vpath_stage). */
static void note_in_flight(struct recorder *r, uint64_t start)
{
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.stages), &zero, r->stages)) {
		/* Never seen; without the marks nothing of this round is sure. */
		watermark__ring_behind(r->wm);
		return;
	}
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		const struct vpath_stage *s = &r->stages[cpu];

		if (!s->depth)
			continue;
		if (s->since + MAX_FLIGHT_NS > start)
			watermark__in_flight(r->wm, (unsigned)cpu, s->since);
		else
			r->stuck_marks++;
	}
}

/*
 * A program exec'ed may be Go, and the exec watch then writes a record
 * stamped at its exec (user/golang.c): until it has decided, the line
 * stays before the exec, or where it is while the news is not read yet.
 */
static void note_execs(struct recorder *r, uint64_t start)
{
	uint64_t since = exec_watch__holding(r->ew);

	if (since != EXEC_WATCH_UNREAD)
		r->exec_unread_since = 0;
	else if (!r->exec_unread_since)
		r->exec_unread_since = start;
	if (!since)
		return;
	if (since == EXEC_WATCH_UNREAD ? r->exec_unread_since + MAX_EXEC_HOLD_NS < start
				       : since + MAX_EXEC_HOLD_NS < start) {
		r->exec_holds_broken++;
		return;
	}
	if (since == EXEC_WATCH_UNREAD)
		watermark__ring_behind(r->wm);
	else
		watermark__hold(r->wm, since);
}

/*
 * What the exec watch handed in, into the reorder buffer; a record whose
 * stamp the line has passed (a slow decision) is stamped with the last
 * record written, so that the file stays in time order.
 */
static int exec_record(void *ctx, union vpr_any *rec)
{
	struct recorder *r = ctx;

	if (rec->h.ts_ns < r->emitted_ts)
		rec->h.ts_ns = r->emitted_ts;
	return reorder__add(r->ro, rec);
}

/* The exec watch's hook (golang.h): a Go program exec'ed, its goroutines not seen yet. */
static void go_pending(void *ctx, uint32_t pid, uint64_t exec_ns)
{
	struct recorder *r = ctx;
	struct vpr_goroutine g;

	memset(&g, 0, sizeof(g));
	g.h.type = VPR_GOROUTINE;
	g.h.size = sizeof(g);
	g.h.tid = pid;
	g.h.ts_ns = exec_ns;
	g.pid = pid;
	g.kind = VPR_GO_PENDING;
	if (inbox__put(&r->inbox, &g))
		fprintf(stderr, "vpath-record: warning: Go process %u: out of memory\n", pid);
}

/*
 * Empties the ring as far as it was filled when this is called.  A record
 * still being written stops the consumer, and the records behind it wait:
 * it is looked at again for a little while, then the round gives up.
 */
static int consume_ring(struct recorder *r)
{
	uint64_t filled = __atomic_load_n(r->ring_prod, __ATOMIC_ACQUIRE);
	int err = ring_buffer__consume(r->rb);

	for (int i = 0; err >= 0 && i < RING_RETRIES; i++) {
		if (__atomic_load_n(r->ring_cons, __ATOMIC_ACQUIRE) >= filled)
			return 0;
		usleep(RING_RETRY_US);
		err = ring_buffer__consume(r->rb);
	}
	if (err < 0)
		return err;
	if (__atomic_load_n(r->ring_cons, __ATOMIC_ACQUIRE) < filled)
		watermark__ring_behind(r->wm);
	return 0;
}

/*
 * After detaching: what is still in a batch (a CPU that was offline, a
 * program that was still running when the CPUs flushed, batches that could
 * not be flushed).
 */
static int take_leftovers(struct recorder *r)
{
	struct vpath_stage *stages = calloc((size_t)r->ncpus, sizeof(*stages));
	uint32_t zero = 0;
	int err = 0;

	if (!stages)
		return -ENOMEM;
	/* Not fatal: everything else is still written. */
	if (bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.stages), &zero, stages)) {
		fprintf(stderr, "vpath-record: cannot read the last batches: %s\n",
			strerror(errno));
		free(stages);
		return 0;
	}
	for (int cpu = 0; !err && cpu < r->ncpus; cpu++) {
		const struct vpath_batch *b = &stages[cpu].batch;

		if (b->count > 0 && b->count <= VPATH_BATCH_OPS)
			err = reorder__add_ops(r->ro, (unsigned)cpu, b->ops, b->count);
	}
	free(stages);
	return err;
}

/*
 * One round: note who is writing, flush the CPUs' batches, empty the ring.
 * Every record stamped at or before *upto is then in the reorder buffer.
 */
static int drain(struct recorder *r, uint64_t *upto)
{
	uint64_t start = mono_ns();
	int err;

	watermark__begin(r->wm, start);
	note_in_flight(r, start);
	note_execs(r, start);
	if (!r->skel->bss->batches_off) {
		err = flush_batches(r, r->wm);
		if (err) {
			/* What is in the batches now is picked up at the end (take_leftovers). */
			fprintf(stderr,
				"vpath-record: cannot flush the CPUs' batches (%s): socket "
				"operations cross the ring one by one from now on\n",
				strerror(-err));
			r->skel->bss->batches_off = 1;
		}
	}
	err = consume_ring(r);
	/* After note_execs: what it let the line pass is handed in by now. */
	if (!err)
		err = inbox__take(&r->inbox, exec_record, r);
	*upto = watermark__end(r->wm);
	return err;
}

/* Read-only views of the ring's consumer and producer positions (its first two pages). */
static int map_ring_positions(struct recorder *r)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = bpf_map__fd(r->skel->maps.events);
	void *cons, *prod;

	cons = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	if (cons == MAP_FAILED)
		return -errno;
	prod = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, page);
	if (prod == MAP_FAILED) {
		int err = -errno;

		munmap(cons, (size_t)page);
		return err;
	}
	r->ring_cons = cons;
	r->ring_prod = prod;
	return 0;
}

static void unmap_ring_positions(struct recorder *r)
{
	long page = sysconf(_SC_PAGESIZE);

	if (r->ring_cons)
		munmap((void *)r->ring_cons, (size_t)page);
	if (r->ring_prod)
		munmap((void *)r->ring_prod, (size_t)page);
}

/* Opens the BPF object and sets what must be set before it is loaded. */
static int open_programs(struct recorder *r, uint64_t cgroup_id)
{
	struct bpf_program *prog;
	int err;

	r->skel = vpath_bpf__open();
	if (!r->skel) {
		err = -errno;
		fprintf(stderr, "vpath-record: cannot open the BPF object: %s\n", strerror(errno));
		return err;
	}
	set_filters(r, cgroup_id);
	err = draw_hash_key(r);
	if (err)
		return err;
	choose_programs(r);
	/* Run on demand (flush_batches), never attached. */
	bpf_program__set_autoattach(r->skel->progs.flush_stage, false);
	/* The Go runtime probes are attached to each Go binary found (golang.c). */
	bpf_object__for_each_program(
		prog, r->skel->obj) if (strncmp(bpf_program__name(prog), "go_", 3) == 0 ||
					strncmp(bpf_program__name(prog), "tls_", 4) == 0)
		bpf_program__set_autoattach(prog, false);
	err = bpf_map__set_max_entries(r->skel->maps.events, (uint32_t)r->opts->ringbuf_size);
	/* Classic tracepoints (the syscall fallback's, --logs') are found through tracefs. */
	if (!err && (r->fallback || r->opts->logs))
		err = probe_tracefs();
	return err;
}

static int load_and_attach(struct recorder *r, uint64_t cgroup_id)
{
	int err;
	struct go_follow_opts gopts = {
		.binaries = r->opts->go_binaries,
		.nbinaries = r->opts->ngo_binaries,
		.pids = r->opts->pids,
		.npids = r->opts->npids,
		.netns = r->netns_filter,
		.verbose = verbosity,
		.pending = go_pending,
		.pending_ctx = r,
		.test_late_ms = r->opts->test_go_late_ms,
	};

	err = open_programs(r, cgroup_id);
	if (err)
		return err;
	err = vpath_bpf__load(r->skel);
	if (err) {
		fprintf(stderr, "vpath-record: the kernel refused the BPF programs: %s%s\n",
			strerror(-err), verbosity < 2 ? " (run with -vv for libbpf's log)" : "");
		return err;
	}
	/* Before attaching, while batches are empty: can each CPU be asked to flush? */
	err = r->opts->no_batches ? -EOPNOTSUPP : flush_batches(r, NULL);
	if (!err && verbosity)
		fprintf(stderr, "vpath-record: socket operations in per-CPU batches of %d\n",
			VPATH_BATCH_OPS);
	if (err) {
		r->skel->bss->batches_off = 1;
		if (verbosity)
			fprintf(stderr,
				"vpath-record: cannot run the flush program on each CPU (%s): "
				"socket operations cross the ring one by one\n",
				strerror(-err));
	}
	/* Nothing the probes write is stamped before this: the first file's start is. */
	r->emitted_ts = mono_ns();
	/* Forked while privileged, before anything it must not hold is open (the output). */
	r->ph = priv_helper__start(r->skel->obj, RECORDER_NICE);
	if (!r->ph)
		fprintf(stderr,
			"vpath-record: warning: cannot start the probe helper (%s): Go "
			"programs started later are not followed\n",
			strerror(errno));
	r->ew = exec_watch__new(r->skel->obj, r->ph);
	if (!r->ew) {
		fprintf(stderr, "vpath-record: out of memory\n");
		return -ENOMEM;
	}
	/* Before the tracepoints: an operation seen is then one of a known Go process or none. */
	gopts.go_active = (volatile uint32_t *)&r->skel->bss->go_active;
	gopts.go_pid_bits = (volatile uint64_t *)r->skel->bss->go_pid_bits;
	gopts.tls_active = (volatile uint32_t *)&r->skel->bss->tls_active;
	gopts.go_tls_active = (volatile uint32_t *)&r->skel->bss->go_tls_active;
	r->go = go_follow__start(r->skel->obj, r->ph, r->ph ? r->ew : NULL, &gopts);
	if (!r->go) {
		fprintf(stderr, "vpath-record: out of memory\n");
		return -ENOMEM;
	}
	r->skel->bss->exec_watch_on = exec_watch__wanted(r->ew);
	/* libssl's plaintext (tlsprobe.c): optional, a file that cannot be probed is only noted. */
	r->tls = tls_follow__start(r->skel->obj, r->opts->pids, r->opts->npids, r->netns_filter,
				   verbosity);
	if (!r->tls) {
		fprintf(stderr, "vpath-record: out of memory\n");
		return -ENOMEM;
	}
	/* Or'ed: a Go binary's crypto/tls may have set it already (golang.c). */
	r->skel->bss->tls_active |= tls_follow__active(r->tls);
	err = vpath_bpf__attach(r->skel);
	if (err) {
		fprintf(stderr, "vpath-record: cannot attach the BPF programs: %s%s\n",
			strerror(-err), verbosity < 2 ? " (run with -vv for libbpf's log)" : "");
		return err;
	}
	/*
	 * A Go program exec'ed between go_follow__start's look at /proc and
	 * the exec tracepoint's attach was in neither: looked for once more
	 * (under load, the libssl scan and the attach make that window long).
	 */
	go_follow__rescan(r->go);
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), handle_record, r, NULL);
	if (r->rb)
		err = map_ring_positions(r);
	else
		err = -errno;
	if (err)
		fprintf(stderr, "vpath-record: cannot map the ring buffer: %s\n", strerror(-err));
	return err;
}

static int open_output(struct recorder *r)
{
	const struct record_opts *o = r->opts;
	struct task_filter tf = {
		.procs = {.pids = o->pids, .npids = o->npids, .netns = r->netns_filter}};
	struct output_opts oo = {
		.path = o->output,
		.ring = o->ring,
		.segment_size = o->segment_size,
		.group_readable = o->group != NULL,
		.gid = o->gid,
		.start = write_start,
		.ctx = r,
	};
	int err;

	if (o->cgroup && cgroup_id_of(o->cgroup, &tf.cgroup_id))
		return -ENOENT;
	host_identity(&oo.header, o->host, r->netns_filter);
	if (r->fallback)
		oo.header.flags |= VPR_FILE_FALLBACK;
	if (o->capture)
		oo.header.flags |= VPR_FILE_PAYLOAD;
	if (o->capture_hash)
		oo.header.flags |= VPR_FILE_PAYLOAD_HASH;
	if (o->logs)
		oo.header.flags |= VPR_FILE_LOGS;
	err = task_table__scan_proc(r->tasks, &tf);
	if (err) {
		fprintf(stderr, "vpath-record: cannot list threads in /proc: %s\n", strerror(-err));
		return err;
	}
	r->out = output__open(&oo);
	if (!r->out) {
		err = -errno;
		fprintf(stderr, "vpath-record: cannot write %s%s%s%s: %s\n", o->output,
			o->ring ? ".000" : "", o->group ? " for group " : "",
			o->group ? o->group : "", strerror(errno));
	}
	return err;
}

static void report_write_error(const char *path, int err)
{
	if (err == -ENOSPC)
		fprintf(stderr,
			"vpath-record: disk full writing %s: recording stopped; the file is "
			"valid up to its last complete block\n",
			path);
	else
		fprintf(stderr, "vpath-record: cannot write %s: %s\n", path, strerror(-err));
}

static int poll_loop(struct recorder *r)
{
	uint64_t start = mono_ns(), next_tick = start + TICK_NS;
	uint64_t deadline = r->opts->duration_ns ? start + r->opts->duration_ns : 0;
	int err = 0;

	while (!recorder_exiting) {
		uint64_t now, upto;

		/* Records submitted without a wake-up are only seen by draining. */
		err = ring_buffer__poll(r->rb, POLL_MS);
		if (err == -EINTR)
			err = 0;
		if (err >= 0)
			err = drain(r, &upto);
		if (!err)
			err = reorder__emit(r->ro, upto, emit_record, r);
		if (err < 0)
			break;
		now = mono_ns();
		if (now >= next_tick) {
			err = write_clock(to_reorder, r->ro, 0);
			if (!err)
				err = write_drops(r, to_reorder, r->ro, false, 0);
			if (!err)
				err = output__flush(r->out);
			if (err)
				break;
			next_tick = now + TICK_NS;
		}
		if (deadline && now >= deadline)
			break;
	}
	return err < 0 ? err : 0;
}

/*
 * Detach first, so that the last drain sees everything that was recorded.
 * The uprobes of the Go and libssl followers (and of the probe helper, for
 * programs started later) stay until after the file is closed, in the
 * frees at the end: the kernel takes a grace period to remove each, about
 * 0.1 s here, seconds for a few dozen, and what they record once the
 * socket programs are gone belongs to no recorded operation.
 */
static int finish(struct recorder *r)
{
	uint64_t upto;
	int err;

	vpath_bpf__detach(r->skel);
	exec_watch__stop(r->ew);
	err = drain(r, &upto);
	if (!err)
		err = take_leftovers(r);
	if (!err)
		err = write_drops(r, to_reorder, r->ro, true, 0);
	if (!err)
		err = write_clock(to_reorder, r->ro, 0);
	if (!err)
		err = reorder__emit(r->ro, UINT64_MAX, emit_record, r);
	return err < 0 ? err : 0;
}

/* What the recording holds, or why it failed, and what went wrong on the way. */
static void report_summary(const struct recorder *r, int err, uint64_t started)
{
	if (err) {
		report_write_error(output__path(r->out), r->write_err ? r->write_err : err);
	} else {
		fprintf(stderr,
			"vpath-record: %llu records, %llu lost, %.1f MiB in %.1f s to %s%s\n",
			(unsigned long long)output__records(r->out),
			(unsigned long long)total_lost(r),
			(double)output__bytes(r->out) / (1 << 20),
			(double)(mono_ns() - started) / 1e9, r->opts->output,
			r->opts->ring ? ".NNN" : "");
	}
	if (r->payloads)
		fprintf(stderr,
			"vpath-record: %llu payloads captured, %llu with secrets replaced\n",
			(unsigned long long)r->payloads, (unsigned long long)r->redacted);
	if (r->logs.taken)
		fprintf(stderr,
			"vpath-record: %llu log writes recorded, %llu with secrets replaced\n",
			(unsigned long long)r->logs.taken, (unsigned long long)r->logs.redacted);
	if (r->late)
		fprintf(stderr,
			"vpath-record: %llu records written out of time order, by up to %.1f ms\n",
			(unsigned long long)r->late, (double)r->late_max_ns / 1e6);
	if (r->stuck_marks)
		fprintf(stderr,
			"vpath-record: %llu times a CPU was marked busy writing for over %llu ms: "
			"not waited for\n",
			(unsigned long long)r->stuck_marks,
			(unsigned long long)(MAX_FLIGHT_NS / 1000000));
	if (r->exec_holds_broken)
		fprintf(stderr,
			"vpath-record: %llu rounds found a program's exec undecided for over "
			"%llu ms: not waited for\n",
			(unsigned long long)r->exec_holds_broken,
			(unsigned long long)(MAX_EXEC_HOLD_NS / 1000000));
	if (verbosity && r->wm && watermark__held_rounds(r->wm))
		fprintf(stderr,
			"vpath-record: %llu rounds waited for a CPU still writing records "
			"(or an exec being decided), by up to %.1f ms\n",
			(unsigned long long)watermark__held_rounds(r->wm),
			(double)watermark__held_max_ns(r->wm) / 1e6);
	if (r->malformed + r->logs.malformed)
		fprintf(stderr, "vpath-record: %llu malformed ring buffer records skipped\n",
			(unsigned long long)(r->malformed + r->logs.malformed));
}

int recorder_run(const struct record_opts *opts)
{
	struct recorder r = {.opts = opts, .logs = {.max_len = opts->logs}};
	uint64_t cgroup_id = 0, started;
	int err, werr;

	verbosity = opts->verbose;
	libbpf_set_print(libbpf_print);
	inbox__init(&r.inbox);
	err = probe_btf();
	if (!err)
		err = privs_check();
	if (!err && opts->cgroup)
		err = cgroup_id_of(opts->cgroup, &cgroup_id);
	if (!err && opts->netns)
		err = netns_enter(opts->netns, &r.netns_filter);
	if (err)
		goto cleanup;
	r.netns_here = current_netns();
	/*
	 * A fixed threshold (glibc raises it as large blocks are freed): the
	 * reorder queues' large buffers stay mmapped, so what a backlog grew is
	 * returned to the system when they shrink, not kept in the heap.
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	r.ncpus = libbpf_num_possible_cpus();
	r.lost = calloc((size_t)(r.ncpus > 0 ? r.ncpus : 1), sizeof(*r.lost));
	r.lost_written = calloc((size_t)(r.ncpus > 0 ? r.ncpus : 1), sizeof(*r.lost_written));
	r.tasks = task_table__new();
	r.ro = reorder__new(r.ncpus > 0 ? (unsigned)r.ncpus : 1);
	r.wm = watermark__new(r.ncpus > 0 ? (unsigned)r.ncpus : 1, HOLD_NS);
	r.stages = calloc((size_t)(r.ncpus > 0 ? r.ncpus : 1), sizeof(*r.stages));
	if (opts->capture) {
		r.carry = redact_carry__new();
		r.h2 = redact_h2__new();
	}
	if (r.ncpus <= 0 || !r.lost || !r.lost_written || !r.tasks || !r.ro || !r.wm || !r.stages ||
	    (opts->capture && (!r.carry || !r.h2))) {
		err = -ENOMEM;
		fprintf(stderr, "vpath-record: out of memory\n");
		goto cleanup;
	}
	err = load_and_attach(&r, cgroup_id);
	if (!err)
		err = open_output(&r);
	if (err)
		goto cleanup;
	/*
	 * On a saturated host the reader must run soon after a wake-up or the
	 * ring fills and records are lost; best effort, it needs CAP_SYS_NICE.
	 */
	if (setpriority(PRIO_PROCESS, 0, RECORDER_NICE) && verbosity)
		fprintf(stderr, "vpath-record: cannot raise priority: %s\n", strerror(errno));
	err = privs_drop(opts->ring > 0, opts->ring > 0 && opts->group);
	if (err && verbosity)
		fprintf(stderr, "vpath-record: could not drop privileges: %s\n", strerror(-err));
	/* After the drop: the watch's thread must not keep what the recorder gave up. */
	werr = exec_watch__start(r.ew);
	if (werr)
		fprintf(stderr,
			"vpath-record: warning: cannot watch for programs started later "
			"(%s): a Go program started later is followed only when named with "
			"--go-binary\n",
			strerror(-werr));
	fprintf(stderr, "vpath-record: recording to %s (Ctrl-C to stop)\n", output__path(r.out));
	started = mono_ns();
	err = poll_loop(&r);
	if (!err)
		err = finish(&r);
	if (!err)
		err = output__flush(r.out);
	report_summary(&r, err, started);
cleanup:
	if (r.out) {
		int cerr = output__close(r.out);

		if (cerr && !err) {
			report_write_error(opts->output, cerr);
			err = cerr;
		}
	}
	unmap_ring_positions(&r);
	ring_buffer__free(r.rb);
	go_follow__free(r.go);
	exec_watch__free(r.ew);
	priv_helper__free(r.ph);
	tls_follow__free(r.tls);
	vpath_bpf__destroy(r.skel);
	task_table__free(r.tasks);
	reorder__free(r.ro);
	inbox__free(&r.inbox);
	watermark__free(r.wm);
	free(r.stages);
	redact_carry__free(r.carry);
	redact_h2__free(r.h2);
	free(r.lost);
	free(r.lost_written);
	return err;
}
