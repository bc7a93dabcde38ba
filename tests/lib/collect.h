/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Runs the analysis on test recordings and keeps every request, sorted by
 * start, so tests can compare the call trees found with the story they wrote.
 * A tree is written as a signature:
 *
 *	lg/901>web/301(web/301>db/401,web/301>db/401)
 *
 * "client>server" per call (host/tid when recorded, the address when not),
 * the calls the server made in parentheses, ordered by start.
 */
#ifndef VPATH_COLLECT_H
#define VPATH_COLLECT_H

#include <stddef.h>

#include "analysis.h"

struct collected {
	struct vp_analysis *a;
	struct vp_request **reqs;
	size_t n, cap;
	char err[512];
	char *sigs; /* all signatures joined by " | " */
};

/* Analyze files; returns 0 or the error of vp_analysis__new/run (message in c->err). */
int collect_run(struct collected *c, char *const *files, int nfiles,
		const struct vp_analysis_opts *opts);
char *call_sig(const struct collected *c, const struct vp_call *call, char *buf, size_t len);
/* The signatures of all requests, " | " between them. */
const char *collected_sigs(struct collected *c);
/* The process of host hostname and pid, or NULL. */
const struct vp_proc *collected_proc(const struct collected *c, const char *hostname, unsigned pid);
void collected_free(struct collected *c);

#endif
