// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vprstat: what a recording holds, as one parseable line, for benchmarks.
 *
 *   vprstat [--pid PID] FILE
 *   vprstat status=ok blocks=12 records=81234 sock_ops=80000 conn=100 task=60
 *     clock=5 drops_records=2 lost=0 pid_ops=80000 seq_gap_bytes=0 span_s=5.21
 *     op_backwards=0 op_max_backwards_ns=0
 *
 * lost is the recorder's own count (the sum over CPUs of the last cumulative
 * VPR_DROPS record of each CPU).  seq_gap_bytes is an independent check that
 * does not trust the recorder: for every socket and direction, the stream
 * positions of the recorded operations must tile [first, last) without
 * holes; bytes inside that span that no recorded operation covers were sent
 * or received without being recorded.  That holds when each socket is used
 * by one thread at a time, as in echobench.  With 1-byte messages a missing
 * byte is a missing operation.  --pid restricts pid_ops and the gap check to
 * one process.  op_backwards counts socket operations stamped earlier than
 * an operation before them in the file (the recorder writes them in time
 * order), and op_max_backwards_ns is the largest such step back;
 * backwards and max_backwards_ns are the same over records of every type.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "recfile.h"

#define MAX_CPUS 4096

/* Stream coverage of one (socket, direction), positions relative to the first seen. */
struct stream_span {
	uint32_t origin; /* start position of the first recorded operation */
	int64_t lo, hi;	 /* covered range, relative to origin */
	uint64_t bytes;	 /* sum of the recorded operations' bytes */
};

/* spans: one map per direction, by socket cookie. */
static int spans__add(struct u64map spans[2], const struct vpr_sock_op *op)
{
	struct u64map *m = &spans[op->dir == VPR_DIR_RECV];
	struct stream_span *s = u64map__get(m, op->cookie);
	int64_t end;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s || u64map__put(m, op->cookie, s)) {
			free(s);
			return -ENOMEM;
		}
		s->origin = op->seq_end - op->bytes;
	}
	/* Positions wrap at 2^32; relative to the origin they fit an int32 for any sane run. */
	end = (int32_t)(op->seq_end - s->origin);
	if (end - op->bytes < s->lo)
		s->lo = end - op->bytes;
	if (end > s->hi)
		s->hi = end;
	s->bytes += op->bytes;
	return 0;
}

static uint64_t spans__gap_bytes(const struct u64map spans[2])
{
	uint64_t gaps = 0, key;
	void *val;

	for (int dir = 0; dir < 2; dir++) {
		for (size_t i = 0; u64map__next(&spans[dir], &i, &key, &val);) {
			const struct stream_span *s = val;

			if ((uint64_t)(s->hi - s->lo) > s->bytes)
				gaps += (uint64_t)(s->hi - s->lo) - s->bytes;
		}
	}
	return gaps;
}

static void spans__free(struct u64map spans[2])
{
	uint64_t key;
	void *val;

	for (int dir = 0; dir < 2; dir++) {
		for (size_t i = 0; u64map__next(&spans[dir], &i, &key, &val);)
			free(val);
		u64map__free(&spans[dir]);
	}
}

/* Steps back in time of a sequence of stamps: how many, and the largest. */
struct order {
	uint64_t last, backwards, max_back;
};

static void order__see(struct order *o, uint64_t ts)
{
	if (ts >= o->last) {
		o->last = ts;
		return;
	}
	o->backwards++;
	if (o->last - ts > o->max_back)
		o->max_back = o->last - ts;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	static const char *status_names[] = { "ok", "torn", "corrupt" };
	uint64_t by_type[VPR_TYPE_MAX] = { 0 }, records = 0, pid_ops = 0, lost = 0;
	uint64_t first_ts = 0, last_ts = 0;
	uint64_t payload_apart = 0;
	struct order any_order = { 0 }, op_order = { 0 };
	struct vpr_sock_op last_op = { 0 };
	bool last_was_op = false;
	static uint64_t lost_by_cpu[MAX_CPUS];
	struct u64map spans[2] = { 0 };
	struct vpr_reader *r = NULL;
	const struct vpr_hdr *rec;
	char err[256];
	long pid = 0;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "p:h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || pid <= 0) {
				fprintf(stderr, "vprstat: invalid pid '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			printf("Usage: vprstat [--pid PID] FILE\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "Usage: vprstat [--pid PID] FILE\n");
		return 2;
	}

	r = vpr_reader__open(argv[optind], err, sizeof(err));
	if (!r) {
		fprintf(stderr, "vprstat: %s: %s\n", argv[optind], err);
		return 1;
	}
	while (vpr_reader__next(r, &rec) == 1) {
		if (rec->type == VPR_PAYLOAD) {
			const struct vpr_payload *p = (const struct vpr_payload *)rec;

			payload_apart += !(last_was_op && last_op.h.ts_ns == p->h.ts_ns &&
					   last_op.h.tid == p->h.tid && last_op.cookie == p->cookie &&
					   last_op.dir == p->dir && last_op.seq_end == p->seq_end);
		}
		last_was_op = rec->type == VPR_SOCK_OP;
		if (last_was_op)
			memcpy(&last_op, rec, sizeof(last_op));
		records++;
		if (rec->type < VPR_TYPE_MAX)
			by_type[rec->type]++;
		if (!first_ts || rec->ts_ns < first_ts)
			first_ts = rec->ts_ns;
		order__see(&any_order, rec->ts_ns);
		if (rec->type == VPR_SOCK_OP)
			order__see(&op_order, rec->ts_ns);
		if (rec->ts_ns > last_ts)
			last_ts = rec->ts_ns;
		if (rec->type == VPR_DROPS && rec->tid < MAX_CPUS) {
			const struct vpr_drops *d = (const struct vpr_drops *)rec;

			if (d->lost > lost_by_cpu[rec->tid])
				lost_by_cpu[rec->tid] = d->lost;
		} else if (rec->type == VPR_SOCK_OP) {
			const struct vpr_sock_op *op = (const struct vpr_sock_op *)rec;

			if (pid && op->pid != (uint32_t)pid)
				continue;
			pid_ops++;
			if (spans__add(spans, op)) {
				fprintf(stderr, "vprstat: out of memory\n");
				goto cleanup;
			}
		}
	}
	for (int i = 0; i < MAX_CPUS; i++)
		lost += lost_by_cpu[i];
	if (vpr_reader__status(r) != VPR_READ_OK)
		fprintf(stderr, "vprstat: %s: %s\n", argv[optind], vpr_reader__error(r));

	printf("vprstat status=%s blocks=%llu records=%llu sock_ops=%llu conn=%llu task=%llu "
	       "clock=%llu drops_records=%llu lost=%llu pid_ops=%llu seq_gap_bytes=%llu "
	       "span_s=%.3f op_backwards=%llu op_max_backwards_ns=%llu file_flags=0x%x payload=%llu "
	       "payload_apart=%llu wakeup=%llu backwards=%llu max_backwards_ns=%llu\n",
	       status_names[vpr_reader__status(r)], (unsigned long long)vpr_reader__blocks(r),
	       (unsigned long long)records, (unsigned long long)by_type[VPR_SOCK_OP],
	       (unsigned long long)by_type[VPR_CONN], (unsigned long long)by_type[VPR_TASK],
	       (unsigned long long)by_type[VPR_CLOCK], (unsigned long long)by_type[VPR_DROPS],
	       (unsigned long long)lost, (unsigned long long)pid_ops,
	       (unsigned long long)spans__gap_bytes(spans), (last_ts - first_ts) / 1e9, (unsigned long long)op_order.backwards,
	       (unsigned long long)op_order.max_back, vpr_reader__header(r)->flags,
	       (unsigned long long)by_type[VPR_PAYLOAD], (unsigned long long)payload_apart,
	       (unsigned long long)by_type[VPR_WAKEUP], (unsigned long long)any_order.backwards,
	       (unsigned long long)any_order.max_back);
	/* A damaged middle is a failure; a torn tail is what an interrupted recorder leaves. */
	ret = vpr_reader__status(r) == VPR_READ_CORRUPT;

cleanup:
	spans__free(spans);
	vpr_reader__close(r);
	return ret;
}
