// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The option groups every analysis command takes (cmd_analyze.h). */
#include <errno.h>

#include "cmd_analyze.h"
#include "parse.h"

enum {
	OPT_FROM = 0x100,
	OPT_TO,
	OPT_REORDER,
	OPT_THREADS,
	OPT_PAIRS,
	OPT_NO_FRAMES
};

static const struct argp_option requests_options[] = {
	{NULL, 0, NULL, 0, "Which requests:", 1},
	{"request", 'r', "ID", 0, "only request ID", 1},
	{"from", OPT_FROM, "T", 0,
	 "only requests starting at or after T (duration from the recording's start: 1.5s, 200ms)",
	 1},
	{"to", OPT_TO, "T", 0, "only requests starting before T", 1},
	{"entry", 'e', "HOST:PORT", 0,
	 "only requests entering at this server address (port 0: any)", 1},
	{0},
};

static error_t requests_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;

	switch (key) {
	case 'r':
		if (parse_u64(arg, UINT64_MAX, &c->request_id) || !c->request_id)
			return vp_cmd__invalid(arg, "request");
		return 0;
	case OPT_FROM:
		c->have_from = true;
		return vp_cmd__span(arg, &c->from_ns) ? vp_cmd__invalid(arg, "from") : 0;
	case OPT_TO:
		c->have_to = true;
		return vp_cmd__span(arg, &c->to_ns) ? vp_cmd__invalid(arg, "to") : 0;
	case 'e':
		c->have_entry = true;
		return vp_endpoint__parse(arg, &c->entry) ? vp_cmd__invalid(arg, "entry") : 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp vp_cmd_requests_argp = {
	requests_options, requests_parse, NULL, NULL, NULL, NULL, NULL};

static const struct argp_option slowest_options[] = {
	{"slowest", 'n', "N", 0, "only the N slowest requests (slowest first)", 1},
	{0},
};

static error_t slowest_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;

	if (key != 'n')
		return ARGP_ERR_UNKNOWN;
	return vp_cmd__count(arg, 1000000, &c->slowest) ? vp_cmd__invalid(arg, "slowest") : 0;
}

const struct argp vp_cmd_slowest_argp = {
	slowest_options, slowest_parse, NULL, NULL, NULL, NULL, NULL};

static const struct argp_option tuning_options[] = {
	{NULL, 0, NULL, 0, "How to analyze:", 2},
	{"window", 'w', "D", 0, "how long to wait for the other end of a call (default 1s)", 2},
	{"reorder", OPT_REORDER, "D", 0,
	 "how far records of one file may be out of order (default 10ms)", 2},
	{"threads", OPT_THREADS, "N", 0,
	 "hosts analyzed at once (default: one or the online CPUs, at most one per host, "
	 "whichever runs faster, timed as it goes); the output is the same for every N",
	 2},
	{"pairs", OPT_PAIRS, "FILE", 0,
	 "which client end pairs with which server end, as decided outside (ClickHouse: "
	 "docs/clickhouse.md), instead of here",
	 2},
	{"no-frames", OPT_NO_FRAMES, NULL, 0,
	 "ignore what the recorder read of HTTP/2 (its preface): only the byte-stream rules find "
	 "multiplexed connections",
	 2},
	{"verbose", 'v', NULL, 0, "statistics on standard error", 2},
	{0},
};

static error_t tuning_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;
	uint64_t n;

	switch (key) {
	case 'w':
		return vp_cmd__span(arg, &c->opts.window_ns) ? vp_cmd__invalid(arg, "window") : 0;
	case OPT_REORDER:
		return vp_cmd__span(arg, &c->opts.reorder_ns) ? vp_cmd__invalid(arg, "reorder") : 0;
	case OPT_THREADS:
		if (vp_cmd__count(arg, 1024, &n))
			return vp_cmd__invalid(arg, "threads");
		c->opts.threads = (unsigned)n;
		return 0;
	case OPT_PAIRS:
		c->opts.pairs = arg;
		return 0;
	case OPT_NO_FRAMES:
		c->opts.no_frames = true;
		return 0;
	case 'v':
		c->verbose = true;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp vp_cmd_tuning_argp = {tuning_options, tuning_parse, NULL, NULL, NULL, NULL, NULL};

const struct argp_child vp_cmd_analysis_groups[] = {
	{&vp_cmd_slowest_argp, 0, NULL, 0},
	{&vp_cmd_requests_argp, 0, NULL, 0},
	{&vp_cmd_tuning_argp, 0, NULL, 0},
	{0},
};
