/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 6b, clocks: each host's monotonic clock is put on one common
 * timeline (the first host's) by an offset.
 *
 * Hosts with the same boot_id are network namespaces of one machine: they
 * read one CLOCK_MONOTONIC, so their offsets are equal, exactly, and
 * nothing is estimated between them (on one machine a receive can even be
 * stamped before the matching send returns, so messages would mislead).
 *
 * Between machines the offset is estimated from matched messages, not from
 * wall clocks: bytes are received after they are sent, so each message
 * from machine i to machine j bounds offset[j] - offset[i] from below
 * (requests) and each message back bounds it from above (replies): the
 * tightest bounds are the smallest one-way delays of both directions.
 * Bounds combine along chains of machines (a -> b and b -> c bound a -> c),
 * and machines are fixed one after the other, the narrowest interval
 * first, at the middle of what the bounds and the machines already fixed
 * allow.  So every message seen so far is received after it was sent on
 * the common timeline, and a call never starts before the request that
 * caused it was sent.  Only when the bounds contradict each other (clocks
 * drifting apart over a long recording) is the middle of the contradiction
 * used.  Machines not yet linked to the first one by messages use their
 * wall clocks.
 */
#ifndef VPATH_CLOCK_H
#define VPATH_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Offsets are kept within +-VP_OFFSET_MAX (36 years): with timestamps below
 * VP_TS_MAX (input.h) every time on the common timeline, and every
 * difference of two, fits in int64_t whatever a damaged header or
 * contradicting messages suggest.
 */
#define VP_OFFSET_MAX ((int64_t)1 << 60)
/* Before messages have aligned two machines, their wall clocks may be this far apart... */
#define VP_UNALIGNED_SLACK_NS (10ll * 1000 * 1000 * 1000)

struct vp_clocks {
	size_t n;	 /* hosts */
	size_t nm;	 /* machines: distinct boot_ids */
	size_t *machine; /* per host */
	int64_t *up;	 /* nm*nm: [i*nm+j] upper bound of off[j] - off[i], INT64_MAX unknown */
	int64_t *tight;	 /* nm*nm: up combined along chains (scratch of solve) */
	int64_t *wall;	 /* per machine: wall-clock offset, the fallback */
	int64_t *start;	 /* per machine: wall clock when its first recording began */
	int64_t *moff;	 /* per machine: current estimate */
	bool *fixed;	 /* per machine: estimated from messages (or the first machine) */
	int64_t *offset; /* per host: moff of its machine; offset[0] == 0 */
	bool *aligned;	 /* per host: fixed[machine] */
	bool dirty;
	uint64_t samples;
};

/*
 * boot_ids: per host, hosts with equal non-empty ids share one clock.
 * wall_offsets: per host, realtime - monotonic at the start of its recording.
 * starts: per host, realtime at the start of its recording.
 */
int vp_clocks__init(struct vp_clocks *c, size_t nhosts, const char *const *boot_ids,
		    const int64_t *wall_offsets, const int64_t *starts);
/* Bytes sent on host `from` at send_ts were received on host `to` at recv_ts. */
void vp_clocks__sample(struct vp_clocks *c, int from, uint64_t send_ts, int to, uint64_t recv_ts);
/* Recompute offsets if samples changed the bounds; returns true when they changed. */
bool vp_clocks__solve(struct vp_clocks *c);
/* Whether hosts a and b read one clock (same machine). */
static inline bool vp_clocks__same_machine(const struct vp_clocks *c, int a, int b)
{
	return c->machine[a] == c->machine[b];
}
/*
 * How far from its place on the common timeline a record of host b may
 * really be, seen from host a: 0 once messages aligned them (or they share
 * a clock).  Before that their wall clocks are all there is, and a wall
 * clock may be off by anything: VP_UNALIGNED_SLACK_NS, or the distance
 * between the wall clocks' starts of the two recordings when larger (a
 * recorder started an hour ahead looks an hour late, while recorders of
 * one system are started together).
 */
int64_t vp_clocks__doubt(const struct vp_clocks *c, int a, int b);
void vp_clocks__free(struct vp_clocks *c);

#endif
