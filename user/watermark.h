/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How far the recorder may write: a stamp such that every record stamped
 * at or before it is already in the recorder's hands, so that what it
 * writes up to there is in time order for good.  Each round the recorder
 * tells what it saw, in this order:
 *
 *   begin(start)          the round starts (CLOCK_MONOTONIC, read first)
 *   in_flight(cpu, since) a program on cpu was writing records, none
 *                         stamped before since (read after start)
 *   flushed(cpu, sent)    whether cpu's batch of operations went into the
 *                         ring, or a program held it (asked after that)
 *   ring_behind()         the ring could not be emptied as far as it was
 *                         filled after the flush (a record reserved then
 *                         is still being written)
 *   hold(since)           records stamped from since on may still come
 *                         from elsewhere (the exec watch's, at an exec)
 *   end()                 the new line, never lower than the last one
 *
 * A CPU whose batch a program held may still hold operations stamped since
 * its last flush, so the line stays behind that flush's line for it; an
 * unfinished record in the ring hides the records behind it, so the line
 * does not move at all that round.  However long a CPU is held up, the
 * line waits for it instead of leaving its records behind.
 */
#ifndef VPATH_RECORD_WATERMARK_H
#define VPATH_RECORD_WATERMARK_H

#include <stdbool.h>
#include <stdint.h>

struct watermark;

/* margin_ns: kept behind each round's start for clocks read on different CPUs.  NULL: no memory. */
struct watermark *watermark__new(unsigned ncpus, uint64_t margin_ns);
void watermark__free(struct watermark *w); /* NULL-safe */

void watermark__begin(struct watermark *w, uint64_t start_ns);
void watermark__in_flight(struct watermark *w, unsigned cpu, uint64_t since_ns);
void watermark__flushed(struct watermark *w, unsigned cpu, bool sent);
void watermark__ring_behind(struct watermark *w);
void watermark__hold(struct watermark *w, uint64_t since_ns);
uint64_t watermark__end(struct watermark *w);

/* Rounds that ended behind their start less the margin, and the most they were behind. */
uint64_t watermark__held_rounds(const struct watermark *w);
uint64_t watermark__held_max_ns(const struct watermark *w);

#endif
