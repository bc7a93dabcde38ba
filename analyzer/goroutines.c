// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "goroutines.h"

void vp_gor__init(struct vp_gor *g)
{
	memset(g, 0, sizeof(*g));
	g->next_id = VP_GOR_UNIT_BASE;
}

void vp_gor__free(struct vp_gor *g)
{
	size_t pos = 0;
	void *v;

	while (u64map__next(&g->units, &pos, NULL, &v))
		free(v);
	u64map__free(&g->units);
	u64map__free(&g->threads);
	u64map__free(&g->procs);
}

bool vp_gor__first_of(struct vp_gor *g, uint32_t pid)
{
	/* Records come in runs of one process: most need no lookup. */
	if (pid == g->last_pid)
		return false;
	g->last_pid = pid;
	if (u64map__get(&g->procs, pid))
		return false;
	if (u64map__put(&g->procs, pid, &g->procs))
		abort(); /* out of memory: no sensible partial result */
	return true;
}

struct vp_gor_unit *vp_gor__unit(struct vp_gor *g, uint32_t pid, uint64_t goid)
{
	/* Go's ids count up from 1; 2^40 goroutines in one process are not expected. */
	uint64_t key = (uint64_t)pid << 40 | (goid & ((1ull << 40) - 1));
	struct vp_gor_unit *u = u64map__get(&g->units, key);

	if (u)
		return u;
	u = calloc(1, sizeof(*u));
	if (!u || u64map__put(&g->units, key, u))
		abort(); /* out of memory: no sensible partial result */
	/* Past 2^31 units the ids would wrap into thread ids: share the last one instead. */
	u->id = g->next_id;
	if (g->next_id != UINT32_MAX)
		g->next_id++;
	return u;
}

void vp_gor__run(struct vp_gor *g, uint32_t tid, uint32_t pid, uint64_t goid)
{
	if (u64map__put(&g->threads, tid, vp_gor__unit(g, pid, goid)))
		abort();
}

struct vp_gor_unit *vp_gor__of_thread(const struct vp_gor *g, uint32_t tid)
{
	return u64map__get(&g->threads, tid);
}
