// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * baseline: Project 5's statistical algorithms (SOSP 2003, baseline/) on
 * the calls the analysis paired, for comparison (docs/analyzer.md).
 */
#include "cmd_analyze.h"

enum {
	OPT_NESTING = 0x100,
	OPT_CONVOLUTION,
	OPT_QUANTUM,
	OPT_MAX_LAG
};

static const struct argp_option baseline_options[] = {
	{"json", 'j', NULL, 0, "JSON output", 0},
	{"nesting", OPT_NESTING, NULL, 0, "the nesting algorithm (call pairs nested by time)", 0},
	{"convolution", OPT_CONVOLUTION, NULL, 0, "the convolution algorithm (cross-correlation)",
	 0},
	{"quantum", OPT_QUANTUM, "D", 0, "convolution: time quantum (default 100us)", 0},
	{"max-lag", OPT_MAX_LAG, "D", 0, "convolution: longest delay looked for (default 50ms)", 0},
	{0},
};

static int check(struct vp_cmd_analysis *c)
{
	const struct vp_conv_opts *conv = &c->sink_opts.conv;

	if (c->nesting == c->convolution)
		return vp_cmd__refuse("baseline needs one of --nesting and --convolution");
	if (conv->max_lag_ns / conv->quantum_ns > 10000000)
		return vp_cmd__refuse("--max-lag is more than ten million quanta");
	if (conv->max_lag_ns < conv->quantum_ns)
		return vp_cmd__refuse("--max-lag is shorter than --quantum");
	c->sink_opts.json = c->json;
	c->sink = c->nesting ? VP_SINK_NESTING : VP_SINK_CONVOLUTION;
	return 0;
}

static error_t baseline_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;
	struct vp_conv_opts *conv = &c->sink_opts.conv;

	switch (key) {
	case 'j':
		c->json = true;
		return 0;
	case OPT_NESTING:
		c->nesting = true;
		return 0;
	case OPT_CONVOLUTION:
		c->convolution = true;
		return 0;
	case OPT_QUANTUM:
		if (vp_cmd__span(arg, (uint64_t *)&conv->quantum_ns) || !conv->quantum_ns)
			return vp_cmd__invalid(arg, "quantum");
		return 0;
	case OPT_MAX_LAG:
		return vp_cmd__span(arg, (uint64_t *)&conv->max_lag_ns)
			       ? vp_cmd__invalid(arg, "max-lag")
			       : 0;
	case ARGP_KEY_END:
		return check(c);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct vp_cmd vp_cmd_baseline = {
	.name = "baseline",
	.summary = "--nesting or --convolution: Project 5's statistical algorithms\n"
		   "(SOSP 2003) on the same recordings, from message timing alone (hosts\n"
		   "and their messages, no threads): patterns as `patterns` prints them,\n"
		   "never exact, for comparison (docs/analyzer.md)",
	.examples = "  vpath-analyze baseline --nesting *.vpr\n",
	.no_files = VP_CMD_NO_RECORDING,
	.options = baseline_options,
	.parse = baseline_parse,
	.children = vp_cmd_analysis_groups,
	.run = vp_cmd_analyze,
};
