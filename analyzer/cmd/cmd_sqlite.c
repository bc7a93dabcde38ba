// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* sqlite: the requests as a SQLite database (docs/sqlite.md). */
#include "cmd_analyze.h"

static const struct argp_option sqlite_options[] = {
	{"output", 'o', "FILE", 0, "the database to write (required; an existing file is replaced)",
	 0},
	{0},
};

static error_t sqlite_parse(int key, char *arg, struct argp_state *state)
{
	struct vp_cmd_analysis *c = state->input;

	switch (key) {
	case 'o':
		c->sink_opts.path = arg;
		return 0;
	case ARGP_KEY_END:
		if (!c->sink_opts.path)
			return vp_cmd__refuse("sqlite needs -o FILE");
		c->sink = VP_SINK_SQLITE;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct vp_cmd vp_cmd_sqlite = {
	.name = "sqlite",
	.summary = "a SQLite database of hosts, requests and calls (-o FILE, docs/sqlite.md)",
	.examples = "  vpath-analyze sqlite -o paths.db *.vpr\n",
	.no_files = VP_CMD_NO_RECORDING,
	.options = sqlite_options,
	.parse = sqlite_parse,
	.children = vp_cmd_analysis_groups,
	.run = vp_cmd_analyze,
};
