// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* otlp: the requests as OpenTelemetry traces, to a file or a receiver (docs/otlp.md). */
#include "cmd_analyze.h"

enum {
	OPT_ENDPOINT = 0x100
};

static const struct argp_option otlp_options[] = {
	{"output", 'o', "FILE", 0, "write to FILE (default: standard output)", 0},
	{"endpoint", OPT_ENDPOINT, "URL", 0, "POST to this OTLP/HTTP receiver (URL/v1/traces)", 0},
	{0},
};

static error_t otlp_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;

	switch (key) {
	case 'o':
		c->sink_opts.path = arg;
		return 0;
	case OPT_ENDPOINT:
		c->sink_opts.endpoint = arg;
		return 0;
	case ARGP_KEY_END:
		if (c->sink_opts.endpoint && c->sink_opts.path)
			return vp_cmd__refuse("--endpoint is for otlp, without -o");
		c->sink = VP_SINK_OTLP;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct vp_cmd vp_cmd_otlp = {
	.name = "otlp",
	.summary = "OpenTelemetry traces, OTLP/JSON (docs/otlp.md); --endpoint URL posts\n"
		   "them to an OTLP/HTTP receiver",
	.examples = "  vpath-analyze otlp --endpoint http://localhost:4318 *.vpr\n",
	.no_files = VP_CMD_NO_RECORDING,
	.options = otlp_options,
	.parse = otlp_parse,
	.children = vp_cmd_analysis_groups,
	.run = vp_cmd_analyze,
};
