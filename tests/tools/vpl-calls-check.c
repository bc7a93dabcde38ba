// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vpl-calls-check REC.vpr... -- HOST.vpl...: how far the calls a local file
 * holds (each host's stages alone, localcalls.h) agree with the exchanges of
 * the analysis of all hosts together.  The files after -- are the local
 * files of the recordings before it, in the same order.  Each exchange end
 * is matched by (host, socket cookie, ordinal on the socket, side) and
 * compared: stream ranges of request and reply, and for a client end its
 * parent (the server end of the same host it was linked under) and the
 * link's evidence.  Prints one line of counts; exit 0, or 1 when a file
 * cannot be read.  Used by tests/integration/test_local.sh.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "hashmap.h"
#include "local/local.h"

struct end {
	uint32_t req_start, req_end, rep_start, rep_end;
	bool has_rep, linked, exact;
	uint8_t basis;
	uint64_t parent; /* key of the parent end, when linked */
	bool seen;	 /* matched by a local call */
};

static struct u64map ends;

/* A TLS handshake after the stream began shares its ordinal with the exchange after it. */
static uint64_t key(int host, uint64_t cookie, uint32_t index, int side, bool setup)
{
	return hash64(hash64(hash64((uint64_t)host) ^ cookie) ^
		      ((uint64_t)index << 2 | (uint64_t)setup << 1 | (uint64_t)side));
}

static void on_xchg(void *ctx, const struct vp_xchg *x)
{
	struct end *e = calloc(1, sizeof(*e));

	if (!e)
		abort();
	e->req_start = x->req.seq_start;
	e->req_end = x->req.seq_end;
	e->has_rep = x->has_rep;
	e->rep_start = x->has_rep ? x->rep.seq_start : 0;
	e->rep_end = x->has_rep ? x->rep.seq_end : 0;
	if (x->side == VP_CLIENT && x->up_state == VP_UP_LINKED && x->up) {
		e->linked = true;
		e->parent = key(x->host, x->up->cookie, x->up->conn_index, VP_SERVER, x->up->setup);
	}
	e->basis = x->link.basis;
	e->exact = x->link.exact;
	free(u64map__get(&ends, key(x->host, x->cookie, x->conn_index, x->side, x->setup)));
	if (u64map__put(&ends, key(x->host, x->cookie, x->conn_index, x->side, x->setup), e))
		abort();
}

static void drop(void *ctx, struct vp_request *r)
{
	vp_request__free(r);
}

struct counts {
	uint64_t calls, same, ranges, parents, evidence, only_local;
};

/* The calls of one local file, host h of the analysis. */
static int check_file(const char *path, int h, struct counts *n)
{
	char err[400];
	struct vp_local_reader *r = vp_local__open(path, err, sizeof(err));
	struct vp_local_call c;
	struct u64map by_id = {0}; /* a call's id -> its key + 1 (parents name ids) */
	struct vp_local_call *calls = NULL;
	size_t ncalls = 0, cap = 0;
	int k;

	if (!r) {
		fprintf(stderr, "error: %s: %s\n", path, err);
		return -1;
	}
	while ((k = vp_local__next_call(r, &c)) == 1) {
		if (ncalls == cap) {
			cap = cap ? cap * 2 : 1024;
			if (!(calls = realloc(calls, cap * sizeof(*calls))))
				abort();
		}
		calls[ncalls++] = c;
		if (u64map__put(&by_id, c.id, (void *)(uintptr_t)(key(h, c.cookie, c.conn_index, c.side,
									      c.flags & VPL_SETUP) | 1)))
			abort();
	}
	if (k < 0)
		fprintf(stderr, "error: %s: %s\n", path, vp_local__error(r));
	for (size_t i = 0; i < ncalls; i++) {
		const struct vp_local_call *l = &calls[i];
		struct end *e = u64map__get(&ends, key(h, l->cookie, l->conn_index, l->side,
							l->flags & VPL_SETUP));
		uint64_t pk = l->parent ? (uint64_t)(uintptr_t)u64map__get(&by_id, l->parent) : 0;
		bool rep = (l->flags & VPL_HAS_REP) != 0;

		n->calls++;
		if (!e) {
			n->only_local++;
			continue;
		}
		e->seen = true;
		if (e->req_start != l->req.seq_start || e->req_end != l->req.seq_end || e->has_rep != rep ||
		    (rep && (e->rep_start != l->rep.seq_start || e->rep_end != l->rep.seq_end)))
				n->ranges++;
		else if (l->side == 0 && (e->linked != (l->parent != 0) ||
					  (e->linked && (e->parent | 1) != pk)))
			n->parents++;
		else if (l->side == 0 && (e->basis != l->link.basis || e->exact != l->link.exact))
			n->evidence++;
		else
			n->same++;
	}
	free(calls);
	u64map__free(&by_id);
	vp_local__close(r);
	return k < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct vp_analysis_opts o = {.threads = 1, .on_request = drop, .on_xchg = on_xchg};
	struct vp_analysis *a;
	struct counts n = {0};
	uint64_t only_full = 0;
	char err[512];
	int sep = 1, status = 0;
	size_t pos = 0;
	void *v;

	while (sep < argc && strcmp(argv[sep], "--"))
		sep++;
	if (sep == 1 || sep >= argc - 1 || argc - sep - 1 != sep - 1) {
		fprintf(stderr, "usage: vpl-calls-check REC.vpr... -- HOST.vpl... (the same hosts, in order)\n");
		return 2;
	}
	if (vp_analysis__new(&a, argv + 1, sep - 1, &o, err, sizeof(err)) || vp_analysis__run(a)) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	for (int i = 0; i < sep - 1; i++)
		if (check_file(argv[sep + 1 + i], i, &n))
			status = 1;
	while (u64map__next(&ends, &pos, NULL, &v)) {
		only_full += !((struct end *)v)->seen;
		free(v);
	}
	printf("calls=%" PRIu64 " same=%" PRIu64 " ranges_differ=%" PRIu64 " parent_differs=%" PRIu64
	       " evidence_differs=%" PRIu64 " only_local=%" PRIu64 " only_joint=%" PRIu64 "\n",
	       n.calls, n.same, n.ranges, n.parents, n.evidence, n.only_local, only_full);
	u64map__free(&ends);
	vp_analysis__free(a);
	return status;
}
