// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: HTTP/2 header blocks as the recorder captures them
 * (VPR_PAYLOAD_H2_FRAME), through the recorder's redaction
 * (user/redact_h2.c) and the analyzer's decoder (analyzer/proto/hpack.c),
 * one direction's frames in order.  Checked, not only for memory errors:
 *   - redaction keeps every length and the frame headers, and changes a
 *     byte only to '*' or by clearing a string's Huffman bit;
 *   - blocks it leaves alone decode to the same fields as before;
 *   - the decoder's fields are printable text, a status is 100-999, and
 *     once a block is cut, missed or refused, every later one is unknown;
 *   - a block that decoded whole was given whole (not cut; its padding may be).
 *
 * Input: frames, each a control byte, a length byte n, then n bytes of
 * payload: control bit 0 CONTINUATION (else HEADERS), bit 1 END_HEADERS,
 * bit 2 PADDED, bit 3 PRIORITY, bit 4 the frame was missed (no bytes
 * captured), bits 5-7 the capture cut: 0 all, k: 9 + 8 * k bytes at most.
 * Seeds: tests/fuzz/hpack_seed.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/hpack.h"
#include "vpath/record.h"
#include "../../user/redact.h"
#include "../../user/redact_h2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FRAMES_MAX 64

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_hpack: %s\n", what);
		abort();
	}
}

static void check_text(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);

	check(n < cap, "text not terminated");
	for (size_t i = 0; i < n; i++)
		check(s[i] >= 0x20 && s[i] < 0x7f, "text not printable");
}

struct frame {
	uint8_t b[VPR_PAYLOAD_MAX];
	size_t len;
	uint64_t total;
	bool missed;
};

static bool same_fields(const struct vp_h2_fields *a, const struct vp_h2_fields *b)
{
	return !strcmp(a->method, b->method) && !strcmp(a->path, b->path) &&
	       a->status == b->status && a->grpc_status == b->grpc_status &&
	       a->whole == b->whole && a->id.kind == b->id.kind && !strcmp(a->id.id, b->id.id);
}

/* The direction's frames through a decoder; results and fields into r[], f[]. */
static void decode(const struct frame *fr, size_t n, int *r, struct vp_h2_fields *f)
{
	struct vp_hpack *h = vp_hpack__new();
	bool first = true, over = false;

	check(h != NULL, "out of memory");
	for (size_t i = 0; i < n; i++) {
		uint8_t flags = VPR_PAYLOAD_H2_FRAME | (first ? VPR_PAYLOAD_H2_FIRST : 0);

		memset(&f[i], 0, sizeof(f[i]));
		first = false;
		if (fr[i].missed) {
			vp_hpack__missed(h);
			r[i] = -1;
			over = true;
			continue;
		}
		r[i] = vp_hpack__frame(h, fr[i].b, fr[i].len, fr[i].total, flags, &f[i]);
		if (over)
			check(r[i] == VP_HPACK_UNKNOWN, "a block read after one was lost");
		if (r[i] == VP_HPACK_UNKNOWN || !vp_hpack__in_sync(h))
			over = true;
		if (r[i] != VP_HPACK_DONE)
			continue;
		check_text(f[i].method, sizeof(f[i].method));
		check_text(f[i].path, sizeof(f[i].path));
		check(f[i].status == 0 || (f[i].status >= 100 && f[i].status <= 999), "a status");
		check(f[i].grpc_status >= -1 && f[i].grpc_status <= 999, "a grpc-status");
		/* (A padded frame's block may be whole with its padding cut.) */
		check(!f[i].whole || fr[i].len == fr[i].total || fr[i].b[4] & 0x8,
		      "a cut block read whole");
		if (f[i].id.kind != VP_PROPID_NONE)
			check(f[i].id.len == strlen(f[i].id.id), "an id's length");
	}
	vp_hpack__free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct frame orig[FRAMES_MAX], red[FRAMES_MAX];
	static struct vp_h2_fields fo[FRAMES_MAX], fx[FRAMES_MAX];
	int ro[FRAMES_MAX], rx[FRAMES_MAX];
	unsigned changed[FRAMES_MAX];
	/* One for all inputs, as the recorder has (its table is large): a new socket each. */
	static struct redact_h2 *rd;
	static uint64_t cookie;
	size_t n = 0, pos = 0;
	bool first = true;

	if (!rd)
		rd = redact_h2__new();
	check(rd != NULL, "out of memory");
	cookie++;
	while (pos + 2 <= size && n < FRAMES_MAX) {
		uint8_t ctl = data[pos], plen = data[pos + 1], fl = 0;
		struct frame *f = &orig[n];
		size_t take = size - pos - 2 < plen ? size - pos - 2 : plen, cut = ctl >> 5;

		pos += 2;
		/* A record holds at most VPR_PAYLOAD_MAX bytes, the frame header's among them. */
		if (take > sizeof(f->b) - 9)
			take = sizeof(f->b) - 9;
		fl |= ctl & 2 ? 0x4 : 0;
		fl |= ctl & 4 ? 0x8 : 0;
		fl |= ctl & 8 ? 0x20 : 0;
		f->b[0] = 0;
		f->b[1] = 0;
		f->b[2] = (uint8_t)take;
		f->b[3] = ctl & 1 ? 9 : 1;
		f->b[4] = fl;
		memcpy(f->b + 5, "\x00\x00\x00\x01", 4);
		memcpy(f->b + 9, data + pos, take);
		pos += take;
		f->total = 9 + take;
		f->len = cut ? (9 + 8 * cut < f->total ? 9 + 8 * cut : f->total) : f->total;
		f->missed = ctl & 16;
		red[n] = *f;
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t flags = VPR_PAYLOAD_H2_FRAME | (first ? VPR_PAYLOAD_H2_FIRST : 0);

		changed[i] = 0;
		if (red[i].missed) {
			first = false;
			continue;
		}
		/* A block missed before: the recorder says so. */
		for (size_t k = 0; k < i; k++)
			if (orig[k].missed || orig[k].len < orig[k].total)
				flags |= VPR_PAYLOAD_H2_BROKEN;
		first = false;
		changed[i] = redact_h2__frame(rd, cookie, 1, flags, red[i].b, red[i].len, red[i].total);
		check(!memcmp(red[i].b, orig[i].b, 9), "a frame header changed");
		for (size_t k = 9; k < red[i].len; k++)
			check(red[i].b[k] == orig[i].b[k] || red[i].b[k] == REDACT_MASK ||
				      red[i].b[k] == (orig[i].b[k] & 0x7f),
			      "a byte changed to something else");
		check(changed[i] == 0 || changed[i] == REDACT_DONE, "redaction's result");
		check(changed[i] || !memcmp(red[i].b, orig[i].b, red[i].len),
		      "bytes changed, none said to");
	}
	decode(orig, n, ro, fo);
	decode(red, n, rx, fx);
	/* Up to the first block redaction touched, the redacted stream decodes alike. */
	for (size_t i = 0; i < n && !changed[i]; i++) {
		check(ro[i] == rx[i], "an untouched block decodes otherwise");
		if (ro[i] == VP_HPACK_DONE)
			check(same_fields(&fo[i], &fx[i]), "an untouched block gives other fields");
	}
	return 0;
}
