/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One exchange (a request and its reply) seen at one end of a connection:
 * the unit that the exchanges, attribution, matching and paths stages pass
 * between them.  A client-side exchange (on a connected end) and the
 * server-side exchange at the other end of the same connection form a call.
 *
 * Completion is counted, retsnoop style, so a request can be printed and
 * freed as soon as nothing can attach to it any more: `wait` counts what is
 * still open below an exchange (itself until it is done; for a client
 * exchange, its peer until that is found or given up; for a server exchange,
 * each unfinished call it made).  When it drops to zero the exchange
 * completes into `up` (a client exchange's parent server exchange, a server
 * exchange's client peer) or, for a root, the request is ready.
 */
#ifndef VPATH_XCHG_H
#define VPATH_XCHG_H

#include <stdbool.h>
#include <stdint.h>

#include "endpoint.h"
#include "evidence.h"
#include "messages.h"
#include "proto/propid.h"
#include "proto/proto.h"
#include "vpath/record.h"

enum vp_side {
	VP_CLIENT = 0, /* connected end: request out, reply in */
	VP_SERVER = 1, /* accepted end: request in, reply out */
};

enum vp_up_state {
	VP_UP_UNDECIDED = 0,
	VP_UP_LINKED = 1,
	VP_UP_ROOT = 2,
};

struct vp_sock;
struct vp_proc;
struct vp_holdset;
struct vp_logline;

/*
 * The first captured bytes of a request's first operation (VPR_PAYLOAD),
 * or, hashed, only their hashes (VPR_PAYLOAD_HASH: len bytes were hashed,
 * data[] is empty).
 */
struct vp_wit_req {
	uint64_t total; /* the operation's bytes */
	uint16_t len;
	bool hashed;
	uint64_t hash, hash_8, hash_24; /* when hashed: as in struct vpr_payload_hash */
	uint8_t data[];
};

struct vp_xchg {
	uint64_t id;	      /* creation order, unique in one analysis */
	struct vp_sock *sock; /* while the exchange is in progress */
	uint64_t cookie;      /* of its socket, found again through the host's table */
	/*
	 * See above.  In the first line with up_state and dead: the walk up a
	 * tree (vp_paths__gone) reads the three of each exchange it passes.
	 */
	struct vp_xchg *up;
	int host;
	uint8_t side;	  /* enum vp_side */
	uint8_t up_state; /* enum vp_up_state */
	bool done;	  /* request and reply finished (next request, close, or end) */
	bool has_rep;
	bool incomplete;    /* ops lost, request or reply missing, peer missing */
	bool peer_expected; /* the other end is on a recorded host */
	bool in_match;	    /* waiting in the matcher */
	bool unanswered;    /* closed after a request with no reply (one-way, or cut by a reset) */
	bool one_way;	    /* unanswered, and the close was orderly (a FIN) */
	bool tls;	    /* on a connection that began with a TLS handshake */
	bool judged;	    /* client: its parent is still being judged (judge.h) */
	bool teardown;	    /* one-way TLS close_notify before a close: as a root, no request */
	bool setup;   /* a TLS handshake after the stream began: no request or call of its own */
	bool tainted; /* server: a call it may have caused went elsewhere by inference */
	/*
	 * server: its request was read right before the same thread answered
	 * another client's long-outstanding call (handoff.h): work it caused
	 * may go on in that client, which no link shows.
	 */
	bool may_hand_off;
	bool dead;     /* emitted; freed when refs drops to 0 */
	bool building; /* a root whose complete tree waits for the next emit to build it (paths.c) */
	bool pipe_head; /* requests after its own were cut off its message (pipeline.h) */
	bool pipe_tail; /* cut off the message of the request before it (pipeline.h) */
	bool killed;	/* server: its process died of a signal with this reply begun (paths.c) */
	/*
	 * A message the server sent unasked on a subscribed connection (Redis
	 * pub/sub): no request bytes, its reply the push (exchanges.h).
	 */
	bool push;
	bool muxed; /* on a connection carrying several exchanges at once (socktab.h): never exact */
	bool plaintext; /* an HTTP/2 stream read inside TLS: its positions are the plaintext's (record.h) */
	/*
	 * The other direction's stream at this end when its request began: what
	 * a client had read, what a server had sent (other_known: any).  A
	 * server that had sent more than its client had read when the client
	 * sent the request was still answering an earlier one (vp_xchg__overlaps).
	 */
	bool other_known;
	uint32_t netns; /* of its socket (0: no connection record said) */
	uint32_t other_end;
	uint64_t
		sent_for; /* client: id of its sender's cause when it began (0: none), attribute.c */
	uint64_t refused_ts; /* server: a send of the thread serving it was refused then (latest) */
	uint32_t pid;
	struct vp_proc *proc; /* its process (attribution keeps them to the end) */
	uint32_t conn_index;  /* 0-based ordinal among this end's exchanges */
	char comm[VPR_COMM_LEN];
	struct vp_endpoint local, remote;
	bool have_tuple;
	int16_t remote_host; /* recorded host owning remote when the exchange began, -1: none */
	struct vp_msg req, rep;
	uint64_t setup_ns;   /* connection setup (TLS handshake) before this first exchange */
	struct vp_link link; /* client: how it was attached to its parent (evidence.h) */
	struct vp_witness
		*wit; /* what the call was (proto/proto.h), set by stage 4; NULL: unknown */
	struct vp_wit_req *wit_req; /* the request's first bytes, until its reply's come */
	struct vp_propid *prop; /* the id its request carries (proto/propid.h); NULL: none seen */
	bool id_known; /* its request's captured bytes say for sure whether it carries one */
	bool id_mixed; /* a later operation of its request carries another id: two requests' bytes */
	/* Its request's first operation's captured bytes, for forwarded bytes (forward.h); NULL: none. */
	struct vp_wit_req *content;
	/* pending client: open requests that might claim it, each held (attribute.c) */
	struct vp_holdset *held;
	bool sent_among_open; /* client: requests of its process were open when it was sent */
	uint8_t woke_n;	      /* pending client: serving threads that woke its thread before it */
	struct vp_xchg
		*woke_for; /* pending client: the request of the last of them (a reference) */
	struct vp_xchg *
		woke_back; /* pending client: the request its thread woke after the reply (a reference) */
	bool back_confirms; /* pending Go call: its reader met woke_for's request too, after the reply */
	bool born_for;	/* pending Go call: woke_for is the request its goroutine was created for */
	bool h2_stream; /* an HTTP/2 stream cut by its frames (h2streams.h) */
	bool h2_data;	/* its request's first DATA frame came, at stream position h2_data_seq */
	uint32_t h2_data_seq;
	bool h2_back;	   /* pending Go call: woke_back is its reader's batch's (h2batch.h) */
	bool h2_req_ended; /* h2_stream: its request's END_STREAM was sent */
	uint32_t h2_id;	   /* h2_stream: its stream id */
	/*
	 * Pending Go call: the request of the goroutine whose grpc-go Write
	 * named its stream (gowrites.h; a reference), decides before wake-ups.
	 */
	struct vp_xchg *go_wrote_for;
	bool go_wrote_exact; /* client: linked exact by a grpc-go Write (gowrites.h) */
	bool go_wrote_mixed; /* pending Go call: Writes of goroutines of two requests named it */
	/*
	 * up when linked, as other hosts see it while hosts run in parallel:
	 * set when the join last ran (outbox.h), NULL when not linked then.
	 */
	struct vp_xchg *up_seen;
	struct vp_xchg *peer; /* the other end of the call, when recorded */
	struct vp_xchg *child_head, *child_tail, *sibling; /* server: calls it made */
	int32_t refs;	  /* threads whose current input cause is this exchange */
	int64_t deadline; /* matcher: give up after this (common timeline) */
	size_t heap_idx; /* matcher: position in the deadline heap, 0 = not in it, else index + 1 */
	struct vp_xchg *match_next;
	/* Beside the list: holding a process's open requests (attribute.c) walks it adding to wait. */
	int32_t wait;
	struct vp_xchg *list_prev, *list_next;	 /* process list: open servers or pending clients */
	struct vp_xchg *tlist_prev, *tlist_next; /* pending clients: their thread's list */
	struct vp_logline *logs,
		*logs_tail; /* server: log lines written for it, in time order (loglines.h) */
};

/*
 * Exchanges are allocated at the rate of requests: a free list avoids a
 * malloc/free pair for each.
 */
struct vp_xpool {
	struct vp_xchg *free;
	uint64_t next_id; /* one pool per host: ids begin at host << 48 */
	uint64_t live;	  /* allocated and not yet put back */
};

/* A zeroed exchange with the next id, NULL on ENOMEM. */
struct vp_xchg *vp_xpool__get(struct vp_xpool *p);
void vp_xpool__put(struct vp_xpool *p, struct vp_xchg *x);
void vp_xpool__free(struct vp_xpool *p);

/* The thread whose work this exchange shows: client request sender, server reply sender. */
static inline uint32_t vp_xchg__actor(const struct vp_xchg *x)
{
	if (x->side == VP_SERVER && x->has_rep)
		return x->rep.last_tid;
	return x->req.first_tid;
}

/*
 * One of several requests sent in one message (a pipeline cut by its
 * witness): which of them a call the server made while holding them all
 * belongs to is the server's order, not evidence, so such links are inferred.
 */
static inline bool vp_xchg__pipelined(const struct vp_xchg *x)
{
	return x->pipe_head || x->pipe_tail;
}

/*
 * A request that may be several: pipelined, or a server exchange cut by
 * bytes on a multiplexed connection (its message may hold several streams,
 * frames not read: --no-frames, TLS not read, a connection older than the
 * recording).  A call made while serving it is that request's only as far
 * as the message goes: which of the requests in it made the call is not
 * known (tests/h2 nginx-grpc, nginx's calls for the front's streams).
 */
static inline bool vp_xchg__holds_several(const struct vp_xchg *x)
{
	return vp_xchg__pipelined(x) || (x->side == VP_SERVER && x->muxed);
}

/*
 * The two ends of a call show that the client sent its request while a reply
 * to an earlier one was still on its way: the server had sent bytes before
 * reading this request that the client had not read when it sent it.  A
 * synchronous protocol never does that (its client reads the whole reply
 * first); a multiplexed or pipelined one does, and so does a server that
 * speaks unasked (Redis pub/sub): either way the connection's messages are
 * not one exchange each.  Stream positions only, so no clock is involved.
 */
static inline bool vp_xchg__overlaps(const struct vp_xchg *client, const struct vp_xchg *server)
{
	return client->other_known && server->other_known &&
	       (int32_t)(server->other_end - client->other_end) > 0;
}

/* Last activity of the exchange, host clock. */
static inline uint64_t vp_xchg__end_ts(const struct vp_xchg *x)
{
	return x->has_rep ? x->rep.last_ts : x->req.last_ts;
}

#endif
