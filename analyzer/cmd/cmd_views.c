// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The five views on the terminal: paths, show, table, patterns and dot.
 * Each is an analysis (cmd_analyze.h) into one text output; they differ in
 * a flag or two and in which output they pick.
 */
#include "cmd_analyze.h"

enum {
	OPT_LOGS = 0x100
};

static const struct argp_option paths_options[] = {
	{"json", 'j', NULL, 0, "JSON output (docs/json.md)", 0},
	{"logs", OPT_LOGS, NULL, 0,
	 "each call's log lines under it (recorded with vpath-record --logs; --json always has "
	 "them)",
	 0},
	{0},
};

static error_t paths_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;

	switch (key) {
	case 'j':
		c->json = true;
		return 0;
	case OPT_LOGS:
		c->logs = true;
		return 0;
	case ARGP_KEY_END:
		c->sink = c->json ? VP_SINK_JSON : VP_SINK_TEXT;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct vp_cmd vp_cmd_paths = {
	.name = "paths",
	.summary = "every request as a waterfall tree (--json: docs/json.md)",
	.examples =
		"  vpath-analyze paths web.vpr app.vpr db.vpr         # every request as a tree\n"
		"  vpath-analyze paths -n 5 *.vpr                     # the five slowest\n"
		"  vpath-analyze paths --json *.vpr > paths.json\n",
	.no_files = VP_CMD_NO_RECORDING,
	.options = paths_options,
	.parse = paths_parse,
	.children = vp_cmd_analysis_groups,
	.run = vp_cmd_analyze,
};

static error_t show_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;

	if (key != ARGP_KEY_END)
		return paths_parse(key, arg, state);
	if (!c->request_id)
		return vp_cmd__refuse("show needs --request ID");
	c->must_show = true;
	return paths_parse(key, arg, state);
}

const struct vp_cmd vp_cmd_show = {
	.name = "show",
	.summary = "one request (--request ID) as a tree",
	.examples = "  vpath-analyze show -r 17 *.vpr\n",
	.no_files = VP_CMD_NO_RECORDING,
	.options = paths_options,
	.parse = show_parse,
	.children = vp_cmd_analysis_groups,
	.run = vp_cmd_analyze,
};

enum {
	OPT_CSV = 0x100
};

static const struct argp_option table_options[] = {
	{"csv", OPT_CSV, NULL, 0, "comma-separated (default: tab-separated)", 0},
	{0},
};

static error_t table_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;

	switch (key) {
	case OPT_CSV:
		c->csv = true;
		return 0;
	case ARGP_KEY_END:
		c->sink = VP_SINK_TABLE;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct vp_cmd vp_cmd_table = {
	.name = "table",
	.summary = "one row per request (TSV, --csv for CSV)",
	.examples = "  vpath-analyze table --entry 10.0.0.1:80 *.vpr | sort -t$'\\t' -k6 -n\n",
	.no_files = VP_CMD_NO_RECORDING,
	.options = table_options,
	.parse = table_parse,
	.children = vp_cmd_analysis_groups,
	.run = vp_cmd_analyze,
};

static error_t patterns_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;

	if (key != ARGP_KEY_END)
		return ARGP_ERR_UNKNOWN;
	c->sink = VP_SINK_PATTERNS;
	return 0;
}

const struct vp_cmd vp_cmd_patterns = {
	.name = "patterns",
	.summary = "requests grouped by the services they visit, with latencies",
	.examples = "  vpath-analyze patterns *.vpr\n",
	.no_files = VP_CMD_NO_RECORDING,
	.parse = patterns_parse,
	.children = vp_cmd_analysis_groups,
	.run = vp_cmd_analyze,
};

static const struct argp_option dot_options[] = {
	{"pattern", 'p', "N", 0, "the N-th pattern of `patterns` (1 = most total time)", 0},
	{0},
};

static error_t dot_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;

	switch (key) {
	case 'p':
		if (vp_cmd__count(arg, 1000000, &c->sink_opts.pattern))
			return vp_cmd__invalid(arg, "pattern");
		return 0;
	case ARGP_KEY_END:
		if (!c->request_id && !c->sink_opts.pattern)
			return vp_cmd__refuse("dot needs --request ID or --pattern N");
		c->must_show = true;
		c->sink = c->sink_opts.pattern ? VP_SINK_DOT_PATTERN : VP_SINK_DOT;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct vp_cmd vp_cmd_dot = {
	.name = "dot",
	.summary = "Graphviz DOT of a request (--request ID) or a pattern (--pattern N)",
	.examples = "  vpath-analyze dot -p 1 *.vpr | dot -Tsvg > pattern1.svg\n",
	.no_files = VP_CMD_NO_RECORDING,
	.options = dot_options,
	.parse = dot_parse,
	.children = vp_cmd_analysis_groups,
	.run = vp_cmd_analyze,
};
