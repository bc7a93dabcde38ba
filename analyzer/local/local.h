/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading a local file (docs/format.md, "Local files"), the read stage's
 * other source beside a recording (input.h): its host, its records and its
 * calls.  Writing one is `vpath-analyze local` (localwrite.h), a floor
 * higher, since it runs the host's own analysis.
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
#include "localhost.h"
#include "reccodec.h"

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

#endif
