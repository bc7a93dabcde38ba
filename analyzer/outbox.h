/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What one host's stages hand to the cross-host join (analysis.c): while the
 * hosts of a merge quantum are analyzed in parallel, each writes here, in its
 * own order, what concerns other hosts, and the join applies the outboxes in
 * host order afterwards, so the result does not depend on the thread count.
 *
 *   NEW       an exchange began: its connection key and stream position
 *             (cookie, 4-tuple, req.seq_start) are what pairing looks up
 *   FINISHED  an exchange ended: its stream range is known; wait for its peer
 *   REPLY     an exchange's reply began: a clock sample once its peer's has
 *   LINK      an in-host link was made or moved (x->link holds its evidence)
 *   UP        one of the things a call of another host waits for has finished
 *   READY     a root's tree has nothing open below it: build the request
 *
 * Each event but UP holds a reference on its exchange (xchg.h, refs), so the
 * join may complete and free other trees before it comes to the event.
 */
#ifndef VPATH_OUTBOX_H
#define VPATH_OUTBOX_H

#include <stddef.h>
#include <stdint.h>

struct vp_xchg;

enum vp_out_kind {
	VP_OUT_NEW = 0,
	VP_OUT_FINISHED,
	VP_OUT_REPLY,
	VP_OUT_LINK,
	VP_OUT_UP,
	VP_OUT_READY,
};

struct vp_out_ev {
	struct vp_xchg *x;
	uint8_t kind; /* enum vp_out_kind */
};

struct vp_outbox {
	struct vp_out_ev *v;
	size_t len, cap;
};

/* Append an event; out of memory aborts (no sensible partial result). */
void vp_outbox__push(struct vp_outbox *o, enum vp_out_kind kind, struct vp_xchg *x);
static inline void vp_outbox__clear(struct vp_outbox *o)
{
	o->len = 0;
}
void vp_outbox__free(struct vp_outbox *o);

#endif
