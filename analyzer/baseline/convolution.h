/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Baseline: Project 5's convolution algorithm (SOSP 2003, §5.2), on a
 * message trace (btrace.h), one timestamp per message (its send time).
 *
 * Each edge's messages are a time signal, s(t) = sqrt(messages in the
 * quantum [t mu, (t+1) mu)).  From a root node, the messages i -> j are
 * correlated with what j sends to each k, C(d) = sum_t s_out(t + d) s_in(t)
 * (per destination: see process_node in convolution.c), by
 * direct summation over lags 0 .. max_lag (the signals are sparse, so this
 * costs the messages in the window, not an FFT of the whole trace).  A
 * spike is a local maximum N standard deviations above the mean of C,
 * spikes separated by a point below S deviations (the paper's N = 4,
 * S = 3); the spike's extent (its run above S) is the tolerance v.  The
 * messages j sent to k that many quanta after one of the inputs make an
 * edge j -> k with the spike's delay and their count, followed the same
 * way from k.  Only positive delays are looked at;
 * groups under min_msgs messages (or min_frac of the input) are noise; a
 * path ends at a root node, at max_depth edges, or when max_edges are out.
 *
 * Roots are the nodes that are never called (they only start calls): the
 * one use of the call/return mark, where the paper lets the user name them.
 * Statistical, never exact, and RPC paths come out as linear sequences of
 * calls and returns (A -> B -> C -> B -> A), with A -> B -> A beside them.
 */
#ifndef VPATH_BASELINE_CONVOLUTION_H
#define VPATH_BASELINE_CONVOLUTION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "baseline/btrace.h"

struct vp_conv_opts {
	int64_t quantum_ns; /* mu */
	int64_t max_lag_ns;
	double spike_sd, valley_sd; /* N, S */
	uint64_t min_msgs;
	double min_frac;
	uint32_t max_depth;
	size_t max_edges;
};

struct vp_cedge {
	uint32_t from, to;
	int32_t parent;	  /* the edge into `from`, -1 for an edge out of a root */
	uint32_t depth;	  /* 0 for an edge out of a root */
	int64_t delay_ns; /* spike position: from received (its parent's message sent) .. sent this */
	uint64_t count;	  /* messages */
};

struct vp_convolution {
	struct vp_cedge *edges; /* depth first */
	size_t nedges, cap;
	bool truncated; /* max_edges reached */
};

void vp_conv_opts__default(struct vp_conv_opts *o);
/* 0, -ENOMEM, or -EINVAL for a quantum or lag that makes no sense. */
int vp_convolution__run(struct vp_convolution *c, const struct vp_btrace *t,
			const struct vp_conv_opts *o);
void vp_convolution__free(struct vp_convolution *c);
/* The graphs from each root as indented trees, each edge with its delay and count. */
void vp_convolution__print(const struct vp_convolution *c, const struct vp_btrace *t,
			   const struct vp_conv_opts *o, FILE *f);
void vp_convolution__print_json(const struct vp_convolution *c, const struct vp_btrace *t,
				const struct vp_conv_opts *o, FILE *f);

#endif
