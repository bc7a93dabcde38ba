// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <math.h>
#include <string.h>
#include "plan.h"

uint64_t vapp_rand_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double vapp_rand_unit(uint64_t *state)
{
	return (double)(vapp_rand_next(state) >> 11) / (double)(1ULL << 53);
}

uint32_t vapp_rand_below(uint64_t *state, uint32_t n)
{
	return n ? (uint32_t)(vapp_rand_next(state) % n) : 0;
}

uint32_t vapp_rand_bytes(uint64_t *state, const struct vapp_params *params)
{
	if (vapp_rand_unit(state) < params->big_prob)
		return (uint32_t)params->big_bytes;
	return (uint32_t)params->min_bytes +
	       vapp_rand_below(state, (uint32_t)(params->max_bytes - params->min_bytes + 1));
}

/* Mixes the server index in, so two servers given the same seed by a
 * repeated call still decide independently. */
static uint64_t visit_state(uint64_t seed, int self)
{
	uint64_t s = seed ^ ((uint64_t)(self + 1) * 0xd1b54a32d192ed03ULL);

	vapp_rand_next(&s);
	return s;
}

void vapp_plan__make(struct vapp_plan *plan, const struct vapp_topology *topo, int self,
		     uint64_t seed, int depth)
{
	const struct vapp_server_cfg *srv = &topo->servers[self];
	const struct vapp_params *p = &topo->params;
	double call_prob = p->call_prob * pow(p->call_decay, depth - 1);
	uint64_t rng = visit_state(seed, self);
	int ncalls = 0, part_at = -1, last = -1;

	memset(plan, 0, sizeof(*plan));
	if (srv->ncallees > 0 && depth < p->max_depth) {
		while (ncalls < p->max_calls && ncalls < VAPP_MAX_STEPS - 1 &&
		       vapp_rand_unit(&rng) < call_prob) {
			struct vapp_step *st = &plan->steps[ncalls++];

			if (last >= 0 && vapp_rand_unit(&rng) < p->repeat_prob)
				st->callee = last;
			else
				st->callee = srv->callees[vapp_rand_below(&rng, srv->ncallees)];
			last = st->callee;
			st->kind = VAPP_STEP_CALL;
			st->seed = vapp_rand_next(&rng);
			st->bytes = vapp_rand_bytes(&rng, p);
		}
	}
	/* TPC-W style pipelining: reply part 1, then a call, then part 2. */
	if (ncalls > 0 && vapp_rand_unit(&rng) < p->parts_prob)
		part_at = (int)vapp_rand_below(&rng, (uint32_t)ncalls);
	plan->nsteps = ncalls;
	if (part_at >= 0) {
		memmove(&plan->steps[part_at + 1], &plan->steps[part_at],
			(ncalls - part_at) * sizeof(plan->steps[0]));
		plan->steps[part_at] = (struct vapp_step){
			.kind = VAPP_STEP_REPLY_PART,
			.bytes = vapp_rand_bytes(&rng, p),
		};
		plan->nsteps++;
	}
	plan->reply_bytes = vapp_rand_bytes(&rng, p);
	if (vapp_rand_unit(&rng) < p->slow_prob)
		plan->delay_us = (uint32_t)p->slow_us;
	else if (p->max_delay_us > 0)
		plan->delay_us = vapp_rand_below(&rng, (uint32_t)p->max_delay_us + 1);
}
