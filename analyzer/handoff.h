/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Hand-offs seen in the socket records alone (no payload): a server thread
 * reads a call's request and, right after, answers ANOTHER client's call
 * that had waited long for its reply (a BRPOP, a BLMOVE, an XREADGROUP
 * BLOCK, a broker's delivery to an idle consumer, a long poll).  The first call
 * may have released the second: the work it asked for may go on in that
 * other client (a queue's worker), which no link shows, so a request that
 * made such a call is not exact (vp_xchg.may_hand_off, paths.c).  With the
 * payload read (--capture), the queue stage decides by the message instead
 * (queues.h): a call whose witness read a push is left to it.
 *
 * The server is then known to hand work from client to client (a broker,
 * attribute.c): every later call to it is marked too, which
 * covers a consumer that was busy (its next pop answered at once, long
 * after the push).  What it cannot see (a broker before its first release,
 * a server not recorded, a release across threads, a pub/sub push without
 * --capture): docs/analyzer.md "Hand-offs without payload".
 */
#ifndef VPATH_HANDOFF_H
#define VPATH_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>

#include "xchg.h"

/* A reply that came this long after the call's request, over a turn of its thread's loop... */
#define VP_HANDOFF_WAIT_NS 1000000ull
/* ...this soon after the same thread read another call's request: that one may have released it. */
#define VP_HANDOFF_GAP_NS 1000000ull

/*
 * Server exchange s's thread sends the first part of its reply at ts;
 * inflight[0..n) are the requests that thread read and has not finished,
 * turn_ts when it last read a request after sending a reply.
 * Marks those that may have released s (may_hand_off).  True when it
 * marked one: s's server hands work from client to client.  Only the
 * reply's first part: an event loop sends a long reply in parts as its
 * client reads them, each after a wait and after reading other requests
 * (vApp's epoll tier), which is no hand-off.
 */
bool vp_handoff__reply(struct vp_xchg *const *inflight, unsigned n, const struct vp_xchg *s,
		       uint64_t turn_ts, uint64_t ts);

/*
 * The same thread sends, at ts, the first bytes seen on an accepted
 * connection that was open before the recording began, with no request
 * seen on it (cookie): the reply to a call made before the recording, a
 * wait as long as the recording so far (a consumer blocked when it
 * began).  Marks the requests that may have released it; true when one.
 */
bool vp_handoff__unasked(struct vp_xchg *const *inflight, unsigned n, uint64_t cookie, uint64_t ts);

#endif
