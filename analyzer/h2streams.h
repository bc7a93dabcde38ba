/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 4 for HTTP/2: each stream one exchange, cut by the frame headers the
 * recorder read (VPR_H2_FRAME, docs/format.md) instead of by who sends.
 *
 * On HTTP/2 a client writes several requests' streams before it reads
 * anything back and reads one stream's reply while it writes another's
 * request, so the byte-stream rule (exchanges.h) merges calls.  The frame
 * headers say which stream every byte belongs to: a stream's request is its
 * HEADERS (with CONTINUATION) and DATA frames in the request direction, its
 * reply those in the other, and it ends when both have sent END_STREAM or
 * either reset it (RST_STREAM).  Stream 0 (SETTINGS, PING, GOAWAY,
 * WINDOW_UPDATE) and WINDOW_UPDATE, PRIORITY and PUSH_PROMISE on a stream
 * are connection traffic, never part of an exchange.  A frame header stands
 * for the operation that carried it (the record follows that operation and
 * has its time and thread), so attribution sees each stream's frames as if
 * they were operations of their own.  Both ends see the same headers at the
 * same stream positions, so a stream's exchange at one end pairs with the
 * other's by the position of its HEADERS (matcher.h), as any exchange does.
 *
 * A connection follows its frames from its first frame record on.  Where the
 * recorder lost its place (VPR_H2_LOST) the connection goes dark: its open
 * streams end incomplete and the frames after are not used (analysis.c
 * then trusts no thread rule of the process, attribute.h).
 */
#ifndef VPATH_H2STREAMS_H
#define VPATH_H2STREAMS_H

#include "exchanges.h"
#include "h2state.h"

/* Whether s's exchanges are cut by frames (a frame record was seen, none lost since). */
static inline bool vp_h2__follows(const struct vp_sock *s)
{
	return s->h2 && !s->h2->dark;
}

/*
 * One frame record of socket s, carried by op (the socket's last operation,
 * whose time, thread and process the frame shares; its bytes and position
 * are the frame's).  res->kind says what the frame was to its stream's
 * exchange (res->x): VP_OP_REQ_FIRST a new stream, VP_OP_REQ_MORE,
 * VP_OP_REP_FIRST, VP_OP_REP_MORE, or VP_OP_IGNORED (connection traffic, a
 * stream begun before it was followed, a dark connection); res->finished
 * the exchange it ended (END_STREAM both ways, RST_STREAM), possibly res->x.
 * *went_dark: this frame was the recorder losing its place (the caller ends
 * the open streams, vp_h2__take_open).  0 or -ENOMEM.
 */
int vp_h2__frame(struct vp_sock *s, const struct vpr_h2_frame *f, const struct vpr_sock_op *op,
		 int host, struct vp_xpool *pool, struct vp_op_result *res, bool *went_dark);
/*
 * One of s's streams still open, taken out and ended incomplete (a stream
 * that neither finished nor was reset was cut: by a close, by the end of
 * the recording, or by the frames being lost), or NULL when none is left.
 */
struct vp_xchg *vp_h2__take_open(struct vp_sock *s);
/* The exchange of s's stream id while it is open, or NULL. */
struct vp_xchg *vp_h2__open_x(struct vp_sock *s, uint32_t id);
/* The exchange of s's open stream id whose request's first DATA frame began at seq, or NULL. */
struct vp_xchg *vp_h2__first_data_x(struct vp_sock *s, uint32_t id, uint32_t seq);
/* Frame f as an operation of its own: its bytes at its position, with op's time and thread. */
struct vpr_sock_op vp_h2__frame_op(const struct vpr_h2_frame *f, const struct vpr_sock_op *op);

#endif
