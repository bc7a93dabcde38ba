/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a socket keeps of its HTTP/2 streams while h2streams.c cuts them
 * (vp_sock.h2): apart from the stage that fills it, so that the socket
 * table (stage 2) can free it without depending on stage 4.
 */
#ifndef VPATH_H2STATE_H
#define VPATH_H2STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"
#include "vpath/record.h"

struct vp_hpack;
struct vp_h2_fields;

struct vp_h2 {
	struct u64map open; /* stream id -> its state (malloc'd, h2streams.c), until it ends */
	bool dark;	    /* frames lost: none is used any more */
	bool tls; /* its frames were read in the plaintext (VPR_H2_IN_TLS): positions are plaintext's */
	uint32_t streams; /* exchanges begun */
	/*
	 * By enum vpr_dir, once a header block's bytes were captured
	 * (--capture): its HPACK decoder (proto/hpack.h), and the fields of
	 * the block being read.
	 */
	struct vp_hpack *hpack[2];
	struct vp_h2_fields *fields[2];
	bool block_first[2]; /* that block began its stream's request */
	/*
	 * By direction: a HEADERS or CONTINUATION frame whose block's record
	 * was not there at the frame.  The recorder writes a block that goes
	 * on in a later operation when that comes, before that operation's
	 * frames (bpf/h2_frames.h), so it is looked for again at the
	 * direction's next frame (analysis.c h2_block_late()).
	 */
	bool pending[2];
	bool pending_first[2];
	struct vpr_h2_frame pending_frame[2];
	/*
	 * By direction: where the frames taken so far end, so that a DATA
	 * frame's record (h2data.h) is known to come before its frame or after.
	 */
	bool frames_seen[2];
	uint32_t frames_end[2];
};

/* NULL-safe. */
void vp_h2__free(struct vp_h2 *h);

#endif
