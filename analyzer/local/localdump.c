// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `vpath-analyze dump` of a local file: its host and its calls, one line each. */
#include <errno.h>
#include <inttypes.h>

#include "dump.h"
#include "local.h"
#include "localdump.h"

_Static_assert(VPL_OK == 0 && VPL_TORN == 1 && VPL_CORRUPT == 2, "vp_dump_status's damage");

static void dump_msg(FILE *out, const char *name, const struct vp_msg *m)
{
	fprintf(out,
		" %s=[%" PRIu32 ",%" PRIu32 ") bytes=%" PRIu64 " ts=%" PRIu64 "..%" PRIu64
		" tid=%" PRIu32 "..%" PRIu32 " ops=%" PRIu32 " threads=%u%s",
		name, m->seq_start, m->seq_end, m->bytes, m->first_ts, m->last_ts, m->first_tid,
		m->last_tid, m->nops, m->nthreads, m->gap ? " gap" : "");
}

static void dump_call(FILE *out, const struct vp_local_call *c)
{
	/* By bit; has-a-reply (bit 9) shows as the reply itself. */
	static const char *const flags[] = {"incomplete", "unanswered", "one-way",     "tls",
					    "teardown",	  "setup",	"tainted",     "pipe-head",
					    "pipe-tail",  NULL,		"may-hand-off"};
	char l[VP_ADDRSTRLEN], r[VP_ADDRSTRLEN];

	fprintf(out,
		"call    id=%" PRIu64 " %s cookie=%#" PRIx64 " netns=%" PRIu32
		" %s -> %s conn=%" PRIu32 " pid=%" PRIu32 " comm=\"%s\" proc=\"%s\"",
		c->id, c->side ? "server" : "client", c->cookie, c->netns,
		c->have_tuple ? vp_endpoint__format(&c->local, l, sizeof(l)) : "?",
		c->have_tuple ? vp_endpoint__format(&c->remote, r, sizeof(r)) : "?", c->conn_index,
		c->pid, c->comm, c->proc);
	dump_msg(out, "req", &c->req);
	if (c->flags & VPL_HAS_REP)
		dump_msg(out, "rep", &c->rep);
	for (unsigned i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (flags[i] && c->flags & (1u << i))
			fprintf(out, " %s", flags[i]);
	if (c->setup_ns)
		fprintf(out, " setup=%" PRIu64 "ns", c->setup_ns);
	if (c->side == 0)
		fprintf(out, " parent=%" PRIu64 " link=%s%s candidates=%u", c->parent,
			vp_basis_name(c->link.basis), c->link.exact ? ",exact" : "",
			c->link.candidates);
	else if (c->peer)
		fprintf(out, " peer=%" PRIu64, c->peer);
	if (c->wit.proto)
		fprintf(out, " witness=\"%s%s%s\"", c->wit.verb, c->wit.verb[0] ? " " : "",
			c->wit.text);
	fputc('\n', out);
}

int vp_local__dump(const char *path, FILE *out, FILE *errf)
{
	struct vp_local_reader *r;
	const struct vp_local_host *h;
	struct vp_local_call c;
	uint64_t n = 0;
	char err[400];
	int k, ret;

	if (!(r = vp_local__open(path, err, sizeof(err)))) {
		fprintf(errf, "error: %s: %s\n", path, err);
		return -EINVAL;
	}
	h = vp_local__host(r);
	fprintf(out, "local   version=%u recordings=%" PRIu32 " addresses=%zu\n", VPL_VERSION,
		h->nfiles, h->naddrs);
	for (uint32_t i = 0; i < h->nfiles; i++) {
		fprintf(out, "from    %s\n", h->paths[i]);
		vp_dump_header(out, &h->hdrs[i]);
	}
	for (size_t i = 0; i < h->naddrs; i++) {
		char a[VP_ADDRSTRLEN];

		fprintf(out, "address %s\n",
			vp_addr__format(h->addrs[i].family, h->addrs[i].addr, a, sizeof(a)));
	}
	while ((k = vp_local__next_call(r, &c)) == 1) {
		dump_call(out, &c);
		n++;
	}
	fprintf(out, "calls   %" PRIu64 "\n", n);
	ret = vp_dump_status(out, errf, path, vp_local__status(r), vp_local__error(r),
			     "what is before it is intact");
	vp_local__close(r);
	return ret;
}
