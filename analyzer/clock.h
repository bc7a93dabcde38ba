/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 6b, clocks: each host's monotonic clock is put on one common
 * timeline (the first host's) by an offset estimated from matched messages,
 * not from wall clocks: a message is received after it is sent, so each
 * request bounds offset[server] - offset[client] from below and each reply
 * from above.  The estimate is the middle of the tightest bounds; hosts not
 * yet connected to the first one by messages use their wall clocks.
 */
#ifndef VPATH_CLOCK_H
#define VPATH_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vp_clocks {
	size_t n;
	int64_t *lo, *hi; /* n*n: bounds of offset[j] - offset[i] */
	bool *have_lo, *have_hi;
	int64_t *wall;	  /* wall-clock offsets, the fallback */
	int64_t *offset;  /* current estimate, offset[0] == 0 */
	bool *aligned;	  /* estimated from messages (or host 0) */
	bool dirty;
	uint64_t samples;
};

int vp_clocks__init(struct vp_clocks *c, size_t nhosts, const int64_t *wall_offsets);
/* Bytes sent on host `from` at send_ts were received on host `to` at recv_ts. */
void vp_clocks__sample(struct vp_clocks *c, int from, uint64_t send_ts, int to, uint64_t recv_ts);
/* Recompute offsets if samples changed the bounds; returns true when they changed. */
bool vp_clocks__solve(struct vp_clocks *c);
/* Half the width of the bounds between host h and host 0 (0 when unknown). */
int64_t vp_clocks__uncertainty(const struct vp_clocks *c, int h);
void vp_clocks__free(struct vp_clocks *c);

#endif
