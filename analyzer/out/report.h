/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One self-contained HTML report (docs/report.md): path patterns with
 * their latency distributions, the slowest requests as waterfalls, the
 * service graph, hosts and loss.  The analysis goes in as data (JSON inside
 * the page); the page's own script and style draw it, with nothing loaded
 * from anywhere.
 */
#ifndef VPATH_REPORT_H
#define VPATH_REPORT_H

#include <stdio.h>

#include "analysis.h"
#include "request.h"

struct vp_report_opts {
	size_t slowest;	    /* waterfalls of the N slowest requests; 0: 20 */
	size_t per_pattern; /* and of the N slowest of each pattern; 0: 5 */
	size_t patterns;    /* patterns shown, by total time; 0: 50 */
};

struct vp_report;
struct vp_report *vp_report__new(const struct vp_report_opts *opts);
void vp_report__add(struct vp_report *rep, const struct vp_analysis *a, const struct vp_request *r);
/* The page; t0 is the common timeline's origin (times are shown from it). 0 or -errno. */
int vp_report__write(struct vp_report *rep, const struct vp_analysis *a, int64_t t0, FILE *f);
void vp_report__free(struct vp_report *rep);

/* The page's script and style (report_assets.c). */
extern const char vp_report_js[], vp_report_css[];

#endif
