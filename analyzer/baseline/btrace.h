/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Baseline input: the message trace Project 5 (SOSP 2003) works from, made
 * from vpath's paired calls.  This is the only interface between the
 * analysis and the statistical baselines, and what crosses it is what a
 * passive network tracer sees:
 *
 *   node     a recorded host (its name), or an address nobody recorded
 *   message  (src node, dst node, send time, receive time, call or return,
 *            call id); a call's times are of its first byte, a return's of
 *            its last (a reply sent in parts ends after the calls it waited
 *            for)
 *
 * Times are each host's own clock turned into wall-clock time with its
 * recording header only (start_real - start_mono), as NTP would give them:
 * not vpath's clock alignment, so a skewed host stays skewed here.  The
 * call id pairs a call with its return (Project 5 §5.1.1.1 reads it from
 * RPC headers); here it is the connection and ordinal that stream
 * positions decided.  No thread, process, or in-host link crosses: of each
 * request tree only the calls are taken, each on its own, and the tree is
 * thrown away.
 */
#ifndef VPATH_BASELINE_BTRACE_H
#define VPATH_BASELINE_BTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "endpoint.h"

struct vp_analysis;
struct vp_request;

enum vp_bmsg_kind {
	VP_BMSG_CALL = 0,
	VP_BMSG_RETURN = 1
};

struct vp_bmsg {
	int64_t send_ns, recv_ns; /* wall clock of the sender's and the receiver's host */
	uint32_t src, dst;	  /* node ids */
	uint32_t call;		  /* call id: index in vp_btrace.calls */
	uint8_t kind;		  /* enum vp_bmsg_kind */
};

/* What names a call in the output: the same identity `paths --json` gives it. */
struct vp_bcall {
	struct vp_endpoint client, server;
	uint32_t conn_index;
};

#define VP_BNODE_LEN 88

struct vp_bnode {
	int host;		 /* recorded host, -1 for an address nobody recorded */
	struct vp_endpoint addr; /* that address (port 0) when host is -1 */
	char name[VP_BNODE_LEN];
};

struct vp_btrace {
	struct vp_bmsg *msgs;
	size_t nmsgs, msgcap;
	struct vp_bcall *calls;
	size_t ncalls, callcap;
	struct vp_bnode *nodes;
	size_t nnodes, nodecap;
};

/* Take every call of r as messages (a call, and its return if it had a reply).  0 or -ENOMEM. */
int vp_btrace__add_request(struct vp_btrace *t, const struct vp_analysis *a,
			   const struct vp_request *r);
/* Add one message by hand (tests, synthetic traces); nodes by name.  Returns the call id or -ENOMEM. */
int vp_btrace__add_node(struct vp_btrace *t, const char *name);
int vp_btrace__add_msg(struct vp_btrace *t, const struct vp_bmsg *m);
int vp_btrace__add_call(struct vp_btrace *t, const struct vp_bcall *c);
/* Messages by send time (ties: calls before returns, then call id). */
void vp_btrace__sort(struct vp_btrace *t);
void vp_btrace__free(struct vp_btrace *t);

#endif
