/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Progress of a long analysis on the terminal: records read, how much of
 * the recordings that is, and an estimate of the time left, redrawn on one
 * line of standard error a few times a second.  Quiet unless standard error
 * is a terminal, and in CI (CI set).
 */
#ifndef VPATH_PROGRESS_H
#define VPATH_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"

struct vp_progress {
	bool on;
	FILE *f;
	uint64_t total;	       /* bytes of all recordings */
	double started, drawn; /* seconds, CLOCK_MONOTONIC */
	unsigned calls;
	bool shown; /* a line is on screen */
};

/* Whether progress should show: f is a terminal and CI is not set. */
bool vp_progress__wanted(FILE *f);
void vp_progress__init(struct vp_progress *p, const struct vp_analysis *a, FILE *f, bool on);
/* Call often (per request); draws at most every 200 ms, after the first second. */
void vp_progress__tick(struct vp_progress *p, const struct vp_analysis *a);
/* Erases the line. */
void vp_progress__done(struct vp_progress *p);
/* The line itself, for tests: "1.2M records, 45% of 80.0MB, 12s left". */
void vp_progress__format(char *buf, size_t len, uint64_t records, uint64_t done, uint64_t total,
			 double elapsed);

#endif
