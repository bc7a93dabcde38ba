/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 2b/4b, pairing across ends: the client-side exchange and the
 * server-side exchange of one call are found by stream position.  The
 * request's first byte has the same sequence number at both ends (the
 * client's write_seq, the server's copied_seq), which initial sequence
 * numbers make random per connection: so pairing is exact, immune to port
 * reuse and to clock differences, and also works for sockets whose 4-tuple
 * was never recorded.  When both ends carry a 4-tuple they must be
 * reversed, and when both have a reply its first byte must agree too.
 *
 * An exchange whose peer has not appeared waits until the common timeline
 * has moved `window` past its end (a deadline heap); then it is given up.
 *
 * With pairs (pairs.h, `--pairs FILE`) an engine outside vpath decided
 * which ends pair: the matcher asks it instead of comparing the ends.
 */
#ifndef VPATH_MATCHER_H
#define VPATH_MATCHER_H

#include "hashmap.h"
#include "pairs.h"
#include "xchg.h"

struct vp_matcher {
	struct u64map by_seq;  /* request start seq -> chain of waiting exchanges */
	struct vp_xchg **heap; /* by deadline; only exchanges waiting in by_seq */
	size_t nheap, cap;
	uint64_t matched, given_up;
	const struct vp_pairs *pairs; /* NULL: compare the ends here */
};

/* Pair x with a waiting opposite end and return that end, or wait and return NULL. */
struct vp_xchg *vp_matcher__add(struct vp_matcher *m, struct vp_xchg *x);
/* Stop waiting for x's peer (it was given up or the input ended). */
void vp_matcher__remove(struct vp_matcher *m, struct vp_xchg *x);
/* Give up x (waiting) at deadline on the common timeline unless it is matched before. */
void vp_matcher__schedule(struct vp_matcher *m, struct vp_xchg *x, int64_t deadline);
/* The waiting exchange with the earliest deadline if that is <= horizon (any, with all). */
struct vp_xchg *vp_matcher__due(struct vp_matcher *m, int64_t horizon, bool all);
void vp_matcher__free(struct vp_matcher *m);

#endif
