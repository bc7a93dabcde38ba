// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Progress on a terminal (progress.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "progress.h"

#define FIRST_DRAW_S 1.0 /* a short analysis shows nothing */
#define REDRAW_S 0.2
#define CHECK_EVERY 64 /* ticks between looks at the clock */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool vp_progress__wanted(FILE *f)
{
	const char *ci = getenv("CI");

	return isatty(fileno(f)) && !(ci && *ci);
}

void vp_progress__init(struct vp_progress *p, const struct vp_analysis *a, FILE *f, bool on)
{
	*p = (struct vp_progress){.on = on, .f = f, .started = now()};
	for (size_t h = 0; h < vp_analysis__nhosts(a); h++)
		p->total += vp_analysis__host(a, h)->bytes_total;
}

static void count(char *buf, size_t len, uint64_t n)
{
	if (n < 10000)
		snprintf(buf, len, "%" PRIu64, n);
	else if (n < 1000000)
		snprintf(buf, len, "%.1fk", (double)n / 1e3);
	else
		snprintf(buf, len, "%.1fM", (double)n / 1e6);
}

void vp_progress__format(char *buf, size_t len, uint64_t records, uint64_t done, uint64_t total,
			 double elapsed)
{
	char r[32], t[32], left[48] = "";
	double frac = total ? (double)done / (double)total : 0;

	if (frac > 1)
		frac = 1;
	count(r, sizeof(r), records);
	vp_fmt_bytes(total, t, sizeof(t));
	/* Bytes are read at a steady rate: what is left takes as long, pro rata. */
	if (frac > 0.01 && frac < 1) {
		double s = elapsed * (1 - frac) / frac;

		if (s < 120)
			snprintf(left, sizeof(left), ", %.0fs left", s);
		else
			snprintf(left, sizeof(left), ", %.0fmin left", s / 60);
	}
	snprintf(buf, len, "%s records, %.0f%% of %s%s", r, frac * 100, t, left);
}

void vp_progress__tick(struct vp_progress *p, const struct vp_analysis *a)
{
	uint64_t records = 0, done = 0;
	char line[160];
	double t;

	if (!p->on || ++p->calls % CHECK_EVERY)
		return;
	t = now();
	if (t - p->started < FIRST_DRAW_S || t - p->drawn < REDRAW_S)
		return;
	p->drawn = t;
	for (size_t h = 0; h < vp_analysis__nhosts(a); h++) {
		records += vp_analysis__host(a, h)->records;
		done += vp_analysis__host(a, h)->bytes_read;
	}
	vp_progress__format(line, sizeof(line), records, done, p->total, t - p->started);
	fprintf(p->f, "\r\033[K%s", line);
	fflush(p->f);
	p->shown = true;
}

void vp_progress__done(struct vp_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", p->f);
	p->shown = false;
}
