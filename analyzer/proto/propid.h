/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Propagated request ids: the id a message carries for its request's
 * trace, read from the message's captured first bytes (vpath-record
 * --capture).  HTTP/1.x request headers (W3C traceparent, B3 single and
 * multi, uber-trace-id, X-Amzn-Trace-Id, X-Request-Id; names in any case)
 * and sqlcommenter's traceparent in a PostgreSQL query or Parse, or a
 * MySQL COM_QUERY or COM_STMT_PREPARE.  For the
 * trace headers the id is the trace id, the part that stays the same
 * across hops.  A value is read only when its header line (or its quoted
 * SQL value) ends inside the captured bytes: a cut value could equal
 * another id's start, and an id is evidence, never a guess.
 */
#ifndef VPATH_PROPID_H
#define VPATH_PROPID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VP_PROPID_MAX 64 /* longer values are not used */

enum vp_propid_kind {
	VP_PROPID_NONE = 0,
	VP_PROPID_TRACE,      /* a trace id: traceparent, B3, uber-trace-id (lowercase hex) */
	VP_PROPID_AMZN,	      /* X-Amzn-Trace-Id's Root */
	VP_PROPID_REQUEST_ID, /* X-Request-Id as sent */
};

struct vp_propid {
	uint8_t kind; /* enum vp_propid_kind */
	uint8_t len;
	char id[VP_PROPID_MAX + 1]; /* printable, NUL-terminated */
};

/*
 * The id of a message from its first len bytes: true and *out filled, or
 * false and *out zeroed.  With several, a trace id comes first, then
 * X-Amzn-Trace-Id, then X-Request-Id.
 */
bool vp_propid__read(const uint8_t *p, size_t len, struct vp_propid *out);
/*
 * Whether the first len of a message's total bytes say for sure which id
 * it carries, if any: all of it was captured, or its HTTP/1.x header block
 * ends inside the capture.  A request cut before then may carry an id that
 * was not read.
 */
bool vp_propid__decided(const uint8_t *p, size_t len, uint64_t total);
/*
 * One header field of a message whose fields come decoded (HTTP/2, HPACK):
 * *best keeps the id to use of those seen so far, as vp_propid__read()
 * chooses over a header block; *rank is -1 before the first field.
 */
void vp_propid__field(const uint8_t *name, size_t nlen, const uint8_t *v, size_t vlen,
		      struct vp_propid *best, int *rank);
/* The same id (kind and value). */
bool vp_propid__equal(const struct vp_propid *a, const struct vp_propid *b);

#endif
