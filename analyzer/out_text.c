// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

#define BAR 32

char *vp_fmt_duration(int64_t ns, char *buf, size_t len)
{
	int64_t a = ns < 0 ? -ns : ns;

	if (a < 1000)
		snprintf(buf, len, "%" PRId64 "ns", ns);
	else if (a < 1000000)
		snprintf(buf, len, "%.1fus", (double)ns / 1e3);
	else if (a < 1000000000)
		snprintf(buf, len, "%.3fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3fs", (double)ns / 1e9);
	return buf;
}

char *vp_call_end__label(const struct vp_analysis *a, const struct vp_call_end *e, char *buf,
			 size_t len)
{
	char ad[VP_ADDRSTRLEN];

	if (!e->recorded)
		snprintf(buf, len, "%s (not recorded)", vp_endpoint__format(&e->addr, ad, sizeof(ad)));
	else
		snprintf(buf, len, "%s %s(%u)/%u", vp_analysis__host(a, (size_t)e->host)->name,
			 e->comm[0] ? e->comm : "?", e->pid, e->tid);
	return buf;
}

/* A waterfall bar: where the call sits inside the request. */
static void bar(char *out, int64_t t0, int64_t total, int64_t from, int64_t to)
{
	int a, b;

	if (total <= 0)
		total = 1;
	a = (int)((from - t0) * BAR / total);
	b = (int)((to - t0) * BAR / total);
	if (a < 0)
		a = 0;
	if (b > BAR)
		b = BAR;
	if (b <= a)
		b = a + 1 <= BAR ? a + 1 : BAR;
	for (int i = 0; i < BAR; i++)
		out[i] = i >= a && i < b ? '=' : ' ';
	out[BAR] = 0;
}

static void text_call(struct vp_out_ctx *o, const struct vp_call *c, int64_t t0, int64_t total,
		      int depth, const char *prefix)
{
	char off[32], dur[32], srv[96], ad[VP_ADDRSTRLEN], b[BAR + 1], pre[256];
	char where[VP_ADDRSTRLEN + 8];

	bar(b, t0, total, c->start_ns, c->end_ns);
	vp_fmt_duration(c->start_ns - t0, off, sizeof(off));
	vp_fmt_duration(c->end_ns - c->start_ns, dur, sizeof(dur));
	vp_call_end__label(o->a, &c->server, srv, sizeof(srv));
	if (c->server.recorded)
		snprintf(where, sizeof(where), "at %s ", vp_endpoint__format(&c->server.addr, ad, sizeof(ad)));
	else
		where[0] = 0;
	fprintf(o->f, "  |%s| +%-9s %9s  %s%s%s  %sconn#%u %" PRIu64 "B/%" PRIu64 "B%s\n", b, off, dur,
		prefix, depth ? "`- " : "", srv, where, c->conn_index, c->request_bytes, c->reply_bytes,
		c->complete ? "" : "  [incomplete]");
	snprintf(pre, sizeof(pre), "%s%s", prefix, depth ? "   " : "");
	for (size_t i = 0; i < c->ncalls; i++)
		text_call(o, c->calls[i], t0, total, depth + 1, pre);
}

void vp_out_text(struct vp_out_ctx *o, const struct vp_request *r)
{
	const struct vp_call *c = r->root;
	char cli[96], srv[96], dur[32], start[32];
	int64_t total = c->end_ns - c->start_ns;

	vp_call_end__label(o->a, &c->client, cli, sizeof(cli));
	vp_call_end__label(o->a, &c->server, srv, sizeof(srv));
	vp_fmt_duration(total, dur, sizeof(dur));
	snprintf(start, sizeof(start), "%.6fs", (double)(c->start_ns - o->t0) / 1e9);
	fprintf(o->f, "request %" PRIu64 "  %s  at +%s  %zu calls on %zu hosts%s\n", r->id, dur, start,
		r->ncalls, r->nhosts, r->complete ? "" : "  INCOMPLETE (events lost or recording cut)");
	fprintf(o->f, "  client %s\n", cli);
	text_call(o, c, c->start_ns, total, 0, "");
	fputc('\n', o->f);
}
