// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* dump FILE...: a recording's (dump.h) or a local file's records as text, then whether it is intact. */
#include <stdio.h>

#include "cmd.h"
#include "dump.h"
#include "local/local.h"
#include "local/localdump.h"
#include "localfile.h"

/* 1 when a file is damaged (the others are still printed). */
static int dump_run(const struct vp_cmd *cmd, int argc, char **argv)
{
	struct vp_cmd_files files;
	int status = 0;

	if (vp_cmd__parse(cmd, argc, argv, NULL, &files))
		return 2;
	for (int i = 0; i < files.n; i++) {
		const char *f = files.v[i];
		int r = vpl_is_local(f) ? vp_local__dump(f, stdout, stderr)
					: vp_dump_file(f, stdout, stderr);

		if (r < 0)
			status = 1;
	}
	return status;
}

const struct vp_cmd vp_cmd_dump = {
	.name = "dump",
	.summary = "a recording's header and records as text, then whether it is intact\n"
		   "(of a local file: its host and every call it holds)",
	.examples = "  vpath-analyze dump web.vpr | less\n",
	.no_files = "dump needs a recording file",
	.run = dump_run,
};
