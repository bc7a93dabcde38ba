// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The run every analysis command shares (cmd_analyze.h): the recordings
 * in, each request through the filters (and -n's pick of the slowest) to
 * the command's output, the output finished, the hosts reported.
 */
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_analyze.h"
#include "progress.h"

struct run {
	struct vp_cmd_analysis *c;
	struct vp_analysis *a;
	struct vp_out_ctx out;
	struct vp_sink *sink;
	struct vp_progress progress;
	bool t0_set;
	struct vp_request **kept; /* -n: the slowest so far */
	size_t nkept;
	uint64_t shown; /* requests written */
};

static int64_t duration_of(const struct vp_request *r)
{
	return r->root->end_ns - r->root->start_ns;
}

static bool wanted(const struct run *run, const struct vp_request *r)
{
	const struct vp_cmd_analysis *c = run->c;
	const struct vp_call *root = r->root;

	if (c->request_id && r->id != c->request_id)
		return false;
	if (c->have_from && root->start_ns < run->out.t0 + (int64_t)c->from_ns)
		return false;
	if (c->have_to && root->start_ns >= run->out.t0 + (int64_t)c->to_ns)
		return false;
	if (c->have_entry && (!vp_addr__equal(&root->server.addr, &c->entry) ||
			      (c->entry.port && c->entry.port != root->server.addr.port)))
		return false;
	return true;
}

static void write_request(struct run *run, const struct vp_request *r)
{
	run->shown++;
	vp_sink__request(run->sink, r);
}

/* Keep the N slowest: replace the fastest kept one when a slower request comes. */
static void keep_slowest(struct run *run, struct vp_request *r)
{
	size_t min = 0;

	if (run->nkept < run->c->slowest) {
		run->kept[run->nkept++] = r;
		return;
	}
	for (size_t i = 1; i < run->nkept; i++)
		if (duration_of(run->kept[i]) < duration_of(run->kept[min]))
			min = i;
	if (duration_of(r) > duration_of(run->kept[min])) {
		vp_request__free(run->kept[min]);
		run->kept[min] = r;
	} else {
		vp_request__free(r);
	}
}

/* The common timeline's origin: the earliest record of any host. */
static int64_t timeline_origin(const struct vp_analysis *a)
{
	int64_t t0 = INT64_MAX;

	for (size_t h = 0; h < vp_analysis__nhosts(a); h++) {
		const struct vp_host *ho = vp_analysis__host(a, h);
		int64_t at = (int64_t)ho->first_ts + vp_analysis__offset(a, h);

		if (ho->records && at < t0)
			t0 = at;
	}
	return t0 == INT64_MAX ? 0 : t0;
}

static void on_request(void *ctx, struct vp_request *r)
{
	struct run *run = ctx;

	vp_progress__tick(&run->progress, run->a);
	if (!run->t0_set) {
		run->out.t0 = timeline_origin(run->a);
		run->t0_set = true;
	}
	if (!wanted(run, r)) {
		vp_request__free(r);
		return;
	}
	if (run->c->slowest) {
		keep_slowest(run, r);
		return;
	}
	write_request(run, r);
	vp_request__free(r);
}

static int by_duration_desc(const void *x, const void *y)
{
	int64_t a = duration_of(*(struct vp_request *const *)x);
	int64_t b = duration_of(*(struct vp_request *const *)y);

	return a > b ? -1 : a < b;
}

/* The kept slowest, slowest first, then the output's end: 0 or 1. */
static int write_end(struct run *run, bool complete)
{
	int status = 0;

	if (run->nkept)
		qsort(run->kept, run->nkept, sizeof(*run->kept), by_duration_desc);
	for (size_t i = 0; i < run->nkept; i++) {
		write_request(run, run->kept[i]);
		vp_request__free(run->kept[i]);
	}
	if (vp_sink__finish(run->sink, complete))
		status = 1;
	if (run->c->must_show && run->c->request_id && !run->shown) {
		fprintf(stderr, "error: no request %" PRIu64 "\n", run->c->request_id);
		status = 1;
	}
	return status;
}

/* The analysis read and run into the output: the exit status. */
static int run_analysis(struct run *run)
{
	struct vp_cmd_analysis *c = run->c;
	char err[512];
	int ret, status = 0;

	run->out.a = run->a;
	for (size_t h = 0; h < vp_analysis__nhosts(run->a); h++)
		run->out.witnesses |= vp_analysis__host(run->a, h)->captured;
	vp_progress__init(&run->progress, run->a, stderr, vp_progress__wanted(stderr));
	run->sink = vp_sink__open(c->sink, &run->out, &c->sink_opts, err, sizeof(err));
	if (!run->sink) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	if (c->slowest && !(run->kept = calloc(c->slowest, sizeof(*run->kept)))) {
		fprintf(stderr, "error: out of memory\n");
		return 1;
	}
	ret = vp_analysis__run(run->a);
	vp_progress__done(&run->progress);
	if (ret) {
		fprintf(stderr, "error: analysis failed: %s\n", strerror(-ret));
		status = 1;
	}
	if (write_end(run, !ret))
		status = 1;
	vp_cmd_analysis__report(run->a, c->verbose);
	for (size_t h = 0; h < vp_analysis__nhosts(run->a); h++)
		if (vp_analysis__host(run->a, h)->corrupt)
			status = 1;
	return status;
}

int vp_cmd_analyze(const struct vp_cmd *cmd, int argc, char **argv)
{
	struct vp_cmd_analysis c = {.sink = VP_SINK_MAX};
	struct run run = {.c = &c};
	struct vp_cmd_files files;
	char err[512];
	int status;

	vp_conv_opts__default(&c.sink_opts.conv);
	if (vp_cmd__parse(cmd, argc, argv, &c, &files))
		return 2;
	/*
	 * Requests are built at the rate of the recording and freed about a
	 * second later (loss reports): with glibc's defaults the heap's top was
	 * given back and grown again all the time, a third of the CPU time in
	 * malloc and page faults on tests/bench/fleet.sh's recording.
	 */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_TOP_PAD, 16 << 20);
	c.opts.on_request = on_request;
	c.opts.ctx = &run;
	run.out.f = stdout;
	run.out.csv = c.csv;
	run.out.logs = c.logs;
	if (vp_analysis__new(&run.a, files.v, files.n, &c.opts, err, sizeof(err))) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	status = run_analysis(&run);
	vp_sink__free(run.sink);
	free(run.kept);
	vp_analysis__free(run.a);
	return status;
}
