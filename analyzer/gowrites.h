/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 5, grpc-go's clients (docs/analyzer.md, "Go's goroutines", the
 * stream id from grpc-go's Write): which goroutine made an HTTP/2 stream.  grpc-go's calling
 * goroutine never writes the socket (its transport's loopy writer does),
 * but it calls the transport's Write with its stream in hand, and the
 * recorder writes that call (VPR_GO_H2_WRITE: process, goroutine, stream
 * id).  A stream id names a stream only within its connection, so a Write
 * is matched to the one stream of that id open in the process: open (its
 * HEADERS written, its request not ended) when the Write comes, or opened
 * within VP_GOWRITE_WINDOW_NS after it (loopy writes the HEADERS it was
 * handed before the Write, later).  A Write precedes its stream's request
 * END_STREAM (the frame its data, or CloseSend's, ends with).
 *
 * A match is ambiguous, and said so (exact false), when another stream of
 * that id opens in the process within the window of the Write, or a Write
 * of that id went unmatched (its stream unseen, or later than the window),
 * or two Writes waited at once; a stream with two open is matched by none.
 */
#ifndef VPATH_GOWRITES_H
#define VPATH_GOWRITES_H

#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"
#include "paths.h"
#include "xchg.h"

#define VP_GOWRITE_WINDOW_NS 50000000ull /* 50 ms */

struct vp_gowrite_slot;

struct vp_gowrites {
	struct vp_hpaths *paths;
	struct u64map slots;		     /* pid << 32 | stream id -> struct vp_gowrite_slot */
	struct vp_gowrite_slot *head, *tail; /* every slot, least recently looked at first */
	uint64_t matched, unmatched, ambiguous;
};

/* A Write matched to stream call; req and unmake carry a reference each (or are NULL). */
struct vp_gowrite_match {
	struct vp_xchg *call;
	struct vp_xchg *req; /* the request the Write's goroutine worked for, NULL: none known */
	bool exact; /* the goroutine served req alone, and nothing else may be the stream */
	struct vp_xchg *unmake; /* a stream matched before, ambiguous now: not exact */
};

void vp_gowrites__init(struct vp_gowrites *g, struct vp_hpaths *paths);
void vp_gowrites__free(struct vp_gowrites *g);
/*
 * Client stream c (h2_stream, its id h2_id) opened in process pid at ts;
 * true when a Write waiting for it matched it, or m->unmake is set.
 */
bool vp_gowrites__call(struct vp_gowrites *g, uint32_t pid, struct vp_xchg *c, uint64_t ts,
		       struct vp_gowrite_match *m);
/*
 * A goroutine (unit) of process pid working for req (NULL: none known;
 * alone: it serves req alone) called Write for stream sid at ts; true
 * when that matched an open stream (m filled).
 */
bool vp_gowrites__write(struct vp_gowrites *g, uint32_t pid, uint32_t sid, uint64_t unit,
			struct vp_xchg *req, bool alone, uint64_t ts, struct vp_gowrite_match *m);
/* Lets go of the references m carries. */
void vp_gowrites__match_done(struct vp_gowrites *g, struct vp_gowrite_match *m);

#endif
