// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Local files (common/localfile.h): records and calls round-trip byte for
 * byte and field by field through their codecs, whatever their values
 * (operations that follow on and that do not, records of every other kind
 * and of unknown ones, times going backwards); blocks of a written file come
 * back as written, and a cut or damaged file says which with the blocks
 * before the damage still read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "local/localcalls.h"
#include "localfile.h"
#include "reccodec.h"

/* A small deterministic generator: the same cases every run. */
static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

#define NRECS 5000

/* Records as a recording could hold them: mostly operations on a few sockets, some in sequence. */
static size_t make_record(uint8_t *buf, uint32_t *seq, uint64_t *ts)
{
	struct vpr_hdr *h = (struct vpr_hdr *)buf;
	unsigned kind = (unsigned)(rnd() % 10);

	*ts += rnd() % 3 ? rnd() % 100000
			 : (uint64_t) - (int64_t)(rnd() % 5000); /* backwards too */
	if (kind < 7) {
		struct vpr_sock_op *op = (struct vpr_sock_op *)buf;
		unsigned s = (unsigned)(rnd() % 6), dir = (unsigned)(rnd() % 2);

		memset(op, 0, sizeof(*op));
		op->h.type = VPR_SOCK_OP;
		op->h.size = sizeof(*op);
		op->h.ts_ns = *ts;
		op->h.tid = 100 + (uint32_t)(rnd() % 3);
		op->cookie = 0x8000000000000000ull | s;
		op->pid = 100 + (uint32_t)(rnd() % 2);
		op->bytes = (uint32_t)(rnd() % 70000);
		op->dir = (uint8_t)dir;
		op->flags = rnd() % 4 ? 0 : (uint8_t)rnd();
		seq[s * 2 + dir] += op->bytes + (rnd() % 5 ? 0 : (uint32_t)rnd());
		op->seq_end = seq[s * 2 + dir];
		if (kind == 6) /* an operation the fast path cannot take: as any record */
			op->pad = (uint16_t)rnd();
		return sizeof(*op);
	}
	/* Another type, or an unknown one, with bytes of any value and a size of 16 to 800. */
	h->size = (uint16_t)(16 + 8 * (rnd() % 100));
	for (size_t i = sizeof(*h); i < h->size; i++)
		buf[i] = (uint8_t)rnd();
	h->type = kind == 9 ? (uint16_t)(200 + rnd() % 50) : (uint16_t)(2 + rnd() % 7);
	h->tid = (uint32_t)rnd();
	h->ts_ns = *ts;
	return h->size;
}

static void test_records_round_trip(void **state)
{
	static uint8_t recs[NRECS][1024] __attribute__((aligned(8)));
	struct vp_recenc e = {0};
	struct vp_recdec *d = calloc(1, sizeof(*d));
	uint32_t seq[12] = {0};
	uint64_t ts = 1000000;
	size_t n = 0, block_start = 0;
	int k;

	assert_non_null(d);
	for (size_t i = 0; i < NRECS; i++) {
		make_record(recs[i], seq, &ts);
		vp_recenc__record(&e, (const struct vpr_hdr *)recs[i]);
		/* Cut into blocks now and then: each decodes alone. */
		if (i % 1700 == 1699 || i == NRECS - 1) {
			vp_recenc__file_end(&e, 1, "truncated at offset 9");
			assert_false(e.buf.oom);
			vp_recdec__block(d, e.buf.p, e.buf.len, e.count);
			for (size_t j = block_start; j <= i; j++) {
				const struct vpr_hdr *h = (const struct vpr_hdr *)recs[j];

				assert_int_equal(vp_recdec__next(d), VP_ITEM_RECORD);
				assert_memory_equal(d->rec, recs[j], h->size);
				n++;
			}
			assert_int_equal(vp_recdec__next(d), VP_ITEM_FILE_END);
			assert_int_equal(d->status, 1);
			assert_string_equal(d->error, "truncated at offset 9");
			assert_int_equal(vp_recdec__next(d), 0);
			vp_recenc__reset(&e);
			block_start = i + 1;
		}
	}
	assert_int_equal(n, NRECS);
	/* A block cut short, or with a byte changed, does not decode past its end. */
	for (size_t i = 0; i < 50; i++)
		vp_recenc__record(&e, (const struct vpr_hdr *)recs[i]);
	vp_recdec__block(d, e.buf.p, e.buf.len / 2, e.count);
	while ((k = vp_recdec__next(d)) > 0)
		;
	assert_int_equal(k, -EINVAL);
	vp_recenc__free(&e);
	vp_recdec__free(d);
	free(d);
}

static void random_msg(struct vp_msg *m)
{
	m->first_ts = rnd() >> 4;
	m->last_ts = m->first_ts + rnd() % 1000000;
	m->bytes = rnd() % 100000000;
	m->seq_start = (uint32_t)rnd();
	m->seq_end = (uint32_t)rnd();
	m->first_tid = (uint32_t)rnd();
	m->last_tid = (uint32_t)rnd();
	m->nops = (uint32_t)rnd() % 1000;
	m->nthreads = (uint16_t)rnd();
	m->gap = rnd() % 2;
}

static void random_call(struct vp_local_call *c, uint64_t id)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->side = rnd() % 2;
	c->cookie = rnd() % 7 + 1; /* a few sockets, some with another tuple later */
	c->netns = (uint32_t)(c->cookie * 1000);
	c->have_tuple = rnd() % 8 != 0;
	c->local.family = rnd() % 3 ? 2 : 10;
	c->local.port = (uint16_t)(rnd() % 3);
	for (unsigned i = 0; i < (c->local.family == 2 ? 4u : 16u); i++)
		c->local.addr[i] = (uint8_t)rnd();
	c->remote = c->local;
	c->remote.port = 80;
	c->conn_index = (uint32_t)rnd() % 50;
	c->pid = (uint32_t)rnd() % 3;
	snprintf(c->comm, sizeof(c->comm), "t%u", (unsigned)(rnd() % 4));
	snprintf(c->proc, sizeof(c->proc), "%s", rnd() % 2 ? "nginx" : "a-long-name-xyz");
	c->flags = (uint32_t)rnd() & 0x7ff;
	random_msg(&c->req);
	if (c->flags & VPL_HAS_REP)
		random_msg(&c->rep);
	c->setup_ns = rnd() % 3 ? 0 : rnd() % 100000;
	c->parent = rnd() % 2 ? 0 : rnd() % 10000;
	c->peer = rnd() % 2 ? 0 : rnd() % 10000;
	c->link.basis = (uint8_t)(rnd() % VP_BASIS_MAX);
	c->link.exact = rnd() % 2;
	c->link.candidates = (uint16_t)rnd();
	if (rnd() % 3 == 0) {
		c->wit.proto = (uint8_t)(1 + rnd() % (VP_PROTO_MAX - 1));
		c->wit.flags = (uint8_t)rnd();
		c->wit.status = (uint16_t)rnd();
		c->wit.count = (uint16_t)rnd();
		snprintf(c->wit.verb, sizeof(c->wit.verb), "GET");
		snprintf(c->wit.text, sizeof(c->wit.text), "/item/%u?x=%u", (unsigned)rnd(),
			 (unsigned)rnd());
		snprintf(c->wit.err, sizeof(c->wit.err), "%s", rnd() % 2 ? "" : "ERROR 42P01");
	}
}

#define NCALLS 3000

static void test_calls_round_trip(void **state)
{
	static struct vp_local_call in[NCALLS];
	struct vp_callenc e = {0};
	struct vp_calldec d = {0};
	struct vp_local_call out;

	for (size_t i = 0; i < NCALLS; i++) {
		random_call(&in[i], rnd() % 4 ? i + 1 : rnd() % 100000 + 1);
		vp_callenc__add(&e, &in[i]);
	}
	assert_false(e.buf.oom);
	vp_calldec__block(&d, e.buf.p, e.buf.len, e.count);
	for (size_t i = 0; i < NCALLS; i++) {
		assert_int_equal(vp_calldec__next(&d, &out), 1);
		assert_int_equal(out.id, in[i].id);
		assert_int_equal(out.cookie, in[i].cookie);
		assert_int_equal(out.netns, in[i].netns);
		assert_memory_equal(&out.local, &in[i].local, sizeof(out.local));
		assert_memory_equal(&out.remote, &in[i].remote, sizeof(out.remote));
		assert_memory_equal(&out.req, &in[i].req, sizeof(out.req));
		assert_memory_equal(&out.rep, &in[i].rep, sizeof(out.rep));
		assert_string_equal(out.comm, in[i].comm);
		assert_string_equal(out.wit.text, in[i].wit.text);
		assert_memory_equal(&out, &in[i], sizeof(out)); /* and every other field */
	}
	assert_int_equal(vp_calldec__next(&d, &out), 0);
	/* Cut short: an error, never a read past the end. */
	vp_calldec__block(&d, e.buf.p, e.buf.len - 3, e.count);
	for (size_t i = 0; i < NCALLS - 1; i++)
		assert_int_equal(vp_calldec__next(&d, &out), 1);
	assert_int_equal(vp_calldec__next(&d, &out), -EINVAL);
	vp_callenc__free(&e);
	vp_calldec__free(&d);
}

static char path[64];

/* Write HOST-like, three blocks and END; returns the file's size. */
static long write_blocks(void)
{
	uint8_t raw[3][5000];
	struct vpl_writer *w;
	FILE *f;
	long size;

	strcpy(path, "/tmp/vpath-localfile.XXXXXX");
	close(mkstemp(path));
	for (int b = 0; b < 3; b++)
		for (size_t i = 0; i < sizeof(raw[b]); i++)
			raw[b][i] = (uint8_t)(b * 7 + i % 13);
	assert_non_null(w = vpl_writer__create(path));
	assert_int_equal(vpl_writer__block(w, VPL_HOST, "h", 1, 1), 0);
	for (int b = 0; b < 3; b++)
		assert_int_equal(vpl_writer__block(w, VPL_RECS, raw[b], sizeof(raw[b]), 10 + b), 0);
	assert_int_equal(vpl_writer__block(w, VPL_END, "", 0, 0), 0);
	assert_int_equal(vpl_writer__close(w), 0);
	assert_non_null(f = fopen(path, "rb"));
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	return size;
}

/* Blocks read back until the reading stops: how many, and the status. */
static int read_blocks(enum vpl_status *st)
{
	char err[256];
	struct vpl_reader *r = vpl_reader__open(path, err, sizeof(err));
	const uint8_t *raw;
	size_t len;
	uint32_t kind, count;
	int n = 0;

	assert_non_null(r);
	while (vpl_reader__next(r, &kind, &raw, &len, &count) == 1) {
		if (kind == VPL_RECS) {
			assert_int_equal(len, 5000);
			assert_int_equal(count, 10 + n - 1);
			assert_int_equal(raw[4999], (uint8_t)((n - 1) * 7 + 4999 % 13));
		}
		n++;
	}
	*st = vpl_reader__status(r);
	vpl_reader__close(r);
	return n;
}

static void test_blocks_and_damage(void **state)
{
	long size = write_blocks();
	enum vpl_status st;
	uint32_t len;
	FILE *f;
	int c;

	assert_true(vpl_is_local(path));
	assert_int_equal(read_blocks(&st), 5);
	assert_int_equal(st, VPL_OK);
	/* The END block gone: cut short, everything before it read. */
	assert_int_equal(truncate(path, size - 24 - 8), 0);
	assert_int_equal(read_blocks(&st), 4);
	assert_int_equal(st, VPL_TORN);
	/* A byte changed in the second block, with blocks after it: corrupt there. */
	unlink(path);
	size = write_blocks();
	assert_non_null(f = fopen(path, "r+b"));
	fseek(f, 32 + 8, SEEK_SET); /* the first block's stored length */
	assert_int_equal(fread(&len, sizeof(len), 1, f), 1);
	fseek(f, 32 + 24 + (long)len + 24 + 3, SEEK_SET);
	c = fgetc(f);
	fseek(f, -1, SEEK_CUR);
	fputc(c ^ 0x5a, f);
	fclose(f);
	assert_int_equal(read_blocks(&st), 1);
	assert_int_equal(st, VPL_CORRUPT);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_round_trip),
		cmocka_unit_test(test_calls_round_trip),
		cmocka_unit_test(test_blocks_and_damage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
