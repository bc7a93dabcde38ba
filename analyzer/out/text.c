// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text tree of `paths` and `show`: one block per request, one line per
 * call.  Numbers come first in fixed columns (start after the request's
 * start, duration, a waterfall bar); names, which can be long, come after,
 * each column as wide as its longest entry in this request, so the block
 * stays aligned whatever the host, process or thread names.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "loglines.h"
#include "output.h"
#include "sink.h"

#define BAR 24
#define TREE_MAX 192 /* deeper trees are cut in the drawing, not in the data */

struct widths {
	int name, addr;
};

/* A waterfall bar: where the call sits inside the request. */
static void bar(char *out, int64_t t0, int64_t total, int64_t from, int64_t to)
{
	double fa, fb;
	int a, b;

	if (total <= 0)
		total = 1;
	/* In double: a call far outside its request (damaged times) must not overflow. */
	fa = (double)(from - t0) * BAR / (double)total;
	fb = (double)(to - t0) * BAR / (double)total;
	a = fa < 0 ? 0 : fa >= BAR ? BAR - 1 : (int)fa;
	b = fb < 0 ? 0 : fb > BAR ? BAR : (int)fb;
	if (b <= a)
		b = a + 1;
	for (int i = 0; i < BAR; i++)
		out[i] = i >= a && i < b ? '=' : ' ';
	out[BAR] = 0;
}

/* The server of a call as the tree names it. */
static char *server_name(const struct vp_out_ctx *o, const struct vp_call *c, char *buf, size_t len)
{
	if (!c->server.recorded)
		snprintf(buf, len, "(not recorded)");
	else
		vp_call_end__name(o->a, &c->server, VP_NAME_THREAD, buf, len);
	return buf;
}

static void measure(const struct vp_out_ctx *o, const struct vp_call *c, int indent,
		    struct widths *w)
{
	char name[160], ad[VP_ADDRSTRLEN];
	int n = indent + (int)strlen(server_name(o, c, name, sizeof(name)));
	int d = (int)strlen(vp_endpoint__format(&c->server.addr, ad, sizeof(ad)));

	if (n > w->name)
		w->name = n;
	if (d > w->addr)
		w->addr = d;
	for (size_t i = 0; i < c->ncalls; i++)
		measure(o, c->calls[i], indent + 3, w);
}

/* What the line says of the call besides numbers and names: outcome, setup, evidence. */
static const char *marks(const struct vp_call *c, char *buf, size_t len)
{
	char d[32];
	size_t n = 0;

	buf[0] = 0;
	if (c->setup_ns > 0)
		n += (size_t)snprintf(buf + n, len - n, "  [setup %s]",
				      vp_fmt_duration(c->setup_ns, d, sizeof(d)));
	if (vp_call__outcome(c) != VP_OUTCOME_COMPLETE && n < len)
		n += (size_t)snprintf(buf + n, len - n, "  [%s]",
				      vp_outcome_name(vp_call__outcome(c)));
	if (c->link.basis == VP_BASIS_QUEUED && n < len) /* an asynchronous hop (queues.h) */
		n += (size_t)snprintf(buf + n, len - n, "  [queued %s]",
				      vp_fmt_duration(c->queue_ns, d, sizeof(d)));
	if (c->may_hand_off && n < len) /* its work may go on elsewhere, unlinked (handoff.h) */
		n += (size_t)snprintf(buf + n, len - n, "  [may hand off]");
	if (c->link.exact && c->link.basis == VP_BASIS_PROPAGATED_ID && n < len)
		snprintf(buf + n, len - n, "  [by id]");
	if (c->link.exact && c->link.basis == VP_BASIS_FORWARDED && n < len)
		snprintf(buf + n, len - n, "  [forwarded]");
	if (!c->link.exact && n < len) {
		if (c->link.candidates > 1 && c->link.candidates < UINT16_MAX)
			snprintf(buf + n, len - n, "  [inferred: %s, %u candidates]",
				 vp_basis_name(c->link.basis), c->link.candidates);
		else
			snprintf(buf + n, len - n, "  [inferred: %s]",
				 vp_basis_name(c->link.basis));
	}
	return buf;
}

/* A log line's text, every byte that is not printable as \xNN: nothing in it can move the terminal. */
static void put_text(FILE *f, const char *t)
{
	for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
		if (*p >= 0x20 && *p < 0x7f)
			fputc(*p, f);
		else
			fprintf(f, "\\x%02x", *p);
	}
}

/*
 * The lines from l on that its server wrote for a call before `before`,
 * at the depth of its calls, between them in time order: when (after the
 * request's start), which thread, the text.  "~" marks a line given to the
 * request among candidates (inferred).  Returns the first not printed.
 */
static const struct vp_logline *text_logs(struct vp_out_ctx *o, const struct vp_logline *l,
					  int64_t before, int64_t t0, const char *prefix)
{
	char off[32];

	for (; o->logs && l && l->at_ns < before; l = l->next) {
		off[0] = l->at_ns >= t0 ? '+' : '-';
		vp_fmt_duration(l->at_ns >= t0 ? l->at_ns - t0 : t0 - l->at_ns, off + 1,
				sizeof(off) - 1);
		fprintf(o->f, "  %10s %10s  %*s  %s%s tid %u: ", off, "log", BAR + 2, "", prefix,
			l->link.exact ? "  >" : "  ~", l->tid);
		put_text(o->f, l->text);
		fputs(l->cut ? " [cut]\n" : "\n", o->f);
	}
	return l;
}

/* prefix: the tree drawing of the ancestors ("|  " where more siblings follow). */
static void text_call(struct vp_out_ctx *o, const struct vp_call *c, int64_t t0, int64_t total,
		      const struct widths *w, const char *prefix, const char *branch)
{
	char off[32], dur[32], name[160], ad[VP_ADDRSTRLEN], b[BAR + 1], rq[32], rp[32];
	char sizes[72], tree[TREE_MAX + 160], next[TREE_MAX], mk[128], wl[VP_LABEL_TEXT + 160];
	const struct vp_logline *lines = c->logs;

	bar(b, t0, total, c->start_ns, c->end_ns);
	/* Negative only within one machine: a receive stamped before its send returned. */
	off[0] = c->start_ns >= t0 ? '+' : '-';
	vp_fmt_duration(c->start_ns >= t0 ? c->start_ns - t0 : t0 - c->start_ns, off + 1,
			sizeof(off) - 1);
	vp_fmt_duration(c->end_ns - c->start_ns, dur, sizeof(dur));
	snprintf(tree, sizeof(tree), "%s%s%s", prefix, branch,
		 server_name(o, c, name, sizeof(name)));
	snprintf(sizes, sizeof(sizes), "%s/%s", vp_fmt_bytes(c->request_bytes, rq, sizeof(rq)),
		 vp_fmt_bytes(c->reply_bytes, rp, sizeof(rp)));
	/* What the call was, when its bytes were captured: "  GET /cart 200". */
	wl[0] = '\0';
	if (c->wit.proto) {
		wl[0] = wl[1] = ' ';
		vp_witness_label(&c->wit, VP_LABEL_TEXT, wl + 2, sizeof(wl) - 2);
	}
	fprintf(o->f, "  %10s %10s  [%s]  %-*s  %-*s  %s%s%s", off, dur, b, w->name, tree, w->addr,
		vp_endpoint__format(&c->server.addr, ad, sizeof(ad)), sizes, wl,
		marks(c, mk, sizeof(mk)));
	fputc('\n', o->f);
	snprintf(next, sizeof(next), "%s%s", prefix,
		 !branch[0]	    ? ""
		 : branch[0] == '|' ? "|  "
				    : "   ");
	for (size_t i = 0; i < c->ncalls; i++) {
		bool exact = c->calls[i]->link.exact;
		const char *br = i + 1 < c->ncalls ? exact ? "|- " : "|~ " : exact ? "`- " : "`~ ";

		lines = text_logs(o, lines, c->calls[i]->start_ns, t0, next);
		text_call(o, c->calls[i], t0, total, w, next, br);
	}
	text_logs(o, lines, INT64_MAX, t0, next);
}

/* Some call below c (c itself not included) is one that `is` says. */
static bool any_below(const struct vp_call *c, bool (*is)(const struct vp_call *))
{
	for (size_t i = 0; i < c->ncalls; i++)
		if (is(c->calls[i]) || any_below(c->calls[i], is))
			return true;
	return false;
}

static bool link_inferred(const struct vp_call *c)
{
	return !c->link.exact;
}

static bool may_hand_off(const struct vp_call *c)
{
	return c->may_hand_off;
}

/* Why a request is not exact, in the words of its first line. */
static const char *inferred_why(const struct vp_request *r)
{
	if (r->exact)
		return "";
	if (any_below(r->root, link_inferred))
		return "  INFERRED (links marked ~ were chosen among candidates)";
	if (!r->root->link.exact)
		return "  INFERRED (a root, though requests were open that might have made it)";
	if (!r->complete)
		return "  INFERRED (what decided its links may be in the events lost)";
	if (may_hand_off(r->root) || any_below(r->root, may_hand_off))
		return "  INFERRED (a call's server may have handed its work to another client)";
	return "  INFERRED (a call chosen for another request, or not seen, could have been its "
	       "own)";
}

void vp_out_text(struct vp_out_ctx *o, const struct vp_request *r)
{
	const struct vp_call *c = r->root;
	struct widths w = {(int)strlen("server"), (int)strlen("address")};
	char cli[160], ad[VP_ADDRSTRLEN], dur[32];
	int64_t total = c->end_ns - c->start_ns;

	vp_fmt_duration(total, dur, sizeof(dur));
	fprintf(o->f, "request %" PRIu64 "  %s  at +%.6fs  %zu calls on %zu hosts%s%s\n", r->id,
		dur, (double)(c->start_ns - o->t0) / 1e9, r->ncalls, r->nhosts,
		r->complete ? "" : "  INCOMPLETE (events lost or recording cut)", inferred_why(r));
	vp_endpoint__format(&c->client.addr, ad, sizeof(ad));
	if (c->client.recorded)
		fprintf(o->f, "  from %s  %s\n",
			vp_call_end__name(o->a, &c->client, VP_NAME_THREAD, cli, sizeof(cli)), ad);
	else
		fprintf(o->f, "  from %s (not recorded)\n", ad);
	measure(o, c, 0, &w);
	fprintf(o->f, "  %10s %10s  %-*s  %-*s  %-*s  %s\n", "start", "duration", BAR + 2,
		"waterfall", w.name, "server", w.addr, "address", "request/reply");
	text_call(o, c, c->start_ns, total, &w, "", "");
	fputc('\n', o->f);
}

static void text_request(struct vp_sink *s, const struct vp_request *r)
{
	vp_out_text(s->out, r);
}

const struct vp_sink_ops vp_sink_text = {.name = "text", .request = text_request};
