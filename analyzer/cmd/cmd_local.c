// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* local -o OUT [-v] FILE...: one host's recordings into a local file (local/local.h). */
#include <inttypes.h>
#include <stdio.h>

#include "cmd.h"
#include "local/local.h"
#include "localwrite.h"

#define NEEDS "local needs -o FILE and one host's recording (see --help)"

struct local_args {
	const char *out;
	bool verbose;
};

static const struct argp_option local_options[] = {
	{"output", 'o', "FILE", 0, "the local file to write (required)", 0},
	{"verbose", 'v', NULL, 0, "what went in and how small it became, on standard error", 0},
	{0},
};

static error_t local_parse(int key, char *arg, struct argp_state *state)
{
	struct local_args *l = state->input;

	switch (key) {
	case 'o':
		l->out = arg;
		return 0;
	case 'v':
		l->verbose = true;
		return 0;
	case ARGP_KEY_END:
		return l->out ? 0 : vp_cmd__refuse(NEEDS);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static int local_run(const struct vp_cmd *cmd, int argc, char **argv)
{
	struct local_args l = {0};
	struct vp_cmd_files files;
	struct vp_local_stats st;
	char err[512];

	if (vp_cmd__parse(cmd, argc, argv, &l, &files))
		return 2;
	if (vp_local__write(files.v, files.n, l.out, &st, err, sizeof(err))) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	if (l.verbose)
		fprintf(stderr,
			"%s: %" PRIu64 " records, %" PRIu64 " calls (%" PRIu64
			" linked in the host), %" PRIu64 " bytes from %" PRIu64
			" (%.1f%%; records %" PRIu64 ", calls %" PRIu64 ")\n",
			l.out, st.records, st.calls, st.links, st.out_bytes, st.in_bytes,
			st.in_bytes ? 100.0 * (double)st.out_bytes / (double)st.in_bytes : 0.0,
			st.recs_bytes, st.calls_bytes);
	return 0;
}

const struct vp_cmd vp_cmd_local = {
	.name = "local",
	.summary = "one host's recording (or ring segments) into a local file (-o FILE,\n"
		   "docs/format.md): run it where the data is; every other command takes\n"
		   "local files in place of recordings, mixed with them too, with the\n"
		   "same output",
	.examples =
		"  vpath-analyze local -o web.vpl web.vpr           # on the web host\n"
		"  vpath-analyze paths web.vpl app.vpl db.vpr       # anywhere, with the others\n",
	.no_files = NEEDS,
	.options = local_options,
	.parse = local_parse,
	.run = local_run,
};
