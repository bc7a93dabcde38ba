// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recorder's HTTP/2 logic (bpf/h2.h), run here on the same code the BPF
 * side runs: the preface and a server's first SETTINGS are told from other
 * first bytes, a walk begun on trust on that SETTINGS (sent by a server, or
 * received by a client before its preface) is confirmed or dropped by the
 * other direction's first operation, and the frame walk finds every
 * header of a stream however the stream is cut into operations (a header
 * split across two, many headers in one, payloads spanning several), and
 * stops where the bytes cannot be headers or were not all seen.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <linux/types.h>
#include "../../bpf/h2.h"

static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/* n bytes of s in a 24-byte buffer zeroed past them, as the BPF side reads them. */
static bool preface_of(const char *s, unsigned n)
{
	__u8 buf[H2_PREFACE_LEN] = {0};

	memcpy(buf, s, n < sizeof(buf) ? n : sizeof(buf));
	return h2_preface_match(buf, n);
}

static void test_preface(void **state)
{
	assert_true(preface_of(preface, 24));
	/* An operation of more bytes compares its first 24. */
	assert_true(preface_of(preface, 200));
	/* A short read: what is there, down to the request line. */
	assert_true(preface_of(preface, 16));
	assert_true(preface_of(preface, 20));
	assert_false(preface_of(preface, 15));
	assert_false(preface_of(preface, 0));
	assert_false(preface_of("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\r", 24));
	assert_false(preface_of("PRI * HTTP/1.1\r\n\r\nSM\r\n\r\n", 24));
	assert_false(preface_of("POST / HTTP/1.1\r\nHost: x\r\n", 24));
	assert_false(preface_of("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 24));
}

static void test_server_settings(void **state)
{
	static const __u8 settings[] = {0, 0, 12, 4, 0, 0, 0, 0, 0};
	static const __u8 empty[] = {0, 0, 0, 4, 0, 0, 0, 0, 0};
	static const __u8 ack[] = {0, 0, 0, 4, 1, 0, 0, 0, 0};
	static const __u8 odd[] = {0, 0, 7, 4, 0, 0, 0, 0, 0};
	static const __u8 on_stream[] = {0, 0, 6, 4, 0, 0, 0, 0, 1};
	static const __u8 tls[] = {22, 3, 1, 0, 200, 1, 0, 0, 196};

	assert_true(h2_server_settings(settings, 9));
	assert_true(h2_server_settings(empty, 9));
	assert_false(h2_server_settings(settings, 8));
	assert_false(h2_server_settings(ack, 9));
	assert_false(h2_server_settings(odd, 9));
	assert_false(h2_server_settings(on_stream, 9));
	assert_false(h2_server_settings(tls, 9));
}

/* ---- the walk ---- */

struct frame {
	__u32 len, sid;
	__u8 type, flags;
};

/* A stream: [preface] then the frames, payload bytes 0xab. */
static size_t build(__u8 *buf, bool with_preface, const struct frame *f, int n, __u32 *seqs)
{
	size_t pos = 0;

	if (with_preface) {
		memcpy(buf, preface, 24);
		pos = 24;
	}
	for (int i = 0; i < n; i++) {
		seqs[i] = (__u32)pos;
		buf[pos++] = f[i].len >> 16;
		buf[pos++] = f[i].len >> 8;
		buf[pos++] = f[i].len;
		buf[pos++] = f[i].type;
		buf[pos++] = f[i].flags;
		buf[pos++] = f[i].sid >> 24 | 0x80 * (i == 1); /* a set reserved bit is ignored */
		buf[pos++] = f[i].sid >> 16;
		buf[pos++] = f[i].sid >> 8;
		buf[pos++] = f[i].sid;
		memset(buf + pos, 0xab, f[i].len);
		pos += f[i].len;
	}
	return pos;
}

struct walk_result {
	struct h2_hdr got[64];
	int ngot;
	int reads; /* bytes read from operations */
	int ended; /* 0 the stream ended, 1 a gap, -1 implausible */
};

/*
 * The BPF side's loop (bpf/h2_frames.h) without the iovecs: operations cut
 * the stream at the offsets in cuts[] (ascending, the last the stream's
 * length); base is the stream position of byte 0.
 */
static void walk(const __u8 *buf, __u32 base, __u32 first, const size_t *cuts, int ncuts,
		 struct walk_result *r)
{
	struct h2_dir d = {.next = base + first, .mode = H2_TRACK};
	size_t from = 0;

	memset(r, 0, sizeof(*r));
	for (int c = 0; c < ncuts; c++) {
		__u32 start = base + (__u32)from, end = base + (__u32)cuts[c], off, n;
		int s;

		while ((s = h2_step(&d, start, end, &off, &n)) == H2_STEP_READ) {
			struct h2_hdr fr;
			int t;

			assert_true(n >= 1 && n <= 9 && d.have + n <= 9);
			memcpy(d.hdr + d.have, buf + from + off, n);
			r->reads += n;
			t = h2_took(&d, n, &fr);
			if (t == H2_TOOK_IMPLAUSIBLE) {
				r->ended = -1;
				return;
			}
			if (t == H2_TOOK_FRAME)
				r->got[r->ngot++] = fr;
		}
		if (s == H2_STEP_GAP) {
			r->ended = 1;
			return;
		}
		from = cuts[c];
	}
}

static const struct frame client_frames[] = {
	{18, 0, H2_SETTINGS, 0},  {4, 0, H2_WINDOW_UPDATE, 0}, {0, 0, H2_SETTINGS, 1},
	{30, 1, H2_HEADERS, 4},	  {30, 3, H2_HEADERS, 4},      {100, 1, H2_DATA, 1},
	{5, 3, H2_PRIORITY, 0},	  {0, 3, H2_DATA, 1},	       {8, 0, H2_PING, 0},
	{4, 5, H2_RST_STREAM, 0}, {20, 7, H2_HEADERS, 0},      {3, 7, H2_CONTINUATION, 4},
	{9000, 7, H2_DATA, 1},	  {8, 0, H2_GOAWAY, 0},	       {2, 9, 0x21, 0x5}, /* an extension */
};
#define NFRAMES ((int)(sizeof(client_frames) / sizeof(client_frames[0])))

static __u8 stream[16384];
static __u32 seqs[NFRAMES];

static void check_all(const struct walk_result *r, __u32 base, bool with_preface)
{
	assert_int_equal(r->ended, 0);
	assert_int_equal(r->ngot, NFRAMES);
	for (int i = 0; i < NFRAMES; i++) {
		assert_int_equal(r->got[i].seq, base + seqs[i]);
		assert_int_equal(r->got[i].len, client_frames[i].len);
		assert_int_equal(r->got[i].stream_id, client_frames[i].sid);
		assert_int_equal(r->got[i].type, client_frames[i].type);
		assert_int_equal(r->got[i].flags, client_frames[i].flags);
	}
	/* Headers are read, payloads never. */
	assert_int_equal(r->reads, 9 * NFRAMES);
	(void)with_preface;
}

/* Every frame found at its position, whatever the cuts; across the wrap of 2^32 too. */
static void test_walk_any_cuts(void **state)
{
	size_t len = build(stream, true, client_frames, NFRAMES, seqs);
	const __u32 bases[] = {1000, 0xffffff00u};
	struct walk_result r;
	size_t cuts[16384];

	for (unsigned b = 0; b < 2; b++) {
		/* One operation. */
		cuts[0] = len;
		walk(stream, bases[b], 24, cuts, 1, &r);
		check_all(&r, bases[b], true);
		/* Operations of every fixed size from 1 to 40 bytes. */
		for (size_t step = 1; step <= 40; step++) {
			int n = 0;

			for (size_t at = step; at < len; at += step)
				cuts[n++] = at;
			cuts[n++] = len;
			walk(stream, bases[b], 24, cuts, n, &r);
			check_all(&r, bases[b], true);
		}
		/* A short first read: the preface itself cut (the walk starts past it). */
		cuts[0] = 10;
		cuts[1] = 30;
		cuts[2] = len;
		walk(stream, bases[b], 24, cuts, 3, &r);
		check_all(&r, bases[b], true);
	}
}

/* Bytes never walked (an operation not seen) stop the walk: nothing after is trusted. */
static void test_walk_gap(void **state)
{
	size_t len = build(stream, true, client_frames, NFRAMES, seqs);
	struct walk_result r;
	/* Walk [0,40) then [60,len): the header at 24+9+18=51 lies in the unseen bytes. */
	struct h2_dir d = {.next = 24, .mode = H2_TRACK};
	__u32 off, n;
	struct h2_hdr fr;

	assert_int_equal(h2_step(&d, 0, 40, &off, &n), H2_STEP_READ);
	assert_int_equal(off, 24);
	assert_int_equal(n, 9);
	memcpy(d.hdr, stream + 24, 9);
	assert_int_equal(h2_took(&d, 9, &fr), H2_TOOK_FRAME);
	assert_int_equal(d.next, 51);
	assert_int_equal(h2_step(&d, 0, 40, &off, &n), H2_STEP_DONE);
	assert_int_equal(h2_step(&d, 60, (__u32)len, &off, &n), H2_STEP_GAP);
	/* Half a header taken, then the rest not where it should be. */
	d.next = 51;
	assert_int_equal(h2_step(&d, 40, 55, &off, &n), H2_STEP_READ);
	assert_int_equal(off, 11);
	assert_int_equal(n, 4);
	memcpy(d.hdr, stream + 51, 4);
	assert_int_equal(h2_took(&d, 4, &fr), H2_TOOK_MORE);
	assert_int_equal(h2_step(&d, 56, 70, &off, &n), H2_STEP_GAP);
	assert_int_equal(h2_step(&d, 55, 70, &off, &n), H2_STEP_READ);
	assert_int_equal(off, 0);
	assert_int_equal(n, 5);
	(void)r;
}

/* A walk that starts in the wrong place meets a header no peer may send. */
static void test_walk_implausible(void **state)
{
	size_t len = build(stream, true, client_frames, NFRAMES, seqs);
	size_t cuts[1] = {len};
	struct walk_result r;

	/* Treating the preface as frames: "PRI * HT" is a 5263945-byte frame. */
	walk(stream, 0, 0, cuts, 1, &r);
	assert_int_equal(r.ended, -1);
	assert_int_equal(r.ngot, 0);
	/* One byte off, inside the first header. */
	walk(stream, 0, 25, cuts, 1, &r);
	assert_int_equal(r.ended, -1);
}

/* Where each direction's walk begins, from the operation that began it. */
static void test_begin_walks(void **state)
{
	struct h2_dir d[2] = {0};

	/* The client's preface, sent: its frames follow it; the server's start at once. */
	h2_begin_walks(&d[VPR_DIR_SEND], &d[VPR_DIR_RECV], true, 1000, 7000);
	assert_int_equal(d[VPR_DIR_SEND].next, 1024);
	assert_int_equal(d[VPR_DIR_RECV].next, 7000);
	assert_int_equal(d[VPR_DIR_SEND].mode, H2_TRACK);
	assert_int_equal(d[VPR_DIR_RECV].mode, H2_TRACK);
	/* A server's SETTINGS, sent (Node.js): the client's preface is to come. */
	h2_begin_walks(&d[VPR_DIR_SEND], &d[VPR_DIR_RECV], false, 1000, 7000);
	assert_int_equal(d[VPR_DIR_SEND].next, 1000);
	assert_int_equal(d[VPR_DIR_RECV].next, 7024);
	/* A server's SETTINGS, received by a client before its preface (gRPC); across 2^32. */
	h2_begin_walks(&d[VPR_DIR_RECV], &d[VPR_DIR_SEND], false, 7000, 0xfffffff0u);
	assert_int_equal(d[VPR_DIR_RECV].next, 7000);
	assert_int_equal(d[VPR_DIR_SEND].next, 8);
}

/* A walk begun on trust is decided by the other direction's first operation, and only by it. */
static void test_trust_decide(void **state)
{
	const __u8 snd = VPR_DIR_SEND, rcv = VPR_DIR_RECV;

	/* Begun by the server's SETTINGS, sent: the server's first receive decides. */
	assert_int_equal(h2_trust_decide(snd, snd, true, false), H2_TRUST_WAIT);
	assert_int_equal(h2_trust_decide(snd, snd, false, false), H2_TRUST_WAIT);
	assert_int_equal(h2_trust_decide(snd, rcv, false, false), H2_TRUST_WAIT);
	assert_int_equal(h2_trust_decide(snd, rcv, true, true), H2_TRUST_CONFIRMED);
	assert_int_equal(h2_trust_decide(snd, rcv, true, false), H2_TRUST_DROPPED);
	/* Begun by the server's SETTINGS, received: the client's first send decides. */
	assert_int_equal(h2_trust_decide(rcv, rcv, true, false), H2_TRUST_WAIT);
	assert_int_equal(h2_trust_decide(rcv, rcv, false, false), H2_TRUST_WAIT);
	assert_int_equal(h2_trust_decide(rcv, snd, false, false), H2_TRUST_WAIT);
	assert_int_equal(h2_trust_decide(rcv, snd, true, true), H2_TRUST_CONFIRMED);
	assert_int_equal(h2_trust_decide(rcv, snd, true, false), H2_TRUST_DROPPED);
}

/*
 * A client that reads the server's SETTINGS before it sends its preface
 * (gRPC servers send theirs at accept): that receive begins the walks,
 * which find every frame the server sent from its stream's first byte.
 */
static void test_client_reads_settings_first(void **state)
{
	static const struct frame server_frames[] = {
		{6, 0, H2_SETTINGS, 0},
		{4, 0, H2_WINDOW_UPDATE, 0},
		{0, 0, H2_SETTINGS, H2_FLAG_ACK},
		{30, 1, H2_HEADERS, 4},
		{100, 1, H2_DATA, 0},
		{12, 1, H2_HEADERS, 5},
	};
	const int nf = (int)(sizeof(server_frames) / sizeof(server_frames[0]));
	__u8 buf[512];
	__u32 fseqs[6];
	size_t len = build(buf, false, server_frames, nf, fseqs);
	/* The first receive is the SETTINGS frame alone, as the server wrote it. */
	size_t cuts[3] = {15, 40, len};
	struct h2_dir d[2] = {0};
	struct walk_result r;
	const __u32 base = 0xffffffe0u;

	assert_true(h2_server_settings(buf, 15));
	h2_begin_walks(&d[VPR_DIR_RECV], &d[VPR_DIR_SEND], false, base, 5000);
	assert_int_equal(d[VPR_DIR_RECV].next, base);
	walk(buf, base, d[VPR_DIR_RECV].next - base, cuts, 3, &r);
	assert_int_equal(r.ended, 0);
	assert_int_equal(r.ngot, nf);
	for (int i = 0; i < nf; i++) {
		assert_int_equal(r.got[i].seq, base + fseqs[i]);
		assert_int_equal(r.got[i].type, server_frames[i].type);
		assert_int_equal(r.got[i].stream_id, server_frames[i].sid);
	}
}

static void test_plausible(void **state)
{
	struct h2_hdr fr = {.len = 4, .type = H2_WINDOW_UPDATE, .stream_id = 0};

	assert_true(h2_plausible(&fr));
	fr.len = 5;
	assert_false(h2_plausible(&fr));
	fr = (struct h2_hdr){.len = 16384, .type = H2_DATA, .stream_id = 1};
	assert_true(h2_plausible(&fr));
	fr.len = H2_FRAME_MAX + 1;
	assert_false(h2_plausible(&fr));
	fr = (struct h2_hdr){.len = 10, .type = H2_HEADERS, .stream_id = 0};
	assert_false(h2_plausible(&fr));
	fr = (struct h2_hdr){.len = 6, .type = H2_SETTINGS, .flags = H2_FLAG_ACK};
	assert_false(h2_plausible(&fr));
	fr = (struct h2_hdr){.len = 8, .type = H2_PING, .stream_id = 1};
	assert_false(h2_plausible(&fr));
	fr = (struct h2_hdr){.len = 4, .type = H2_GOAWAY};
	assert_false(h2_plausible(&fr));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preface),
		cmocka_unit_test(test_server_settings),
		cmocka_unit_test(test_walk_any_cuts),
		cmocka_unit_test(test_walk_gap),
		cmocka_unit_test(test_walk_implausible),
		cmocka_unit_test(test_begin_walks),
		cmocka_unit_test(test_trust_decide),
		cmocka_unit_test(test_client_reads_settings_first),
		cmocka_unit_test(test_plausible),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
