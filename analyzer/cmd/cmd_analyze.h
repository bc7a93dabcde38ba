/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The commands that run an analysis (paths, show, table, patterns, dot,
 * otlp, sqlite, report, baseline) share one input for their options, the
 * option groups that choose requests and tune the analysis
 * (cmd_options.c), and one run (cmd_analyze.c): read the recordings, hand
 * every request that passes the filters to the output the command chose,
 * finish it, and report the hosts' damage and loss.  A command's own
 * parser reads its own options and, at ARGP_KEY_END, checks them and picks
 * the output (sink).
 */
#ifndef VPATH_CMD_ANALYZE_H
#define VPATH_CMD_ANALYZE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "cmd.h"
#include "endpoint.h"
#include "sink.h"

struct vp_cmd_analysis {
	struct vp_analysis_opts opts; /* -w, --reorder, --threads, --pairs, --no-frames */
	bool verbose;		      /* -v: statistics on standard error */
	/* Which requests (vp_cmd_requests_argp, vp_cmd_slowest_argp). */
	uint64_t slowest;    /* -n: only the N slowest, written slowest first at the end */
	uint64_t request_id; /* -r */
	bool have_from, have_to, have_entry;
	uint64_t from_ns, to_ns; /* --from, --to: from the common timeline's origin */
	struct vp_endpoint entry;
	/* The command's own. */
	bool json;		   /* paths, show, baseline */
	bool csv;		   /* table */
	bool logs;		   /* paths, show: each call's log lines under it */
	bool nesting, convolution; /* baseline: which algorithm */
	bool must_show;		   /* show, dot: an -r ID that finds nothing is an error */
	enum vp_sink_kind sink;	   /* the output; set by the command's parser at ARGP_KEY_END */
	struct vp_sink_opts sink_opts;
};

#define VP_CMD_NO_RECORDING "no recording given (see vpath-analyze --help)"

/* -r, --from, --to, -e; -n; -w, --reorder, --threads, --pairs, --no-frames, -v. */
extern const struct argp vp_cmd_requests_argp, vp_cmd_slowest_argp, vp_cmd_tuning_argp;
/* All three groups, for the commands whose -n is the filter (all but report). */
extern const struct argp_child vp_cmd_analysis_groups[];

/* A vp_cmd's run for the analysis commands. */
int vp_cmd_analyze(const struct vp_cmd *cmd, int argc, char **argv);
/* The hosts' loss and damage, and with -v the statistics, on standard error. */
void vp_cmd_analysis__report(const struct vp_analysis *a, bool verbose);

#endif
