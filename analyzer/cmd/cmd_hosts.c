// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * After an analysis command's output: what the user must know about each
 * host's recording (loss, clock steps, damage), and with -v the statistics
 * (cmd_analyze.h).  All on standard error, so that the output stays clean.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd_analyze.h"

static void host_warnings(const struct vp_host *ho)
{
	if (ho->lost)
		fprintf(stderr,
			"warning: %s: the recorder lost %" PRIu64
			" records; requests overlapping the loss are marked incomplete\n",
			ho->name, ho->lost);
	if (ho->wall_steps)
		fprintf(stderr,
			"warning: %s: its wall clock was stepped %u time%s, by up to "
			"%+.3f s (%.1f s into its recording); times come from its monotonic "
			"clock and are not affected\n",
			ho->name, ho->wall_steps, ho->wall_steps == 1 ? "" : "s",
			(double)ho->wall_step_ns / 1e9,
			(double)(ho->wall_step_at_ns - ho->first_ts) / 1e9);
	if (ho->skipped)
		fprintf(stderr,
			"warning: %s: %" PRIu64 " records with impossible values"
			" (time, direction) were skipped\n",
			ho->name, ho->skipped);
	if (ho->payloads_bad)
		fprintf(stderr,
			"warning: %s: %" PRIu64 " payload records were damaged (len beyond"
			" the record) and not used\n",
			ho->name, ho->payloads_bad);
	if (ho->truncated && !ho->corrupt)
		fprintf(stderr, "warning: %s: %s; used everything before it\n", ho->name,
			ho->damage);
	if (ho->corrupt)
		fprintf(stderr, "error: %s; used everything before it\n", ho->damage);
}

/* -v: each process's model and calls. */
static void process_stats(const struct vp_analysis *a)
{
	size_t np;
	const struct vp_proc **pv = vp_analysis__procs(a, &np);

	for (size_t i = 0; pv && i < np; i++) {
		char ids[128] = "";

		if (vp_proc__model(pv[i]) == VP_MODEL_IDLE)
			continue;
		/* Only where calls carried ids: outputs without payload stay as they were. */
		if (pv[i]->calls_with_id)
			snprintf(ids, sizeof(ids),
				 "; %" PRIu64 " carried an id, %" PRIu64 " linked by it, %" PRIu64
				 " disagreements",
				 pv[i]->calls_with_id, pv[i]->calls_by_id, pv[i]->id_disagree);
		fprintf(stderr,
			"process %s %s(%u): %s, %" PRIu64 " requests served, %" PRIu64
			" calls (%" PRIu64 " exact%s)\n",
			vp_analysis__host(a, (size_t)pv[i]->host)->name,
			pv[i]->comm[0] ? pv[i]->comm : "?", pv[i]->pid,
			vp_model_name(vp_proc__model(pv[i])), pv[i]->served, pv[i]->calls,
			vp_proc__calls_exact(pv[i]), ids);
	}
	free(pv);
}

void vp_cmd_analysis__report(const struct vp_analysis *a, bool verbose)
{
	struct vp_analysis_stats st;

	vp_analysis__stats(a, &st);
	for (size_t h = 0; h < vp_analysis__nhosts(a); h++) {
		const struct vp_host *ho = vp_analysis__host(a, h);
		char how[64];

		host_warnings(ho);
		if (verbose)
			fprintf(stderr,
				"host %zu %s: %" PRIu64 " records, offset %" PRId64
				" ns (%s), %" PRIu64 " late\n",
				h, ho->name, ho->records, vp_analysis__offset(a, h),
				vp_analysis__clock_source(a, h, how, sizeof(how)), ho->late);
	}
	if (!verbose)
		return;
	process_stats(a);
	fprintf(stderr,
		"%" PRIu64 " records, %" PRIu64 " sockets, %" PRIu64 " exchanges, %" PRIu64
		" calls matched, %" PRIu64 " peers not found, %" PRIu64 " requests (%" PRIu64
		" exact), %" PRIu64 " calls\n",
		st.events, st.sockets, st.exchanges, st.matched, st.given_up, st.requests,
		st.requests_exact, st.calls);
}
