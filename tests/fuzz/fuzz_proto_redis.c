// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the redis witness parser (fuzz_proto.h says what it
 * checks), the reader of pub/sub's pushes (vp_witness_push) on the reply's
 * bytes, and the named fields (proto/fields.h) of those bytes.  A push
 * read's witness is a delivery of fanned-out messages (count 1, qkind POP,
 * a message hash, VP_WIT_FANOUT, a push's verb) with printable texts; none
 * is all zeros; it needs every captured byte to be whole pushes (the last
 * may be cut only by the capture, then VP_WIT_MORE says more came), so a
 * byte more after them gives none, and bytes beyond the capture give
 * VP_WIT_MORE.  Several messages (nqmsgs > 1, or VP_WIT_MORE) come with
 * their hashes, and fields each owned by one of them.  Fields found are
 * distinct, and more than the room given is said so.
 */
#include "proto/fields.h"
#include "proto/proto.h"

#define FUZZ_PROTO VP_PROTO_REDIS
#define FUZZ_MORE check_push
static void check_push(const struct vp_bytes *rep);
#include "fuzz_proto.h"

static void check_fields(const struct vp_bytes *rep)
{
	uint64_t h[8], all[64];
	size_t n = vp_fields(rep->p, rep->len, h, 8), m = vp_fields(rep->p, rep->len, all, 64);

	check(m > 8 ? n > 8 : n == m, "fields counted differently with less room");
	for (size_t i = 0; i < m && m <= 64; i++)
		for (size_t k = 0; k < i; k++)
			check(all[i] != all[k], "a field found twice");
}

static void check_many(const struct vp_witness *w)
{
	bool more = w->flags & VP_WIT_MORE;

	check(w->nqmsgs <= VP_WIT_QMSGS_MAX && (w->nqmsgs > 1 || (more && w->nqmsgs == 1)),
	      "a read of several pushes without their messages");
	check(w->qmsg == w->qmsgs[0], "a read's message is not its first");
	for (size_t i = 0; i < w->nqmsgs; i++)
		check(w->qmsgs[i], "a read's message without a hash");
	check(w->nqkeys <= VP_WIT_QKEYS_MAX || w->nqkeys == VP_WIT_QKEYS_UNKNOWN,
	      "more fields than kept");
	for (size_t i = 0; w->nqkeys != VP_WIT_QKEYS_UNKNOWN && i < w->nqkeys; i++)
		check(w->qkey_of[i] < w->nqmsgs, "a field of no message");
}

static void check_push(const struct vp_bytes *rep)
{
	static const struct vp_witness zero;
	uint8_t more[4096];
	struct vp_bytes b = *rep;
	struct vp_witness w, p;

	check_fields(rep);
	if (!vp_witness_push(rep, &w)) {
		check(!memcmp(&w, &zero, sizeof(w)), "no push, yet a witness");
		return;
	}
	check_witness(&w);
	check(w.qkind == VP_WIT_Q_POP && w.qmsg && (w.flags & ~VP_WIT_MORE) == VP_WIT_FANOUT &&
		      !w.status,
	      "a push that is no delivery");
	check(!strcmp(w.verb, "MESSAGE") || !strcmp(w.verb, "PMESSAGE") ||
		      !strcmp(w.verb, "SMESSAGE"),
	      "a push's verb");
	check(!(rep->len != rep->total) || (w.flags & VP_WIT_MORE), "a cut read not said so");
	if (w.nqmsgs || (w.flags & VP_WIT_MORE))
		check_many(&w);
	else
		check(!memcmp(w.qmsgs, zero.qmsgs, sizeof(w.qmsgs)) && !w.nqkeys,
		      "one push with several's fields");
	b.total = rep->total + 1;
	check(vp_witness_push(&b, &p) && (p.flags & VP_WIT_MORE) && p.qmsg == w.qmsg,
	      "a push read with bytes beyond the capture not said so");
	if (rep->len < sizeof(more) && rep->len == rep->total && !(w.flags & VP_WIT_MORE)) {
		memcpy(more, rep->p, rep->len);
		more[rep->len] = 'x';
		b = (struct vp_bytes){more, rep->len + 1, rep->len + 1};
		check(!vp_witness_push(&b, &p), "a push read with a byte after it");
	}
}
