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
 * it readied that are not a connection's loop nor created after the read
 * (no caller of its streams: attribute.c), each with the request it works
 * for.  When as many units were readied as streams were met, the
 * k-th unit took the k-th stream's reply.  A stream whose reply began in
 * the reader's previous read has its caller awake already, most often:
 * when the units are as many as the other streams, the k-th unit took the
 * k-th of those (until the one left is readied too); its caller of then,
 * readied again (it parked for the stream's DATA), takes it and is out of
 * that count.  Otherwise a caller
 * was not parked (it took its reply without waiting) or something else
 * was readied, and the batch decides nothing.  On tests/h2 go-grpc (kept
 * runs of 96 and 480 requests, 1,758 streams in 298 reads) the counts
 * agreed in 292 reads; of the other six, four had one stream left over
 * from the previous read and one ready fewer (12 of their 14 other
 * streams named right this way).  Pairing in first-frame order named the
 * streams' requests right; in the order the streams ended, 285 of 295
 * (96 requests).  tests/h2/readies.py measures it on a kept run.
 *
 * Not counted: a unit created, or working for a request that began, after
 * the last of the read's streams was sent (it made none of them); and the
 * first unit a held reader (one readied by another after its read: it had
 * blocked on a lock) readies, when the batch counts one unit too many, as
 * that lock handed on (docs/analyzer.md).
 */
#ifndef VPATH_H2BATCH_H
#define VPATH_H2BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "paths.h"
#include "xchg.h"

/* Streams (and readied units) one read is followed for; past it the batch decides nothing. */
#define VP_H2BATCH_MAX 64

/* What a decided batch gives: call c's reply went to a unit working for request s. */
typedef void (*vp_h2batch_give)(void *ctx, struct vp_xchg *c, struct vp_xchg *s);

struct vp_h2batch {
	uint64_t ts;	    /* the read's time (its frames' records share it) */
	uint64_t last_sent; /* when the last of its streams' requests was sent (host clock) */
	uint8_t nstreams, nwoken;
	bool overflow; /* more than VP_H2BATCH_MAX of either */
	bool decided;  /* the counts met once: later readies are something else */
	/*
	 * Another unit readied the reader after its read, before it readied
	 * any: it had blocked on a lock, and the first it readies is often
	 * the lock handed on (decided with one unit more, or at its next read).
	 */
	bool held;
	vp_h2batch_give held_give; /* what decides a held batch at the next read */
	void *held_ctx;
	struct vp_xchg *streams[VP_H2BATCH_MAX]; /* pending calls, first frame first (references) */
	uint64_t woken[VP_H2BATCH_MAX];		 /* unit ids, each once */
	struct vp_xchg
		*req[VP_H2BATCH_MAX]; /* the request each works for, NULL: none (references) */
	/*
	 * Streams the reader's previous read carried too (their reply goes on
	 * across reads): their callers, readied then, usually take the rest
	 * without parking again.
	 */
	bool cont[VP_H2BATCH_MAX];
	uint8_t ncont;
	/*
	 * A stream's caller given in the previous read, readied again in this
	 * one (it parked for the rest of its reply): it takes that stream, out
	 * of the pairing by order (taken).
	 */
	uint64_t cont_unit[VP_H2BATCH_MAX];
	bool taken[VP_H2BATCH_MAX];
	uint8_t ntaken;
	uint64_t pair[VP_H2BATCH_MAX];	    /* the unit each stream was given to, 0: none */
	uint64_t prev[VP_H2BATCH_MAX];	    /* the previous read's streams (exchange ids) */
	uint64_t prev_unit[VP_H2BATCH_MAX]; /* and the unit each was given to, 0: none */
	uint8_t nprev;
};

/*
 * A reply frame of call c, read at ts: a read at another time begins a new
 * batch (the old one is let go, decided or not).
 */
void vp_h2batch__frame(struct vp_h2batch *b, struct vp_hpaths *paths, uint64_t ts,
		       struct vp_xchg *c);
/*
 * The reader readied unit `unit`, working for request s (NULL: none known).
 * A unit whose request began after every stream of the read was sent is
 * no caller of them, and is not counted.  When as many distinct units as
 * streams have been readied, give() is called for each stream whose unit
 * works for a request, in order.
 */
void vp_h2batch__woken(struct vp_h2batch *b, struct vp_hpaths *paths, uint64_t unit,
		       struct vp_xchg *s, vp_h2batch_give give, void *ctx);
/*
 * Another unit readied the reader after its read: when it readies one unit
 * more than the read's streams, the first is not counted; when exactly as
 * many, the batch is decided at the reader's next read instead.
 */
void vp_h2batch__held(struct vp_h2batch *b);
/* The reader moved on (another socket operation) or is forgotten: the batch is let go. */
void vp_h2batch__clear(struct vp_h2batch *b, struct vp_hpaths *paths);

#endif
