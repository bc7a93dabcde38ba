/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 4 for HTTP/2, with --capture: a stream's request message, the
 * first bytes of its first DATA frame (VPR_PAYLOAD_H2_DATA), as its
 * exchange's content (vp_xchg.content) for the forwarded-bytes rule
 * (forward.h).  On a connection cut by frames the bytes of an operation
 * are the connection's (several streams' frames, HPACK's coding, which
 * differs at each end of a relay); a DATA frame's payload is one stream's
 * and a relay such as nginx's grpc_pass sends it on unchanged (a gRPC
 * message: its 5-byte prefix and the message).  Only the request
 * direction's first DATA frame counts, as only an HTTP/1.x request's
 * first operation does.  A stream whose first DATA frame has not come
 * carries no message yet: the forwarded rule counts it out (forward.c).
 */
#ifndef VPATH_H2DATA_H
#define VPATH_H2DATA_H

#include "exchanges.h"
#include "vpath/record.h"

/* DATA (RFC 9113 6.1) and its flag PADDED. */
enum {
	VP_H2_DATA = 0,
	VP_H2_PADDED = 0x8
};

/*
 * DATA frame record p of socket s (followed by its frames), its frame
 * taken already: the exchange of its stream whose content it now is, NULL
 * when it is none's (a reply, a later DATA frame, a stream not open, bytes
 * that are no DATA frame's or hold no payload).  *err: -ENOMEM, else 0.
 */
struct vp_xchg *vp_h2__data(struct vp_sock *s, const struct vpr_payload *p, int *err);
/*
 * Whether p's frame was taken already (or s's frames are not followed):
 * the record is for the analysis to take now.  Records stamped like their
 * frame may be read before it; those wait for their frame, which takes
 * them (a block's record waits the same way, analysis.c).
 */
bool vp_h2__data_passed(const struct vp_sock *s, const struct vpr_payload *p);

#endif
