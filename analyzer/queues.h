/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Queues as hops (stage 7, after the paths): a message a request's call
 * puts on a queue and a consumer takes off it later links the consumer's
 * work to that call, as an asynchronous hop, by the message's bytes.
 *
 * Redis lists, streams and pub/sub: a call whose witness says it pushed one message
 * (LPUSH or RPUSH, XADD, its queue and bytes whole in the capture:
 * vp_witness.qmsg) is a push; a consumer thread's wait (vp_witness_waits:
 * BRPOP/BLPOP, BLMOVE/BRPOPLPUSH/LMOVE/RPOPLPUSH, XREADGROUP/XREAD) whose
 * reply delivered one is a delivery, and so is a subscriber's push
 * (exchanges.h: each an exchange of its own after SUBSCRIBE, every one a
 * wait; the message goes to every subscriber, as AMQP's fan-out below).
 * The consumer's work on it is every request rooted in a call
 * that thread made from the delivery's reply to its next BRPOP/BLPOP:
 * each is hung under the push, with the delivery first, with basis
 * `queued` and the message's time in the queue (vp_call.queue_ns: the
 * push's arrival at the broker to the delivery's reply, on the broker's
 * clock when it was recorded).  The link is exact when exactly one push
 * seen carried the same list and bytes (the forwarded-bytes standard,
 * forward.h) and the work's call was a root of its own (nothing else
 * could have caused it); with several such pushes nothing is linked.  A
 * stream's entry (vp_witness.qid, its id) is decided by its id when both
 * sides gave it, exact; by bytes alone it is linked inferred (an entry can
 * be read again: XREAD readers, pending entries).
 *
 * Requests hang under other requests, so what takes part waits here: a
 * request with a push until each of its messages was delivered and the
 * work on it settled (at most VP_QUEUE_HOLD_NS of the recording's time
 * after its last push); a request rooted in a call of a consumer thread
 * (one that waited on a list) until that thread's next wait comes, which
 * says which delivery it belongs to (a BRPOP's exchange ends only when
 * the next command is sent, so the delivery comes after its work); a
 * delivery and its work until VP_QUEUE_SETTLE_NS after the next wait (the
 * publisher's request comes when its root call ends).  Everything else
 * passes straight through: without pushes and deliveries (no capture on a
 * Redis port, no Redis lists) the cost is a walk over each request's calls.
 *
 * RabbitMQ (AMQP 0-9-1, proto/amqp.c): a basic.publish with its whole
 * content is a push; a consumer's call (basic.ack, basic.consume, ...)
 * whose reply is one basic.deliver or basic.get-ok with its whole content
 * is a delivery, one that delivered nothing a wait.  The parsers say which
 * (vp_witness.qkind, qmsg), so every broker feeds the one matcher here.  A
 * broker that may deliver a message several times (AMQP: fan-out
 * exchanges, redeliveries) keeps a push as a candidate after a delivery,
 * and its request VP_QUEUE_SETTLE_NS after each, so each copy hangs under
 * the one publish.
 *
 * Through a relay (a proxy in TCP mode): a push below a push of the same
 * message is the outer one forwarded, one message; two deliveries of one
 * list message open together (the relay's and its client's) are not
 * exact.  A wait that comes after its thread's next one splits the
 * delivery its start falls in, and its own delivery ends where that one
 * did.  A relayed BRPOP's path can come seconds late, after the delivery
 * before it settled: a delivery is exact only when every exchange of its
 * wait's connection up to the next wait came as its work (conn_index).
 *
 * Limits: a publisher whose request ends more than VP_QUEUE_SETTLE_NS
 * after its message was delivered is not seen in time (the delivery's
 * work stays where the other rules put it); pushes made by a consumer's
 * work (a job queuing a job) are not followed; an entry several XREAD
 * readers read is linked to the first only; pub/sub's pushes read
 * several at once are told apart only by the fields the consumer's calls
 * carry (qread.h); a fan-out copy whose work settles more than VP_QUEUE_SETTLE_NS after the
 * previous copy's stays where it was.
 */
#ifndef VPATH_QUEUES_H
#define VPATH_QUEUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "request.h"

/* A delivery's work and its publisher may come this long after the next wait. */
#define VP_QUEUE_SETTLE_NS 1000000000LL
/*
 * A request waits this long after its last push for its messages'
 * deliveries; a consumer's call this long for its thread's next wait.
 */
#define VP_QUEUE_HOLD_NS 60000000000LL

struct vp_qpub;
struct vp_qpush;
struct vp_qdel;

/* A consumer thread: one that waited on a list. */
struct vp_qthread {
	int host;
	uint32_t pid, tid;
	int64_t last_wait; /* the latest start of a wait of it seen */
	int64_t known;	   /* vp_queues.now when its first wait came (queues.c, thread_get) */
};

/* A request rooted in a consumer thread's call, until the delivery it was made for is known. */
struct vp_qloose {
	struct vp_request *r;
	struct vp_qthread th;
};

struct vp_queues {
	vp_request_fn out; /* where requests go, in the end */
	void *ctx;
	int64_t now;	      /* the latest root end seen: the recording's time here */
	struct vp_qpub **pub; /* requests held for their pushes */
	size_t npub, pubcap;
	struct vp_qpush *push; /* their pushes, and those of requests gone out unmatched */
	size_t npush, pushcap;
	struct vp_qdel **del; /* deliveries, open or settling */
	size_t ndel, delcap;
	struct vp_qthread *thr; /* consumer threads */
	size_t nthr, thrcap;
	struct vp_qloose *loose;
	size_t nloose, loosecap;
	uint64_t hops, hops_exact; /* requests hung under a push; of those exact */
};

void vp_queues__init(struct vp_queues *q, vp_request_fn out, void *ctx);
/* A finished request (a vp_request_fn: ctx is the struct vp_queues); passed on now or later. */
void vp_queues__request(void *ctx, struct vp_request *r);
/* The end: every request held goes out, linked where the evidence decides. */
void vp_queues__flush(struct vp_queues *q);
/* Frees what is still held without passing it on (an analysis that failed). */
void vp_queues__free(struct vp_queues *q);

#endif
