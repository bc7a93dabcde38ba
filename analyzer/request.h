/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the analyzer finds: one request per root call, as a tree of calls.
 * This is what every output (text, JSON, table, patterns, DOT) consumes.
 * Times are nanoseconds on the common timeline (each host's monotonic clock
 * plus its estimated offset); durations inside one host are exact.
 */
#ifndef VPATH_REQUEST_H
#define VPATH_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "endpoint.h"
#include "evidence.h"
#include "proto/proto.h"
#include "vpath/record.h"

struct vp_logline;

struct vp_call_end {
	bool recorded; /* false: an external end, only its address is known */
	int host;      /* -1 when not recorded */
	uint32_t pid;
	uint32_t tid; /* client: the thread that sent the request; server: sent the reply */
	char comm[VPR_COMM_LEN + 1]; /* that thread's name */
	char proc[VPR_COMM_LEN + 1]; /* its process's name (the main thread's) */
	struct vp_endpoint addr;
	uint64_t cookie; /* of its socket, when recorded */
};

struct vp_call {
	struct vp_call_end client, server;
	uint32_t conn_index;
	int64_t start_ns, end_ns; /* at the client when recorded, else at the server */
	/* A request of 0 bytes with a reply: a push the server sent unasked (exchanges.h). */
	uint64_t request_bytes, reply_bytes;
	/* At the server, when recorded: request received, reply sent (first .. last op). */
	int64_t srv_req_first, srv_req_last, srv_rep_first, srv_rep_last;
	/* Host clocks of the two ends (first op .. last op), for loss windows. */
	uint64_t cli_first, cli_last, srv_first, srv_last;
	bool complete; /* this call alone */
	bool one_way;  /* a request and an orderly close, no reply (vp_call__outcome) */
	/*
	 * Its server answered another client's long wait right after reading
	 * its request (handoff.h): work it caused may go on there, unlinked, so
	 * its request is not exact.
	 */
	bool may_hand_off;
	struct vp_link link; /* how it was attached to its parent; the root's says why it is one */
	/*
	 * Basis queued (queues.h): an asynchronous hop, the consumer's work on
	 * a message its parent put on a queue; how long the message waited
	 * there.  0 otherwise.
	 */
	int64_t queue_ns;
	int64_t setup_ns; /* connection setup (TLS handshake) before it, first call on a connection */
	struct vp_witness wit; /* what it was (proto/proto.h): proto VP_PROTO_NONE when not known */
	struct vp_call **calls; /* calls its server made while serving it, by start_ns */
	size_t ncalls;
	/* Log lines its server's threads wrote for it, in time order (loglines.h; at_ns: common timeline). */
	struct vp_logline *logs;
};

struct vp_request {
	uint64_t id;
	bool complete; /* no loss, truncation, or missing end anywhere in the tree */
	bool exact;    /* every link in the tree is exact (evidence.h) */
	struct vp_call *root;
	size_t ncalls; /* calls in the tree, root included */
	size_t nhosts; /* distinct recorded hosts visited */
	/* Blocks of the requests hung under its calls as queue hops, and their arrays (queues.c). */
	void **owned;
	size_t nowned;
};

/* NULL-safe: a request is one block with its calls, and its calls' log lines (paths.c). */
void vp_request__free(struct vp_request *r);

static inline enum vp_outcome vp_call__outcome(const struct vp_call *c)
{
	return !c->complete ? VP_OUTCOME_INCOMPLETE
	       : c->one_way ? VP_OUTCOME_ONE_WAY
			    : VP_OUTCOME_COMPLETE;
}

/* Called once per request found; takes ownership (free with vp_request__free). */
typedef void (*vp_request_fn)(void *ctx, struct vp_request *r);

#endif
