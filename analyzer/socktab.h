/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 2a, connections of one host: the socket table (cookie -> 4-tuple,
 * role, lifetime).  Cookies are unique per socket per boot, so port reuse
 * never mixes two connections here; across hosts the ends are paired by
 * stream positions (matcher.h).  A socket seen only through its operations
 * (opened before the recording, without a preexisting record) still gets an
 * entry: its role is inferred (sockets__infer_role).
 */
#ifndef VPATH_SOCKTAB_H
#define VPATH_SOCKTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "endpoint.h"
#include "hashmap.h"
#include "messages.h"
#include "vpath/record.h"

struct vp_xchg;
struct vp_pipe;
struct vp_h2;

enum vp_role_source {
	VP_ROLE_RECORDED = 0,
	VP_ROLE_BY_PORT = 1,	   /* local or remote port is a known server port */
	VP_ROLE_BY_FIRST_SEND = 2, /* whoever sent first is the client */
};

struct vp_sock {
	uint64_t cookie;
	uint32_t pid;
	uint32_t netns;
	uint8_t role; /* enum vpr_role, VPR_ROLE_UNKNOWN until the first operation */
	uint8_t role_source;
	bool have_tuple;
	bool preexisting;
	int8_t dir; /* direction of the message in progress, -1 before the first */
	struct vp_endpoint local, remote;
	uint64_t first_ts, last_ts;
	struct vp_xchg *x;	    /* exchange in progress */
	struct vp_xchg *open_cause; /* request its opener was serving at connect() (a reference) */
	uint16_t open_candidates;   /* requests in flight on the opener then (evidence.h) */
	uint32_t nexch;		    /* exchanges begun: conn_index of the next one */
	int16_t remote_host; /* recorded host that owns remote (-1: none), when remote_host_known */
	bool remote_host_known;
	uint32_t nsetup; /* messages that were connection setup (greetings) */
	uint32_t nlate;	 /* reads of a request's tail after it was answered (messages.h) */
	bool saw_fin;	 /* a FIN was sent or received: the connection closes in order, not reset */
	bool tls;	 /* it began with a TLS handshake (VPR_OP_TLS_HS) */
	bool in_setup;	 /* the handshake is under way: no exchange yet */
	bool setup_replied; /* the handshake's reply direction has spoken */
	/*
	 * Several exchanges are in flight on it at once (HTTP/2, a pipeline):
	 * its messages are not one exchange each, so no link through it is
	 * exact (attribute.h, vp_attr__muxed).  Set from the HTTP/2 preface,
	 * or once an exchange on it is seen to overlap another.
	 */
	bool muxed;
	/*
	 * An exchange on it subscribed (Redis SUBSCRIBE): the server now sends
	 * unasked, and each reply-direction operation after a reply is a push
	 * of its own (exchanges.h).
	 */
	bool subscribed;
	/* Where each direction's stream stood after this end's last operation (the *_any: one seen). */
	uint32_t sent_end, recv_end;
	bool sent_any, recv_any;
	uint64_t setup_first_ts; /* when the handshake began: setup time of the first call */
	struct vp_cuts cuts; /* where this end's sent messages begin (the look-ahead fills it) */
	uint32_t ahead; /* its operations the look-ahead holds tagged with it, not analyzed yet */
	struct vp_pipe *pipe; /* pipelined requests waiting their turn (pipeline.h), NULL: none */
	struct vp_h2 *h2;     /* HTTP/2 streams cut by frames (h2streams.h), NULL: not followed */
	/*
	 * Its last operation (a Go unit's as attributed): a frame record that
	 * follows it is its part.  h2_preface_held: an operation that began the
	 * stream with HTTP/2's preface waits in it for frames to follow (then
	 * the frames cut the connection) or not (then the bytes do).
	 */
	struct vpr_sock_op last_op;
	bool last_op_valid;
	bool h2_preface_held;
	/*
	 * The held operation ended before a frame header could (the preface
	 * alone: grpc-go writes it so, nginx reads it so): it waits here, and
	 * the next operation is held in last_op, whose frames say what both
	 * were (setup and the first frames) or, none coming, the bytes cut
	 * both.  Cut by the bytes first, the preface's exchange would be a
	 * call on a connection carrying several at once, and blind the process
	 * (attribute.h) before the frames came to make it setup.
	 */
	struct vpr_sock_op h2_preface_op;
	bool h2_preface_alone;
	/*
	 * It sent or read HTTP/2's preface: its frame records count from then
	 * on (a server's SETTINGS is recorded on trust before, docs/format.md).
	 */
	bool h2_preface_seen;
	/*
	 * Its last plaintext operation (VPR_TLS_OP, libssl): a frame record read
	 * in the plaintext (VPR_H2_IN_TLS) follows it and is its part.  Such a
	 * connection's frames count from a plaintext preface on
	 * (tls_preface_seen); its ciphertext operations cut nothing once frames
	 * came.
	 */
	struct vpr_sock_op last_tls_op;
	bool last_tls_valid;
	bool tls_preface_seen;
	uint32_t req_next; /* where the next request begins, if its witness said (req_next_known) */
	bool req_next_known;
	uint8_t req_proto;	   /* the protocol that said it */
	struct vp_sock *peer_sock; /* the other end, once a call paired them (cleared on removal) */
	uint32_t last_unit;	   /* Go: the goroutine unit of its last operation (goroutines.h) */
	uint64_t closed_ts;	   /* when it closed (0: open); kept a while for its peer's sake */
	struct vp_sock *next_closed;
};

struct vp_socktab {
	struct u64map by_cookie;
	struct vp_sock *closed_head, *closed_tail; /* closed, in closing order, not yet removed */
	struct u64map server_ports;		   /* (family << 16 | port) of accepted ends here */
	uint64_t nsocks;			   /* sockets seen in all */
};

/* The socket of cookie, created on first sight.  NULL on ENOMEM. */
struct vp_sock *vp_socktab__get(struct vp_socktab *t, uint64_t cookie, uint64_t ts);
/* Apply a connection record; returns the socket (NULL on ENOMEM). */
struct vp_sock *vp_socktab__conn(struct vp_socktab *t, const struct vpr_conn *c);
/* Decide an unknown role from what the host knows, given the first operation's direction. */
void vp_socktab__infer_role(struct vp_socktab *t, struct vp_sock *s, uint8_t first_dir);
void vp_socktab__remove(struct vp_socktab *t, struct vp_sock *s);
/*
 * s closed at ts: keep it (its peer may still need where its messages began,
 * messages.h) until vp_socktab__reap is told that time has passed.
 */
void vp_socktab__closed(struct vp_socktab *t, struct vp_sock *s, uint64_t ts);
/* Remove the sockets that closed before `before` (host clock); gone(ctx, s) first, if set. */
void vp_socktab__reap(struct vp_socktab *t, uint64_t before,
		      void (*gone)(void *ctx, const struct vp_sock *s), void *ctx);
void vp_socktab__free(struct vp_socktab *t);

/* States only an orderly close (a FIN, either way) passes through; a reset goes straight to CLOSE. */
static inline bool vp_tcp_state__closing_orderly(uint8_t state)
{
	switch (state) {
	case 4:	 /* FIN_WAIT1 */
	case 5:	 /* FIN_WAIT2 */
	case 6:	 /* TIME_WAIT */
	case 8:	 /* CLOSE_WAIT */
	case 9:	 /* LAST_ACK */
	case 11: /* CLOSING */
		return true;
	default:
		return false;
	}
}

static inline bool vp_conn_record__closes(const struct vpr_conn *c)
{
	return c->newstate == 7; /* TCP_CLOSE */
}

#endif
