/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The analysis: every stage wired into one forward pass.
 *
 * Hosts are read in parallel, merged on the common timeline (each host's
 * clock plus its current offset estimate), and each record goes through the
 * host's socket table, message and exchange stages and the attribution
 * rules; exchanges are paired across hosts by stream position; finished
 * requests are handed to on_request and freed.  Memory follows the number
 * of connections, threads and requests in flight, not the recording length.
 * The hosts' own stages run on up to opts->threads threads, in quanta of
 * the common timeline, with the same result for any count (analysis.c).
 */
#ifndef VPATH_ANALYSIS_H
#define VPATH_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attribute.h"
#include "input.h"
#include "paths.h"
#include "request.h"

struct vp_analysis_opts {
	uint64_t reorder_ns; /* read stage window, 0: default */
	uint64_t window_ns;  /* how long to wait for a peer exchange, 0: default 1 s */
	unsigned threads; /* hosts analyzed at once, 0: the online CPUs (never more than hosts) */
	vp_request_fn on_request;
	void *ctx;
	const char
		*pairs; /* a pairs file (pairs.h): which ends pair, decided outside; NULL: here */
	/*
	 * Ignore what the recorder read of HTTP/2 (the preface mark): only the
	 * byte-stream rules find multiplexed connections (docs/analyzer.md).
	 * For tests of those rules, and to compare.
	 */
	bool no_frames;
	/* Optional: each exchange as its tree is emitted (paths.h, vp_xchg_fn); `local` keeps them. */
	vp_xchg_fn on_xchg;
	void *xchg_ctx;
};

struct vp_analysis_stats {
	uint64_t events; /* records processed */
	uint64_t exchanges;
	uint64_t matched;  /* calls with both ends recorded */
	uint64_t given_up; /* exchanges whose expected peer never appeared */
	uint64_t requests, calls;
	uint64_t requests_exact; /* every link exact (evidence.h) */
	uint64_t sockets;
	uint64_t late; /* records outside the reorder window */
};

struct vp_analysis;

int vp_analysis__new(struct vp_analysis **out, char *const *files, int nfiles,
		     const struct vp_analysis_opts *opts, char *err, size_t errlen);
/* Analyze everything; requests go to opts->on_request.  0 or -errno. */
int vp_analysis__run(struct vp_analysis *a);
size_t vp_analysis__nhosts(const struct vp_analysis *a);
const struct vp_host *vp_analysis__host(const struct vp_analysis *a, size_t i);
int64_t vp_analysis__offset(const struct vp_analysis *a, size_t host);
/*
 * How the host's offset is known: "same clock as host N" (same machine,
 * exact), "from messages" (estimated between machines), or "wall clock"
 * (no messages linked it to the first host).  Writes into buf, returns it.
 */
const char *vp_analysis__clock_source(const struct vp_analysis *a, size_t host, char *buf,
				      size_t len);
/* Processes seen, sorted by host then pid; *n set.  Free the array (not the entries). */
const struct vp_proc **vp_analysis__procs(const struct vp_analysis *a, size_t *n);
void vp_analysis__stats(const struct vp_analysis *a, struct vp_analysis_stats *st);
void vp_analysis__free(struct vp_analysis *a);

#endif
