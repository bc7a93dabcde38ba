/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Records reach the recorder out of time order: each CPU's socket
 * operations come in batches, in order within that CPU but up to a poll
 * interval behind other CPUs; every other record comes alone.  The reorder
 * buffer holds them until the recorder knows nothing earlier can still
 * arrive, then hands them out in timestamp order, so that a recording is
 * in time order as the analyzer reads it.
 */
#ifndef VPATH_RECORD_REORDER_H
#define VPATH_RECORD_REORDER_H

#include <stddef.h>
#include <stdint.h>
#include "vpath/record.h"

struct reorder;

/*
 * A queue grown beyond REORDER_KEEP entries gives memory back at the end of
 * a window of REORDER_CALM_ROUNDS hand-outs that all used under an eighth
 * of it: at most two windows after a backlog is handed out.
 */
#define REORDER_KEEP 16384
#define REORDER_CALM_ROUNDS 64

/* Takes one record, in timestamp order.  -errno stops the hand-out. */
typedef int (*reorder_emit_fn)(void *ctx, const void *rec);

struct reorder *reorder__new(unsigned ncpus); /* NULL: out of memory */
void reorder__free(struct reorder *ro);	      /* NULL-safe */

/*
 * Operations of one CPU, which must follow that CPU's earlier ones in time;
 * one that does not (never expected) is held like a lone record.  -ENOMEM,
 * -EINVAL for a CPU out of range.
 */
int reorder__add_ops(struct reorder *ro, unsigned cpu, const struct vpr_sock_op *ops, size_t n);
/* Any record of at most sizeof(union vpr_any) bytes, in any order.  -ENOMEM, -EINVAL. */
int reorder__add(struct reorder *ro, const void *rec);
/*
 * A VPR_PAYLOAD (h.size bytes), or a VPR_PAYLOAD_HASH, in any order.  It is handed out right
 * behind the VPR_SOCK_OP it names (same ts_ns, tid, cookie, dir, seq_end),
 * or in time order when that operation never came.  Payloads have a queue
 * of their own, allocated when the first one comes: the others' records
 * stay small.  -ENOMEM, -EINVAL.
 */
int reorder__add_payload(struct reorder *ro, const struct vpr_payload *p);
/* Hands out every held record stamped at or before upto, earliest first. */
int reorder__emit(struct reorder *ro, uint64_t upto, reorder_emit_fn fn, void *ctx);
size_t reorder__held(const struct reorder *ro);
/* Bytes of queue buffers reserved now: grows with a backlog, shrinks after it. */
size_t reorder__reserved_bytes(const struct reorder *ro);

#endif
