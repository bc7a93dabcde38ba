// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * baseline: Project 5's algorithms (baseline/) as outputs.  Each request's
 * calls go into the message trace as they come; the algorithm runs on the
 * whole trace at the end and prints its patterns.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/btrace.h"
#include "baseline/convolution.h"
#include "baseline/nesting.h"
#include "sink.h"

static int btrace_open(struct vp_sink *s, char *err, size_t errlen)
{
	s->state = calloc(1, sizeof(struct vp_btrace));
	if (!s->state)
		snprintf(err, errlen, "out of memory");
	return s->state ? 0 : -1;
}

static void btrace_request(struct vp_sink *s, const struct vp_request *r)
{
	if (vp_btrace__add_request(s->state, s->out->a, r))
		fprintf(stderr, "warning: out of memory, request %" PRIu64 " not counted\n", r->id);
}

static void btrace_free(struct vp_sink *s)
{
	if (s->state)
		vp_btrace__free(s->state);
	free(s->state);
}

static int failed(int err)
{
	if (err)
		fprintf(stderr, "error: baseline failed: %s\n", strerror(-err));
	return err ? -1 : 0;
}

/* Only on a whole analysis: a half trace would give half patterns. */
static int nesting_finish(struct vp_sink *s, bool complete)
{
	struct vp_btrace *t = s->state;
	struct vp_nest_opts o;
	struct vp_nesting n;
	int ret;

	if (!complete)
		return 0;
	vp_nest_opts__default(&o);
	ret = vp_nesting__run(&n, t, &o);
	if (!ret && s->opts->json)
		vp_nesting__print_json(&n, t, s->out->f);
	else if (!ret)
		vp_nesting__print(&n, t, s->out->f);
	vp_nesting__free(&n);
	return failed(ret);
}

static int convolution_finish(struct vp_sink *s, bool complete)
{
	const struct vp_conv_opts *o = &s->opts->conv;
	struct vp_btrace *t = s->state;
	struct vp_convolution cv;
	int ret;

	if (!complete)
		return 0;
	ret = vp_convolution__run(&cv, t, o);
	if (!ret && s->opts->json)
		vp_convolution__print_json(&cv, t, o, s->out->f);
	else if (!ret)
		vp_convolution__print(&cv, t, o, s->out->f);
	vp_convolution__free(&cv);
	return failed(ret);
}

const struct vp_sink_ops vp_sink_nesting = {.name = "nesting",
					    .open = btrace_open,
					    .request = btrace_request,
					    .finish = nesting_finish,
					    .free = btrace_free};
const struct vp_sink_ops vp_sink_convolution = {.name = "convolution",
						.open = btrace_open,
						.request = btrace_request,
						.finish = convolution_finish,
						.free = btrace_free};
