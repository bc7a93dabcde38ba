/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every output behind one interface, as proto/proto.h does for protocols:
 * a command picks its output once (vp_sink_ops_of), opens it when the
 * recordings are read, hands it each request as the analysis finds it, and
 * finishes it at the end.  What an output writes and how (a tree, a row, a
 * database, a page, a baseline) stays in its own file; the ops are at the
 * end of that file.
 */
#ifndef VPATH_SINK_H
#define VPATH_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "baseline/convolution.h"
#include "output.h"

enum vp_sink_kind {
	VP_SINK_TEXT,	     /* paths, show: a waterfall tree per request (text.c) */
	VP_SINK_JSON,	     /* paths --json: one document (json.c, docs/json.md) */
	VP_SINK_TABLE,	     /* table: a header, then a row per request (table.c) */
	VP_SINK_PATTERNS,    /* patterns: requests grouped by shape, at the end (patterns.c) */
	VP_SINK_DOT,	     /* dot --request: a request as a graph (dot.c) */
	VP_SINK_DOT_PATTERN, /* dot --pattern: a pattern as a graph (patterns.c) */
	VP_SINK_OTLP,	     /* otlp: OTLP/JSON to a file or a receiver (export.c) */
	VP_SINK_SQLITE,	     /* sqlite: a database (export.c) */
	VP_SINK_REPORT,	     /* report: one HTML page (export.c) */
	VP_SINK_NESTING,     /* baseline --nesting (baseline.c) */
	VP_SINK_CONVOLUTION, /* baseline --convolution (baseline.c) */
	VP_SINK_MAX,
};

/* What the command line asked of the output; each output reads its own fields. */
struct vp_sink_opts {
	bool json;		  /* nesting, convolution: JSON instead of text */
	uint64_t pattern;	  /* dot-pattern: the rank (1 = most total time) */
	const char *path;	  /* otlp, sqlite, report: -o FILE (NULL: standard output) */
	const char *endpoint;	  /* otlp: post to this receiver instead */
	size_t slowest;		  /* report: waterfalls of the N slowest (0: its default) */
	struct vp_conv_opts conv; /* convolution */
};

struct vp_sink {
	const struct vp_sink_ops *ops;
	struct vp_out_ctx *out;		 /* the analysis, the stream, the timeline's origin */
	const struct vp_sink_opts *opts; /* the command's, alive until the sink is freed */
	void *state;			 /* the output's own */
};

struct vp_sink_ops {
	const char *name;
	/*
	 * Once the recordings are read (out->a and out->witnesses are set),
	 * before the first request: set up state, write what comes first.
	 * 0, or -1 with a one-line reason in err.  NULL: nothing to do.
	 */
	int (*open)(struct vp_sink *s, char *err, size_t errlen);
	/* One request, as the analysis hands it out (or the kept slowest, slowest first). */
	void (*request)(struct vp_sink *s, const struct vp_request *r);
	/*
	 * After the last request; complete is false when the analysis failed
	 * half way.  0, or -1 after printing one error line.  NULL: nothing to do.
	 */
	int (*finish)(struct vp_sink *s, bool complete);
	/* Frees state (also when open failed half way).  NULL: there is none. */
	void (*free)(struct vp_sink *s);
};

extern const struct vp_sink_ops vp_sink_text, vp_sink_json, vp_sink_table, vp_sink_patterns,
	vp_sink_dot, vp_sink_dot_pattern, vp_sink_otlp, vp_sink_sqlite, vp_sink_report,
	vp_sink_nesting, vp_sink_convolution;

/* The ops of an output; NULL for an unknown kind. */
const struct vp_sink_ops *vp_sink_ops_of(enum vp_sink_kind kind);

/* NULL with a one-line reason in err. */
struct vp_sink *vp_sink__open(enum vp_sink_kind kind, struct vp_out_ctx *out,
			      const struct vp_sink_opts *opts, char *err, size_t errlen);
void vp_sink__request(struct vp_sink *s, const struct vp_request *r);
int vp_sink__finish(struct vp_sink *s, bool complete);
void vp_sink__free(struct vp_sink *s);

#endif
