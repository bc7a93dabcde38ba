/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libFuzzer harness of one protocol witness parser (analyzer/proto/): each
 * fuzz_proto_<name>.c defines FUZZ_PROTO and includes this.  Checked, not
 * only for memory errors:
 *   - a witness has this protocol, a count >= 1, and texts that are
 *     NUL-terminated within their fields and printable ASCII; its label and
 *     pattern key are printable and bounded;
 *   - a prefix decides it the same way: the same request and reply with
 *     fewer bytes captured (the operations' sizes unchanged) give either no
 *     witness or one that agrees: same verb and status, text and error a
 *     prefix of the whole one's, count no greater, never a witness the
 *     whole bytes refuse;
 *   - the lengths a pipeline would be cut at: fewer captured bytes give
 *     the same length or none;
 *   - FUZZ_MORE, when the target defines it: its own checks of the reply's
 *     bytes (fuzz_proto_redis.c: Redis pub/sub's pushes).
 * Input: two bytes of where the request ends, one of bytes beyond the
 * capture (the operation's size), then the request and the reply.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_proto(%s): %s\n", vp_proto_name(FUZZ_PROTO), what);
		abort();
	}
}

static void check_text(const char *s, size_t cap)
{
	const char *end = memchr(s, 0, cap);

	check(end != NULL, "text not terminated in its field");
	for (; s < end; s++)
		check(*s >= 0x20 && *s <= 0x7e, "text not printable");
}

static bool is_prefix(const char *a, const char *b)
{
	return !strncmp(a, b, strlen(a));
}

static void check_witness(const struct vp_witness *w)
{
	char buf[512];

	check(w->proto == FUZZ_PROTO && w->count >= 1, "proto or count");
	check_text(w->verb, sizeof(w->verb));
	check_text(w->text, sizeof(w->text));
	check_text(w->err, sizeof(w->err));
	vp_witness_label(w, 60, buf, sizeof(buf));
	check_text(buf, sizeof(buf));
	check(strlen(buf) < 60 + VP_WIT_VERB_MAX + VP_WIT_ERR_MAX + 32, "label too long");
	vp_witness_pattern_key(w, buf, sizeof(buf));
	check_text(buf, sizeof(buf));
}

/* w from fewer captured bytes agrees with whole, the witness of all of them. */
static void check_agrees(const struct vp_witness *w, bool whole_ok, const struct vp_witness *whole)
{
	check(whole_ok, "a prefix gives a witness the whole bytes refuse");
	check(!strcmp(w->verb, whole->verb) && w->status == whole->status, "verb or status differ");
	check(is_prefix(w->text, whole->text), "text not a prefix of the whole one");
	check(is_prefix(w->err, whole->err), "error not a prefix of the whole one");
	check(!(w->flags & VP_WIT_ERROR) || (whole->flags & VP_WIT_ERROR), "error taken back");
	check(w->count <= whole->count, "count shrank with more bytes");
	if (!(w->flags & VP_WIT_CUT) && !(whole->flags & VP_WIT_CUT))
		check(!strcmp(w->text, whole->text), "uncut texts differ");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct vp_proto_ops *o = vp_proto_ops_of(FUZZ_PROTO);
	struct vp_bytes req, rep, part;
	struct vp_witness w, p;
	size_t split, cuts[3];
	bool ok;

	if (size < 3)
		return 0;
	split = (size_t)(data[0] | data[1] << 8) % (size - 3 + 1);
	req = (struct vp_bytes){data + 3, split, split + data[2]};
	rep = (struct vp_bytes){data + 3 + split, size - 3 - split, size - 3 - split};
	ok = vp_proto_witness_as(FUZZ_PROTO, &req, &rep, &w);
	if (ok)
		check_witness(&w);
	if (o->request_len) {
		struct vp_bytes half = req;
		size_t n = o->request_len(&req), h;

		/* Fewer bytes give the same length or none (a body may go on past the operation). */
		half.len /= 2;
		h = o->request_len(&half);
		check(!h || h == n, "a request's length changed with more bytes");
		half = rep;
		half.len /= 2;
		n = o->reply_len(&rep);
		h = o->reply_len(&half);
		check(!h || h == n, "a reply's length changed with more bytes");
	}
	cuts[0] = req.len / 2;
	cuts[1] = req.len ? req.len - 1 : 0;
	cuts[2] = data[2] % (req.len + 1);
	for (int i = 0; i < 3; i++) {
		part = req;
		part.len = cuts[i];
		if (vp_proto_witness_as(FUZZ_PROTO, &part, &rep, &p)) {
			check_witness(&p);
			check_agrees(&p, ok, &w);
		}
		part = rep;
		part.len = i == 0 ? rep.len / 2 : cuts[i] % (rep.len + 1);
		if (vp_proto_witness_as(FUZZ_PROTO, &req, &part, &p)) {
			check_witness(&p);
			check_agrees(&p, ok, &w);
		}
	}
#ifdef FUZZ_MORE
	FUZZ_MORE(&rep);
#endif
	return 0;
}
