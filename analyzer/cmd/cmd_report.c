// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report: one self-contained HTML page (docs/report.md).  Its -n is how
 * many of the slowest requests get a waterfall, not a filter: it takes the
 * other request filters but not vp_cmd_slowest_argp.
 */
#include "cmd_analyze.h"

static const struct argp_option report_options[] = {
	{"output", 'o', "FILE", 0, "write to FILE (default: standard output)", 0},
	{"slowest", 'n', "N", 0, "waterfalls of the N slowest requests (default 20)", 0},
	{0},
};

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;
	uint64_t n;

	switch (key) {
	case 'o':
		c->sink_opts.path = arg;
		return 0;
	case 'n':
		if (vp_cmd__count(arg, 1000000, &n))
			return vp_cmd__invalid(arg, "slowest");
		c->sink_opts.slowest = (size_t)n;
		return 0;
	case ARGP_KEY_END:
		c->sink = VP_SINK_REPORT;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp_child report_groups[] = {
	{&vp_cmd_requests_argp, 0, NULL, 0},
	{&vp_cmd_tuning_argp, 0, NULL, 0},
	{0},
};

const struct vp_cmd vp_cmd_report = {
	.name = "report",
	.summary = "one self-contained HTML page: patterns, waterfalls, service graph,\n"
		   "hosts and loss (docs/report.md; -n: how many slowest, default 20)",
	.examples = "  vpath-analyze report -o report.html *.vpr\n",
	.no_files = VP_CMD_NO_RECORDING,
	.options = report_options,
	.parse = report_parse,
	.children = report_groups,
	.run = vp_cmd_analyze,
};
