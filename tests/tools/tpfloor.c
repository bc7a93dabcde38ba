// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tpfloor: attaches tests/bench/tpfloor.bpf.c's empty programs to the socket
 * tracepoints, prints "attached" once they are, and holds them until
 * SIGINT or SIGTERM.  recorder.sh runs echobench under it to measure what
 * running any program there costs, beside what the recorder costs.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#include "tests/tpfloor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct tpfloor_bpf *skel;
	int err;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	skel = tpfloor_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "tpfloor: cannot load the empty programs: %s\n", strerror(errno));
		return 1;
	}
	err = tpfloor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "tpfloor: cannot attach: %s\n", strerror(-err));
		tpfloor_bpf__destroy(skel);
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	tpfloor_bpf__destroy(skel);
	return 0;
}
