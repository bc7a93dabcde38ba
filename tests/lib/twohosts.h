/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fixture of the two-host analyzer tests: a private directory with two
 * synthetic recordings a.vpr and b.vpr (hosts with their own boot ids and
 * one address each), and the requests collected from analyzing them.
 */
#ifndef VPATH_TWOHOSTS_H
#define VPATH_TWOHOSTS_H

#include "collect.h"
#include "synth.h"

struct two_hosts {
	char dir[64], pa[128], pb[128];
	char *files[2];
	struct synth_host *a, *b;
	struct collected c;
};

/* NULL on error. */
struct two_hosts *two_hosts__new(const char *name_a, const char *addr_a, const char *name_b,
				 const char *addr_b);
/* Finish both recordings: 0 or the first -errno. */
int two_hosts__close(struct two_hosts *t);
/* Close what is open, free the requests, remove the files.  NULL-safe. */
void two_hosts__free(struct two_hosts *t);

#endif
