/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records that another thread of the recorder writes (the exec watch's
 * VPR_GO_PENDING, user/golang.c), handed in to the recorder's loop, which
 * alone feeds the reorder buffer.  A lock and a short array: a few records
 * per program started, against thousands of operations per round.
 */
#ifndef VPATH_RECORD_INBOX_H
#define VPATH_RECORD_INBOX_H

#include <pthread.h>
#include <stddef.h>

#include "vpath/record.h"

struct inbox {
	pthread_mutex_t lock;
	union vpr_any *recs;
	size_t len, cap;
};

void inbox__init(struct inbox *in);
void inbox__free(struct inbox *in);
/* From any thread: rec (h.size bytes) is kept until taken.  0 or -ENOMEM. */
int inbox__put(struct inbox *in, const void *rec);
/* From the loop: each record put so far, in the order put, to fn; stops at its first error. */
int inbox__take(struct inbox *in, int (*fn)(void *ctx, union vpr_any *rec), void *ctx);

#endif
