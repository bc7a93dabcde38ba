/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records packed: the blocks of a version 2 recording (recfile.h) and the
 * RECS blocks of a local file (localfile.h) hold them this way, in the
 * order they were given.  Socket operations, most of every recording, are
 * written as differences from the last one of their socket (the same
 * thread, pid, a stream position that follows on) and from the item
 * before (the time, signed: it may go back); any other record as its
 * header in varints and its bytes.  Each block starts afresh, so it
 * decodes alone.  A record packs into at most 8 bytes more than its
 * struct (an operation whose every field is new: 42), usually far fewer
 * (an operation that follows on: 4 to 8).  Only local files hold
 * FILE_END items: the end of each recording and what its reader said.
 */
#ifndef VPATH_RECCODEC_H
#define VPATH_RECCODEC_H

#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"
#include "varbuf.h"
#include "vpath/record.h"

struct vp_recsock {
	uint64_t cookie;
	uint32_t tid, pid;
	uint32_t seq_end[2]; /* last, per direction */
	uint8_t seen;	     /* bit d: a seq_end of direction d is known */
};

struct vp_recenc {
	struct vp_wbuf buf;
	uint32_t count; /* items in buf */
	uint64_t last_ts;
	struct u64map by_cookie; /* cookie -> index + 1 */
	struct vp_recsock *socks;
	size_t nsocks, cap;
};

/* Append one record as vpr_reader__next gave it. */
void vp_recenc__record(struct vp_recenc *e, const struct vpr_hdr *rec);
/* A recording of the host ended: status (enum vpr_read_status) and its reader's message. */
void vp_recenc__file_end(struct vp_recenc *e, uint8_t status, const char *error);
/* buf went into a block: start the next one afresh. */
void vp_recenc__reset(struct vp_recenc *e);
void vp_recenc__free(struct vp_recenc *e);

enum vp_rec_item {
	VP_ITEM_RECORD = 1,
	VP_ITEM_FILE_END = 2,
};

struct vp_recdec {
	struct vp_rbuf b;
	uint32_t left; /* items still in the block */
	uint64_t last_ts;
	struct vp_recsock *socks;
	size_t nsocks, cap;
	uint8_t rec[65536] __attribute__((aligned(8))); /* the record decoded last */
	uint8_t status;					/* FILE_END: enum vpr_read_status */
	char error[320];				/* FILE_END: the reader's message */
};

/* Begin decoding one RECS block of count items. */
void vp_recdec__block(struct vp_recdec *d, const uint8_t *p, size_t len, uint32_t count);
/*
 * The next item: VP_ITEM_RECORD (the record in d->rec), VP_ITEM_FILE_END
 * (d->status, d->error), 0 at the block's end, -EINVAL when the block does
 * not decode (damage the CRC missed, or a writer's bug), -ENOMEM.
 */
int vp_recdec__next(struct vp_recdec *d);
void vp_recdec__free(struct vp_recdec *d);

#endif /* VPATH_RECCODEC_H */
