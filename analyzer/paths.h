/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 6, paths: links exchanges into call trees as attribution and
 * matching decide, counts what is still open (xchg.h), and turns a root
 * whose tree is complete into a struct vp_request (built at once, while its
 * exchanges are in cache, which are then freed).  The request is handed to
 * the output when loss on every host is known past its end (the caller
 * says until when), so that loss windows reported later still mark it.
 */
#ifndef VPATH_PATHS_H
#define VPATH_PATHS_H

#include "fifoarena.h"
#include "hashmap.h"
#include "host.h"
#include "outbox.h"
#include "request.h"
#include "xchg.h"

typedef void (*vp_paths_job_fn)(void *ctx, size_t job);

/* Sees an exchange of an emitted tree, before it is freed (its up and peer still valid). */
typedef void (*vp_xchg_fn)(void *ctx, const struct vp_xchg *x);

/* Emitted requests that wait for vp_paths__deliver at most (struct vp_paths). */
#define VP_PATHS_DELIVER_MAX 1024

struct vp_paths {
	const int64_t *offsets; /* per host, onto the common timeline (clock.h) */
	struct vp_host *hosts;	/* for loss windows */
	size_t nhosts;
	vp_request_fn fn;
	void *ctx;
	uint64_t window_ns; /* reorder window: margin around loss and truncation checks */
	/*
	 * FIFO of built requests waiting for loss to be known (about a clock
	 * tick's worth): each held compactly in `held`, made a struct
	 * vp_request when emitted (paths.c).
	 */
	struct vp_held_req **ready;
	size_t rhead, rlen, rcap;
	struct vp_farena held;
	/*
	 * Trees completed since the last emit (build_request): the join only
	 * queues their roots; the emit builds their requests as one batch, on
	 * the threads `run` gives (paths.c, build_pending).
	 */
	struct vp_build *builds;
	size_t nbuilds, cbuilds;
	/*
	 * Trees whose requests are built, their exchanges not yet freed:
	 * vp_paths__release_built frees them in join order, beside the next
	 * look-ahead (the analysis), or the next build_pending does.
	 */
	struct vp_build *rel;
	size_t nrel, crel;
	/*
	 * The requests at the head of `ready` this emit lets out, made struct
	 * vp_request in the builds' batch (paths.c, vp_paths__emit): nout of them.
	 */
	struct vp_request **out;
	size_t nout, cout;
	/*
	 * Requests emitted and not yet handed to fn, in emit order: the
	 * analysis hands them over beside the next quantum's host step
	 * (vp_paths__deliver), so that the queues stage and the output run
	 * in parallel with the hosts; an emit that lets out more than
	 * VP_PATHS_DELIVER_MAX hands them over itself, as it goes (so what
	 * they hold stays bounded when a clock tick lets thousands go).
	 */
	struct vp_request *deliver[VP_PATHS_DELIVER_MAX];
	size_t ndeliver;
	/*
	 * Hook: first(fn_ctx, 0) unless first is NULL, taken first, and
	 * fn(fn_ctx, j) once for every j < n, on any threads, returning when
	 * all are done (the analysis's workers); NULL: in order, here.
	 */
	void (*run)(void *ctx, vp_paths_job_fn first, size_t n, vp_paths_job_fn fn, void *fn_ctx);
	void *run_ctx;
	uint64_t next_request_id;
	uint64_t requests, calls; /* emitted */
	uint64_t requests_exact;
	uint64_t teardowns;	/* TLS handshakes and goodbyes that were not requests */
	struct vp_xpool *pools; /* per host: where its exchanges come from and go back to */
	vp_xchg_fn on_xchg;	/* NULL: nobody looks */
	void *xchg_ctx;
	/*
	 * Hook: the name of an exchange's process (x->proc), for the call ends
	 * of a request.  Attribution, a stage above this one, keeps the
	 * processes (attribute.h), so paths asks it here instead of knowing
	 * struct vp_proc; NULL: no process names.
	 */
	const char *(*proc_comm)(const struct vp_proc *proc);
	/*
	 * Connection ends found multiplexed by the join (vp_paths__muxed), key
	 * vp_paths_end_key: calls on them that wait to be emitted lose their
	 * exact marks then, whenever the finding came.
	 */
	struct u64map muxed;
	/* Processes whose calls went unseen (vp_paths__blind), key vp_paths_end_key(host, pid). */
	struct u64map blind;
};

/* Which end of which host (cookies are per machine, and stay far below 2^48). */
static inline uint64_t vp_paths_end_key(int host, uint64_t cookie)
{
	return cookie ^ ((uint64_t)(uint16_t)host << 48);
}

/*
 * One host's side of the paths, for its stages (attribution, judge): what
 * stays inside the host is done at once, what reaches another host's
 * exchanges or builds a request goes into the outbox (outbox.h), for the
 * join to apply.  Of the shared paths only this host's pool is written.
 */
struct vp_hpaths {
	struct vp_paths *core;
	int host;
	struct vp_outbox out;
};

/* 0 or -ENOMEM. */
int vp_paths__init(struct vp_paths *p, struct vp_host *hosts, size_t nhosts, const int64_t *offsets,
		   uint64_t window_ns, vp_request_fn fn, void *ctx);
/* One of the things x waits for has finished (the join: follows it into every host). */
void vp_paths__done_one(struct vp_paths *p, struct vp_xchg *x);
/* The join: x's tree is complete (VP_OUT_READY): build its request. */
void vp_paths__ready(struct vp_paths *p, struct vp_xchg *x);
/* x's tree is complete: its request is built (or waits for the next emit to be). */
bool vp_paths__gone(const struct vp_xchg *x);
/* The join: other hosts see x's link from now on (VP_OUT_LINK). */
void vp_paths__publish(struct vp_xchg *x);
/*
 * x is `of` or above it in its tree.  Damaged or odd input (one thread reading
 * what it sent itself) could otherwise link a call under its own descendant:
 * a cycle that never completes.
 */
bool vp_paths__is_ancestor(const struct vp_xchg *x, const struct vp_xchg *of);
/* Client exchange c and server exchange s are the two ends of one call (the join). */
void vp_paths__link_peer(struct vp_paths *p, struct vp_xchg *c, struct vp_xchg *s);
/*
 * The join found the connection of the end (host, cookie) multiplexed
 * (docs/analyzer.md): no call on it is exact, those built already and not
 * yet emitted included.  Aborts on ENOMEM.
 */
void vp_paths__muxed(struct vp_paths *p, int host, uint64_t cookie);
/*
 * Process pid of host may have hidden any request's call in a multiplexed
 * connection's messages (the join found one): no request it served that is
 * still to be emitted is exact.  Aborts on ENOMEM.
 */
void vp_paths__blind(struct vp_paths *p, int host, uint32_t pid);
/* x's other end will not be found (the join). */
void vp_paths__peer_gone(struct vp_paths *p, struct vp_xchg *x);

/* Drop one reference (thread, outbox); frees an emitted exchange at zero (into its host's pool). */
void vp_paths__unref(struct vp_paths *p, struct vp_xchg *x);

void vp_hpaths__init(struct vp_hpaths *v, struct vp_paths *core, int host);
void vp_hpaths__free(struct vp_hpaths *v);
/* One of the things x (of this host) waits for has finished. */
void vp_hpaths__done_one(struct vp_hpaths *v, struct vp_xchg *x);
/*
 * The same, inline where x still waits for others after it: a call's held
 * open requests are let go of some 40 at a time, most of them still held.
 */
static inline void vp_hpaths__done_one_of_many(struct vp_hpaths *v, struct vp_xchg *x)
{
	if (x->wait > 1)
		x->wait--;
	else
		vp_hpaths__done_one(v, x);
}
/*
 * vp_paths__is_ancestor from inside one host: its own exchanges as they are,
 * other hosts' as the join last saw them (up_seen), which they cannot change
 * meanwhile.
 */
bool vp_hpaths__is_ancestor(const struct vp_hpaths *v, const struct vp_xchg *x,
			    const struct vp_xchg *of);
/* Client exchange c was made while serving server exchange s (same host). */
void vp_hpaths__link_child(struct vp_hpaths *v, struct vp_xchg *c, struct vp_xchg *s);
/* Client exchange c, a child, moves to server exchange `to` (stage 5b changed its mind). */
void vp_hpaths__move_child(struct vp_hpaths *v, struct vp_xchg *c, struct vp_xchg *to);
/* x has no parent: a client exchange nothing caused, a server exchange with no recorded client. */
void vp_hpaths__root(struct vp_hpaths *v, struct vp_xchg *x);
/* x's other end is not recorded. */
void vp_hpaths__peer_gone(struct vp_hpaths *v, struct vp_xchg *x);
static inline void vp_hpaths__unref(struct vp_hpaths *v, struct vp_xchg *x)
{
	vp_paths__unref(v->core, x);
}
/* Emit ready requests ending before loss_known (common timeline), or all of them. */
void vp_paths__emit(struct vp_paths *p, int64_t loss_known, bool all);
/*
 * The emitted requests to fn, in emit order.  fn reads only the request
 * and what no host's step writes (host names, offsets: the join's), so
 * this may run beside the hosts' step, on another thread.
 */
void vp_paths__deliver(struct vp_paths *p);
/* vp_paths__deliver(paths) as a job of a batch (workers.h: the batch's first). */
void vp_paths__deliver_job(void *paths, size_t j);
/*
 * The exchanges of the trees built by the last emit back to their pools,
 * in join order.  Touches only those exchanges and the pools, so this may
 * run beside the look-ahead (which reads files and sockets only), never
 * beside the hosts' step (which takes exchanges from the pools).
 */
void vp_paths__release_built(struct vp_paths *p);
void vp_paths__free(struct vp_paths *p);

static inline int64_t vp_paths__aligned(const struct vp_paths *p, int host, uint64_t ts)
{
	return (int64_t)ts + p->offsets[host];
}

#endif
