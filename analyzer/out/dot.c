// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>

#include "output.h"
#include "sink.h"

static void dot_call(struct vp_out_ctx *o, const struct vp_call *c, const struct vp_call *parent,
		     size_t *next, size_t parent_id)
{
	size_t id = (*next)++;
	char label[128], dur[32], off[32];

	vp_call_end__name(o->a, &c->server, VP_NAME_THREAD, label, sizeof(label));
	vp_fmt_duration(c->end_ns - c->start_ns, dur, sizeof(dur));
	fprintf(o->f, "  n%zu [label=\"%s\\n%s\"%s];\n", id, label, dur,
		c->complete ? "" : ", style=dashed");
	if (parent) {
		vp_fmt_duration(c->start_ns - parent->start_ns, off, sizeof(off));
		fprintf(o->f, "  n%zu -> n%zu [label=\"+%s\"];\n", parent_id, id, off);
	}
	for (size_t i = 0; i < c->ncalls; i++)
		dot_call(o, c->calls[i], c, next, id);
}

void vp_out_dot_request(struct vp_out_ctx *o, const struct vp_request *r)
{
	char client[128];
	size_t next = 1;

	vp_call_end__name(o->a, &r->root->client, VP_NAME_THREAD, client, sizeof(client));
	fprintf(o->f, "digraph request%" PRIu64 " {\n  rankdir=TB;\n  node [shape=box];\n", r->id);
	fprintf(o->f, "  n0 [label=\"%s\", shape=ellipse];\n", client);
	fprintf(o->f, "  n0 -> n1;\n");
	dot_call(o, r->root, NULL, &next, 0);
	fprintf(o->f, "}\n");
}

static void dot_request(struct vp_sink *s, const struct vp_request *r)
{
	vp_out_dot_request(s->out, r);
}

const struct vp_sink_ops vp_sink_dot = {.name = "dot", .request = dot_request};
