/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Forwarded bytes (stage 5c): a relay (a connection pooler, a proxy in TCP
 * mode) sends on the bytes it received, so a call whose content is that of
 * one request its process has open was made for that request.  Content is
 * a message's first operation's captured bytes (vpath-record --capture),
 * kept per exchange (vp_xchg.content): a server exchange's while it is
 * open, a call's until attribution has looked at it.
 *
 * A call and a request agree when every byte both captured is the same (a
 * relay may cut a message into other operations than it came in, so one
 * may be a prefix of the other); they differ when a captured byte does.  A
 * request without captured bytes may carry anything.  The call is the
 * request's only when exactly one open request agrees with it, on at least
 * VP_FWD_MIN bytes, every other one provably differs, and no other of the
 * process's latest requests carried the same content (a `SELECT 1` from
 * two clients decides nothing, nor does a message a relay sends of its own
 * that a client happened to send too).  What decides is the part of the
 * call's bytes that no other candidate shares: a candidate agreeing with
 * it on all it captured, however long, makes the bytes decide nothing.
 *
 * Recorded with --capture-hash, content is keyed hashes of a message's
 * first operation's first bytes (vp_wit_req.hashed): of its first len
 * bytes, its first 24 and its first 8.  Two contents hashed over the same
 * length compare by that hash; over different lengths (one message shorter
 * than the other or than N), by the hash of the longest of those prefixes
 * both have.  Equal hashes stand for equal bytes (64-bit SipHash: a chance
 * collision among the candidates is about 2^-50); a call agreeing over 24
 * bytes only may decide, as VP_FWD_MIN bytes do.  Fewer than 8 bytes in
 * common, or bytes against hashes, compare as unknown: nothing decided.
 */
#ifndef VPATH_FORWARD_H
#define VPATH_FORWARD_H

#include <stddef.h>
#include <stdint.h>

#include "xchg.h"

/*
 * Bytes a call and a request must agree on: shorter messages (`SELECT 1`,
 * `PING`, a protocol's fixed header sent alone) are common to many
 * requests, so equal bytes there prove nothing.
 */
#define VP_FWD_MIN 24

/* Open requests a call's content is compared with at most (then it decides nothing). */
#define VP_FWD_SCAN_MAX 4096

enum vp_fwd_fit {
	VP_FWD_DIFFER = 0, /* a byte both captured differs: not the same message */
	VP_FWD_AGREE,	   /* every byte both captured is the same */
	VP_FWD_UNKNOWN,	   /* the request's content was not captured */
};

/* How call content c fits request content r (NULL: not captured); *k: the bytes both know. */
enum vp_fwd_fit vp_fwd__fit(const struct vp_wit_req *c, const struct vp_wit_req *r, size_t *k);
/*
 * The one request of the list of open requests at head (list_next links,
 * by request time) whose content call c carries, among those received
 * before c was sent; NULL when none, several or one unknown may (one on a
 * multiplexed connection is unknown: its bytes are the connection's).
 */
struct vp_xchg *vp_fwd__source(struct vp_xchg *head, const struct vp_xchg *c);
/* A hash of a request's content, for counting repeats (never a decision by itself). */
uint64_t vp_fwd__hash(const struct vp_wit_req *w);

#endif
