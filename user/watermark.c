// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Recorder stage: the line up to which records may be written (watermark.h).
 * Per CPU, the round's line (start less the margin, or just before the
 * stamp of a record it was still writing) and the line of its last flush
 * that found its batch free; the round's line is the lowest of them.
 */
#include <stdlib.h>

#include "watermark.h"

struct watermark {
	unsigned ncpus;
	uint64_t margin;
	uint64_t start_line; /* this round's start less the margin */
	bool behind;	     /* this round: the ring was not emptied */
	uint64_t hold;	     /* this round: the line stays at or before it (hold) */
	uint64_t line;	     /* what end() last returned */
	uint64_t first;	     /* the first round's start line: held back from there at most */
	uint64_t *round;     /* per CPU: this round's line */
	uint64_t *flushed;   /* per CPU: the round line of its last flush that sent its batch */
	uint64_t held, held_max;
};

struct watermark *watermark__new(unsigned ncpus, uint64_t margin_ns)
{
	struct watermark *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->ncpus = ncpus;
	w->margin = margin_ns;
	w->round = calloc(ncpus ? ncpus : 1, sizeof(*w->round));
	w->flushed = calloc(ncpus ? ncpus : 1, sizeof(*w->flushed));
	if (!w->round || !w->flushed) {
		watermark__free(w);
		return NULL;
	}
	return w;
}

void watermark__free(struct watermark *w)
{
	if (!w)
		return;
	free(w->round);
	free(w->flushed);
	free(w);
}

void watermark__begin(struct watermark *w, uint64_t start_ns)
{
	w->start_line = start_ns > w->margin ? start_ns - w->margin : 0;
	if (!w->first)
		w->first = w->start_line;
	w->behind = false;
	w->hold = UINT64_MAX;
	for (unsigned i = 0; i < w->ncpus; i++)
		w->round[i] = w->start_line;
}

void watermark__in_flight(struct watermark *w, unsigned cpu, uint64_t since_ns)
{
	uint64_t before = since_ns ? since_ns - 1 : 0;

	if (cpu < w->ncpus && before < w->round[cpu])
		w->round[cpu] = before;
}

void watermark__flushed(struct watermark *w, unsigned cpu, bool sent)
{
	if (cpu >= w->ncpus)
		return;
	if (sent)
		w->flushed[cpu] = w->round[cpu];
	else if (w->flushed[cpu] < w->round[cpu])
		w->round[cpu] = w->flushed[cpu];
}

void watermark__ring_behind(struct watermark *w)
{
	w->behind = true;
}

void watermark__hold(struct watermark *w, uint64_t since_ns)
{
	uint64_t before = since_ns ? since_ns - 1 : 0;

	if (before < w->hold)
		w->hold = before;
}

uint64_t watermark__end(struct watermark *w)
{
	uint64_t line = w->hold < w->start_line ? w->hold : w->start_line;

	for (unsigned i = 0; i < w->ncpus; i++)
		if (w->round[i] < line)
			line = w->round[i];
	if (w->behind)
		line = w->line;
	if (line < w->start_line) {
		uint64_t from = line > w->first ? line : w->first;

		w->held++;
		if (w->start_line - from > w->held_max)
			w->held_max = w->start_line - from;
	}
	if (line > w->line)
		w->line = line;
	return w->line;
}

uint64_t watermark__held_rounds(const struct watermark *w)
{
	return w->held;
}

uint64_t watermark__held_max_ns(const struct watermark *w)
{
	return w->held_max;
}
