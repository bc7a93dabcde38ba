/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The CALLS blocks of a local file (localfile.h): every exchange one host's
 * stages found, i.e. one end of a call, with what pairs it with its other
 * end (connection key and stream ranges, matcher.h) and its in-host link
 * (evidence.h).  What an engine outside vpath loads and joins; the analysis
 * itself reads the RECS blocks.
 */
#ifndef VPATH_LOCALCALLS_H
#define VPATH_LOCALCALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "endpoint.h"
#include "hashmap.h"
#include "evidence.h"
#include "messages.h"
#include "proto/proto.h"
#include "varbuf.h"
#include "vpath/record.h"

enum vp_local_call_flag {
	VPL_INCOMPLETE = 1 << 0, /* operations lost, request or reply missing */
	VPL_UNANSWERED = 1 << 1, /* closed after its request, no reply */
	VPL_ONE_WAY = 1 << 2,	 /* unanswered and closed in order (a FIN) */
	VPL_TLS = 1 << 3,	 /* its connection began with a TLS handshake */
	VPL_TEARDOWN = 1 << 4,	 /* a TLS close_notify before a close */
	VPL_SETUP = 1 << 5,	 /* a TLS handshake after the stream began */
	VPL_TAINTED = 1 << 6,	 /* server: a call it may have made went elsewhere by inference */
	VPL_PIPE_HEAD = 1 << 7,	 /* requests after its own were cut off its message */
	VPL_PIPE_TAIL = 1 << 8,	 /* cut off the message of the request before it */
	VPL_HAS_REP = 1 << 9,	 /* rep holds its reply */
	/* server: its thread answered another client's long wait right after reading it (handoff.h) */
	VPL_MAY_HAND_OFF = 1 << 10,
};

struct vp_local_call {
	uint64_t id;	 /* unique in the file, from 1 */
	uint8_t side;	 /* enum vp_side: 0 client end, 1 server end */
	uint64_t cookie; /* its socket */
	uint32_t netns;	 /* its socket's network namespace (0: not recorded) */
	bool have_tuple;
	struct vp_endpoint local, remote;
	uint32_t conn_index; /* 0-based, among its socket's exchanges */
	uint32_t pid;
	char comm[VPR_COMM_LEN + 1]; /* client: request sender's thread; server: reply sender's */
	char proc[VPR_COMM_LEN + 1]; /* its process's name */
	struct vp_msg req, rep;	     /* rep when flags has VPL_HAS_REP */
	uint32_t flags;		     /* enum vp_local_call_flag */
	uint64_t setup_ns;	     /* TLS handshake before a connection's first exchange */
	/* client end: the server end of this host it was linked under, 0 when a root */
	uint64_t parent;
	/* server end: its client end when that is on this host too, else 0 */
	uint64_t peer;
	struct vp_link link;   /* client end: evidence of the link to parent (or why a root) */
	struct vp_witness wit; /* proto VP_PROTO_NONE when not known */
};

/*
 * A block's calls name each connection end once (cookie, netns, 4-tuple),
 * then by its place in the block; times are differences from the call
 * before.  Each block starts afresh.
 */
struct vp_callsock {
	uint64_t cookie;
	uint32_t netns;
	bool have_tuple;
	struct vp_endpoint local, remote;
	/* Of its calls so far in the block: where the last request and reply ended, the last thread. */
	uint32_t req_end, rep_end, tid;
};

/* Who a call's end is: a block names each (pid, thread name, process name) once. */
struct vp_callwho {
	uint32_t pid;
	char comm[VPR_COMM_LEN + 1], proc[VPR_COMM_LEN + 1];
};

struct vp_callenc {
	struct vp_wbuf buf;
	uint32_t count;
	struct u64map by_cookie; /* cookie -> index + 1 of its latest entry */
	struct vp_callsock *socks;
	size_t nsocks, cap;
	struct u64map by_who; /* hash of a vp_callwho -> index + 1 */
	struct vp_callwho *who;
	size_t nwho, whocap;
	uint64_t prev_id, prev_ts;
};

void vp_callenc__add(struct vp_callenc *e, const struct vp_local_call *c);
/* buf went into a block: start afresh. */
void vp_callenc__reset(struct vp_callenc *e);
void vp_callenc__free(struct vp_callenc *e);

struct vp_calldec {
	struct vp_rbuf b;
	uint32_t left;
	struct vp_callsock *socks;
	size_t nsocks, cap;
	struct vp_callwho *who;
	size_t nwho, whocap;
	uint64_t prev_id, prev_ts;
};

void vp_calldec__block(struct vp_calldec *d, const uint8_t *p, size_t len, uint32_t count);
/* The next call: 1, 0 at the block's end, -EINVAL when it does not decode, -ENOMEM. */
int vp_calldec__next(struct vp_calldec *d, struct vp_local_call *c);
void vp_calldec__free(struct vp_calldec *d);

#endif
