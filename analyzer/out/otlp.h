/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * OpenTelemetry export (docs/otlp.md): each request becomes one trace in
 * OTLP/JSON, a client span and a server span per call, written to a file
 * as one ExportTraceServiceRequest or posted to an OTLP/HTTP receiver in
 * batches (otlp_post.c).
 */
#ifndef VPATH_OTLP_H
#define VPATH_OTLP_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "analysis.h"
#include "request.h"

/*
 * The request's spans as ResourceSpans objects (one per process that has a
 * span in it), appended to the array `into`.  Deterministic: the same
 * recording gives the same trace and span ids.
 */
void vp_otlp_request(const struct vp_analysis *a, const struct vp_request *r, cJSON *into);

/* The 16-byte trace id of a request as 32 lowercase hex digits (buf >= 33). */
char *vp_otlp_trace_id(const struct vp_analysis *a, const struct vp_request *r, char *buf);

/* A stream of ResourceSpans: to a file (one document) or posted in batches. */
struct vp_otlp_sink;
/* Writes to f (NULL: nothing yet) or, when url is set, posts there. */
struct vp_otlp_sink *vp_otlp_sink__new(FILE *f, const char *url, char *err, size_t errlen);
void vp_otlp_sink__add(struct vp_otlp_sink *s, const struct vp_analysis *a,
		       const struct vp_request *r);
/* Write the end or post what is left; 0, or -1 after printing one error line. */
int vp_otlp_sink__finish(struct vp_otlp_sink *s);
void vp_otlp_sink__free(struct vp_otlp_sink *s);

/* Posting (otlp_post.c). */
struct vp_otlp_post;
struct vp_otlp_post *vp_otlp_post__new(const char *url, char *err, size_t errlen);
/*
 * POST one ExportTraceServiceRequest body; retries what may pass later
 * (unreachable, 429, 502, 503, 504).  0, or -1 with a one-line reason in err.
 */
int vp_otlp_post__send(struct vp_otlp_post *p, const char *body, size_t len, char *err,
		       size_t errlen);
const char *vp_otlp_post__url(const struct vp_otlp_post *p);
void vp_otlp_post__free(struct vp_otlp_post *p);

#endif
