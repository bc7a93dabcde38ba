/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A read that delivered several queue messages at once (Redis pub/sub: a
 * subscriber that fell behind reads two or three pushes in one operation,
 * then works through them with no read between; vp_witness.nqmsgs).  Which
 * message each call of its work was for is said by the call's content: a
 * named field (proto/fields.h) that exactly one of the messages holds and
 * no other does, with the same value, in the call's witness text (an HTTP
 * call's path and query, a SQL statement), whole in the capture.  The
 * job's id a worker puts into its calls (GET /w?id=17) is such a field of
 * its message ({"id": 17, ...}).
 *
 * A call is decided (exact) when it carries such fields of one message
 * and none of another, the read's fields were all kept, and the decided
 * calls come in the messages' order (a consumer works through a read in
 * order: one out of order says the fields do not follow the jobs, so none
 * is sure).  The others are placed by order, inferred: with the message of
 * the decided call before them (its job goes on: the worker's own calls
 * after its back-end calls), or the read's first before any.  A read none
 * of whose calls is decided places nothing: order alone does not say where
 * one message's work ends and the next one's begins.
 *
 * A read longer than the capture (VP_WIT_MORE: its first messages whole,
 * more unseen) decides nothing exactly, since an unseen message may hold
 * the same fields: its calls are placed by content, inferred, and those
 * the seen messages do not place go with a message a PUBLISH's fields
 * name (queues.c, unseen_push: among the messages published and held,
 * VP_QUEUE_HOLD_NS, the one holding a field of the call that no other
 * holds), inferred, or stay where they were.
 */
#ifndef VPATH_QREAD_H
#define VPATH_QREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "request.h"

/* Most fields a call's text is read for. */
#define VP_QREAD_FIELDS_MAX 32

/*
 * Call c's fields (proto/fields.h), into f[VP_QREAD_FIELDS_MAX]: how many;
 * SIZE_MAX when its text cannot tell (none, cut by the capture, too many).
 */
size_t vp_qread__fields(const struct vp_call *c, uint64_t *f);
/* Whether publish w's message (a PUBLISH's witness: its fields) holds field f. */
bool vp_qread__holds(const struct vp_witness *w, uint64_t f);
/*
 * The calls (in time order) of read w's work: owner[k] the message index
 * (in w->qmsgs) call k is placed with (-1: none), sure[k] whether its
 * content decided it.  Returns false, and places nothing, when no call is
 * decided.
 */
bool vp_qread__place(const struct vp_witness *w, const struct vp_call *const *calls, size_t n,
		     int *owner, bool *sure);

#endif
