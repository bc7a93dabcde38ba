// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

#include "hpack.h"
#include "vpath/record.h"

#define H2_FRAME_HDR 9
#define H2_HEADERS 1
#define H2_CONTINUATION 9
#define H2_END_HEADERS 0x4
#define H2_PADDED 0x8
#define H2_PRIORITY 0x20
/*
 * The table size the inflater accepts.  Larger than the 4096 bytes a peer
 * starts with: a table here that keeps more of the oldest entries than the
 * sender's still names every entry the sender may use alike (hpack.h).
 */
#define HPACK_TABLE_MAX 65536

struct vp_hpack {
	nghttp2_hd_inflater *inf;
	bool started;	 /* the direction's first block was seen */
	bool broken;	 /* a block missed or cut: nothing more is read */
	bool in_block;	 /* a block goes on in CONTINUATION frames */
	uint32_t stream; /* ... of this stream */
	int id_rank;	 /* vp_propid__field()'s, for the block being read */
};

struct vp_hpack *vp_hpack__new(void)
{
	struct vp_hpack *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	if (nghttp2_hd_inflate_new(&h->inf)) {
		free(h);
		return NULL;
	}
	if (nghttp2_hd_inflate_change_table_size(h->inf, HPACK_TABLE_MAX))
		h->broken = true;
	return h;
}

void vp_hpack__free(struct vp_hpack *h)
{
	if (!h)
		return;
	nghttp2_hd_inflate_del(h->inf);
	free(h);
}

void vp_hpack__missed(struct vp_hpack *h)
{
	h->broken = true;
}

bool vp_hpack__in_sync(const struct vp_hpack *h)
{
	return !h->broken;
}

static bool named(const nghttp2_nv *nv, const char *name)
{
	size_t n = strlen(name);

	return nv->namelen == n && !memcmp(nv->name, name, n);
}

/* A decimal number of 1-3 digits, or -1. */
static int small_number(const uint8_t *v, size_t n)
{
	int x = 0;

	if (n == 0 || n > 3)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (v[i] - '0');
	}
	return x;
}

static void take_field(struct vp_hpack *h, const nghttp2_nv *nv, struct vp_h2_fields *out)
{
	int x;

	if (named(nv, ":method")) {
		vp_proto_text(out->method, sizeof(out->method), nv->value, nv->valuelen);
	} else if (named(nv, ":path")) {
		out->path_cut =
			!vp_proto_text(out->path, sizeof(out->path), nv->value, nv->valuelen);
	} else if (named(nv, ":status")) {
		x = small_number(nv->value, nv->valuelen);
		out->status = x >= 100 ? (uint16_t)x : 0;
	} else if (named(nv, "grpc-status")) {
		x = small_number(nv->value, nv->valuelen);
		out->grpc_status = (int16_t)x;
	} else {
		vp_propid__field(nv->name, nv->namelen, nv->value, nv->valuelen, &out->id,
				 &h->id_rank);
	}
}

/* Feeds a fragment; false when the inflater refused it (the table is not the sender's). */
static bool inflate(struct vp_hpack *h, const uint8_t *in, size_t n, bool final,
		    struct vp_h2_fields *out)
{
	for (;;) {
		nghttp2_nv nv;
		int flags = 0;
		ssize_t r = nghttp2_hd_inflate_hd2(h->inf, &nv, &flags, in, n, final);

		if (r < 0 || (size_t)r > n)
			return false;
		in += r;
		n -= (size_t)r;
		if (flags & NGHTTP2_HD_INFLATE_EMIT)
			take_field(h, &nv, out);
		if (flags & NGHTTP2_HD_INFLATE_FINAL) {
			nghttp2_hd_inflate_end_headers(h->inf);
			return true;
		}
		if (!(flags & NGHTTP2_HD_INFLATE_EMIT) && n == 0)
			return true;
	}
}

enum vp_hpack_result vp_hpack__frame(struct vp_hpack *h, const uint8_t *frame, size_t len,
				     uint64_t total, uint8_t pflags, struct vp_h2_fields *out)
{
	uint32_t plen, stream, start = H2_FRAME_HDR, end, pad = 0;
	uint8_t type, flags;
	bool whole, last;

	if (h->broken)
		return VP_HPACK_UNKNOWN;
	if (len < H2_FRAME_HDR || len > total || total > H2_FRAME_HDR + 0xffffffu ||
	    pflags & VPR_PAYLOAD_H2_BROKEN || !(pflags & VPR_PAYLOAD_H2_FIRST) == !h->started)
		goto broken;
	h->started = true;
	plen = (uint32_t)frame[0] << 16 | (uint32_t)frame[1] << 8 | frame[2];
	type = frame[3];
	flags = frame[4];
	stream = ((uint32_t)frame[5] & 0x7f) << 24 | (uint32_t)frame[6] << 16 |
		 (uint32_t)frame[7] << 8 | frame[8];
	if (total != H2_FRAME_HDR + (uint64_t)plen)
		goto broken;
	if (type == H2_HEADERS) {
		if (h->in_block)
			goto broken;
		memset(out, 0, sizeof(*out));
		out->grpc_status = -1;
		h->id_rank = -1;
		h->stream = stream;
		if (flags & H2_PADDED) {
			if (len <= H2_FRAME_HDR)
				goto broken;
			pad = frame[H2_FRAME_HDR];
			start++;
		}
		if (flags & H2_PRIORITY)
			start += 5;
	} else if (type != H2_CONTINUATION || !h->in_block || stream != h->stream) {
		goto broken;
	}
	if (start + pad > H2_FRAME_HDR + plen)
		goto broken;
	end = H2_FRAME_HDR + plen - pad;
	whole = len >= end;
	if (!whole)
		end = (uint32_t)len;
	last = flags & H2_END_HEADERS;
	if (start > end)
		start = end;
	if (!inflate(h, frame + start, end - start, whole && last, out))
		goto broken;
	if (!whole) {
		/* Fields before the cut are right; the table after it is unknown. */
		h->broken = true;
		out->whole = false;
		return VP_HPACK_DONE;
	}
	h->in_block = !last;
	if (!last)
		return VP_HPACK_MORE;
	out->whole = true;
	return VP_HPACK_DONE;
broken:
	h->broken = true;
	return VP_HPACK_UNKNOWN;
}
