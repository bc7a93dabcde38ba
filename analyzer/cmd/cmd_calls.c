// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* calls FILE.vpl...: every call end as a row for ClickHouse (local/localtsv.h, docs/clickhouse.md). */
#include <stdio.h>

#include "cmd.h"
#include "local/localtsv.h"

/* 1 when a file is unreadable or damaged (the others are still written). */
static int calls_run(const struct vp_cmd *cmd, int argc, char **argv)
{
	struct vp_cmd_files files;
	int status = 0;

	if (vp_cmd__parse(cmd, argc, argv, NULL, &files))
		return 2;
	for (int i = 0; i < files.n; i++)
		if (vp_local__tsv(files.v[i], stdout, stderr) < 0)
			status = 1;
	return status;
}

const struct vp_cmd vp_cmd_calls = {
	.name = "calls",
	.summary = "local files' call ends as tab-separated rows, for ClickHouse to pair\n"
		   "(docs/clickhouse.md)",
	.examples = "  vpath-analyze calls web.vpl app.vpl db.vpl > calls.tsv\n",
	.no_files = "calls needs local files (vpath-analyze local)",
	.run = calls_run,
};
