/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `vpath-analyze local`: the per-host phase, run where a host's recording
 * is.  It writes a local file (local/local.h reads one) from the host's
 * recordings and its own analysis, which is why it stands above the stages
 * and not beside the reader.
 */
#ifndef VPATH_LOCALWRITE_H
#define VPATH_LOCALWRITE_H

#include <stddef.h>
#include <stdint.h>

struct vp_local_stats {
	uint64_t records, calls, links;	  /* links: client ends linked under a server end */
	uint64_t in_bytes, out_bytes;	  /* the recordings, the local file */
	uint64_t recs_bytes, calls_bytes; /* of which RECS and CALLS blocks */
};

/*
 * Write out (a local file) from files, the recordings of one host (a file,
 * or the segments of a ring).  0, or -errno with a one-line message in err.
 */
int vp_local__write(char *const *files, int nfiles, const char *out, struct vp_local_stats *st,
		    char *err, size_t errlen);

#endif
