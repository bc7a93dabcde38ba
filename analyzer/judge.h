/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 5b, constraints before guesses: a call sent by a thread with several
 * requests in flight (an event loop) is linked at once to the request of the
 * thread's most recent input (BorderPatrol), and judged as time goes on.  A
 * synchronous parent receives its request before the call is sent and sends
 * the last byte of its reply after the call's reply began (timers and pool
 * waiters delay a call, they do not move it out of its parent's window).
 * Each candidate is held open (its `wait`) until it is known to fit that
 * window or not: it fits once it sends reply bytes at or after the call's
 * reply began, or when it never replies; it does not once it finished
 * replying before.  When one candidate fits, the link is exact (basis
 * `window`) and moves there if it must; when several fit, the most recent
 * input's stays, or else the latest request to arrive of those that fit,
 * and the link is inferred (`last-input`).
 */
#ifndef VPATH_JUDGE_H
#define VPATH_JUDGE_H

#include <stdbool.h>
#include <stdint.h>

#include "evidence.h"
#include "xchg.h"

/* Candidates judged at most; more in flight at once and the link stays inferred. */
#define VP_JUDGE_MAX 16
/*
 * Judgments open at once in a process at most: past this the oldest is
 * decided with what is known, so that a request that replied in part and
 * never ends (a stream) cannot hold every later call, and memory, open.
 */
#define VP_JUDGE_OPEN_MAX 4096

enum vp_fit {
	VP_FIT_UNKNOWN = 0,
	VP_FIT_YES,
	VP_FIT_NO,
};

/*
 * Does server exchange r (a candidate parent) fit a call whose reply began
 * at `ref` (its last request byte when it got no reply)?  All on one host's clock.
 */
enum vp_fit vp_fit(const struct vp_xchg *r, uint64_t ref);

struct vp_hpaths;

struct vp_judgment {
	struct vp_xchg *call;
	struct vp_xchg *cand[VP_JUDGE_MAX]; /* [0] is the one chosen at first; each holds a wait */
	uint8_t fit[VP_JUDGE_MAX];	    /* enum vp_fit */
	uint8_t n;
	bool ref_known;
	uint64_t ref;
};

/* The judgments still open in one process. */
struct vp_judge {
	struct vp_judgment **v;
	size_t n, cap;
	uint64_t decided, exact, moved; /* statistics */
	bool never_exact; /* the process's threads decide nothing (attribute.h: mixed) */
};

/*
 * Call c was linked to cand[0]; cand[1..n-1] could have caused it too.
 * Returns the judgment (held by judge), or NULL when decided at once.
 */
void vp_judge__open(struct vp_judge *j, struct vp_hpaths *p, struct vp_xchg *c,
		    struct vp_xchg *const *cand, unsigned n);
/*
 * Call c's propagated id (or its forwarded bytes) names request m
 * (attribute.h vp_attr__propagated, vp_attr__forwarded): its judgment is
 * decided for m, exact, with basis b.  1: decided; 0: c is not judged;
 * -1: the window already ruled m out (left to the judgment).
 */
int vp_judge__by_id(struct vp_judge *j, struct vp_hpaths *p, struct vp_xchg *c, struct vp_xchg *m,
		    enum vp_basis b);
/* Something happened that may decide judgments: a reply byte or the end of a server exchange, a call's reply. */
void vp_judge__update(struct vp_judge *j, struct vp_hpaths *p);
/* End of input: decide everything with what is known (unknown fits count as fitting). */
void vp_judge__flush(struct vp_judge *j, struct vp_hpaths *p);
void vp_judge__free(struct vp_judge *j);

#endif
