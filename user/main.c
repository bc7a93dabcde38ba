// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* vpath-record: parse the command line, handle signals, run the recorder. */
#include <signal.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "options.h"
#include "recorder.h"

/* The first signal stops cleanly (drain, flush, fsync); a second one exits at once. */
static void on_signal(int sig)
{
	if (recorder_exiting)
		_exit(128 + sig);
	recorder_exiting = 1;
}

int main(int argc, char **argv)
{
	struct record_opts opts;
	struct sigaction sa;

	/* The status argp exits with on every other command-line mistake. */
	if (record_opts__parse(&opts, argc, argv, 0))
		return EX_USAGE;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return recorder_run(&opts) ? 1 : 0;
}
