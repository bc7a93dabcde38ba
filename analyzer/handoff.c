// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "handoff.h"

/*
 * The requests of inflight[0..n) read after since, at most
 * VP_HANDOFF_GAP_NS before ts, on another connection than cookie's: each
 * may have released the wait answered at ts.  True when there was one.
 */
static bool mark_releasers(struct vp_xchg *const *inflight, unsigned n, uint64_t cookie,
			   uint64_t since, uint64_t ts)
{
	bool found = false;

	for (unsigned i = 0; i < n; i++) {
		struct vp_xchg *x = inflight[i];

		if (x->side == VP_SERVER && x->cookie != cookie && x->req.last_ts > since &&
		    x->req.last_ts <= ts && ts - x->req.last_ts <= VP_HANDOFF_GAP_NS)
			x->may_hand_off = found = true;
	}
	return found;
}

bool vp_handoff__reply(struct vp_xchg *const *inflight, unsigned n, const struct vp_xchg *s,
		       uint64_t turn_ts, uint64_t ts)
{
	uint64_t since = s->req.last_ts;

	/* A server waiting on calls of its own is busy with s, not held for another client. */
	if (s->child_head || ts <= since || ts - since < VP_HANDOFF_WAIT_NS)
		return false;
	/*
	 * An event loop that reads a batch of requests and then writes their
	 * replies (Redis) answers late when it is preempted in the batch: s
	 * was held over only if the thread answered others and read again.
	 */
	if (turn_ts <= since)
		return false;
	return mark_releasers(inflight, n, s->cookie, since, ts);
}

bool vp_handoff__unasked(struct vp_xchg *const *inflight, unsigned n, uint64_t cookie, uint64_t ts)
{
	return mark_releasers(inflight, n, cookie, 0, ts);
}
