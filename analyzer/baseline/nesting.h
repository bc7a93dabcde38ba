/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Baseline: Project 5's nesting algorithm (SOSP 2003, §5.1), on a message
 * trace (btrace.h), with one timestamp per message (its send time).
 *
 *  1. call pairs: a call and its return, by call id; a call without a
 *     return is dropped, as the paper drops unmatched messages;
 *  2. candidate parents of a call pair (B, C, t2, t3): every pair
 *     (X, B, t1, t4) with t1 < t2 and t3 < t4; each candidate adds 1/N to
 *     the scoreboard (X, B, C, t2 - t1), a histogram with log_1.05 bins;
 *  3. each pair, in order of its call, takes the candidate with the best
 *     score times the penalties (1 + overlapping children)^-x,
 *     (1 + children with the same destination)^-y, (1 + children)^-z,
 *     ties to the earliest; the paper's defaults x = 2, y = z = 0;
 *  4. pairs with no candidate start call paths; paths of the same shape
 *     are one pattern, with per-node latency and call delay.
 *
 * Statistical, never exact: a link it draws is the likeliest by timing.
 */
#ifndef VPATH_BASELINE_NESTING_H
#define VPATH_BASELINE_NESTING_H

#include <stdint.h>
#include <stdio.h>

#include "baseline/btrace.h"

struct vp_nest_opts {
	double x, y, z; /* penalty exponents: overlapping, same-child, any-child */
};

struct vp_nest_pair {
	uint32_t call;	/* call id (btrace) */
	uint32_t a, b;	/* caller and callee nodes */
	int64_t t1, t4; /* call and return times */
	int32_t parent; /* chosen parent pair, -1 for a root */
	uint32_t ncand; /* candidate parents */
	uint32_t *kids; /* children, by t1 */
	uint32_t nkids, kcap;
};

/* One node of a pattern: a callee, with its latency and delay after its parent's call. */
struct vp_npnode {
	uint32_t node;
	uint32_t depth;
	double *lat, *delay; /* per instance, in ns */
	size_t n, cap;
};

struct vp_npattern {
	char *key;     /* canonical shape, "B(C,D(E))" with node names */
	uint32_t from; /* caller of the root (most instances' caller) */
	uint64_t count;
	double total_ns;
	uint32_t example;	 /* a root pair */
	struct vp_npnode *nodes; /* preorder, children in canonical order */
	size_t nnodes;
};

struct vp_nesting {
	struct vp_nest_pair *pairs;
	size_t npairs;
	uint64_t candidates; /* sum over pairs: mean parallelism = candidates / (pairs - roots) */
	uint64_t unmatched;  /* calls with no return, dropped */
	struct vp_npattern *patterns; /* by total time, most first */
	size_t npatterns;
};

void vp_nest_opts__default(struct vp_nest_opts *o);
/* Run the four steps on t (sorted or not).  0 or -ENOMEM. */
int vp_nesting__run(struct vp_nesting *n, struct vp_btrace *t, const struct vp_nest_opts *o);
void vp_nesting__free(struct vp_nesting *n);

/* Patterns as text, in the form of `vpath-analyze patterns`. */
void vp_nesting__print(const struct vp_nesting *n, const struct vp_btrace *t, FILE *f);
/*
 * JSON: the patterns, and every path in the shape of `paths --json`
 * (client/server addresses, conn_index, times, calls), so it can be scored
 * like vpath's paths (tests/e2e/vpcompare.py).
 */
void vp_nesting__print_json(const struct vp_nesting *n, const struct vp_btrace *t, FILE *f);

#endif
