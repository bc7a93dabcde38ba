/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What a server does with one request: a list of steps drawn from the
 * request's seed, so the same client seed gives the same paths whatever the
 * threading model and the scheduling. */
#ifndef VAPP_PLAN_H
#define VAPP_PLAN_H

#include <stdint.h>
#include "config.h"

#define VAPP_MAX_STEPS 32

enum vapp_step_kind {
	VAPP_STEP_CALL,	      /* call a back end and wait for its whole reply */
	VAPP_STEP_REPLY_PART, /* send the first part of the reply early */
};

struct vapp_step {
	enum vapp_step_kind kind;
	int callee;	/* server index, for CALL */
	uint64_t seed;	/* the callee's request seed, for CALL */
	uint32_t bytes; /* request padding for CALL, part size for REPLY_PART */
};

struct vapp_plan {
	int nsteps;
	struct vapp_step steps[VAPP_MAX_STEPS];
	uint32_t reply_bytes; /* padding of the final reply frame */
	uint32_t delay_us;    /* service time before the final reply */
};

/* splitmix64: small, seedable, and good enough for test decisions. */
uint64_t vapp_rand_next(uint64_t *state);
double vapp_rand_unit(uint64_t *state);
uint32_t vapp_rand_below(uint64_t *state, uint32_t n);
/* Padding size of a message: usually small, sometimes big. */
uint32_t vapp_rand_bytes(uint64_t *state, const struct vapp_params *params);

/* depth: servers already on the path including this one (front tier = 1). */
void vapp_plan__make(struct vapp_plan *plan, const struct vapp_topology *topo, int self,
		     uint64_t seed, int depth);

#endif
