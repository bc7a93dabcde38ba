// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The outputs' table and the calls through it (sink.h). */
#include <stdlib.h>

#include "sink.h"

static const struct vp_sink_ops *const sinks[VP_SINK_MAX] = {
	[VP_SINK_TEXT] = &vp_sink_text,
	[VP_SINK_JSON] = &vp_sink_json,
	[VP_SINK_TABLE] = &vp_sink_table,
	[VP_SINK_PATTERNS] = &vp_sink_patterns,
	[VP_SINK_DOT] = &vp_sink_dot,
	[VP_SINK_DOT_PATTERN] = &vp_sink_dot_pattern,
	[VP_SINK_OTLP] = &vp_sink_otlp,
	[VP_SINK_SQLITE] = &vp_sink_sqlite,
	[VP_SINK_REPORT] = &vp_sink_report,
	[VP_SINK_NESTING] = &vp_sink_nesting,
	[VP_SINK_CONVOLUTION] = &vp_sink_convolution,
};

const struct vp_sink_ops *vp_sink_ops_of(enum vp_sink_kind kind)
{
	return (unsigned)kind < VP_SINK_MAX ? sinks[kind] : NULL;
}

struct vp_sink *vp_sink__open(enum vp_sink_kind kind, struct vp_out_ctx *out,
			      const struct vp_sink_opts *opts, char *err, size_t errlen)
{
	const struct vp_sink_ops *ops = vp_sink_ops_of(kind);
	struct vp_sink *s;

	if (!ops) {
		snprintf(err, errlen, "no output %d", (int)kind);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->ops = ops;
	s->out = out;
	s->opts = opts;
	if (ops->open && ops->open(s, err, errlen)) {
		vp_sink__free(s);
		return NULL;
	}
	return s;
}

void vp_sink__request(struct vp_sink *s, const struct vp_request *r)
{
	s->ops->request(s, r);
}

int vp_sink__finish(struct vp_sink *s, bool complete)
{
	return s->ops->finish ? s->ops->finish(s, complete) : 0;
}

void vp_sink__free(struct vp_sink *s)
{
	if (!s)
		return;
	if (s->ops->free)
		s->ops->free(s);
	free(s);
}
