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
	int64_t t0;	/* times are shown relative to this (common timeline) */
	bool csv;	/* table: comma-separated instead of tab-separated */
	bool witnesses; /* table: a label column (the recordings may hold payload, --capture) */
	bool logs;	/* text: each call's log lines under it (--logs) */
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
/*
 * Unix time of the common timeline's zero: realtime - monotonic of every
 * recorded host moved onto the common timeline, the median of them, so
 * that one host with a wrong wall clock moves nothing and calls keep the
 * order the clock stage gave them (a child never starts before its parent).
 * Final at the end of the analysis; a request's times agree with the value
 * at the time it is handed out.
 */
int64_t vp_out_unix_epoch(const struct vp_analysis *a);
/*
 * When a recorded server started on the call, never before the client
 * sent it: a server's first receive can be stamped while it waited for
 * the bytes (a blocking read), before the client's send.
 */
static inline int64_t vp_call__server_start(const struct vp_call *c)
{
	return c->client.recorded && c->start_ns > c->srv_req_first ? c->start_ns
								    : c->srv_req_first;
}

/*
 * When a recorded server finished with the call: its last reply byte, or
 * its last request byte when it never replied (one-way, incomplete); never
 * after a recorded client had the whole reply: a send is stamped when it
 * returns, and on one machine the receiver can be woken with the bytes and
 * return first (by 0.1 ms on a busy host), so the server's time would
 * outlast the call's and self times add up to more than the request.
 */
static inline int64_t vp_call__server_end(const struct vp_call *c)
{
	int64_t end = c->srv_rep_last > c->srv_req_last ? c->srv_rep_last : c->srv_req_last;

	if (c->client.recorded && c->complete && !c->one_way && end > c->end_ns)
		end = c->end_ns;
	return end > vp_call__server_start(c) ? end : vp_call__server_start(c);
}

/* How much of a witness's text (URL, SQL) the tree, table and names show. */
#define VP_LABEL_TEXT 48

/* "1.234ms": a duration in the unit that reads best. */
char *vp_fmt_duration(int64_t ns, char *buf, size_t len);
/* "620B", "195.4kB": a size, exact below 10000 bytes. */
char *vp_fmt_bytes(uint64_t n, char *buf, size_t len);

/* Patterns: requests with the same shape of calls, aggregated (Project 5 style). */
struct vp_patterns;
struct vp_patterns *vp_patterns__new(void);
int vp_patterns__add(struct vp_patterns *p, const struct vp_analysis *a,
		     const struct vp_request *r);
void vp_patterns__print(struct vp_patterns *p, struct vp_out_ctx *o);
/* DOT of the pattern ranked `rank` (1 = most total time); -ENOENT when absent. */
int vp_patterns__dot(struct vp_patterns *p, struct vp_out_ctx *o, size_t rank);
void vp_patterns__free(struct vp_patterns *p);

/*
 * Reading patterns back (report, SQLite).  A pattern's index is stable from
 * the request that made it on; its rank (1 = most total time) is known at
 * the end only.
 */
struct vp_pattern_info {
	uint64_t count;
	double total_ns;
	uint64_t example_id;
	size_t nnodes;
};

struct vp_pattern_node {
	const char *name; /* service, VP_NAME_SERVICE */
	uint32_t depth;	  /* preorder; the entry is 0 */
	uint64_t n;
	double start_mean_ns; /* after its parent's start */
	double mean_ns, p50_ns, p99_ns;
};

size_t vp_patterns__count(const struct vp_patterns *p);
/* The index of the pattern the last vp_patterns__add counted its request in. */
size_t vp_patterns__last(const struct vp_patterns *p);
/* Indices by rank: v[0] is rank 1.  count entries; free the array. */
size_t *vp_patterns__ranking(const struct vp_patterns *p);
void vp_patterns__info(const struct vp_patterns *p, size_t index, struct vp_pattern_info *out);
void vp_patterns__node(const struct vp_patterns *p, size_t index, size_t k,
		       struct vp_pattern_node *out);

#endif
