// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Baseline output stage: the convolution algorithm's graphs as text and JSON (convolution.h). */
#include <inttypes.h>
#include <stdint.h>

#include "baseline/convolution.h"
#include "output.h"

void vp_convolution__print(const struct vp_convolution *c, const struct vp_btrace *t,
			   const struct vp_conv_opts *o, FILE *f)
{
	char q[32], lag[32];

	vp_fmt_duration(o->quantum_ns, q, sizeof(q));
	vp_fmt_duration(o->max_lag_ns, lag, sizeof(lag));
	fprintf(f,
		"convolution (Project 5 §5.2): %zu messages, quantum %s, delays 0..%s, spikes at "
		"%.0f sd; "
		"statistical, never exact%s\n",
		t->nmsgs, q, lag, o->spike_sd, c->truncated ? " (stopped at --max-edges)" : "");
	for (size_t i = 0, root = SIZE_MAX; i < c->nedges; i++) {
		const struct vp_cedge *e = &c->edges[i];
		char d[32];

		if (e->parent < 0 && e->from != root && (root = e->from) == e->from)
			fprintf(f, "\nfrom %s\n  %-*s %9s %9s\n", t->nodes[e->from].name, 40,
				"edge", "delay", "messages");
		vp_fmt_duration(e->delay_ns, d, sizeof(d));
		{
			char label[2 * VP_BNODE_LEN + 8];
			int indent = (int)e->depth * 2;

			snprintf(label, sizeof(label), "%s -> %s", t->nodes[e->from].name,
				 t->nodes[e->to].name);
			fprintf(f, "  %*s%-*s %9s %9" PRIu64 "\n", indent, "", 40 - indent, label,
				e->parent < 0 ? "-" : d, e->count);
		}
	}
}

void vp_convolution__print_json(const struct vp_convolution *c, const struct vp_btrace *t,
				const struct vp_conv_opts *o, FILE *f)
{
	fprintf(f,
		"{\"version\":2,\"method\":\"convolution\",\"quantum_ns\":%" PRId64
		",\"max_lag_ns\":%" PRId64 ",\"truncated\":%s,\"nodes\":[",
		o->quantum_ns, o->max_lag_ns, c->truncated ? "true" : "false");
	for (size_t i = 0; i < t->nnodes; i++) {
		fputs(i ? "," : "", f);
		fputc('"', f);
		for (const char *s = t->nodes[i].name; *s; s++)
			if (*s == '"' || *s == '\\')
				fprintf(f, "\\%c", *s);
			else if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		fputc('"', f);
	}
	fputs("],\"edges\":[", f);
	for (size_t i = 0; i < c->nedges; i++) {
		const struct vp_cedge *e = &c->edges[i];

		fprintf(f,
			"%s{\"from\":%u,\"to\":%u,\"parent\":%d,\"depth\":%u,\"delay_ns\":%" PRId64
			",\"count\":%" PRIu64 "}",
			i ? "," : "", e->from, e->to, e->parent, e->depth, e->delay_ns, e->count);
	}
	fputs("]}\n", f);
}
