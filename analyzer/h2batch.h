/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 5, Go's HTTP/2 readers (docs/analyzer.md, "Go's goroutines"): one
 * goroutine per connection reads every stream's reply (grpc-go's
 * transport reader, x/net/http2's readLoop) and hands each to the goroutine
 * blocked on that stream, readying it.  One read holds the frames of
 * several streams; the reader then walks them in order and readies each
 * stream's caller as it meets its first frame (its headers channel, its
 * receive buffer, its end), if that caller is parked by then.
 *
 * A batch is what one read of such a reader carried and what it readied
 * before its next socket operation: the pending calls whose reply frames
 * the read held, in the order of their first frame, and the distinct units
 * it readied that are not a connection's loop, each with the request it
 * works for.  When as many units were readied as streams were met, the
 * k-th unit took the k-th stream's reply; otherwise a caller was not
 * parked (it took its reply without waiting) or something else was
 * readied, and the batch decides nothing.  On tests/h2 go-grpc (one kept
 * run, 295 streams, 66 reads) the counts agreed for every stream, and
 * pairing in first-frame order named each stream's request right; pairing
 * in order of the streams' ends, 285 of 295.
 */
#ifndef VPATH_H2BATCH_H
#define VPATH_H2BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "paths.h"
#include "xchg.h"

/* Streams (and readied units) one read is followed for; past it the batch decides nothing. */
#define VP_H2BATCH_MAX 64

struct vp_h2batch {
	uint64_t ts;	      /* the read's time (its frames' records share it) */
	uint8_t nstreams, nwoken;
	bool overflow;	      /* more than VP_H2BATCH_MAX of either */
	bool decided;	      /* the counts met once: later readies are something else */
	struct vp_xchg *streams[VP_H2BATCH_MAX]; /* pending calls, first frame first (references) */
	uint64_t woken[VP_H2BATCH_MAX];		 /* unit ids, each once */
	struct vp_xchg *req[VP_H2BATCH_MAX]; /* the request each works for, NULL: none (references) */
};

/* What a decided batch gives: call c's reply went to a unit working for request s. */
typedef void (*vp_h2batch_give)(void *ctx, struct vp_xchg *c, struct vp_xchg *s);

/*
 * A reply frame of call c, read at ts: a read at another time begins a new
 * batch (the old one is let go, decided or not).
 */
void vp_h2batch__frame(struct vp_h2batch *b, struct vp_hpaths *paths, uint64_t ts,
		       struct vp_xchg *c);
/*
 * The reader readied unit `unit`, working for request s (NULL: none known).
 * When as many distinct units as streams have been readied, give() is
 * called for each stream whose unit works for a request, in order.
 */
void vp_h2batch__woken(struct vp_h2batch *b, struct vp_hpaths *paths, uint64_t unit,
		       struct vp_xchg *s, vp_h2batch_give give, void *ctx);
/* The reader moved on (another socket operation) or is forgotten: the batch is let go. */
void vp_h2batch__clear(struct vp_h2batch *b, struct vp_hpaths *paths);

#endif
