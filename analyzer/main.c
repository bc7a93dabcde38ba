// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vpath-analyze: rebuilds request paths from vpath recordings.
 * This file only finds the command (cmd/cmd.h) and runs it; each command
 * parses its own options.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"

static const char intro[] =
	"Usage: vpath-analyze COMMAND [OPTIONS] FILE...\n"
	"\n"
	"Reads the recordings of all hosts (one file per host, or every segment of a\n"
	"--ring recording), pairs the two ends of each TCP connection by stream position\n"
	"and rebuilds the path of every request: which hosts, processes and threads it\n"
	"visited, in which order, and how long each hop took.\n"
	"\n";

/* Every command's options in one list; `vpath-analyze COMMAND --help` gives one command's. */
static const char options[] =
	"Options:\n"
	"  -j, --json            paths, show, baseline: JSON output\n"
	"      --csv             table: comma-separated\n"
	"  -n, --slowest N       only the N slowest requests (slowest first)\n"
	"  -r, --request ID      only request ID\n"
	"  -p, --pattern N       dot: the N-th pattern of `patterns` (1 = most total time)\n"
	"      --from T          only requests starting at or after T (duration from the\n"
	"                        recording's start: 1.5s, 200ms)\n"
	"      --to T            only requests starting before T\n"
	"  -e, --entry HOST:PORT only requests entering at this server address (port 0: any)\n"
	"  -w, --window D        how long to wait for the other end of a call (default 1s)\n"
	"      --reorder D       how far records of one file may be out of order (default 10ms)\n"
	"      --threads N       hosts analyzed at once (default: one or the online CPUs,\n"
	"                        at most one per host, whichever runs faster, timed as\n"
	"                        it goes); the output is the same for every N\n"
	"      --pairs FILE      which client end pairs with which server end, as decided\n"
	"                        outside (ClickHouse: docs/clickhouse.md), instead of here\n"
	"      --no-frames       ignore what the recorder read of HTTP/2 (its preface): only\n"
	"                        the byte-stream rules find multiplexed connections\n"
	"      --logs            paths, show: each call's log lines under it (recorded with\n"
	"                        vpath-record --logs; --json always has them)\n"
	"  -o, --output FILE     otlp, sqlite, report: write to FILE (default: standard output);\n"
	"                        local: the local file to write (required)\n"
	"      --endpoint URL    otlp: POST to this OTLP/HTTP receiver (URL/v1/traces)\n"
	"      --nesting         baseline: the nesting algorithm (call pairs nested by time)\n"
	"      --convolution     baseline: the convolution algorithm (cross-correlation)\n"
	"      --quantum D       convolution: time quantum (default 100us)\n"
	"      --max-lag D       convolution: longest delay looked for (default 50ms)\n"
	"  -v, --verbose         statistics on standard error\n"
	"  -V, --version         the package version and the file formats it reads\n"
	"  -h, --help            this text\n"
	"\n";

/* The commands' lines and examples come from vp_cmds[]. */
static void usage(FILE *f)
{
	fputs(intro, f);
	fputs("Commands:\n", f);
	for (const struct vp_cmd *const *c = vp_cmds; *c; c++) {
		fprintf(f, "  %-10s ", (*c)->name);
		for (const char *p = (*c)->summary; *p; p++)
			if (*p == '\n')
				fputs("\n             ", f); /* under the summary's first line */
			else
				fputc(*p, f);
		fputc('\n', f);
	}
	fputs("\n", f);
	fputs(options, f);
	fputs("Examples:\n", f);
	for (const struct vp_cmd *const *c = vp_cmds; *c; c++)
		if ((*c)->examples)
			fputs((*c)->examples, f);
	fputs("\nOn a terminal, a long analysis shows its progress on standard error (not in "
	      "CI).\n",
	      f);
}

int main(int argc, char **argv)
{
	const struct vp_cmd *cmd;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		fputs(vp_cmd_version, stdout);
		return 0;
	}
	cmd = vp_cmd__find(argv[1]);
	if (!cmd) {
		fprintf(stderr, "error: unknown command '%s' (see vpath-analyze --help)\n",
			argv[1]);
		return 2;
	}
	return cmd->run(cmd, argc - 1, argv + 1);
}
