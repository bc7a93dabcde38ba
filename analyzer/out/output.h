/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 7, outputs.  Each writer gets requests one at a time as the
 * analysis finds them (streaming), plus the analysis for host and process
 * names; aggregate outputs (patterns) print at the end.
 */
#ifndef VPATH_OUTPUT_H
#define VPATH_OUTPUT_H

#include <stdio.h>

#include "analysis.h"
#include "request.h"

struct vp_out_ctx {
	FILE *f;
	const struct vp_analysis *a;
	int64_t t0; /* times are shown relative to this (common timeline) */
	bool csv;   /* table: comma-separated instead of tab-separated */
	uint64_t count; /* requests written so far */
};

/* Text: a waterfall tree per request. */
void vp_out_text(struct vp_out_ctx *o, const struct vp_request *r);
/* Table: one row per request; header first. */
void vp_out_table_header(struct vp_out_ctx *o);
void vp_out_table_row(struct vp_out_ctx *o, const struct vp_request *r);
/* JSON (docs/json.md): begin, one request at a time, end (hosts, processes). */
void vp_out_json_begin(struct vp_out_ctx *o);
void vp_out_json_request(struct vp_out_ctx *o, const struct vp_request *r);
void vp_out_json_end(struct vp_out_ctx *o);
/* DOT: one request as a graph. */
void vp_out_dot_request(struct vp_out_ctx *o, const struct vp_request *r);

enum vp_name_style {
	VP_NAME_THREAD,	 /* "web-1 nginx(4300)/worker-2(4312)": who did it, to the thread */
	VP_NAME_SERVICE, /* "web-1 nginx :80": a server as patterns group it */
	VP_NAME_PROCESS, /* "web-1 nginx": a client as patterns count it ("external") */
};

/* The name of a recorded end in this style; an external end is its address. */
char *vp_call_end__name(const struct vp_analysis *a, const struct vp_call_end *e,
			enum vp_name_style style, char *buf, size_t len);
/* "1.234ms": a duration in the unit that reads best. */
char *vp_fmt_duration(int64_t ns, char *buf, size_t len);
/* "620B", "195.4kB": a size, exact below 10000 bytes. */
char *vp_fmt_bytes(uint64_t n, char *buf, size_t len);

/* Patterns: requests with the same shape of calls, aggregated (Project 5 style). */
struct vp_patterns;
struct vp_patterns *vp_patterns__new(void);
int vp_patterns__add(struct vp_patterns *p, const struct vp_analysis *a, const struct vp_request *r);
void vp_patterns__print(struct vp_patterns *p, struct vp_out_ctx *o);
/* DOT of the pattern ranked `rank` (1 = most total time); -ENOENT when absent. */
int vp_patterns__dot(struct vp_patterns *p, struct vp_out_ctx *o, size_t rank);
void vp_patterns__free(struct vp_patterns *p);

#endif
