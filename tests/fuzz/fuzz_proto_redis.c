// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the redis witness parser (fuzz_proto.h says what it
 * checks), and the reader of pub/sub's pushes (vp_witness_push) on the
 * reply's bytes: a push's witness is a delivery of one fanned-out message
 * (count 1, qkind POP, a message hash, VP_WIT_FANOUT, a push's verb) with
 * printable texts; none is all zeros; it needs every byte of exactly one
 * push, so fewer bytes captured, or a byte more after them, give none.
 */
#include "proto/proto.h"

#define FUZZ_PROTO VP_PROTO_REDIS
#define FUZZ_MORE check_push
static void check_push(const struct vp_bytes *rep);
#include "fuzz_proto.h"

static void check_push(const struct vp_bytes *rep)
{
	static const struct vp_witness zero;
	uint8_t more[4096];
	struct vp_bytes b = *rep;
	struct vp_witness w, p;

	if (!vp_witness_push(rep, &w)) {
		check(!memcmp(&w, &zero, sizeof(w)), "no push, yet a witness");
		return;
	}
	check_witness(&w);
	check(w.qkind == VP_WIT_Q_POP && w.qmsg && w.flags == VP_WIT_FANOUT && !w.status,
	      "a push that is no delivery");
	check(!strcmp(w.verb, "MESSAGE") || !strcmp(w.verb, "PMESSAGE") ||
		      !strcmp(w.verb, "SMESSAGE"),
	      "a push's verb");
	b.len = rep->len / 2;
	check(!vp_witness_push(&b, &p), "a push read from part of its bytes");
	b.len = rep->len;
	b.total = rep->total + 1;
	check(!vp_witness_push(&b, &p), "a push read with bytes beyond the capture");
	if (rep->len < sizeof(more)) {
		memcpy(more, rep->p, rep->len);
		more[rep->len] = '*';
		b = (struct vp_bytes){more, rep->len + 1, rep->len + 1};
		check(!vp_witness_push(&b, &p), "a push read with a byte after it");
	}
}
