/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How sure a link is: the one concept every output prints.  Each parent ->
 * child link of a call tree carries its basis, set by the stage that makes
 * the link (attribute.c), and whether that basis decides the link (exact)
 * or only chose among candidates (inferred).  A request is exact when every
 * link in it is.  Links between the two ends of a call (stream positions)
 * are always exact and carry no basis.
 */
#ifndef VPATH_EVIDENCE_H
#define VPATH_EVIDENCE_H

#include <stdbool.h>
#include <stdint.h>

enum vp_basis {
	VP_BASIS_ROOT = 0,   /* no parent: no request could have caused it */
	VP_BASIS_THREAD,     /* made by the thread while it served this request and no other */
	VP_BASIS_HANDOFF,    /* a worker's reply claimed it (dispatcher -> worker, vPath §2.3) */
	VP_BASIS_CONNECT,    /* first call on a connection opened while serving this request */
	VP_BASIS_WINDOW,     /* several requests in flight; timing constraints left this one */
	VP_BASIS_LAST_INPUT, /* several remained: the thread's most recent input chose (inferred) */
	VP_BASIS_UNCLAIMED,  /* a root, although requests were open that might have caused it */
	VP_BASIS_WAKEUP,     /* made by a thread the request's thread woke, and woke it back */
	VP_BASIS_PROPAGATED_ID, /* carries the id of this request and of no other open one (proto/propid.h) */
	VP_BASIS_FORWARDED, /* carries the bytes of this request and of no other open one (forward.h) */
	VP_BASIS_LAST_REPLY, /* a log line an event loop wrote after a reply: its request (inferred) */
	VP_BASIS_QUEUED, /* asynchronous: works on the one message its parent put on a queue (queues.h) */
	VP_BASIS_MAX,
};

struct vp_link {
	uint8_t basis; /* enum vp_basis */
	bool exact;
	uint16_t candidates; /* requests that could have caused it when it was decided */
};

static inline const char *vp_basis_name(uint8_t b)
{
	static const char *const names[VP_BASIS_MAX] = {
		"root",	     "thread", "handoff",	"connect",   "window",	   "last-input",
		"unclaimed", "wakeup", "propagated-id", "forwarded", "last-reply", "queued",
	};

	return b < VP_BASIS_MAX ? names[b] : "?";
}

/* WAKEUP is exact only when both wake-ups agree: the caller clears exact otherwise. */
static inline struct vp_link vp_link_make(enum vp_basis b, uint16_t candidates)
{
	struct vp_link l = {(uint8_t)b, false, candidates};

	l.exact = b != VP_BASIS_LAST_INPUT && b != VP_BASIS_LAST_REPLY && b != VP_BASIS_UNCLAIMED &&
		  candidates <= 1;
	return l;
}

/* How a call ended. */
enum vp_outcome {
	VP_OUTCOME_COMPLETE = 0,
	VP_OUTCOME_ONE_WAY,    /* a message, then an orderly close without a reply (COM_QUIT) */
	VP_OUTCOME_INCOMPLETE, /* records lost, recording cut, reset mid-exchange, peer missing */
};

static inline const char *vp_outcome_name(enum vp_outcome o)
{
	return o == VP_OUTCOME_COMPLETE	 ? "complete"
	       : o == VP_OUTCOME_ONE_WAY ? "one-way"
					 : "incomplete";
}

#endif
