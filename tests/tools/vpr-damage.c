// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vpr-damage: writes a damaged copy of a recording, for the analyzer's
 * robustness tests (tests/integration/test_analyze_damaged.sh).
 *
 *   vpr-damage IN OUT SEED [KIND]
 *
 * The records of IN are cut into blocks of a seed-chosen size (so every
 * file has many blocks) and one kind of damage is applied, chosen by KIND
 * or by the seed.  Damage inside records is *re-sealed*: the block CRC is
 * computed again over the damaged bytes, so the damage gets past the CRC
 * check and reaches the record parsers and the analysis stages.  Damage to
 * the framing (truncation, a bad CRC, block header fields, the file header)
 * tests the reader itself.  The same IN, SEED and KIND always give the same
 * OUT.  Prints one line saying what was done.  KIND names one kind
 * (kind_names below); without it the seed picks one of the K_NRANDOM
 * kinds, with its details.
 *
 * The framing is written here by hand, not through common/recfile.c, on
 * purpose: the writer refuses the malformed records this tool must produce.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "recfile.h"

enum kind {
	K_RESEAL,	/* only re-blocked: must analyze like IN */
	K_FIELD,	/* one field of one record set to an absurd value */
	K_TS,		/* timestamps going backwards or jumping by years */
	K_COOKIE,	/* zero, duplicate or kernel-address cookies */
	K_TID0,		/* threads and processes of 0 */
	K_CONN,		/* conn records with unknown families, states, roles, ports 0 */
	K_TYPE,		/* a record's type changed */
	K_SIZE,		/* a record's size changed */
	K_FLIP,		/* bit flips inside a block */
	K_OVERWRITE,	/* a run of bytes overwritten inside a block */
	K_RECORDS,	/* records duplicated, dropped or moved far */
	K_TRUNCATE,	/* the file cut at some offset */
	K_NOSEAL,	/* a byte changed and the CRC not fixed */
	K_BLOCKHDR,	/* block header fields (len, count, magic) */
	K_EMPTYBLOCK,	/* a block with no records */
	K_TAIL,		/* zeros or garbage after the last block */
	K_HEADER,	/* file header fields, header CRC re-sealed */
	K_BLOCKS,	/* whole blocks duplicated, swapped or dropped */
	K_NRANDOM,	/* the kinds above are picked by the seed; those below only by name */
	K_TSFAR = K_NRANDOM, /* one operation at the end of the 64-bit clock */
	K_WALLFAR,	/* the header's wall clock at 2^63 ns */
	K_COMMFULL,	/* thread names of 16 characters, no NUL */
	K_REVERSE,	/* every record one nanosecond before the one written before it */
	K_NKINDS,
};

static const char *const kind_names[K_NKINDS] = {
	"reseal", "field",     "ts",	"cookie", "tid0",	"conn",	  "type",   "size",   "flip",
	"overwrite", "records", "truncate", "noseal", "blockhdr", "emptyblock", "tail", "header", "blocks",
	"ts-far", "wall-far", "comm-full", "reverse",
};

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic for a seed, good enough to pick damage */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

#define YEAR_NS (365ull * 24 * 3600 * 1000000000ull)

static uint64_t absurd64(uint64_t was)
{
	static const uint64_t v[] = {0, 1, INT64_MAX, (uint64_t)INT64_MAX + 1, UINT64_MAX,
				     UINT64_MAX - 1000, 1ull << 63 | 12345};
	switch (below(4)) {
	case 0:
		return v[below(sizeof(v) / sizeof(v[0]))];
	case 1:
		return was + YEAR_NS * (1 + below(300));
	case 2:
		return was - YEAR_NS * (1 + below(3));
	default:
		return rnd();
	}
}

static uint32_t absurd32(void)
{
	static const uint32_t v[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 65535, 65536};

	return below(3) ? v[below(sizeof(v) / sizeof(v[0]))] : (uint32_t)rnd();
}

struct image {
	unsigned char *p;
	size_t len, cap;
};

static void put(struct image *im, const void *p, size_t n)
{
	if (im->len + n > im->cap) {
		im->cap = (im->len + n) * 2 + 4096;
		im->p = realloc(im->p, im->cap);
		if (!im->p) {
			perror("vpr-damage");
			exit(1);
		}
	}
	memcpy(im->p + im->len, p, n);
	im->len += n;
}

/* The records of IN, back to back, with where each starts. */
struct records {
	struct vpr_file_header hdr;
	struct image bytes;
	size_t *off;
	size_t n;
};

static void load(const char *path, struct records *rs)
{
	const struct vpr_hdr *rec;
	struct vpr_reader *r;
	char err[256];

	r = vpr_reader__open(path, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "vpr-damage: %s: %s\n", path, err);
		exit(1);
	}
	rs->hdr = *vpr_reader__header(r);
	while (vpr_reader__next(r, &rec) == 1) {
		rs->off = realloc(rs->off, (rs->n + 1) * sizeof(*rs->off));
		if (!rs->off)
			exit(1);
		rs->off[rs->n++] = rs->bytes.len;
		put(&rs->bytes, rec, rec->size);
	}
	vpr_reader__close(r);
	if (rs->n < 2) {
		fprintf(stderr, "vpr-damage: %s: too few records to damage\n", path);
		exit(1);
	}
}

static struct vpr_hdr *rec_at(struct records *rs, size_t i)
{
	return (struct vpr_hdr *)(rs->bytes.p + rs->off[i]);
}

/* A record of type t (any when 0), at random; NULL when there is none. */
static struct vpr_hdr *pick(struct records *rs, uint16_t t)
{
	size_t start = below(rs->n);

	for (size_t k = 0; k < rs->n; k++) {
		struct vpr_hdr *h = rec_at(rs, (start + k) % rs->n);

		if (!t || h->type == t)
			return h;
	}
	return NULL;
}

static void damage_field(struct records *rs, char *what, size_t wl)
{
	struct vpr_hdr *h = pick(rs, 0);
	unsigned char *b = (unsigned char *)h;
	size_t body = h->size - sizeof(*h);
	size_t at = sizeof(*h) + (body >= 4 ? below(body / 4) * 4 : 0);
	uint32_t v = absurd32();

	if (body < 4)
		return;
	/* Every field of every record is a 4-byte aligned word or part of one. */
	memcpy(b + at, &v, 4);
	snprintf(what, wl, "%s at byte %zu = %#x", vpr_type_name(h->type), at, v);
}

static void damage_ts(struct records *rs, char *what, size_t wl)
{
	size_t from = below(rs->n), n = below(3) ? 1 : rs->n - from;
	uint64_t shift = below(2) ? YEAR_NS * (1 + below(100)) : (uint64_t)-(int64_t)(below(20) * 1000000000ull);

	if (below(3) == 0) {
		struct vpr_hdr *h = rec_at(rs, from);

		h->ts_ns = absurd64(h->ts_ns);
		snprintf(what, wl, "ts of record %zu = %" PRIu64, from, (uint64_t)h->ts_ns);
		return;
	}
	for (size_t i = from; i < from + n; i++)
		rec_at(rs, i)->ts_ns += shift;
	snprintf(what, wl, "ts of %zu records from %zu shifted by %" PRId64, n, from, (int64_t)shift);
}

static __u64 *cookie_of(struct vpr_hdr *h)
{
	if (h->type == VPR_SOCK_OP)
		return &((struct vpr_sock_op *)h)->cookie;
	if (h->type == VPR_CONN)
		return &((struct vpr_conn *)h)->cookie;
	return NULL;
}

static void damage_cookie(struct records *rs, char *what, size_t wl)
{
	uint64_t other = 0;
	__u64 *c;
	struct vpr_hdr *o = pick(rs, below(2) ? VPR_SOCK_OP : VPR_CONN);
	size_t n = 1 + below(8);

	if (o && below(2))
		other = *cookie_of(o);
	else if (below(2))
		other = 1ull << 63 | rnd();
	for (size_t i = 0; i < n; i++) {
		struct vpr_hdr *h = pick(rs, below(3) ? VPR_SOCK_OP : VPR_CONN);

		if (h && (c = cookie_of(h)))
			*c = other;
	}
	snprintf(what, wl, "%zu cookies = %#" PRIx64, n, other);
}

static void damage_tid0(struct records *rs, char *what, size_t wl)
{
	size_t n = 1 + below(rs->n);

	for (size_t i = 0; i < n; i++) {
		struct vpr_hdr *h = pick(rs, 0);

		h->tid = 0;
		if (h->type == VPR_SOCK_OP && below(2))
			((struct vpr_sock_op *)h)->pid = 0;
		if (h->type == VPR_TASK && below(2))
			((struct vpr_task *)h)->pid = 0;
	}
	snprintf(what, wl, "tid 0 in %zu records", n);
}

static void damage_conn(struct records *rs, char *what, size_t wl)
{
	size_t n = 1 + below(6);

	for (size_t i = 0; i < n; i++) {
		struct vpr_conn *c = (struct vpr_conn *)pick(rs, VPR_CONN);

		if (!c)
			break;
		switch (below(6)) {
		case 0:
			c->family = (uint8_t)(below(2) ? 0 : rnd());
			break;
		case 1:
			c->oldstate = (uint8_t)rnd();
			c->newstate = (uint8_t)(below(2) ? 7 : rnd());
			break;
		case 2:
			c->role = (uint8_t)rnd();
			c->origin = (uint8_t)rnd();
			break;
		case 3:
			c->sport = c->dport = 0;
			break;
		case 4:
			memset(c->saddr, 0xff, 16);
			memcpy(c->daddr, c->saddr, 16);
			break;
		default:
			c->snd_seq = absurd32();
			c->rcv_seq = absurd32();
		}
	}
	snprintf(what, wl, "%zu conn records changed", n);
}

static void damage_type(struct records *rs, char *what, size_t wl)
{
	static const uint16_t types[] = {0, VPR_SOCK_OP, VPR_CONN, VPR_TASK, VPR_CLOCK, VPR_DROPS,
					 VPR_ADDR, VPR_TYPE_MAX, 0xffff};
	struct vpr_hdr *h = pick(rs, 0);
	uint16_t was = h->type;

	h->type = types[below(sizeof(types) / sizeof(types[0]))];
	snprintf(what, wl, "type %u -> %u (size %u)", was, h->type, h->size);
}

static void damage_size(struct records *rs, char *what, size_t wl)
{
	static const int deltas[] = {-8, 8, -1, 1, 4096};
	struct vpr_hdr *h = pick(rs, 0);
	uint16_t was = h->size;

	switch (below(4)) {
	case 0:
		h->size = 0;
		break;
	case 1:
		h->size = (uint16_t)(8 * below(4));
		break;
	case 2:
		h->size = 0xfff8;
		break;
	default:
		h->size = (uint16_t)(h->size + deltas[below(5)]);
	}
	snprintf(what, wl, "%s size %u -> %u", vpr_type_name(h->type), was, h->size);
}

static void damage_records(struct records *rs, char *what, size_t wl)
{
	size_t i = below(rs->n), j = below(rs->n), n = 1 + below(16);
	struct image out = {0};
	size_t *off = calloc(rs->n * 2 + 1, sizeof(*off)), k = 0;
	int how = (int)below(3);

	if (!off)
		exit(1);
	if (i > j) {
		size_t t = i;

		i = j;
		j = t;
	}
	for (size_t r = 0; r < rs->n; r++) {
		struct vpr_hdr *h = rec_at(rs, r);

		if (how == 1 && r >= i && r < i + n)
			continue; /* dropped: stream positions jump */
		if (how == 2 && r == i)
			continue; /* moved to j */
		off[k++] = out.len;
		put(&out, h, h->size);
		if ((how == 0 && r >= i && r < i + n) || (how == 2 && r == j)) {
			struct vpr_hdr *again = how == 2 ? rec_at(rs, i) : h;

			off[k++] = out.len;
			put(&out, again, again->size);
		}
	}
	free(rs->bytes.p);
	free(rs->off);
	rs->bytes = out;
	rs->off = off;
	rs->n = k;
	snprintf(what, wl, "records %s (%zu at %zu, %zu)",
		 how == 0 ? "duplicated" : how == 1 ? "dropped" : "moved", n, i, j);
}

/* The file: header, then blocks of rpb records each; block offsets returned in boff. */
static void build(struct records *rs, size_t rpb, struct image *im, size_t **boff, size_t *nb)
{
	struct vpr_file_header hdr = rs->hdr;

	hdr.version = 1; /* the records as they are (unpacked), to damage them one by one */
	vpr_file_header__seal(&hdr);
	put(im, &hdr, sizeof(hdr));
	*nb = 0;
	*boff = calloc(rs->n / rpb + 2, sizeof(**boff));
	if (!*boff)
		exit(1);
	for (size_t i = 0; i < rs->n; i += rpb) {
		size_t end = i + rpb < rs->n ? i + rpb : rs->n;
		size_t from = rs->off[i], to = end < rs->n ? rs->off[end] : rs->bytes.len;
		struct vpr_block_header bh = {
			.magic = VPR_BLOCK_MAGIC,
			.len = (uint32_t)(to - from),
			.crc = (uint32_t)crc32(0, rs->bytes.p + from, (uInt)(to - from)),
			.count = (uint32_t)(end - i),
		};

		(*boff)[(*nb)++] = im->len;
		put(im, &bh, sizeof(bh));
		put(im, rs->bytes.p + from, to - from);
	}
}

static struct vpr_block_header *block_at(struct image *im, size_t off)
{
	return (struct vpr_block_header *)(im->p + off);
}

static void reseal(struct image *im, size_t off)
{
	struct vpr_block_header *bh = block_at(im, off);

	if (off + sizeof(*bh) + bh->len <= im->len)
		bh->crc = (uint32_t)crc32(0, im->p + off + sizeof(*bh), bh->len);
}

/* Byte damage inside block b's records, CRC fixed afterwards. */
static void damage_bytes(struct image *im, size_t off, bool flip, char *what, size_t wl)
{
	struct vpr_block_header *bh = block_at(im, off);
	unsigned char *p = im->p + off + sizeof(*bh);
	size_t n = 1 + below(8), at = below(bh->len);

	for (size_t i = 0; i < n; i++) {
		if (flip) {
			p[below(bh->len)] ^= (unsigned char)(1u << below(8));
		} else if (at + i < bh->len) {
			p[at + i] = below(3) == 0 ? 0 : below(2) ? 0xff : (unsigned char)rnd();
		}
	}
	reseal(im, off);
	snprintf(what, wl, "%zu bytes %s in the block at %zu", n, flip ? "flipped" : "overwritten", off);
}

int main(int argc, char **argv)
{
	struct records rs = {0};
	struct image im = {0};
	size_t *boff = NULL, nb = 0, rpb, b;
	char what[200] = "";
	uint64_t seed;
	int kind = -1;
	FILE *f;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: vpr-damage IN OUT SEED [KIND]\n");
		return 2;
	}
	seed = strtoull(argv[3], NULL, 0);
	rng_state = seed * 0x9e3779b97f4a7c15ull + 0x1234567;
	for (int i = 0; argc == 5 && i < K_NKINDS; i++)
		if (!strcmp(argv[4], kind_names[i]))
			kind = i;
	if (argc == 5 && kind < 0) {
		fprintf(stderr, "vpr-damage: unknown kind '%s'\n", argv[4]);
		return 2;
	}
	if (kind < 0)
		kind = (int)(seed % K_NRANDOM);
	load(argv[1], &rs);
	rpb = 1 + below(below(2) ? 8 : 64);
	switch (kind) {
	case K_FIELD: damage_field(&rs, what, sizeof(what)); break;
	case K_TS: damage_ts(&rs, what, sizeof(what)); break;
	case K_COOKIE: damage_cookie(&rs, what, sizeof(what)); break;
	case K_TID0: damage_tid0(&rs, what, sizeof(what)); break;
	case K_CONN: damage_conn(&rs, what, sizeof(what)); break;
	case K_TYPE: damage_type(&rs, what, sizeof(what)); break;
	case K_SIZE: damage_size(&rs, what, sizeof(what)); break;
	case K_RECORDS: damage_records(&rs, what, sizeof(what)); break;
	case K_TSFAR: {
		struct vpr_hdr *h = pick(&rs, VPR_SOCK_OP);

		h->ts_ns = UINT64_MAX - below(1000000000);
		snprintf(what, sizeof(what), "a sock_op at ts %" PRIu64, (uint64_t)h->ts_ns);
		break;
	}
	case K_WALLFAR:
		rs.hdr.start_mono_ns = 0;
		rs.hdr.start_real_ns = 1ull << 63;
		snprintf(what, sizeof(what), "header start_real 2^63, start_mono 0");
		break;
	case K_COMMFULL:
		for (size_t i = 0; i < rs.n; i++)
			if (rec_at(&rs, i)->type == VPR_TASK)
				memset(((struct vpr_task *)rec_at(&rs, i))->comm, 'x', VPR_COMM_LEN);
		snprintf(what, sizeof(what), "every thread named with 16 x, no NUL");
		break;
	case K_REVERSE:
		for (size_t i = 0; i < rs.n; i++)
			rec_at(&rs, i)->ts_ns = 1000000000000ull - i;
		snprintf(what, sizeof(what), "times in reverse order");
		break;
	default: break;
	}
	build(&rs, rpb, &im, &boff, &nb);
	b = below(nb);
	switch (kind) {
	case K_FLIP:
	case K_OVERWRITE:
		damage_bytes(&im, boff[b], kind == K_FLIP, what, sizeof(what));
		break;
	case K_TRUNCATE: {
		size_t at, bo = boff[b];

		switch (below(5)) {
		case 0: at = below(sizeof(struct vpr_file_header)); break;
		case 1: at = bo + below(sizeof(struct vpr_block_header)); break;
		case 2: at = bo + sizeof(struct vpr_block_header) + below(block_at(&im, bo)->len); break;
		case 3: at = bo; break;
		default: at = im.len - 1 - below(8);
		}
		im.len = at;
		snprintf(what, sizeof(what), "truncated at %zu", at);
		break;
	}
	case K_NOSEAL: {
		struct vpr_block_header *bh = block_at(&im, boff[b]);

		im.p[boff[b] + sizeof(*bh) + below(bh->len)] ^= 0x40;
		snprintf(what, sizeof(what), "byte changed in block %zu of %zu, CRC not fixed", b, nb);
		break;
	}
	case K_BLOCKHDR: {
		struct vpr_block_header *bh = block_at(&im, boff[b]);

		switch (below(6)) {
		case 0: bh->len += 8 * (uint32_t)(1 + below(4)); break;
		case 1: bh->len = below(2) ? bh->len + 4 : VPR_BLOCK_MAX + 8; break;
		case 2: bh->count = below(2) ? bh->count + 1 : (below(2) ? 0 : absurd32()); break;
		case 3: bh->magic ^= 1u << below(32); break;
		case 4: bh->len = 0; bh->count = 0; break;
		default: bh->len = bh->len > 16 ? bh->len - 16 : 0; break;
		}
		reseal(&im, boff[b]);
		snprintf(what, sizeof(what), "block %zu of %zu header: len %u count %u magic %#x", b, nb,
			 bh->len, bh->count, bh->magic);
		break;
	}
	case K_EMPTYBLOCK: {
		struct vpr_block_header bh = {.magic = VPR_BLOCK_MAGIC};
		struct image out = {0};
		size_t at = below(2) ? boff[b] : im.len;

		put(&out, im.p, at);
		put(&out, &bh, sizeof(bh));
		put(&out, im.p + at, im.len - at);
		free(im.p);
		im = out;
		snprintf(what, sizeof(what), "an empty block at %zu", at);
		break;
	}
	case K_TAIL: {
		size_t n = 1 + below(8192);
		int how = (int)below(3);

		for (size_t i = 0; i < n; i++) {
			unsigned char c = how == 0 ? 0 : (unsigned char)rnd();

			put(&im, &c, 1);
		}
		if (how == 2) /* garbage that starts like a block */
			memcpy(im.p + im.len - n, &(uint32_t){VPR_BLOCK_MAGIC}, n >= 4 ? 4 : n);
		snprintf(what, sizeof(what), "%zu %s bytes appended", n, how == 0 ? "zero" : "random");
		break;
	}
	case K_HEADER: {
		struct vpr_file_header *h = (struct vpr_file_header *)im.p;
		bool seal = below(4) != 0;

		switch (below(9)) {
		case 0: h->version = below(2) ? VPR_VERSION + 1 : absurd32(); break;
		case 1: h->header_size = absurd32(); break;
		case 2: h->flags = absurd32(); break;
		case 3: h->flags |= VPR_FILE_SEGMENT; h->segment = absurd32(); break;
		case 4: h->netns = absurd32(); break;
		case 5: memset(h->hostname, below(2) ? 'h' : 0, sizeof(h->hostname)); break;
		case 6: memset(h->boot_id, below(2) ? 'b' : 0, sizeof(h->boot_id)); break;
		case 7: h->start_mono_ns = absurd64(h->start_mono_ns); break;
		default: h->start_real_ns = absurd64(h->start_real_ns); break;
		}
		if (seal) {
			h->header_crc = 0;
			h->header_crc = (uint32_t)crc32(0, im.p, sizeof(*h));
		}
		snprintf(what, sizeof(what), "header changed%s", seal ? ", CRC fixed" : "");
		break;
	}
	case K_BLOCKS: {
		size_t c = below(nb), lb = (b + 1 < nb ? boff[b + 1] : im.len) - boff[b];
		struct image out = {0};

		if (b > c) {
			size_t t = b;

			b = c;
			c = t;
		}
		put(&out, im.p, boff[b]);
		switch (below(3)) {
		case 0: /* block b twice */
			put(&out, im.p + boff[b], lb);
			put(&out, im.p + boff[b], im.len - boff[b]);
			snprintf(what, sizeof(what), "block %zu of %zu twice", b, nb);
			break;
		case 1: /* block b dropped */
			put(&out, im.p + boff[b] + lb, im.len - boff[b] - lb);
			snprintf(what, sizeof(what), "block %zu of %zu dropped", b, nb);
			break;
		default: /* the blocks from b to c moved after the rest */
			put(&out, im.p + (c < nb ? boff[c] : im.len), im.len - (c < nb ? boff[c] : im.len));
			put(&out, im.p + boff[b], (c < nb ? boff[c] : im.len) - boff[b]);
			snprintf(what, sizeof(what), "blocks %zu..%zu of %zu moved to the end", b, c, nb);
		}
		free(im.p);
		im = out;
		break;
	}
	default:
		if (!what[0])
			snprintf(what, sizeof(what), "re-blocked only");
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(im.p, 1, im.len, f) != im.len || fclose(f)) {
		perror(argv[2]);
		return 1;
	}
	printf("%s seed %" PRIu64 ": %s (%zu records in %zu blocks of %zu)\n", kind_names[kind], seed,
	       what, rs.n, nb, rpb);
	free(im.p);
	free(boff);
	free(rs.bytes.p);
	free(rs.off);
	return 0;
}
