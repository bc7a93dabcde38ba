/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Log lines (VPR_LOG, vpath-record --logs): the bytes of each thread's
 * writes to each file cut into lines at newlines, however the writes fell
 * (a line in several writes, several lines in one).  A line is its first
 * write's: that thread, that time; attribution (vp_attr__log) gives it to
 * the request the thread served then.  Bytes that are no text (a database
 * writing its pages) make no lines.
 */
#ifndef VPATH_LOGLINES_H
#define VPATH_LOGLINES_H

#include <stdbool.h>
#include <stdint.h>

#include "evidence.h"
#include "hashmap.h"
#include "vpath/record.h"

/* The longest line kept: longer ones are cut there (cut). */
#define VP_LOGLINE_MAX 1024

struct vp_logline {
	struct vp_logline *next; /* in its request's list, or its thread's pending ones */
	uint64_t ts;		 /* host clock: when the write of its first bytes returned */
	int64_t at_ns;		 /* the same on the common timeline, once its request is emitted */
	uint32_t tid, pid;	 /* the thread that wrote it */
	uint64_t unit;		 /* attribution's key: the thread, or the goroutine it ran */
	uint64_t cause;		 /* id of the unit's cause when the line began (0: none) */
	struct vp_link link;	 /* how it was given to its request (evidence.h) */
	uint8_t kind;		 /* enum vpr_log_kind */
	bool cut;		 /* its end was not recorded: the write was longer than --logs N */
	/*
	 * A write of its bytes held more than one line: a buffering writer
	 * (stdio's full buffering, a batch) may have filled it while serving
	 * another request than the one it served at the write.  Never exact.
	 */
	bool batched;
	bool redacted; /* the recorder replaced secrets in it */
	uint16_t len;
	char text[]; /* len bytes, without the newline, NUL-terminated */
};

/* Lines held in time order, at most a bound: past it the oldest go. */
struct vp_lineq {
	struct vp_logline *head, *tail;
	uint32_t n;
};

void vp_lineq__push(struct vp_lineq *q, struct vp_logline *l, uint32_t max);
/* The lines held, as a list (next links); q is empty after. */
struct vp_logline *vp_lineq__take(struct vp_lineq *q);
void vp_lineq__free(struct vp_lineq *q);

/* Takes a finished line (and owns it from then on). */
typedef void (*vp_logline_fn)(void *ctx, struct vp_logline *l);

struct vp_loglines {
	struct u64map partial; /* (tid, ino) -> the line it has begun and not ended */
	uint64_t lines;	       /* lines handed on */
	uint64_t binary;       /* writes skipped as no text */
};

/*
 * One write (a whole VPR_LOG record): its complete lines go to fn, its
 * unfinished last one waits for the thread's next write to the same file.
 * unit and cause as in struct vp_logline, for a line that begins here.
 * 0 or -ENOMEM.
 */
int vp_loglines__write(struct vp_loglines *ll, const struct vpr_log *rec, uint64_t unit,
		       uint64_t cause, vp_logline_fn fn, void *ctx);
/* End of input: the unfinished lines go to fn as they are. */
void vp_loglines__flush(struct vp_loglines *ll, vp_logline_fn fn, void *ctx);
void vp_loglines__free(struct vp_loglines *ll);
/* A list of lines (next links). */
void vp_loglines__free_list(struct vp_logline *l);

#endif
