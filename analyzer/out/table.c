// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>

#include "output.h"
#include "sink.h"

void vp_out_table_header(struct vp_out_ctx *o)
{
	const char *sep = o->csv ? "," : "\t";

	fprintf(o->f,
		"id%sentry%sclient%sstart_s%send_s%sduration_ns%shosts%scalls%scomplete%sexact%s\n",
		sep, sep, sep, sep, sep, sep, sep, sep, sep,
		o->witnesses ? o->csv ? ",label" : "\tlabel" : "");
}

/* The entry call's witness; in CSV quoted (labels hold commas and quotes). */
static void label_col(struct vp_out_ctx *o, const struct vp_witness *w)
{
	char buf[VP_LABEL_TEXT + VP_WIT_VERB_MAX + VP_WIT_ERR_MAX + 32];

	vp_witness_label(w, VP_LABEL_TEXT, buf, sizeof(buf));
	if (!o->csv) {
		fprintf(o->f, "\t%s", buf);
		return;
	}
	fputs(",\"", o->f);
	for (const char *p = buf; *p; p++) {
		if (*p == '"')
			fputc('"', o->f);
		fputc(*p, o->f);
	}
	fputc('"', o->f);
}

void vp_out_table_row(struct vp_out_ctx *o, const struct vp_request *r)
{
	const char *sep = o->csv ? "," : "\t";
	char entry[VP_ADDRSTRLEN], client[VP_ADDRSTRLEN];
	const struct vp_call *c = r->root;

	vp_endpoint__format(&c->server.addr, entry, sizeof(entry));
	vp_endpoint__format(&c->client.addr, client, sizeof(client));
	fprintf(o->f, "%" PRIu64 "%s%s%s%s%s%.9f%s%.9f%s%" PRId64 "%s%zu%s%zu%s%s%s%s", r->id, sep,
		entry, sep, client, sep, (double)(c->start_ns - o->t0) / 1e9, sep,
		(double)(c->end_ns - o->t0) / 1e9, sep, c->end_ns - c->start_ns, sep, r->nhosts,
		sep, r->ncalls, sep, r->complete ? "yes" : "no", sep, r->exact ? "yes" : "no");
	if (o->witnesses)
		label_col(o, &c->wit);
	fputc('\n', o->f);
}

static int table_open(struct vp_sink *s, char *err, size_t errlen)
{
	vp_out_table_header(s->out);
	return 0;
}

static void table_request(struct vp_sink *s, const struct vp_request *r)
{
	vp_out_table_row(s->out, r);
}

const struct vp_sink_ops vp_sink_table = {
	.name = "table", .open = table_open, .request = table_request};
