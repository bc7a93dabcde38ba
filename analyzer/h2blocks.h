/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 4 for HTTP/2, with --capture: what each stream's header blocks say
 * (proto/hpack.h) given to its exchange as HTTP/1.x messages' first bytes
 * are (exchanges.c): :method and :path (and :status, grpc-status from its
 * reply's blocks) as the call's witness, and the id its request carries
 * (proto/propid.h) for the propagated-id rule (attribute.h).  Blocks are
 * decoded per direction in stream order, each from its frame's captured
 * bytes (VPR_PAYLOAD_H2_FRAME); a frame whose bytes were not captured
 * ends the direction's decoding, and the streams after it get nothing.
 */
#ifndef VPATH_H2BLOCKS_H
#define VPATH_H2BLOCKS_H

#include "exchanges.h"
#include "h2state.h"

/* The frames that carry header blocks (RFC 9113 6.2, 6.10), after a 9-byte header. */
enum {
	VP_H2_HEADERS = 1,
	VP_H2_CONTINUATION = 9
};
#define VP_H2_FRAME_HDR 9

/*
 * The HEADERS or CONTINUATION frame f of socket s, followed
 * (vp_h2__follows), its captured bytes p (NULL: none were found), x the
 * exchange of its stream (NULL: a stream not followed) and first: f began
 * x (its request's first HEADERS; CONTINUATION frames go on with what
 * the HEADERS before them began).  0 or -ENOMEM.
 */
int vp_h2__block(struct vp_sock *s, const struct vpr_h2_frame *f, const struct vpr_payload *p,
		 struct vp_xchg *x, bool first);

#endif
