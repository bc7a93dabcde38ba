// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vprstat: what a recording holds, as one parseable line, for benchmarks.
 *
 *   vprstat [--pid PID] FILE
 *   vprstat status=ok blocks=12 records=81234 sock_ops=80000 conn=100 task=60
 *     clock=5 drops_records=2 lost=0 pid_ops=80000 seq_gap_bytes=0 span_s=5.21
 *
 * lost is the recorder's own count (the sum over CPUs of the last cumulative
 * VPR_DROPS record of each CPU).  seq_gap_bytes is an independent check that
 * does not trust the recorder: for every socket and direction, the stream
 * positions of the recorded operations must tile [first, last) without
 * holes; bytes inside that span that no recorded operation covers were sent
 * or received without being recorded.  That holds when each socket is used
 * by one thread at a time, as in echobench.  With 1-byte messages a missing
 * byte is a missing operation.  --pid restricts pid_ops and the gap check to
 * one process.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recfile.h"

#define MAX_CPUS 4096

/* Stream coverage of one (socket, direction), positions relative to the first seen. */
struct stream_span {
	uint64_t cookie; /* 0 = empty slot */
	uint8_t dir;
	uint32_t origin; /* start position of the first recorded operation */
	int64_t lo, hi;	 /* covered range, relative to origin */
	uint64_t bytes;	 /* sum of the recorded operations' bytes */
};

struct span_table {
	struct stream_span *slots;
	size_t cap, used;
};

static uint64_t span_hash(uint64_t cookie, uint8_t dir)
{
	uint64_t h = (cookie ^ dir) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 29);
}

static struct stream_span *span_table__slot(struct stream_span *slots, size_t cap,
					    uint64_t cookie, uint8_t dir)
{
	size_t i = span_hash(cookie, dir) & (cap - 1);

	while (slots[i].cookie && !(slots[i].cookie == cookie && slots[i].dir == dir))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

/* Grows at half full, so probing always ends at an empty slot.  -ENOMEM. */
static int span_table__grow(struct span_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	struct stream_span *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].cookie)
			*span_table__slot(slots, cap, t->slots[i].cookie, t->slots[i].dir) =
				t->slots[i];
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

static int span_table__add(struct span_table *t, const struct vpr_sock_op *op)
{
	struct stream_span *s;
	int64_t end;

	if (2 * (t->used + 1) > t->cap && span_table__grow(t))
		return -ENOMEM;
	s = span_table__slot(t->slots, t->cap, op->cookie, op->dir);
	if (!s->cookie) {
		*s = (struct stream_span){ .cookie = op->cookie, .dir = op->dir,
					   .origin = op->seq_end - op->bytes };
		t->used++;
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

static uint64_t span_table__gap_bytes(const struct span_table *t)
{
	uint64_t gaps = 0;

	for (size_t i = 0; i < t->cap; i++) {
		const struct stream_span *s = &t->slots[i];

		if (s->cookie && (uint64_t)(s->hi - s->lo) > s->bytes)
			gaps += (uint64_t)(s->hi - s->lo) - s->bytes;
	}
	return gaps;
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
	static uint64_t lost_by_cpu[MAX_CPUS];
	struct span_table spans = { 0 };
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
		records++;
		if (rec->type < VPR_TYPE_MAX)
			by_type[rec->type]++;
		if (!first_ts || rec->ts_ns < first_ts)
			first_ts = rec->ts_ns;
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
			if (span_table__add(&spans, op)) {
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
	       "span_s=%.3f\n",
	       status_names[vpr_reader__status(r)], (unsigned long long)vpr_reader__blocks(r),
	       (unsigned long long)records, (unsigned long long)by_type[VPR_SOCK_OP],
	       (unsigned long long)by_type[VPR_CONN], (unsigned long long)by_type[VPR_TASK],
	       (unsigned long long)by_type[VPR_CLOCK], (unsigned long long)by_type[VPR_DROPS],
	       (unsigned long long)lost, (unsigned long long)pid_ops,
	       (unsigned long long)span_table__gap_bytes(&spans), (last_ts - first_ts) / 1e9);
	/* A damaged middle is a failure; a torn tail is what an interrupted recorder leaves. */
	ret = vpr_reader__status(r) == VPR_READ_CORRUPT;

cleanup:
	free(spans.slots);
	vpr_reader__close(r);
	return ret;
}
