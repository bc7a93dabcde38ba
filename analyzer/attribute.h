/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 5, attribution: which server exchange caused each client exchange
 * on the same host (intra-node causality).
 *
 * Two rules, one mechanism.  Each thread has a current cause: the server
 * exchange whose request it last read, or, when it last read the reply of
 * one of its own calls, that call's cause (BorderPatrol's event-driven
 * rule: output belongs to the request of the thread's most recent input).
 * A call sent while the current cause is still open belongs to it:
 * thread-per-request servers and event loops, also between the parts of a
 * reply sent in pieces.  A worker thread (one that never reads requests,
 * they are handed to it) loses its cause when it sends a reply, because its
 * next request comes from elsewhere; without a cause it holds its calls as
 * pending until it sends a reply: vPath's rule, the calls it sent within
 * [request received, reply sent] belong to that exchange.  Pending calls that no open request can
 * claim any more are roots (a cron job, a load generator).
 *
 * Opening a connection is an output too (BorderPatrol): an event loop that
 * connects for request R and sends R's call once the connection is up, after
 * reading other requests meanwhile, has the call attributed to R.
 *
 * Per process, the kinds of evidence are counted to name its model.
 */
#ifndef VPATH_ATTRIBUTE_H
#define VPATH_ATTRIBUTE_H

#include "gowrites.h"
#include "h2batch.h"
#include "hashmap.h"
#include "idseen.h"
#include "judge.h"
#include "loglines.h"
#include "socktab.h"
#include "paths.h"
#include "xchg.h"

/* Requests a thread holds input of at once; an event loop past this counts as "many". */
#define VP_INFLIGHT_MAX 32

struct vp_thread {
	uint32_t tid, pid;
	struct vp_proc *proc; /* cache of its process, see thread_proc */
	char comm[VPR_COMM_LEN];
	struct vp_xchg *cur;	/* current cause (holds a reference) */
	bool reads_requests;	/* it reads requests itself: not a worker fed by a dispatcher */
	struct vp_xchg pending; /* list head (tlist links): its calls waiting for its reply */
	uint64_t last_req_id;
	uint64_t last_req_ts;
	/*
	 * The connection it read its first request on, and whether it read
	 * requests on another since: then it may be an event loop, whose timers
	 * write lines between and during its requests, so its lines are not
	 * the current request's by evidence (vp_attr__log).
	 */
	uint64_t req_conn;
	bool several_conns;
	/* The request it answered last, while no input came since (a reference). */
	struct vp_xchg *answered;
	/*
	 * Requests in flight on this thread: it read their input (request, or
	 * a reply to one of their calls) and has not finished them.  A request
	 * leaves when done (the next request on its connection, or a close):
	 * one that has replied may still send more.  Each holds a reference.
	 * The calls the thread sends choose among these (judge.h).
	 */
	struct vp_xchg *inflight[VP_INFLIGHT_MAX];
	uint8_t ninflight;
	bool inflight_overflow; /* more than VP_INFLIGHT_MAX at once: never exact */
	uint64_t replies;	/* replies it sent */
	/*
	 * When it last read a request after sending a reply (a new turn of its
	 * loop), and whether it sent one since its last read (handoff.h).
	 */
	uint64_t turn_ts;
	bool sent_since_read;
	/* Wake-ups since its last socket operation by threads serving one request (attr__wake). */
	struct vp_xchg *woke_for;    /* the request of the last of them (a reference) */
	uint8_t woke_n;		     /* how many different requests (255: many) */
	struct vp_xchg *awaits_back; /* its pending call whose reply it read last (a reference) */
	struct vp_h2batch *h2b; /* a Go HTTP/2 reader's last read (h2batch.h), NULL: none yet */
	bool chain_only;	/* made by a wake-up between Go units, no socket operation since */
	uint64_t born_ns;	/* Go units: when their creation was seen (0: not seen) */
	/*
	 * Go units: the request of the goroutine that created it, if that one
	 * served one request alone or had such a request itself (a reference,
	 * let go once that request is done or the unit turns out a loop);
	 * kept whatever wakes it later.  call_io: it sent a call or read the
	 * start of a reply (net/http's writeLoop, readLoop): a connection's
	 * loop, whose creator's request says nothing of the calls it carries.
	 */
	struct vp_xchg *lineage;
	bool call_io;
	/* Log lines it wrote serving no request it read: a worker's, claimed by its next reply. */
	struct vp_lineq lines;
};

struct vp_proc {
	uint32_t pid;
	int host;
	char comm[VPR_COMM_LEN];
	bool named_by_main;  /* comm came from the main thread */
	struct vp_xchg open; /* list head: server exchanges not done, by request time */
	struct vp_xchg
		pending; /* list head: client exchanges waiting for a reply by their thread */
	/*
	 * list head: Go calls with wake-up evidence that nothing else can claim,
	 * waiting for the process to show an executor's shape or not (the
	 * wake-up rule's gate, VP_WAKE_MIN_REPLIES); they hold their requests.
	 */
	struct vp_xchg shape_wait;
	/*
	 * The open requests its latest pending call holds, while the open list
	 * is as it was then (NULL: changed since, or let go of): the next
	 * pending call shares it (attribute.c, hold_open).
	 */
	struct vp_holdset *hold_cur;
	uint64_t served;      /* server exchanges with a reply */
	uint64_t handoff;     /* reply sent by another thread than the one that read the request */
	uint64_t interleaved; /* a thread answered a request after reading a newer one */
	uint32_t readers;     /* its threads that read requests themselves */
	uint64_t calls;	      /* client exchanges made */
	uint64_t calls_by_input, calls_by_reply, calls_by_connect, calls_root;
	uint64_t calls_by_wakeup; /* linked by the wake-up rule */
	uint64_t calls_exact;	  /* links to its calls (roots included) exact when made */
	uint64_t calls_unmade;	  /* of those, found later to be on a multiplexed connection */
	/*
	 * Propagated ids (vp_attr__propagated): calls that carried one, calls
	 * it linked, and calls an exact rule linked to another request than
	 * the one the id names (left inferred).
	 */
	uint64_t calls_with_id, calls_by_id, id_disagree;
	struct vp_idseen ids; /* the ids of its latest requests: one named twice decides nothing */
	/*
	 * Forwarded bytes (vp_attr__forwarded): calls they linked, calls an
	 * exact rule linked elsewhere (left inferred), and the contents of its
	 * latest requests (the same twice decides nothing).
	 */
	uint64_t calls_forwarded, fwd_disagree;
	struct vp_idseen contents;
	/*
	 * grpc-go's Writes (vp_attr__go_h2_write): calls they linked exact,
	 * and those an exact rule had linked elsewhere, or made ambiguous
	 * after (left inferred).
	 */
	uint64_t calls_by_gowrite, gowrite_disagree;
	/*
	 * A thread that reads requests replied to one another thread read: the
	 * threads carry more than one request each in turn (an M:N runtime such
	 * as Go's), so no thread rule decides a link in this process any more.
	 */
	bool mixed;
	/*
	 * It answered a client's long wait right after reading another's
	 * request (handoff.h): it hands work from client to client (a
	 * broker), so any call to it may hand work off.
	 */
	bool hands_off;
	/*
	 * Its goroutine records have begun (vp_attr__go_begins): from then on
	 * a thread that runs no known goroutine yet (a bare thread) says
	 * nothing of the process's shape, and no link of its is exact.
	 */
	bool go_seen;
	/*
	 * What the wake-up rule needs to know of this process (not of an
	 * earlier one with the same pid: both restart at a fork or exec).
	 */
	struct {
		uint32_t reader_calls;	 /* calls sent by a thread that reads requests */
		uint32_t reader_replies; /* requests answered by the thread that read them */
		uint32_t killed_by;	 /* the signal a thread of it died of (VPR_TASK EXIT) */
	} life;
	struct vp_judge judge; /* calls of its event loops still judged (judge.h) */
};

enum vp_model {
	VP_MODEL_CLIENT = 0, /* made calls, served none */
	VP_MODEL_THREAD_PER_REQUEST,
	VP_MODEL_DISPATCHER_WORKER,
	VP_MODEL_EVENT_DRIVEN,
	VP_MODEL_IDLE, /* neither */
};

/* Go units made by wake-ups alone that are kept (most goroutines never touch a socket). */
#define VP_CHAIN_KEEP 4096

struct vp_attr {
	int host;
	struct vp_hpaths *paths;
	struct u64map threads;		    /* tid -> vp_thread */
	struct u64map procs;		    /* pid -> vp_proc, kept to the end for reports */
	uint32_t chain_made[VP_CHAIN_KEEP]; /* their ids, oldest replaced first */
	/*
	 * tid -> struct vp_lineq: lines of threads no socket operation showed
	 * yet (a new pool worker, a housekeeping thread), kept apart so that a
	 * line never makes a thread attribution would not know of.
	 */
	struct u64map early_lines;
	/*
	 * Hash of a process name -> how many processes of that name have a
	 * thread that reads requests (as an integer): a forking server's.
	 */
	struct u64map reader_comms;
	uint32_t chain_next;
	struct vp_gowrites gowrites; /* grpc-go's Writes and the streams they name */
};

/*
 * A wake-up, the event the wake-up rule consumes whatever recorded it: in
 * process pid, unit `waker` made unit `woken` runnable at ts_ns (the host's
 * clock).  A unit is what attribution keys its threads by: the kernel
 * thread id for VPR_WAKEUP records; a producer of finer units (Go's
 * goroutines, VPR_GO_READY) feeds the same event with the keys it gives
 * the units its socket operations are attributed to.
 *
 * The rule (docs/analyzer.md, "wake-ups"): a call sent by a thread that
 * serves no request itself (an executor's worker) waits, pending; once its
 * thread has read the reply, the first thread serving exactly one request
 * that it wakes (the waiter on the future) is that request's, and the call
 * becomes its child with basis `wakeup`, decided once nothing else can
 * claim the call, and inferred (docs/analyzer.md says why).
 */
struct vp_wake {
	uint32_t pid;
	uint64_t waker, woken;
	uint64_t ts_ns;
	/*
	 * Go's units: one woken or created for a request passes it on to those
	 * it wakes or creates (net/http's client hands a call to its writeLoop
	 * from the handler's goroutine, a child of it, or further along).
	 */
	bool chain;
	bool created; /* chain: `woken` is a goroutine `waker` has just created */
};

void vp_attr__init(struct vp_attr *a, int host, struct vp_hpaths *paths);
void vp_attr__wake(struct vp_attr *a, const struct vp_wake *w);
void vp_attr__task(struct vp_attr *a, const struct vpr_task *t);
/* The signal that killed process pid (its threads' exit records), 0 if none did. */
uint32_t vp_attr__killed_by(struct vp_attr *a, uint32_t pid);
/* The thread's name for a new exchange (empty when never seen). */
const char *vp_attr__comm(struct vp_attr *a, uint32_t tid, uint32_t pid);
/* Hooks, one per kind of operation (exchanges.h), op is the operation. */
void vp_attr__server_request(struct vp_attr *a, struct vp_xchg *s, const struct vpr_sock_op *op,
			     bool first);
/*
 * op, sent by a server thread, is the first seen on s, an accepted
 * connection older than the recording with no request seen on it: the
 * reply to a call made before (handoff.h).
 */
void vp_attr__unasked(struct vp_attr *a, struct vp_sock *s, const struct vpr_sock_op *op);
void vp_attr__server_reply(struct vp_attr *a, struct vp_xchg *s, const struct vpr_sock_op *op,
			   bool first);
void vp_attr__server_done(struct vp_attr *a, struct vp_xchg *s);
/* Thread tid began connecting socket s (SYN_SENT): remember the request it serves. */
void vp_attr__connect(struct vp_attr *a, struct vp_sock *s, uint32_t tid);
/*
 * s closed before it was established (refused, unreachable, timed out): a
 * call of the request its opener was serving failed, with nothing on the
 * wire to show for it, so that request is incomplete.
 */
void vp_attr__connect_failed(struct vp_attr *a, struct vp_sock *s);
/*
 * Unit's send was refused at ts (the connection reset or shut): the request
 * it serves lost a call or part of its reply, unless it replies after that
 * (it went on: a retry, or a goodbye that found the peer gone); analysis.c
 * judges when the request is finished.
 */
void vp_attr__send_failed(struct vp_attr *a, uint32_t unit, uint64_t ts);
/* s goes away: drop what it remembers. */
void vp_attr__forget_sock(struct vp_attr *a, struct vp_sock *s);
void vp_attr__client_request(struct vp_attr *a, struct vp_xchg *c, const struct vpr_sock_op *op);
/* first: the reply's first bytes. */
void vp_attr__client_reply(struct vp_attr *a, struct vp_xchg *c, const struct vpr_sock_op *op,
			   bool first);
/*
 * Call c's request carries an id (c->prop), read after the operation that
 * sent it.  The requests its process had received and not finished when it
 * was sent are its candidates: when exactly one carries the same id, the
 * call is that request's, exact (basis propagated-id), unless an exact rule
 * already linked it elsewhere: then it is left inferred and counted as a
 * disagreement.  None or several, or the id was carried by more than one
 * of the process's latest requests (idseen.h): the other rules decide, as
 * without ids.
 */
void vp_attr__propagated(struct vp_attr *a, struct vp_xchg *c);
/* Server exchange x's request carries an id (x->prop): counted for its process.  -ENOMEM. */
int vp_attr__request_id(struct vp_attr *a, struct vp_xchg *x);
/*
 * Call c's request's first bytes were captured (c->content), right after
 * the operation that sent them.  When they are those of exactly one
 * request its process had open when it was sent (forward.h), the call is
 * that request's, exact (basis forwarded), as with a propagated id: an
 * exact rule that linked it elsewhere leaves it inferred, counted as a
 * disagreement.  c->content is let go.
 */
void vp_attr__forwarded(struct vp_attr *a, struct vp_xchg *c);
/* Server exchange x's request's first bytes were captured (x->content): counted.  -ENOMEM. */
int vp_attr__request_content(struct vp_attr *a, struct vp_xchg *x);
/*
 * A later operation of call c's request carried another id (two requests
 * pipelined in one message): its id link is no longer exact, and every
 * request open in its process may be missing the call hidden in it.
 */
void vp_attr__id_mixed(struct vp_attr *a, struct vp_xchg *c);
/*
 * A later operation of call c's request (the same message: its thread read
 * nothing back on the connection in between).  When it was sent by another
 * thread, or while its thread served another request than when the call
 * began, the message carries bytes of several requests' calls (HTTP/2
 * streams written one after another, a pipeline): vp_attr__muxed.
 */
void vp_attr__client_request_more(struct vp_attr *a, struct vp_xchg *c,
				  const struct vpr_sock_op *op);
/*
 * Call c is on a connection that carries several exchanges at once (its
 * message may hold several requests' calls, its reply another's): its
 * link is not exact, and every request open in its process now may be
 * missing a call hidden in it.  For the join (the two ends overlapped,
 * vp_xchg__overlaps) and for attribution's own findings.
 */
void vp_attr__muxed(struct vp_attr *a, struct vp_xchg *c);
/*
 * Process pid's calls or requests on a connection go unseen from now on (the
 * recorder lost its place in an HTTP/2 connection's frames): no link of the
 * process is exact any more, nor any request open in it now or later.
 */
void vp_attr__blind(struct vp_attr *a, uint32_t pid);
/*
 * Unit l->unit wrote log line l (loglines.h): it goes to the request the
 * unit serves, by the rules its calls follow (docs/analyzer.md, "log
 * lines"): the unit's current cause (basis thread, or last-input among
 * several in flight: inferred); a worker's line waits for the worker's next
 * reply (handoff); a unit that serves nothing keeps none: the line is freed.
 * Never exact where a call would not be (a mixed process, a multiplexed or
 * pipelined request), nor when its unit's cause changed while it was written,
 * nor when its write held other lines too (batched: a buffer filled earlier).
 */
void vp_attr__log(struct vp_attr *a, struct vp_logline *l);
/* Id of the unit's current cause, 0 when none (for a line that begins). */
uint64_t vp_attr__cause_id(struct vp_attr *a, uint64_t unit);
/* Client exchange c finished (next request, close, end of input). */
void vp_attr__client_done(struct vp_attr *a, struct vp_xchg *c);
/* Links to p's calls that are exact, judged ones included. */
static inline uint64_t vp_proc__calls_exact(const struct vp_proc *p)
{
	return p->calls_exact + p->judge.exact - p->calls_unmade;
}
/* End of input: every pending call is a root. */
void vp_attr__flush(struct vp_attr *a);
enum vp_model vp_proc__model(const struct vp_proc *p);
/* Its name (VPR_COMM_LEN bytes, NUL-padded): the paths' proc_comm hook (paths.h). */
const char *vp_proc__comm(const struct vp_proc *p);
const char *vp_model_name(enum vp_model m);
/*
 * grpc-go's client transport Write (VPR_GO_H2_WRITE): goroutine unit
 * `unit` of process pid named its stream sid at ts (gowrites.h).  The
 * stream is its call: exact when the goroutine serves one request alone
 * (the thread rule's evidence) and the match is unambiguous; else the
 * goroutine's request, by its creation, is what the wake-up rule takes
 * first (inferred).
 */
/*
 * Process pid's first goroutine record other than VPR_GO_PENDING (called
 * once per process): what its threads showed before it (its probes came
 * after its first requests) was the shape of threads that carry
 * goroutines, not of the program, and is forgotten; the requests open
 * then stay inferred.  From then on, or from its VPR_GO_PENDING, a link
 * the thread rules make from or to a bare thread of pid is inferred, and
 * the requests open then with it.
 */
void vp_attr__go_begins(struct vp_attr *a, uint32_t pid);
/*
 * Process pid exec'ed a Go program whose goroutines are not seen yet
 * (VPR_GO_PENDING): Go from now on, its threads bare; what they show is
 * forgotten at vp_attr__go_begins, its first other goroutine record.
 */
void vp_attr__go_pending(struct vp_attr *a, uint32_t pid);
void vp_attr__go_h2_write(struct vp_attr *a, uint32_t pid, uint64_t unit, uint32_t sid,
			  uint64_t ts);
/* Client stream c of process pid opened at ts: a Write waiting for it (gowrites.h). */
void vp_attr__go_h2_call(struct vp_attr *a, uint32_t pid, struct vp_xchg *c, uint64_t ts);
void vp_attr__free(struct vp_attr *a);

#endif
