/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `vpath-analyze local`: the per-host phase, run where a host's recording
 * is, and the reading of what it writes (docs/format.md, "Local files").
 *
 * A local file keeps the host's records without loss (RECS) and the calls
 * its own stages found (CALLS).  The analysis of local files reads the
 * records, so every decision that needs another host (the sender's cuts of
 * a receiver's messages, clock samples, the merge order) is taken in the
 * join exactly as from the recordings, and the output is the same byte for
 * byte; the calls are for engines outside vpath (ClickHouse) and for dump.
 */
#ifndef VPATH_LOCAL_H
#define VPATH_LOCAL_H

#include <stdint.h>
#include <stdio.h>

#include "localcalls.h"
#include "localfile.h"
#include "localrecs.h"

struct vp_local_stats {
	uint64_t records, calls, links; /* links: client ends linked under a server end */
	uint64_t in_bytes, out_bytes;	/* the recordings, the local file */
	uint64_t recs_bytes, calls_bytes; /* of which RECS and CALLS blocks */
};

/*
 * Write out (a local file) from files, the recordings of one host (a file,
 * or the segments of a ring).  0, or -errno with a one-line message in err.
 */
int vp_local__write(char *const *files, int nfiles, const char *out, struct vp_local_stats *st,
		    char *err, size_t errlen);

struct vp_local_reader;

/* Open path and read its HOST block; NULL with a one-line reason in err. */
struct vp_local_reader *vp_local__open(const char *path, char *err, size_t errlen);
const struct vp_local_host *vp_local__host(const struct vp_local_reader *r);
/*
 * The next call end: 1 (*c filled), 0 at the end, -1 when the file is
 * damaged or cut short there (vp_local__error says where; the calls before
 * it are good).  Reads only CALLS blocks.
 */
int vp_local__next_call(struct vp_local_reader *r, struct vp_local_call *c);
/*
 * The next item of the RECS blocks: VP_ITEM_RECORD (*rec valid until the
 * next call), VP_ITEM_FILE_END (one recording of the host ended: *status,
 * *error as its reader said), 0 at the end, -1 damaged (vp_local__error).
 * Use either this or next_call on one reader, not both.
 */
int vp_local__next_record(struct vp_local_reader *r, const struct vpr_hdr **rec, uint8_t *status,
			  const char **error);
/* VPL_OK, or what ended the reading early, and where (a one-line message). */
enum vpl_status vp_local__status(const struct vp_local_reader *r);
const char *vp_local__error(const struct vp_local_reader *r);
uint64_t vp_local__offset(const struct vp_local_reader *r);
void vp_local__close(struct vp_local_reader *r);

/* dump of a local file: its host, counts and every call as a line; exit status as dump's. */
int vp_local__dump(const char *path, FILE *out, FILE *err);

#endif
