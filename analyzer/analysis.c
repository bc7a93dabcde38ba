// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis.h"
#include "clock.h"
#include "exchanges.h"
#include "fifo.h"
#include "h2blocks.h"
#include "h2data.h"
#include "goroutines.h"
#include "h2streams.h"
#include "matcher.h"
#include "owners.h"
#include "pairs.h"
#include "paths.h"
#include "queues.h"
#include "socktab.h"
#include "streams.h"
#include "workers.h"

#define DEFAULT_WINDOW_NS (1000ull * 1000 * 1000)
/*
 * Hosts are merged in quanta of the common timeline: the order across hosts
 * only matters at the scale of the join window (attribution is per host, in
 * exact local order), and coarse merging keeps the merge out of the profile.
 */
#define MERGE_QUANTUM_NS (2ull * 1000 * 1000)
#define ADVANCE_EVERY 1024
/*
 * Every host is read this far ahead of the analysis (common timeline), so a
 * receiver's operation is analyzed after its sender's was seen: more than the
 * merge quantum plus a send stamped after its receipt on one machine, and
 * than clock error between machines once aligned.
 */
#define LOOKAHEAD_NS (20ull * 1000 * 1000)
/* Finished exchanges waiting for their peer: a second of a busy system is far less. */
#define MATCH_MAX (1u << 20)
/*
 * The default thread count is found by timing: the join runs on one thread,
 * so whether more pay depends on the input (how much of the work lies
 * inside hosts) and on what else the machine runs.  Every TUNE_EVERY quanta
 * a window of TUNE_PROBE quanta runs on one thread, then one on all, and
 * the faster (records per second of wall time) is kept until the next; the
 * output is the same either way.
 */
#define TUNE_PROBE 64
#define TUNE_EVERY 2048

/*
 * One host's stages.  While the hosts of a quantum run in parallel, a host
 * writes only here (and its pool); it reads other hosts' sockets, cuts and
 * stream ends, which only the look-ahead and the join change, and their
 * links as the join last saw them (xchg.h, up_seen).
 */
struct host_state {
	struct vp_host *host;
	struct vp_socktab socks;
	struct vp_attr attr;
	struct vp_gor gor;	  /* Go processes' goroutines, the units their operations go to */
	struct vp_hpaths paths;	  /* its outbox: what the join applies after the quantum */
	struct vp_fifo ahead;	  /* read and seen by the look-ahead, not analyzed yet */
	struct vp_fifo conns;	  /* connection records the look-ahead saw, for the stream table */
	struct vp_loglines lines; /* log lines being cut (loglines.h) */
	uint64_t events, exchanges;
	bool at_end; /* every record is in ahead */
	bool ended;
};

struct vp_analysis {
	struct vp_input *in;
	size_t nhosts;
	struct host_state *hs;
	struct vp_clocks clocks;
	struct vp_matcher matcher;
	struct vp_pairs pairs; /* --pairs: the matcher asks these */
	struct vp_paths paths;
	struct vp_queues queues;   /* between the paths and on_request: queue hops */
	struct vp_streams streams; /* ends by 4-tuple, from the look-ahead */
	struct vp_owners owners;   /* which host owns an address */
	struct vp_workers workers;
	struct {
		bool on;	  /* the thread count is the default: time it */
		int phase;	  /* 0: probing one thread, 1: all, 2: keeping the faster */
		unsigned quanta;  /* in this phase */
		uint64_t t0, ev0; /* when the phase began, records analyzed by then */
		double rate[2];	  /* records per ns of the probes */
	} tune;
	uint64_t window_ns;
	bool no_frames; /* opts.no_frames */
	int64_t horizon;
	int64_t until;	    /* end of the quantum the hosts are analyzing (common timeline) */
	int64_t look_until; /* how far the look-ahead reads (common timeline) */
};

/* The paths' batches (paths.h, run) on the analysis's threads. */
static void run_jobs(void *ctx, vp_job_fn first, size_t n, vp_job_fn fn, void *fn_ctx)
{
	vp_workers__run_first(ctx, first, fn_ctx, n, fn, fn_ctx);
}

int vp_analysis__new(struct vp_analysis **out, char *const *files, int nfiles,
		     const struct vp_analysis_opts *opts, char *err, size_t errlen)
{
	struct vp_input_opts io = {.reorder_ns = opts->reorder_ns,
				   .threads = opts->threads ? opts->threads : vp_workers__cpus()};
	struct vp_analysis *a;
	const char **boot_ids = NULL;
	const struct vp_host **hosts = NULL;
	int64_t *wall = NULL, *starts = NULL;
	unsigned threads;
	int ret;

	*out = NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	ret = vp_input__open(&a->in, files, nfiles, &io, err, errlen);
	if (ret)
		goto cleanup;
	a->nhosts = vp_input__nhosts(a->in);
	a->window_ns = opts->window_ns ? opts->window_ns : DEFAULT_WINDOW_NS;
	a->no_frames = opts->no_frames;
	a->hs = calloc(a->nhosts, sizeof(*a->hs));
	wall = calloc(a->nhosts, sizeof(*wall));
	starts = calloc(a->nhosts, sizeof(*starts));
	boot_ids = calloc(a->nhosts, sizeof(*boot_ids));
	hosts = calloc(a->nhosts, sizeof(*hosts));
	if (!a->hs || !wall || !starts || !boot_ids || !hosts) {
		ret = -ENOMEM;
		goto cleanup;
	}
	a->horizon = INT64_MIN;
	for (size_t i = 0; i < a->nhosts; i++) {
		struct vp_host *h = vp_input__host(a->in, i);

		wall[i] = h->wall_offset_ns;
		starts[i] = h->start_real_ns;
		boot_ids[i] = h->boot_id;
		hosts[i] = h;
	}
	if ((ret = vp_clocks__init(&a->clocks, a->nhosts, boot_ids, wall, starts)) ||
	    (ret = vp_owners__init(&a->owners, hosts, a->nhosts)))
		goto cleanup;
	if (opts->pairs) {
		if ((ret = vp_pairs__load(&a->pairs, opts->pairs, hosts, a->nhosts, err, errlen)))
			goto cleanup;
		/* Pairs of other hosts only: the wrong file, not a system without calls. */
		if (a->pairs.calls && !a->pairs.nends) {
			snprintf(err, errlen,
				 "%s: none of its %" PRIu64 " calls is between the hosts given",
				 opts->pairs, a->pairs.calls);
			ret = -EINVAL;
			goto cleanup;
		}
		a->matcher.pairs = &a->pairs;
	}
	/*
	 * A finished request waits one reorder window (drop records reporting
	 * loss inside it may still come), not the join window: that would
	 * hold a second of traffic in memory.
	 */
	vp_queues__init(&a->queues, opts->on_request, opts->ctx);
	if ((ret = vp_paths__init(&a->paths, vp_input__host(a->in, 0), a->nhosts, a->clocks.offset,
				  vp_input__reorder_ns(a->in), vp_queues__request, &a->queues)))
		goto cleanup;
	a->paths.on_xchg = opts->on_xchg;
	a->paths.xchg_ctx = opts->xchg_ctx;
	a->paths.proc_comm = vp_proc__comm;
	for (size_t i = 0; i < a->nhosts; i++) {
		a->hs[i].host = vp_input__host(a->in, i);
		vp_hpaths__init(&a->hs[i].paths, &a->paths, (int)i);
		vp_attr__init(&a->hs[i].attr, (int)i, &a->hs[i].paths);
		vp_gor__init(&a->hs[i].gor);
	}
	/* More threads than hosts would have nothing to do. */
	threads = opts->threads ? opts->threads : vp_workers__cpus();
	if (threads > a->nhosts)
		threads = (unsigned)a->nhosts;
	if ((ret = vp_workers__init(&a->workers, threads))) {
		snprintf(err, errlen, "cannot start %u threads: %s", threads, strerror(-ret));
		goto cleanup;
	}
	a->paths.run = run_jobs;
	a->paths.run_ctx = &a->workers;
	if (!opts->threads && a->workers.n > 1) {
		a->tune.on = true;
		a->workers.use = 1; /* the first probe */
	}
	*out = a;
	a = NULL;
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(wall);
	free(starts);
	free(boot_ids);
	free(hosts);
	vp_analysis__free(a);
	return ret;
}

/* Which recorded host owns x's remote address; remembered per socket (a scan of every address). */
static int remote_host(const struct vp_analysis *a, const struct vp_xchg *x)
{
	struct vp_sock *s = x->sock;
	int owner;

	if (!x->have_tuple)
		return -1;
	if (s && s->have_tuple && s->remote_host_known)
		return s->remote_host;
	owner = vp_owners__of(&a->owners, &x->remote);
	/* An owner not known yet may be learned (owners.h): ask again next time. */
	if (s && s->have_tuple && (owner >= 0 || vp_owners__settled(&a->owners))) {
		s->remote_host = (int16_t)owner;
		s->remote_host_known = true;
	}
	return owner;
}

static enum vp_peer_where where_is_peer(const struct vp_analysis *a, const struct vp_xchg *x)
{
	if (!x->have_tuple)
		return VP_PEER_UNKNOWN;
	return vp_owners__where(&a->owners, x->remote_host, &x->remote);
}

/*
 * The two sockets of a call know each other from now on, so a receiver's
 * messages can be cut where the sender's begin (messages.h).  The exchanges
 * may be finished already (a host is analyzed up to a merge quantum ahead):
 * the sockets are found by cookie while they live.
 */
static void link_sockets(struct vp_analysis *a, const struct vp_xchg *c, const struct vp_xchg *s)
{
	struct vp_sock *cs =
		c->sock ? c->sock : u64map__get(&a->hs[c->host].socks.by_cookie, c->cookie);
	struct vp_sock *ss =
		s->sock ? s->sock : u64map__get(&a->hs[s->host].socks.by_cookie, s->cookie);

	if (cs && ss && cs->peer_sock != ss) {
		if (cs->peer_sock)
			cs->peer_sock->peer_sock = NULL;
		if (ss->peer_sock)
			ss->peer_sock->peer_sock = NULL;
		cs->peer_sock = ss;
		ss->peer_sock = cs;
	}
}

/*
 * The client sent c while a reply was on its way (xchg.h): the connection
 * carries several exchanges at once, from now on at both ends, and this
 * call's own ends may each hold parts of several.  The join runs while no
 * host is analyzed, so it may change their attribution.  Everything on it
 * still to be emitted is marked too (paths.h): the earlier exchanges' cuts
 * were no better, the one whose reply was still coming first of all.
 */
static void overlapped(struct vp_analysis *a, struct vp_xchg *c, struct vp_xchg *s)
{
	struct vp_sock *cs =
		c->sock ? c->sock : u64map__get(&a->hs[c->host].socks.by_cookie, c->cookie);
	struct vp_sock *ss =
		s->sock ? s->sock : u64map__get(&a->hs[s->host].socks.by_cookie, s->cookie);

	if (cs)
		cs->muxed = true;
	if (ss)
		ss->muxed = true;
	vp_attr__muxed(&a->hs[c->host].attr, c);
	s->muxed = s->tainted = true;
	/*
	 * Its earlier calls, built and waiting to be emitted, were on it too,
	 * and any request of the caller may have had its call hidden in one
	 * of its messages, before or after this one.
	 */
	vp_paths__muxed(&a->paths, c->host, c->cookie);
	vp_paths__muxed(&a->paths, s->host, s->cookie);
	vp_attr__blind(&a->hs[c->host].attr, c->pid);
	vp_paths__blind(&a->paths, c->host, c->pid);
}

/* Stream positions paired the two ends of a call: link them and learn the clocks. */
static void pair(struct vp_analysis *a, struct vp_xchg *x, struct vp_xchg *y)
{
	struct vp_xchg *c = x->side == VP_CLIENT ? x : y;
	struct vp_xchg *s = x->side == VP_CLIENT ? y : x;

	/* A call under its own server end (odd or damaged input): keep them apart. */
	if (vp_paths__is_ancestor(s, c)) {
		vp_paths__peer_gone(&a->paths, c);
		vp_paths__peer_gone(&a->paths, s);
		return;
	}

	/* A socket seen only through its operations learns its address from the peer. */
	if (!c->have_tuple && s->have_tuple) {
		c->local = s->remote;
		c->remote = s->local;
		c->have_tuple = true;
	} else if (!s->have_tuple && c->have_tuple) {
		s->local = c->remote;
		s->remote = c->local;
		s->have_tuple = true;
	}
	/* Before the link, which may complete the tree. */
	if (vp_xchg__overlaps(c, s))
		overlapped(a, c, s);
	vp_paths__link_peer(&a->paths, c, s);
	link_sockets(a, c, s);

	vp_clocks__sample(&a->clocks, c->host, c->req.first_ts, s->host, s->req.first_ts);
	if (c->has_rep && s->has_rep)
		vp_clocks__sample(&a->clocks, s->host, s->rep.first_ts, c->host, c->rep.first_ts);
}

static void new_exchange(struct vp_analysis *a, struct host_state *hs, struct vp_xchg *x,
			 const struct vpr_sock_op *op)
{
	enum vp_peer_where where;

	x->remote_host = (int16_t)remote_host(a, x);
	where = where_is_peer(a, x);
	hs->exchanges++;
	if (x->side == VP_SERVER)
		vp_attr__server_request(&hs->attr, x, op, true);
	else {
		vp_attr__client_request(&hs->attr, x, op);
		vp_attr__go_h2_call(&hs->attr, op->pid, x, op->h.ts_ns);
	}
	x->peer_expected = where == VP_PEER_RECORDED;
	if (where == VP_PEER_EXTERNAL)
		vp_hpaths__peer_gone(&hs->paths, x);
	else /* pairing is the join's */
		vp_outbox__push(&hs->paths.out, VP_OUT_NEW, x);
}

static int64_t give_up_at(struct vp_analysis *a, const struct vp_xchg *x)
{
	int64_t at =
		vp_paths__aligned(&a->paths, x->host, vp_xchg__end_ts(x)) + (int64_t)a->window_ns;
	int owner = x->remote_host; /* still right: x waits for its peer, so learned no tuple */
	int64_t doubt = 0;

	if (owner >= 0) {
		doubt = vp_clocks__doubt(&a->clocks, x->host, owner);
	} else {
		for (size_t i = 0; i < a->nhosts; i++) {
			int64_t d = vp_clocks__doubt(&a->clocks, x->host, (int)i);

			doubt = d > doubt ? d : doubt;
		}
	}
	return at + doubt;
}

static void finished(struct host_state *hs, struct vp_xchg *x)
{
	/* A send refused while serving it, and no reply bytes after: cut there. */
	if (x->refused_ts && !(x->has_rep && x->rep.last_ts > x->refused_ts))
		x->incomplete = true;
	if (x->side == VP_SERVER)
		vp_attr__server_done(&hs->attr, x);
	else
		vp_attr__client_done(&hs->attr, x);
	/* Waiting for its peer from now on (the join's matcher). */
	vp_outbox__push(&hs->paths.out, VP_OUT_FINISHED, x);
	vp_hpaths__done_one(&hs->paths, x);
}

/*
 * The sender's end of s's stream, before a call on it has paired them
 * (link_sockets): by 4-tuple, the end one of whose messages began where s's
 * current request began (stream positions tell reused ports apart).
 */
static void find_sender(struct vp_analysis *a, struct vp_sock *s)
{
	for (struct vp_stream_end *e = vp_streams__find(&a->streams, &s->remote, &s->local); e;
	     e = e->next) {
		struct vp_sock *p;

		if (!vp_endpoint__equal(&e->local, &s->remote) ||
		    !vp_endpoint__equal(&e->remote, &s->local))
			continue;
		p = u64map__get(&a->hs[e->host].socks.by_cookie, e->cookie);
		if (p && p != s && vp_cuts__has(&p->cuts, s->x->req.seq_start)) {
			s->peer_sock = p;
			return;
		}
	}
}

struct reaping {
	struct vp_analysis *a;
	int host;
};

/* A closed socket is removed: its 4-tuple names it no more. */
static void socket_gone(void *ctx, const struct vp_sock *s)
{
	struct reaping *r = ctx;

	/* Its operations still ahead look it up again (and find none, as before). */
	if (s->ahead)
		vp_fifo__untag(&r->a->hs[r->host].ahead, s);
	if (s->have_tuple)
		vp_streams__forget(&r->a->streams, r->host, s->cookie, &s->local, &s->remote);
}

static void on_reply(struct host_state *hs, struct vp_xchg *x, const struct vpr_sock_op *op,
		     bool first)
{
	if (x->side == VP_SERVER)
		vp_attr__server_reply(&hs->attr, x, op, first);
	else
		vp_attr__client_reply(&hs->attr, x, op, first);
	/* Its peer is another host's: the join takes the clock sample. */
	if (first)
		vp_outbox__push(&hs->paths.out, VP_OUT_REPLY, x);
}

/* Pipelined requests of s whose turn came (pipeline.h), each begun as it was carried. */
static void steps(struct vp_analysis *a, struct host_state *hs, int h, struct vp_sock *s)
{
	struct vp_step st;
	int r;

	while ((r = vp_exchanges__step(s, h, &a->paths.pools[h], &st)) > 0) {
		finished(hs, st.finished);
		new_exchange(a, hs, st.x, &st.req_op);
		if (st.rep)
			on_reply(hs, st.x, &st.rep_op, true);
	}
	if (r < 0)
		abort(); /* out of memory: no sensible partial result */
}

/*
 * A Go process's operation is its goroutine's: op with the unit's id for
 * the thread's.  A goroutine reading a socket its creator was the last to
 * use is its creator there (net/http's background read of the next request).
 */
static const struct vpr_sock_op *goroutine_op(struct host_state *hs, struct vp_sock *s,
					      const struct vpr_sock_op *op, struct vpr_sock_op *buf)
{
	struct vp_gor_unit *u = vp_gor__of_thread(&hs->gor, op->h.tid);
	uint32_t id;

	if (!u)
		return op;
	id = u->id;
	if (op->dir == VPR_DIR_RECV && s->last_unit && u->parent == s->last_unit)
		id = s->last_unit;
	s->last_unit = id;
	*buf = *op;
	buf->h.tid = id;
	return buf;
}

/* Stage 4 by the bytes (exchanges.h): op begins, continues or ends s's exchange. */
static void byte_op(struct vp_analysis *a, struct host_state *hs, int h, struct vp_sock *s,
		    const struct vpr_sock_op *op)
{
	struct vp_op_result res;
	struct vp_xchg *x;

	/* A read after replying: the tail of that request, or the next one?  The sender knows. */
	if (!s->peer_sock && s->x && s->x->has_rep && s->have_tuple &&
	    vp_exchanges__sender_cuts(s) && op->dir == VPR_DIR_RECV)
		find_sender(a, s);
	if (vp_exchanges__op(s, op, h, &a->paths.pools[h], &res))
		abort();
	if (res.finished)
		finished(hs, res.finished);
	x = res.x;
	switch (res.kind) {
	case VP_OP_REQ_FIRST:
		new_exchange(a, hs, x, op);
		break;
	case VP_OP_REQ_MORE:
		if (x->side == VP_SERVER)
			vp_attr__server_request(&hs->attr, x, op, false);
		else
			vp_attr__client_request_more(&hs->attr, x, op);
		break;
	case VP_OP_REP_FIRST:
	case VP_OP_REP_MORE:
		on_reply(hs, x, op, res.kind == VP_OP_REP_FIRST);
		break;
	case VP_OP_PUSH:
		new_exchange(a, hs, x, &res.req_op);
		on_reply(hs, x, op, true);
		break;
	case VP_OP_SETUP:
		/* A reply to a request made before the recording: a wait it began in (handoff.h)? */
		if (s->preexisting && s->role == VPR_ROLE_ACCEPTED && op->dir == VPR_DIR_SEND &&
		    !s->x && s->nsetup == 1)
			vp_attr__unasked(&hs->attr, s, op);
		break;
	default:
		break;
	}
	steps(a, hs, h, s);
}

/* No frame header ends in op, the stream's first with the preface: no frame record follows it. */
static bool ends_before_a_frame(const struct vpr_sock_op *op)
{
	return op->bytes < VPR_H2_PREFACE_LEN + VP_H2_FRAME_HDR;
}

/*
 * The operations held for the frames that would follow them, when none did:
 * the bytes decide.  next: the operation that releases them, NULL at a
 * close.  A preface that ends before a frame header could is held on with
 * next, whose frames decide for both: true then, next is held.
 */
static bool release_preface(struct vp_analysis *a, struct host_state *hs, int h, struct vp_sock *s,
			    const struct vpr_sock_op *next)
{
	struct vpr_sock_op held = s->last_op;

	if (!s->h2_preface_held)
		return false;
	if (next && !s->h2_preface_alone && ends_before_a_frame(&held)) {
		s->h2_preface_op = held;
		s->h2_preface_alone = true;
		return true;
	}
	s->h2_preface_held = false;
	if (s->h2_preface_alone) {
		struct vpr_sock_op preface = s->h2_preface_op;

		s->h2_preface_alone = false;
		byte_op(a, hs, h, s, &preface);
	}
	byte_op(a, hs, h, s, &held);
	return false;
}

/* s: the operation's socket as the look-ahead found it, or NULL to look it up. */
static void on_op(struct vp_analysis *a, struct host_state *hs, int h, const struct vpr_sock_op *op,
		  struct vp_sock *s)
{
	struct vpr_sock_op gop;
	bool held;

	if (s)
		s->ahead--;
	else if (!(s = vp_socktab__get(&hs->socks, op->cookie, op->h.ts_ns)))
		abort();
	op = goroutine_op(hs, s, op, &gop);
	if (a->no_frames && (op->flags & VPR_OP_H2_PREFACE)) {
		gop = *op;
		gop.flags &= (uint8_t)~VPR_OP_H2_PREFACE;
		op = &gop;
	}
	if (!s->pid)
		s->pid = op->pid;
	if (s->role == VPR_ROLE_UNKNOWN)
		vp_socktab__infer_role(&hs->socks, s, op->dir);
	/*
	 * Bytes a client end sent after its connection closed: the peer's host
	 * reset it in answer to them before the send returned (a peer gone).
	 * Nobody read them, so they are no exchange, and the request the
	 * sender serves lost its call; on TLS, a message this small is the
	 * close_notify of a goodbye.
	 */
	if (s->closed_ts && op->dir == VPR_DIR_SEND && op->bytes && s->role == VPR_ROLE_CONNECTED &&
	    !(s->tls && op->bytes <= VP_TLS_ALERT_MAX))
		vp_attr__send_failed(&hs->attr, op->h.tid, op->h.ts_ns);
	held = release_preface(a, hs, h, s, op);
	/* The frame records that follow say what its bytes were (h2streams.h). */
	s->last_op = *op;
	s->last_op_valid = true;
	if (s->h2) {
		s->h2_preface_seen |= (op->flags & VPR_OP_H2_PREFACE) != 0;
		return;
	}
	/*
	 * Inside TLS, once plaintext came (the recorder writes VPR_TLS_OPs only
	 * on connections it walks as HTTP/2, on trust at least): the first
	 * frame makes what came before setup, and the ciphertext cuts nothing
	 * meanwhile.  A gRPC server's SETTINGS read before the client's
	 * preface was sent would otherwise end the handshake as an exchange
	 * of its own, a call (Go's crypto/tls, tests/h2 go-grpc-tls).
	 */
	if (s->tls && s->last_tls_valid)
		return;
	/* The client's preface, in the connection's first operation: frames should follow. */
	if (op->flags & VPR_OP_H2_PREFACE) {
		s->h2_preface_seen = s->h2_preface_held = true;
		return;
	}
	if (!held)
		byte_op(a, hs, h, s, op);
}

/* The streams of a followed HTTP/2 connection that are still open end, cut (h2streams.h). */
static void end_streams(struct host_state *hs, struct vp_sock *s)
{
	struct vp_xchg *x;

	while ((x = vp_h2__take_open(s)))
		finished(hs, x);
}

/* x's request's first bytes, or their hashes, just came: a relay's call carries a request's (forward.h). */
static void content_came(struct host_state *hs, struct vp_xchg *x, bool had_content)
{
	if (!x || had_content || !x->content)
		return;
	if (x->side == VP_CLIENT)
		vp_attr__forwarded(&hs->attr, x);
	if (x->side == VP_SERVER && vp_attr__request_content(&hs->attr, x))
		abort(); /* out of memory: a repeat not counted could decide wrongly */
}

/* A frame record (VPR_H2_FRAME): its stream's exchange moves on (h2streams.h). */
/*
 * A HEADERS or CONTINUATION frame's block: its captured bytes, written
 * beside the frame's record and kept aside by the read stage since
 * (payloads.h), decoded for its stream's exchange x.
 */
static bool h2_block_take(struct vp_analysis *a, int h, const struct vpr_h2_frame *f,
			  struct vpr_payload *p)
{
	struct vpr_payload head = {0};

	head.h.type = VPR_PAYLOAD; /* the table keeps log lines too (payloads.c same_op) */
	head.h.tid = f->h.tid;
	head.h.ts_ns = f->h.ts_ns;
	head.cookie = f->cookie;
	head.dir = f->dir;
	head.seq_end = f->seq + VP_H2_FRAME_HDR + f->length;
	head.flags = VPR_PAYLOAD_H2_FRAME;
	return vp_input__payload(a->in, (size_t)h, &head.h, p);
}

static int h2_block(struct vp_analysis *a, int h, struct vp_sock *s, const struct vpr_h2_frame *f,
		    struct vp_xchg *x, bool first)
{
	struct vpr_payload p;
	unsigned d = f->dir & 1;

	if (h2_block_take(a, h, f, &p))
		return vp_h2__block(s, f, &p, x, first);
	/* Its record may come with the direction's next operation (h2state.h pending). */
	s->h2->pending[d] = true;
	s->h2->pending_first[d] = first;
	s->h2->pending_frame[d] = *f;
	return 0;
}

/* The id x's HEADERS carried, read from its block now, as on_payload() gives an HTTP/1.x request's. */
static void h2_id_read(struct host_state *hs, struct vp_xchg *x, bool had_id)
{
	if (x && !had_id && x->prop && x->side == VP_CLIENT)
		vp_attr__propagated(&hs->attr, x);
	if (x && !had_id && x->prop && x->side == VP_SERVER && vp_attr__request_id(&hs->attr, x))
		abort(); /* out of memory: an id not counted could decide wrongly */
}

/*
 * Before a frame of direction d: the block of its last header frame, if its
 * record was not there at the frame, now or never (h2state.h pending); its
 * fields go to its stream's exchange if that is still open.
 */
static void h2_block_late(struct vp_analysis *a, struct host_state *hs, int h, struct vp_sock *s,
			  unsigned d)
{
	struct vp_h2 *h2 = s->h2;
	const struct vpr_h2_frame *f;
	struct vpr_payload p;
	struct vp_xchg *x;
	bool got, had_id;

	if (!h2 || !h2->pending[d])
		return;
	h2->pending[d] = false;
	f = &h2->pending_frame[d];
	got = h2_block_take(a, h, f, &p);
	x = vp_h2__open_x(s, f->stream_id);
	had_id = x && x->prop;
	if (vp_h2__block(s, f, got ? &p : NULL, x, h2->pending_first[d]))
		abort(); /* out of memory: no sensible partial result */
	h2_id_read(hs, x, had_id);
}

/* A HEADERS or CONTINUATION frame's header, on plain TCP or inside TLS: it carries a block. */
static bool h2_has_block(const struct vpr_h2_frame *f)
{
	return (f->kind & ~VPR_H2_IN_TLS) == VPR_H2_HEADER &&
	       (f->type == VP_H2_HEADERS || f->type == VP_H2_CONTINUATION);
}

/* A DATA frame's header: with --capture, its first bytes have a record (h2data.h). */
static bool h2_is_data(const struct vpr_h2_frame *f)
{
	return (f->kind & ~VPR_H2_IN_TLS) == VPR_H2_HEADER && f->type == VP_H2_DATA && f->length;
}

/* A frame that is not used: its block's or message's bytes, if any, are not kept waiting. */
static void h2_block_drop(struct vp_analysis *a, int h, const struct vpr_h2_frame *f)
{
	struct vpr_payload p;

	if (h2_has_block(f) || h2_is_data(f))
		h2_block_take(a, h, f, &p);
}

/* A DATA record p, its frame taken: its stream's content, if it is its message's beginning. */
static void h2_data_use(struct host_state *hs, struct vp_sock *s, const struct vpr_payload *p)
{
	int err;
	struct vp_xchg *x = vp_h2__data(s, p, &err);

	if (err)
		abort(); /* out of memory: no sensible partial result */
	content_came(hs, x, false);
}

/* A DATA frame just taken: its record, written beside it and kept aside by the read stage. */
static void h2_data_at_frame(struct vp_analysis *a, struct host_state *hs, int h, struct vp_sock *s,
			     const struct vpr_h2_frame *f)
{
	struct vpr_payload p;

	if (h2_block_take(a, h, f, &p))
		h2_data_use(hs, s, &p);
}

static void on_h2_frame(struct vp_analysis *a, struct host_state *hs, int h,
			const struct vpr_h2_frame *f)
{
	struct vp_sock *s = u64map__get(&hs->socks.by_cookie, f->cookie);
	struct vp_op_result res;
	struct vpr_sock_op fop;
	struct vp_xchg *x;
	bool dark, had_id;

	bool tls = f->kind & VPR_H2_IN_TLS;
	const struct vpr_sock_op *carrier;

	/* Written on trust before the preface (a server's SETTINGS): what they cut, the preface decides. */
	if (!s || a->no_frames) {
		h2_block_drop(a, h, f);
		return;
	}
	if (tls ? !s->last_tls_valid || !s->tls_preface_seen
		: !s->last_op_valid || !s->h2_preface_seen) {
		h2_block_drop(a, h, f);
		return;
	}
	carrier = tls ? &s->last_tls_op : &s->last_op;
	h2_block_late(a, hs, h, s, f->dir & 1);
	if (!s->h2) {
		/*
		 * What the held operations carried, the frames say: the preface
		 * (with the operation after it, when it came alone: grpc-go
		 * writes it so, nginx reads it so) is setup, and no exchange.
		 * What the bytes began before the frames came was connection
		 * setup too.
		 */
		s->h2_preface_held = s->h2_preface_alone = false;
		if ((x = vp_exchanges__finish(s))) {
			x->setup = true;
			x->incomplete = false;
			/*
			 * Inside TLS it is the handshake's end (the client's
			 * Finished): no exchange of the connection's count, so
			 * that streams are numbered from the first, as a
			 * handshake begun with the stream leaves them
			 * (exchanges.c) and a preface held for its frames does.
			 */
			if (x->conn_index + 1 == s->nexch)
				s->nexch--;
			finished(hs, x);
		}
	}
	if (vp_h2__frame(s, f, carrier, h, &a->paths.pools[h], &res, &dark))
		abort(); /* out of memory: no sensible partial result */
	if (dark) {
		end_streams(hs, s);
		/* Its calls and requests go unseen from now on: the threads decide nothing. */
		vp_attr__blind(&hs->attr, s->pid);
		return;
	}
	fop = vp_h2__frame_op(f, carrier);
	x = res.x;
	had_id = x && x->prop;
	if (h2_has_block(f) && h2_block(a, h, s, f, x, res.kind == VP_OP_REQ_FIRST))
		abort(); /* out of memory: no sensible partial result */
	switch (res.kind) {
	case VP_OP_REQ_FIRST:
		new_exchange(a, hs, x, &fop);
		break;
	case VP_OP_REQ_MORE:
		if (x->side == VP_SERVER)
			vp_attr__server_request(&hs->attr, x, &fop, false);
		break;
	case VP_OP_REP_FIRST:
	case VP_OP_REP_MORE:
		on_reply(hs, x, &fop, res.kind == VP_OP_REP_FIRST);
		break;
	default:
		break;
	}
	h2_id_read(hs, x, had_id);
	if (h2_is_data(f))
		h2_data_at_frame(a, hs, h, s, f);
	if (res.finished)
		finished(hs, res.finished);
}

/*
 * A plaintext operation of libssl or of Go's crypto/tls (VPR_TLS_OP): the
 * frame records that follow it are its part.  It cuts nothing itself: the
 * frames do.  In a Go process it is its goroutine's, as a socket
 * operation is.
 */
static void on_tls_op(struct vp_analysis *a, struct host_state *hs, const struct vpr_sock_op *op)
{
	struct vpr_sock_op gop;
	struct vp_sock *s;

	if (a->no_frames)
		return;
	s = vp_socktab__get(&hs->socks, op->cookie, op->h.ts_ns);
	if (!s)
		abort();
	op = goroutine_op(hs, s, op, &gop);
	s->last_tls_op = *op;
	s->last_tls_valid = true;
	s->tls_preface_seen |= (op->flags & VPR_OP_H2_PREFACE) != 0;
}

static void on_conn(struct vp_analysis *a, struct host_state *hs, int h, const struct vpr_conn *c)
{
	struct vp_sock *s = vp_socktab__conn(&hs->socks, c);
	struct vp_xchg *x;

	if (!s)
		abort();
	/* Which goroutine of a Go thread connects is not recorded: no cause from it. */
	if (c->newstate == 2 /* TCP_SYN_SENT: connect() by h.tid */ && c->h.tid &&
	    !vp_gor__of_thread(&hs->gor, c->h.tid))
		vp_attr__connect(&hs->attr, s, c->h.tid);
	/*
	 * A killed server's connections close as if it had finished: its reply
	 * may be cut (paths.c).  Its own close (FIN_WAIT1, or LAST_ACK after the
	 * client's FIN) names it; the later CLOSE comes from the network.
	 */
	if ((c->newstate == 4 /* FIN_WAIT1 */ || c->newstate == 9 /* LAST_ACK */) && c->pid &&
	    s->x && s->x->side == VP_SERVER && s->x->has_rep &&
	    vp_attr__killed_by(&hs->attr, c->pid))
		s->x->killed = true;
	if (!vp_conn_record__closes(c))
		return;
	if (c->oldstate == 2 /* SYN_SENT: refused, unreachable or timed out */)
		vp_attr__connect_failed(&hs->attr, s);
	release_preface(a, hs, h, s, NULL);
	end_streams(hs, s);
	x = vp_exchanges__close(s);
	if (x)
		finished(hs, x);
	vp_attr__forget_sock(&hs->attr, s);
	vp_socktab__closed(&hs->socks, s, c->h.ts_ns);
}

/* A send refused on a reset connection: what its thread was sending for a request never left. */
static void on_send_failed(struct host_state *hs, const struct vpr_send_failed *f)
{
	struct vp_gor_unit *u = vp_gor__of_thread(&hs->gor, f->h.tid);

	vp_attr__send_failed(&hs->attr, u ? u->id : f->h.tid, f->h.ts_ns);
}

static void give_line(void *ctx, struct vp_logline *l)
{
	vp_attr__log(ctx, l);
}

/* A write to a log: its lines to the requests their threads (or goroutines) served. */
static void on_log(struct vp_analysis *a, struct host_state *hs, int h, const struct vpr_hdr *rec)
{
	struct vp_gor_unit *u = vp_gor__of_thread(&hs->gor, rec->tid);
	uint64_t unit = u ? u->id : rec->tid;
	struct vpr_log l;

	if (!vp_input__log(a->in, (size_t)h, rec, &l))
		return;
	if (vp_loglines__write(&hs->lines, &l, unit, vp_attr__cause_id(&hs->attr, unit), give_line,
			       &hs->attr))
		abort(); /* out of memory: no sensible partial result */
}

/*
 * A payload's (or its hashes') socket, NULL if gone.  A Go thread's payload
 * follows its operation, which went to the socket's last unit: *tid becomes
 * that unit.
 */
static struct vp_sock *payload_sock(struct host_state *hs, uint64_t cookie, uint32_t *tid)
{
	struct vp_sock *s = u64map__get(&hs->socks.by_cookie, cookie);

	if (s && s->last_unit && vp_gor__of_thread(&hs->gor, *tid))
		*tid = s->last_unit;
	return s;
}

/*
 * A DATA frame's first bytes (h2data.h) reached in time order: taken by
 * its frame, unless that was taken before (the record came late: a
 * carried one), or is none of a followed connection's.
 */
static void h2_data(struct vp_analysis *a, struct host_state *hs, int h, const struct vpr_hdr *rec)
{
	struct vp_sock *s =
		u64map__get(&hs->socks.by_cookie, ((const struct vpr_payload *)rec)->cookie);
	struct vpr_payload p;

	/* Its frame is still to come: the frame takes it (h2_data_at_frame). */
	if (s && !a->no_frames && !vp_h2__data_passed(s, (const struct vpr_payload *)rec))
		return;
	if (vp_input__payload(a->in, (size_t)h, rec, &p) && s && !a->no_frames)
		h2_data_use(hs, s, &p);
}

/* A payload record: its whole bytes from the read stage, to the exchange of its operation. */
static void on_payload(struct vp_analysis *a, struct host_state *hs, int h,
		       const struct vpr_hdr *rec)
{
	struct vpr_payload p;
	struct vp_sock *s;
	struct vp_xchg *x;
	bool had_id, had_mixed, had_content;

	/*
	 * A frame's header block (h2blocks.h) is taken with its frame, which
	 * may come after it: the recorder hands a payload out right behind the
	 * operation whose end it shares.  Not an operation's.
	 */
	if (((const struct vpr_payload *)rec)->flags & VPR_PAYLOAD_H2_DATA) {
		h2_data(a, hs, h, rec);
		return;
	}
	if (((const struct vpr_payload *)rec)->flags & VPR_PAYLOAD_H2_FRAME) {
		if (a->no_frames && vp_input__payload(a->in, (size_t)h, rec, &p))
			return; /* taken, so that none waits */
		return;
	}
	if (!vp_input__payload(a->in, (size_t)h, rec, &p))
		return;
	if (!(s = payload_sock(hs, p.cookie, &p.h.tid)))
		return;
	x = s->x;
	had_id = x && x->prop;
	had_mixed = x && x->id_mixed;
	had_content = x && x->content;
	if (vp_exchanges__payload(s, &p))
		abort(); /* out of memory: no sensible partial result */
	/* A call's id arrives right after the operation that sent it: attribution looks again. */
	if (x && !had_id && x->prop && x->side == VP_CLIENT)
		vp_attr__propagated(&hs->attr, x);
	if (x && !had_id && x->prop && x->side == VP_SERVER && vp_attr__request_id(&hs->attr, x))
		abort(); /* out of memory: an id not counted could decide wrongly */
	if (x && !had_mixed && x->id_mixed && x->side == VP_CLIENT)
		vp_attr__id_mixed(&hs->attr, x);
	content_came(hs, x, had_content);
	steps(a, hs, h, s);
}

/* A payload's hashes (--capture-hash): the exchange's content, as its bytes would be. */
static void on_payload_hash(struct vp_analysis *a, struct host_state *hs, int h,
			    const struct vpr_hdr *rec)
{
	struct vpr_payload_hash p = *(const struct vpr_payload_hash *)rec;
	struct vp_sock *s = payload_sock(hs, p.cookie, &p.h.tid);
	struct vp_xchg *x;
	bool had_content;

	if (!s)
		return;
	x = s->x;
	had_content = x && x->content;
	if (vp_exchanges__payload_hash(s, &p))
		abort(); /* out of memory: no sensible partial result */
	content_came(hs, x, had_content);
	steps(a, hs, h, s);
}

/*
 * The look-ahead sees a record of host h: where the sender's messages begin
 * (messages.h).  Hosts look ahead in parallel: what is shared (the stream
 * table) is kept aside and added in host order afterwards.  Returns an
 * operation's socket, which the analysis then need not look up again.
 */
static struct vp_sock *look(struct vp_analysis *a, size_t h, const struct vpr_hdr *rec)
{
	const struct vpr_sock_op *op = (const struct vpr_sock_op *)rec;
	struct host_state *hs = &a->hs[h];
	struct vp_sock *s;

	if (rec->type == VPR_CONN) {
		const struct vpr_conn *c = (const struct vpr_conn *)rec;

		if (vp_fifo__push(&hs->conns, rec, NULL))
			abort(); /* out of memory: no sensible partial result */
		/* Made here, not when analyzed: other hosts look sockets up meanwhile (find_sender). */
		if (!vp_socktab__get(&hs->socks, c->cookie, c->h.ts_ns))
			abort();
	}
	if (rec->type != VPR_SOCK_OP)
		return NULL;
	s = vp_socktab__get(&hs->socks, op->cookie, op->h.ts_ns);
	if (!s)
		abort();
	vp_cuts__see(&s->cuts, op);
	s->ahead++;
	return s;
}

/* Time of the host's next record to analyze, UINT64_MAX at its end. */
static uint64_t head_ts(struct vp_analysis *a, size_t h)
{
	const struct vpr_hdr *r = vp_fifo__peek(&a->hs[h].ahead);

	return r ? r->ts_ns : vp_input__peek_ts(a->in, h);
}

/* Host h read up to a->look_until on the common timeline (or its end, or the bound): a job. */
static void look_ahead(void *ctx, size_t h)
{
	struct vp_analysis *a = ctx;
	struct host_state *hs = &a->hs[h];

	while (!vp_fifo__full(&hs->ahead)) {
		uint64_t ts = vp_input__peek_ts(a->in, h);
		const struct vpr_hdr *rec;

		if (ts == UINT64_MAX || vp_paths__aligned(&a->paths, (int)h, ts) > a->look_until)
			break;
		rec = vp_input__next(a->in, h);
		if (vp_fifo__push(&hs->ahead, rec, look(a, h, rec)))
			abort(); /* out of memory: no sensible partial result */
	}
	hs->at_end = vp_input__peek_ts(a->in, h) == UINT64_MAX;
}

/*
 * The look-ahead's first job: the exchanges of the trees the last emit
 * built back to their pools (vp_paths__release_built); the look-ahead reads
 * files and sockets, never exchanges or the pools.
 */
static void release_built(void *ctx, size_t j)
{
	(void)j;
	vp_paths__release_built(ctx);
}

/* The connection records the hosts looked at, into the stream table, in host order. */
static void add_streams(struct vp_analysis *a)
{
	for (size_t h = 0; h < a->nhosts; h++) {
		const struct vpr_hdr *rec;

		while ((rec = vp_fifo__pop(&a->hs[h].conns))) {
			vp_streams__add(&a->streams, (int)h, (const struct vpr_conn *)rec);
			vp_owners__see_conn(&a->owners, (int)h, (const struct vpr_conn *)rec);
		}
	}
}

/* Which goroutine a thread runs; which created or woke which, for the wake-up rule. */
static void on_goroutine(struct host_state *hs, const struct vpr_goroutine *g)
{
	struct vp_gor_unit *from, *to;

	/* A kind added after this reader: skipped (docs/format.md). */
	if (g->kind > VPR_GO_PENDING)
		return;
	if (g->kind == VPR_GO_PENDING) {
		vp_attr__go_pending(&hs->attr, g->pid);
		return;
	}
	if (vp_gor__first_of(&hs->gor, g->pid))
		vp_attr__go_begins(&hs->attr, g->pid);
	if (g->kind == VPR_GO_RUN) {
		vp_gor__run(&hs->gor, g->h.tid, g->pid, g->goid);
		return;
	}
	if (g->kind == VPR_GO_H2_WRITE) {
		vp_attr__go_h2_write(&hs->attr, g->pid, vp_gor__unit(&hs->gor, g->pid, g->goid)->id,
				     (uint32_t)g->other, g->h.ts_ns);
		return;
	}
	if (g->kind != VPR_GO_NEW && g->kind != VPR_GO_READY)
		return;
	from = vp_gor__unit(&hs->gor, g->pid, g->goid);
	to = vp_gor__unit(&hs->gor, g->pid, g->other);
	if (g->kind == VPR_GO_NEW)
		to->parent = from->id;
	vp_attr__wake(&hs->attr, &(struct vp_wake){g->pid, from->id, to->id, g->h.ts_ns, true,
						   g->kind == VPR_GO_NEW});
}

/* sock: what the look-ahead tagged rec with (its socket), or NULL. */
static void process(struct vp_analysis *a, int h, const struct vpr_hdr *rec, struct vp_sock *sock)
{
	struct host_state *hs = &a->hs[h];

	hs->events++;
	switch (rec->type) {
	case VPR_SOCK_OP:
		on_op(a, hs, h, (const struct vpr_sock_op *)rec, sock);
		break;
	case VPR_CONN:
		on_conn(a, hs, h, (const struct vpr_conn *)rec);
		break;
	case VPR_TASK:
		vp_attr__task(&hs->attr, (const struct vpr_task *)rec);
		break;
	case VPR_PAYLOAD:
		on_payload(a, hs, h, rec);
		break;
	case VPR_PAYLOAD_HASH:
		on_payload_hash(a, hs, h, rec);
		break;
	case VPR_LOG:
		on_log(a, hs, h, rec);
		break;
	case VPR_WAKEUP: {
		const struct vpr_wakeup *w = (const void *)rec;
		struct vp_wake wk = {w->pid, rec->tid, w->woken_tid, rec->ts_ns, false, false};

		vp_attr__wake(&hs->attr, &wk);
		break;
	}
	case VPR_GOROUTINE:
		on_goroutine(hs, (const struct vpr_goroutine *)rec);
		break;
	case VPR_SEND_FAILED:
		on_send_failed(hs, (const struct vpr_send_failed *)rec);
		break;
	case VPR_H2_FRAME:
		on_h2_frame(a, hs, h, (const struct vpr_h2_frame *)rec);
		break;
	case VPR_TLS_OP: /* the layout of vpr_sock_op (record.h) */
		on_tls_op(a, hs, (const struct vpr_sock_op *)rec);
		break;
	default: /* clock, addresses and drops are used by the read stage; writer by dump only */
		break;
	}
}

/* Until when (common timeline) every host's loss has been reported. */
static int64_t loss_known(const struct vp_analysis *a)
{
	int64_t until = INT64_MAX;

	for (size_t i = 0; i < a->nhosts; i++) {
		const struct vp_host *h = a->hs[i].host;
		int64_t at;

		if (a->hs[i].ended)
			continue;
		if (h->has_clock)
			at = vp_paths__aligned(&a->paths, (int)i, h->loss_known_ns);
		else /* no ticks: drop records come within the reorder window */
			at = vp_paths__aligned(&a->paths, (int)i, h->last_ts);
		if (at < until)
			until = at;
	}
	return until;
}

/* Give up the peers that cannot appear any more, then emit what is ready. */
static void advance(struct vp_analysis *a, bool all)
{
	struct vp_xchg *x;

	vp_clocks__solve(&a->clocks);
	/* Closed sockets stay while another host may still be analyzed behind this one. */
	for (size_t h = 0; h < a->nhosts; h++) {
		struct reaping r = {a, (int)h};
		int64_t before;

		/* The horizon is INT64_MIN until a record is read: nothing to reap then. */
		if (__builtin_sub_overflow(
			    a->horizon, (int64_t)(2 * LOOKAHEAD_NS + MERGE_QUANTUM_NS), &before) ||
		    __builtin_sub_overflow(before, a->clocks.offset[h], &before))
			continue;
		if (before > 0)
			vp_socktab__reap(&a->hs[h].socks, (uint64_t)before, socket_gone, &r);
	}
	for (;;) {
		/*
		 * Deadlines pass as time advances.  In a damaged recording whose
		 * times stand still none would: past MATCH_MAX waiting ends the
		 * oldest are given up anyway, so that memory stays bounded.
		 */
		bool crowded = a->matcher.nheap > MATCH_MAX;

		if (!(x = vp_matcher__due(&a->matcher, a->horizon, all || crowded)))
			break;
		if (!all && !crowded) {
			int64_t at = give_up_at(a, x);

			if (at > a->horizon) { /* the clocks moved: not yet */
				vp_matcher__schedule(&a->matcher, x, at);
				continue;
			}
		}
		vp_matcher__remove(&a->matcher, x);
		a->matcher.given_up++;
		vp_paths__peer_gone(&a->paths, x);
	}
	vp_paths__emit(&a->paths, loss_known(a), all);
}

static void end_host(struct vp_analysis *a, struct host_state *hs, int h)
{
	size_t pos = 0;
	void *v;

	hs->ended = true;
	while (u64map__next(&hs->socks.by_cookie, &pos, NULL, &v)) {
		struct vp_xchg *x;

		release_preface(a, hs, h, v, NULL);
		end_streams(hs, v);
		x = vp_exchanges__finish(v);

		vp_attr__forget_sock(&hs->attr, v);
		if (x) {
			/* The recording stopped, not the exchange: its end is unknown. */
			if (!x->has_rep || hs->host->truncated)
				x->incomplete = true;
			finished(hs, x);
		}
	}
}

/* The join: one host's outbox applied (outbox.h), in the order the host wrote it. */
static void apply(struct vp_analysis *a, struct host_state *hs)
{
	struct vp_outbox *o = &hs->paths.out;

	for (size_t i = 0; i < o->len; i++) {
		struct vp_xchg *x = o->v[i].x, *y;

		switch (o->v[i].kind) {
		case VP_OUT_NEW:
			if ((y = vp_matcher__add(&a->matcher, x)))
				pair(a, x, y);
			break;
		case VP_OUT_FINISHED:
			if (x->in_match)
				vp_matcher__schedule(&a->matcher, x, give_up_at(a, x));
			break;
		case VP_OUT_REPLY:
			/* A built request's peer may be gone; the sample was taken when it paired. */
			if (!vp_paths__gone(x) && x->peer && x->peer->has_rep) {
				struct vp_xchg *c = x->side == VP_CLIENT ? x : x->peer;
				struct vp_xchg *sv = x->side == VP_CLIENT ? x->peer : x;

				vp_clocks__sample(&a->clocks, sv->host, sv->rep.first_ts, c->host,
						  c->rep.first_ts);
			}
			break;
		case VP_OUT_LINK:
			vp_paths__publish(x);
			break;
		case VP_OUT_UP:
			vp_paths__done_one(&a->paths, x);
			continue; /* holds no reference */
		case VP_OUT_READY:
			vp_paths__ready(&a->paths, x);
			break;
		}
		vp_paths__unref(&a->paths, x);
	}
	vp_outbox__clear(o);
}

/* One host's records of the quantum, through its own stages (a job of the workers). */
static void analyze_host(void *ctx, size_t h)
{
	struct vp_analysis *a = ctx;
	struct host_state *hs = &a->hs[h];
	const struct vpr_hdr *rec;

	while ((rec = vp_fifo__peek(&hs->ahead)) &&
	       vp_paths__aligned(&a->paths, (int)h, rec->ts_ns) <= a->until) {
		struct vp_sock *s = vp_fifo__peek_tag(&hs->ahead);

		vp_fifo__pop(&hs->ahead); /* rec stays readable: nothing is pushed meanwhile */
		process(a, (int)h, rec, s);
	}
	if (hs->at_end && !hs->ended && !vp_fifo__peek(&hs->ahead))
		end_host(a, hs, (int)h);
}

static uint64_t events(const struct vp_analysis *a)
{
	uint64_t n = 0;

	for (size_t h = 0; h < a->nhosts; h++)
		n += a->hs[h].events;
	return n;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One quantum more: the default thread count's probes and choice (TUNE_PROBE). */
static void tune(struct vp_analysis *a)
{
	uint64_t t;

	if (!a->tune.on)
		return;
	a->tune.quanta++;
	if (a->tune.phase < 2 && a->tune.quanta == TUNE_PROBE) {
		t = now_ns();
		a->tune.rate[a->tune.phase] = t > a->tune.t0 ? (double)(events(a) - a->tune.ev0) /
								       (double)(t - a->tune.t0)
							     : 0;
		a->tune.phase++;
		if (a->tune.phase == 1)
			a->workers.use = a->workers.n;
		else
			a->workers.use = a->tune.rate[1] > a->tune.rate[0] ? a->workers.n : 1;
	} else if (a->tune.phase == 2 && a->tune.quanta == TUNE_EVERY) {
		a->tune.phase = 0;
		a->workers.use = 1;
	} else {
		return;
	}
	a->tune.quanta = 0;
	a->tune.t0 = now_ns();
	a->tune.ev0 = events(a);
}

/*
 * Bulk-synchronous quanta: every host reads past the quantum (the look-ahead,
 * hosts in parallel, then the stream table in host order), every host
 * analyzes its records of the quantum (in parallel: it reads of other hosts
 * only what the other steps write), and the join applies the outboxes in
 * host order.  The same steps for any thread count, so the same result.
 */
/* A host's first records, a block read and checked, as the look-ahead reads the rest: a job. */
static void first_block(void *ctx, size_t h)
{
	struct vp_analysis *a = ctx;

	vp_input__peek_ts(a->in, h);
}

int vp_analysis__run(struct vp_analysis *a)
{
	uint64_t last_advance = 0;

	unsigned use = a->workers.use;

	/*
	 * Else the first quantum's head_ts would read them all on one thread;
	 * hosts' files are their own, so on all threads even while the
	 * default's probe times one (tune).
	 */
	a->workers.use = a->workers.n;
	vp_workers__run(&a->workers, a->nhosts, first_block, a);
	a->workers.use = use;

	for (;;) {
		int64_t start = INT64_MAX;
		bool open = false;

		for (size_t h = 0; h < a->nhosts; h++) {
			uint64_t ts = head_ts(a, h);
			int64_t at;

			open |= !a->hs[h].ended;
			if (ts == UINT64_MAX)
				continue;
			at = vp_paths__aligned(&a->paths, (int)h, ts);
			if (at < start)
				start = at;
		}
		if (!open)
			break;
		if (start != INT64_MAX && start > a->horizon)
			a->horizon = start;
		a->until = start < INT64_MAX - (int64_t)MERGE_QUANTUM_NS
				   ? start + (int64_t)MERGE_QUANTUM_NS
				   : INT64_MAX;
		a->look_until = a->until < INT64_MAX - (int64_t)LOOKAHEAD_NS
					? a->until + (int64_t)LOOKAHEAD_NS
					: INT64_MAX;
		vp_workers__run_first(&a->workers, a->paths.nrel ? release_built : NULL, &a->paths,
				      a->nhosts, look_ahead, a);
		add_streams(a);
		/*
		 * Beside it, the requests the last emit let out go to the queues
		 * stage and the output (vp_paths__deliver: they read only the
		 * requests and what no host writes, one job keeps their order).
		 */
		vp_workers__run_first(&a->workers, a->paths.ndeliver ? vp_paths__deliver_job : NULL,
				      &a->paths, a->nhosts, analyze_host, a);
		for (size_t h = 0; h < a->nhosts; h++)
			apply(a, &a->hs[h]);
		if (events(a) - last_advance >= ADVANCE_EVERY) {
			advance(a, false);
			last_advance = events(a);
		}
		tune(a);
	}
	vp_paths__release_built(&a->paths);
	for (size_t h = 0; h < a->nhosts; h++) {
		vp_loglines__flush(&a->hs[h].lines, give_line, &a->hs[h].attr);
		vp_attr__flush(&a->hs[h].attr);
	}
	for (size_t h = 0; h < a->nhosts; h++)
		apply(a, &a->hs[h]);
	advance(a, true);
	vp_paths__deliver(&a->paths);
	vp_queues__flush(&a->queues);
	return 0;
}

size_t vp_analysis__nhosts(const struct vp_analysis *a)
{
	return a->nhosts;
}

const struct vp_host *vp_analysis__host(const struct vp_analysis *a, size_t i)
{
	return a->hs[i].host;
}

int64_t vp_analysis__offset(const struct vp_analysis *a, size_t host)
{
	return a->clocks.offset[host];
}

const char *vp_analysis__clock_source(const struct vp_analysis *a, size_t host, char *buf,
				      size_t len)
{
	for (size_t h = 0; h < host; h++) {
		if (vp_clocks__same_machine(&a->clocks, (int)h, (int)host)) {
			snprintf(buf, len, "same clock as host %zu", h);
			return buf;
		}
	}
	snprintf(buf, len, "%s",
		 host == 0		   ? "the common timeline"
		 : a->clocks.aligned[host] ? "from messages"
					   : "wall clock");
	return buf;
}

static int cmp_proc(const void *x, const void *y)
{
	const struct vp_proc *p = *(const struct vp_proc *const *)x;
	const struct vp_proc *q = *(const struct vp_proc *const *)y;

	if (p->host != q->host)
		return p->host < q->host ? -1 : 1;
	return p->pid < q->pid ? -1 : p->pid > q->pid;
}

const struct vp_proc **vp_analysis__procs(const struct vp_analysis *a, size_t *n)
{
	const struct vp_proc **v;
	size_t total = 0, k = 0;

	for (size_t h = 0; h < a->nhosts; h++)
		total += a->hs[h].attr.procs.len;
	v = calloc(total + 1, sizeof(*v));
	if (!v) {
		*n = 0;
		return NULL;
	}
	for (size_t h = 0; h < a->nhosts; h++) {
		size_t pos = 0;
		void *p;

		while (u64map__next(&a->hs[h].attr.procs, &pos, NULL, &p))
			v[k++] = p;
	}
	qsort(v, k, sizeof(*v), cmp_proc);
	*n = k;
	return v;
}

void vp_analysis__stats(const struct vp_analysis *a, struct vp_analysis_stats *st)
{
	memset(st, 0, sizeof(*st));

	st->matched = a->matcher.matched;
	st->given_up = a->matcher.given_up;
	st->requests = a->paths.requests;
	st->calls = a->paths.calls;
	st->requests_exact = a->paths.requests_exact;
	for (size_t h = 0; h < a->nhosts; h++) {
		st->events += a->hs[h].events;
		st->exchanges += a->hs[h].exchanges;
		st->sockets += a->hs[h].socks.nsocks;
		st->late += a->hs[h].host->late;
	}
}

void vp_analysis__free(struct vp_analysis *a)
{
	if (!a)
		return;
	vp_workers__free(&a->workers);
	for (size_t h = 0; a->hs && h < a->nhosts; h++) {
		vp_attr__free(&a->hs[h].attr);
		vp_loglines__free(&a->hs[h].lines);
		vp_gor__free(&a->hs[h].gor);
		vp_hpaths__free(&a->hs[h].paths);
		vp_fifo__free(&a->hs[h].conns);
		vp_socktab__free(&a->hs[h].socks);
		vp_fifo__free(&a->hs[h].ahead);
	}
	vp_matcher__free(&a->matcher);
	vp_pairs__free(&a->pairs);
	vp_streams__free(&a->streams);
	vp_owners__free(&a->owners);
	vp_paths__free(&a->paths);
	vp_queues__free(&a->queues);
	vp_clocks__free(&a->clocks);
	free(a->hs);
	vp_input__free(a->in);
	free(a);
}
