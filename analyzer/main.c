// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vpath-analyze: rebuilds request paths from vpath recordings.
 * This file only parses the command line and wires the library stages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"

static const char usage[] =
	"Usage: vpath-analyze COMMAND [OPTIONS] FILE...\n"
	"\n"
	"Commands:\n"
	"  dump FILE       print the header and every record, then whether the file is intact\n"
	"\n"
	"Examples:\n"
	"  vpath-analyze dump web-1.vpr | less\n";

static int cmd_dump(int argc, char **argv)
{
	int status = 0;

	if (argc < 1) {
		fprintf(stderr, "error: dump needs a recording file\n");
		return 2;
	}
	for (int i = 0; i < argc; i++) {
		int ret = vp_dump_file(argv[i], stdout, stderr);

		if (ret < 0)
			status = 1;
	}
	return status;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "dump"))
		return cmd_dump(argc - 2, argv + 2);
	fprintf(stderr, "error: unknown command '%s' (see vpath-analyze --help)\n", argv[1]);
	return 2;
}
