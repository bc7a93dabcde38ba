/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * HTTP/2 header blocks (HPACK, RFC 7541) of one direction of a connection,
 * decoded with libnghttp2's inflater from the frames the recorder captured
 * (VPR_PAYLOAD_H2_FRAME, vpath-record --capture): the fields vpath uses,
 * :method, :path, :status, grpc-status and a propagated id (propid.h).
 *
 * HPACK's dynamic table is built by every block of the direction, in
 * order, from the connection's first: a block referring to it can be read
 * only when every block before it was read whole.  So the first block not
 * captured whole (cut by the capture length, lost, not written) ends the
 * decoding of the direction for good: that block gives the fields read
 * before its cut and says it was cut, the blocks after give nothing.  A
 * field is never guessed.
 *
 * A value the recorder redacted (user/redact_h2.c) is '*'s of its encoded
 * length, no longer Huffman-coded.  Its table entry may then be shorter or
 * longer than the sender's, which changes only how many of the oldest
 * entries are evicted: every index the sender uses names the same entry
 * here or one evicted here, which the inflater refuses (the direction then
 * ends as if cut).
 */
#ifndef VPATH_HPACK_H
#define VPATH_HPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "propid.h"

/* The fields of one header block vpath uses. */
struct vp_h2_fields {
	char method[VP_WIT_VERB_MAX]; /* "" when absent */
	char path[VP_WIT_TEXT_MAX];
	bool path_cut;	     /* longer than path[] holds */
	uint16_t status;     /* :status, 0 when absent */
	int16_t grpc_status; /* -1 when absent */
	struct vp_propid id; /* kind VP_PROPID_NONE when none */
	/* Every field of the block was read: a field absent here is absent. */
	bool whole;
};

enum vp_hpack_result {
	VP_HPACK_UNKNOWN = 0, /* nothing can be read of this block */
	VP_HPACK_MORE = 1,    /* the block goes on in a CONTINUATION frame */
	VP_HPACK_DONE = 2,    /* *out holds the block's fields */
};

struct vp_hpack;

/* One direction's decoder, from the connection's start.  NULL: out of memory. */
struct vp_hpack *vp_hpack__new(void);
void vp_hpack__free(struct vp_hpack *h); /* NULL-safe */
/*
 * One captured HEADERS or CONTINUATION frame of the direction, the next in
 * its order: frame[0..len) its first bytes (its 9-byte header included) of
 * `total`, pflags the payload record's (VPR_PAYLOAD_H2_*).  The fields go
 * to *out, which the first frame of a block clears: on VP_HPACK_DONE
 * out->whole says whether the block was read to its end.
 */
enum vp_hpack_result vp_hpack__frame(struct vp_hpack *h, const uint8_t *frame, size_t len,
				     uint64_t total, uint8_t pflags, struct vp_h2_fields *out);
/* A HEADERS or CONTINUATION frame of the direction went by without its bytes. */
void vp_hpack__missed(struct vp_hpack *h);
/* Whether blocks are still read (nothing was missed or cut). */
bool vp_hpack__in_sync(const struct vp_hpack *h);

#endif
