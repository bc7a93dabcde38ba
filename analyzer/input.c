// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "input.h"
#include "local/local.h"
#include "payloads.h"
#include "recfile.h"
#include "workers.h"

#define DEFAULT_REORDER_NS (10ull * 1000 * 1000)
#define ADDR_PRESCAN_RECORDS 4096
/* The reorder window's limits in records (see ring_insert, window_full). */
#define RING_MAX 65536
#define WALK_MAX 4096
/* Drop records follow their tick's clock record within this. */
#define TICK_SPREAD_NS (1000ull * 1000)

struct cpu_drops {
	uint64_t ts, lost;
};

struct stream {
	struct vp_host *host;
	struct vpr_reader *r;
	struct vp_local_reader *lr; /* the file being read is a local file (local.h) */
	int lfile;		    /* which of the local file's recordings its records are of */
	int next_file;
	bool eof;
	/*
	 * Reorder window, sorted by ts, head..head+len.  Slots the size of a
	 * socket operation, most records, not of the largest (88 bytes): the
	 * window and the look-ahead's (fifo.h) outgrew the L2 cache, and each
	 * record was a miss here and another there (cachegrind, 2026-11-28).
	 * A longer record's slot holds its header, and in cookie its place in big.
	 */
	struct vpr_sock_op *ring;
	size_t cap, head, len;
	union vpr_any *big;
	uint32_t *big_free; /* places in big not taken */
	size_t big_cap, big_nfree;
	uint64_t max_ts, last_out_ts;
	bool filled; /* the window is full (or eof) since the last record went out: fill */
	struct cpu_drops *cpus;
	size_t ncpus;
	uint64_t bytes_done;	     /* size of the files read to their end */
	struct vp_payloads payloads; /* whole VPR_PAYLOAD records until the analysis takes them */
};

struct vp_input {
	struct vp_host *hosts;
	struct stream *streams;
	size_t nhosts;
	uint64_t reorder_ns;
};

struct file_info {
	const char *path;
	struct vpr_file_header hdr;
	struct vp_endpoint *addrs;
	size_t naddrs;
	uint32_t addr_netns;
	char **recordings; /* a local file: the recordings it was made from (taken by the host) */
	int nrecordings;
};

static int add_addr(struct vp_endpoint **v, size_t *n, const struct vpr_addr *a)
{
	struct vp_endpoint *nv, e = {0};

	e.family = a->family;
	memcpy(e.addr, a->addr, 16);
	for (size_t i = 0; i < *n; i++)
		if (vp_addr__equal(&(*v)[i], &e))
			return 0;
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = e;
	*v = nv;
	return 0;
}

/*
 * A local file stands for its host's recordings (local.h): their first
 * header, whether any may hold payload, the addresses they listed, and
 * their paths for the outputs that name them.
 */
static int prescan_local(struct file_info *fi, char *err, size_t errlen)
{
	struct vp_local_reader *l;
	const struct vp_local_host *h;
	char why[256];
	int ret;

	if (!(l = vp_local__open(fi->path, why, sizeof(why)))) {
		snprintf(err, errlen, "%s: %s", fi->path, why);
		return -EINVAL;
	}
	h = vp_local__host(l);
	fi->hdr = h->hdrs[0];
	fi->hdr.flags &= ~(uint32_t)VPR_FILE_SEGMENT; /* the whole ring, not one segment */
	for (uint32_t i = 0; i < h->nfiles; i++)
		fi->hdr.flags |= h->hdrs[i].flags & VPR_FILE_PAYLOAD;
	fi->addr_netns = h->addr_netns;
	fi->recordings = calloc(h->nfiles, sizeof(*fi->recordings));
	fi->addrs = h->naddrs ? calloc(h->naddrs, sizeof(*fi->addrs)) : NULL;
	if (!fi->recordings || (h->naddrs && !fi->addrs)) {
		vp_local__close(l);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < h->nfiles; i++)
		if ((fi->recordings[fi->nrecordings] = strdup(h->paths[i])))
			fi->nrecordings++;
	memcpy(fi->addrs, h->addrs, h->naddrs * sizeof(*fi->addrs));
	fi->naddrs = h->naddrs;
	ret = fi->nrecordings == (int)h->nfiles ? 0 : -ENOMEM;
	vp_local__close(l);
	return ret;
}

/* Header check and the host's own addresses, which the recorder writes first. */
static int prescan(struct file_info *fi, char *err, size_t errlen)
{
	const struct vpr_hdr *rec;
	struct vpr_reader *r;
	char why[256];
	int n = 0, ret = 0;

	if (vpl_is_local(fi->path))
		return prescan_local(fi, err, errlen);
	r = vpr_reader__open(fi->path, why, sizeof(why));
	if (!r) {
		snprintf(err, errlen, "%s: %s", fi->path, why);
		return -EINVAL;
	}
	fi->hdr = *vpr_reader__header(r);
	while (n++ < ADDR_PRESCAN_RECORDS && vpr_reader__next(r, &rec) == 1) {
		if (rec->type != VPR_ADDR)
			continue;
		fi->addr_netns = ((const struct vpr_addr *)rec)->netns;
		if ((ret = add_addr(&fi->addrs, &fi->naddrs, (const void *)rec)))
			break;
	}
	vpr_reader__close(r);
	return ret;
}

struct prescan_batch {
	struct file_info *fis;
	int *rets;
	char *errs; /* errlen bytes a file */
	size_t errlen;
};

static void prescan_one(void *ctx, size_t i)
{
	struct prescan_batch *b = ctx;

	b->rets[i] = prescan(&b->fis[i], b->errs + i * b->errlen, b->errlen);
}

/*
 * Every file's header and first block, read anyway, on several threads
 * when asked (each file is its own): the first error in the order given is
 * the one told, as if read in turn.
 */
static int prescan_all(struct file_info *fis, char *const *paths, int npaths, unsigned threads,
		       char *err, size_t errlen)
{
	struct prescan_batch b = {fis, calloc((size_t)npaths, sizeof(int)),
				  calloc((size_t)npaths, errlen), errlen};
	struct vp_workers w;
	int ret = -ENOMEM;

	for (int i = 0; i < npaths; i++)
		fis[i].path = paths[i];
	if (threads > (unsigned)npaths)
		threads = (unsigned)npaths;
	if (b.rets && b.errs && !vp_workers__init(&w, threads ? threads : 1)) {
		vp_workers__run(&w, (size_t)npaths, prescan_one, &b);
		vp_workers__free(&w);
		ret = 0;
		for (int i = 0; i < npaths && !ret; i++) {
			if ((ret = b.rets[i]) && ret != -ENOMEM)
				snprintf(err, errlen, "%s", b.errs + (size_t)i * errlen);
		}
	}
	free(b.rets);
	free(b.errs);
	return ret;
}

static void free_host(struct vp_host *h);

static int cmp_segment(const void *a, const void *b)
{
	const struct file_info *x = *(const struct file_info *const *)a;
	const struct file_info *y = *(const struct file_info *const *)b;

	return x->hdr.segment < y->hdr.segment ? -1 : x->hdr.segment > y->hdr.segment;
}

static bool same_host(const struct vpr_file_header *a, const struct vpr_file_header *b)
{
	return a->netns == b->netns && !strncmp(a->boot_id, b->boot_id, VPR_ID_LEN);
}

/* The recordings behind file fi: itself, or those a local file was made from (moved to h). */
static int add_recordings(struct vp_host *h, struct file_info *fi)
{
	int n = fi->recordings ? fi->nrecordings : 1;
	char **v = realloc(h->recordings, (size_t)(h->nrecordings + n) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	h->recordings = v;
	if (!fi->recordings) {
		if (!(v[h->nrecordings] = strdup(fi->path)))
			return -ENOMEM;
		h->nrecordings++;
		return 0;
	}
	memcpy(v + h->nrecordings, fi->recordings, (size_t)n * sizeof(*v));
	h->nrecordings += n;
	free(fi->recordings);
	fi->recordings = NULL;
	fi->nrecordings = 0;
	return 0;
}

/* Files of host h (all with its identity), validated and in segment order. */
static int build_host(struct vp_host *h, struct file_info *fis, int n, int first, char *err,
		      size_t errlen)
{
	struct file_info **mine = calloc((size_t)n, sizeof(*mine));
	size_t k = 0;
	int ret = 0;

	if (!mine)
		return -ENOMEM;
	for (int i = first; i < n; i++)
		if (same_host(&fis[i].hdr, &fis[first].hdr))
			mine[k++] = &fis[i];
	qsort(mine, k, sizeof(*mine), cmp_segment);
	for (size_t i = 0; i < k; i++) {
		bool seg = mine[i]->hdr.flags & VPR_FILE_SEGMENT;

		if (k > 1 && !seg) {
			snprintf(err, errlen,
				 "%s and %s: two recordings of the same host (boot_id %.36s, netns "
				 "%u)",
				 mine[i]->path, mine[i ? 0 : 1]->path, mine[i]->hdr.boot_id,
				 mine[i]->hdr.netns);
			ret = -EINVAL;
			goto cleanup;
		}
		if (i && mine[i]->hdr.segment == mine[i - 1]->hdr.segment) {
			snprintf(err, errlen,
				 "%s and %s: the same segment %u of one ring recording",
				 mine[i - 1]->path, mine[i]->path, mine[i]->hdr.segment);
			ret = -EINVAL;
			goto cleanup;
		}
	}
	struct stat st;

	h->files = calloc(k, sizeof(*h->files));
	if (!h->files) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < k; i++) {
		h->files[i] = strdup(mine[i]->path);
		if (!h->files[i] || (ret = add_recordings(h, mine[i]))) {
			ret = -ENOMEM;
			goto cleanup;
		}
		h->nfiles++;
		h->captured |= (mine[i]->hdr.flags & VPR_FILE_PAYLOAD) != 0;
		if (!stat(mine[i]->path, &st))
			h->bytes_total += (uint64_t)st.st_size;
		for (size_t a = 0; a < mine[i]->naddrs; a++) {
			struct vpr_addr ad = {.family = mine[i]->addrs[a].family};

			memcpy(ad.addr, mine[i]->addrs[a].addr, 16);
			if ((ret = add_addr(&h->addrs, &h->naddrs, &ad)))
				goto cleanup;
		}
	}
	snprintf(h->name, sizeof(h->name), "%.*s", VPR_HOSTNAME_LEN, fis[first].hdr.hostname);
	snprintf(h->boot_id, sizeof(h->boot_id), "%.*s", VPR_ID_LEN, fis[first].hdr.boot_id);
	h->netns = fis[first].hdr.netns;
	h->addr_netns = mine[0]->addr_netns;
	h->wall_offset_ns = (int64_t)(mine[0]->hdr.start_real_ns - mine[0]->hdr.start_mono_ns);
	h->start_real_ns = (int64_t)mine[0]->hdr.start_real_ns;
cleanup:
	free(mine);
	return ret;
}

/* Network-namespace hosts of one machine often share a host name. */
static void make_names_unique(struct vp_input *in)
{
	bool *dup = calloc(in->nhosts, sizeof(*dup));

	if (!dup)
		return;
	for (size_t i = 0; i < in->nhosts; i++)
		for (size_t j = 0; j < in->nhosts; j++)
			if (i != j && !strcmp(in->hosts[i].name, in->hosts[j].name))
				dup[i] = true;
	for (size_t i = 0; i < in->nhosts; i++) {
		char n[sizeof(in->hosts[i].name)];

		if (!dup[i])
			continue;
		snprintf(n, sizeof(n), "%.*s#%u", VPR_HOSTNAME_LEN, in->hosts[i].name,
			 in->hosts[i].netns);
		memcpy(in->hosts[i].name, n, sizeof(n));
	}
	free(dup);
}

int vp_input__open(struct vp_input **out, char *const *paths, int npaths,
		   const struct vp_input_opts *opts, char *err, size_t errlen)
{
	struct file_info *fis = NULL;
	struct vp_input *in = NULL;
	int ret = 0;

	*out = NULL;
	if (npaths <= 0) {
		snprintf(err, errlen, "no recording given");
		return -EINVAL;
	}
	fis = calloc((size_t)npaths, sizeof(*fis));
	in = calloc(1, sizeof(*in));
	if (!fis || !in) {
		ret = -ENOMEM;
		goto cleanup;
	}
	in->reorder_ns = opts && opts->reorder_ns ? opts->reorder_ns : DEFAULT_REORDER_NS;
	in->hosts = calloc((size_t)npaths + 1, sizeof(*in->hosts));
	in->streams = calloc((size_t)npaths, sizeof(*in->streams));
	if (!in->hosts || !in->streams) {
		ret = -ENOMEM;
		goto cleanup;
	}
	if ((ret = prescan_all(fis, paths, npaths, opts ? opts->threads : 1, err, errlen)))
		goto cleanup;
	for (int i = 0; i < npaths; i++) {
		bool seen = false;

		for (int j = 0; j < i && !seen; j++)
			seen = same_host(&fis[i].hdr, &fis[j].hdr);
		if (seen)
			continue;
		in->hosts[in->nhosts].id = (int)in->nhosts;
		if ((ret = build_host(&in->hosts[in->nhosts], fis, npaths, i, err, errlen)))
			goto cleanup;
		in->streams[in->nhosts].host = &in->hosts[in->nhosts];
		in->nhosts++;
	}
	make_names_unique(in);
	*out = in;
	in = NULL;
cleanup:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	for (int i = 0; fis && i < npaths; i++) {
		free(fis[i].addrs);
		for (int k = 0; k < fis[i].nrecordings; k++)
			free(fis[i].recordings[k]);
		free(fis[i].recordings);
	}
	free(fis);
	if (in && in->hosts) /* a host that failed half-way is not counted in nhosts */
		free_host(&in->hosts[in->nhosts]);
	vp_input__free(in);
	return ret;
}

uint64_t vp_input__reorder_ns(const struct vp_input *in)
{
	return in->reorder_ns;
}

size_t vp_input__nhosts(const struct vp_input *in)
{
	return in->nhosts;
}

struct vp_host *vp_input__host(struct vp_input *in, size_t i)
{
	return &in->hosts[i];
}

static void note_damage(struct stream *s)
{
	enum vpr_read_status st = vpr_reader__status(s->r);

	if (st == VPR_READ_OK)
		return;
	s->host->truncated = true;
	if (st == VPR_READ_CORRUPT)
		s->host->corrupt = true;
	snprintf(s->host->damage, sizeof(s->host->damage), "%s: %s",
		 s->host->files[s->next_file - 1], vpr_reader__error(s->r));
}

/*
 * A block's CRC only says the bytes are what was written.  Values that no
 * recorder writes are not passed on: the stages after this one trust them.
 */
static bool plausible(const struct vpr_hdr *rec)
{
	if (rec->ts_ns >= VP_TS_MAX)
		return false;
	if (rec->type == VPR_SOCK_OP && ((const struct vpr_sock_op *)rec)->dir > VPR_DIR_RECV)
		return false;
	if (rec->type == VPR_PAYLOAD_HASH)
		return vp_payload_hash__valid((const struct vpr_payload_hash *)rec);
	return true;
}

/*
 * A payload record's whole bytes wait aside (payloads.h); one whose len does
 * not fit its size or operation is damaged: counted, not used.
 */
static bool keep_payload(struct stream *s, const struct vpr_hdr *rec)
{
	const struct vpr_payload *p = (const struct vpr_payload *)rec;

	bool valid = rec->type == VPR_LOG ? vp_log__valid((const struct vpr_log *)rec)
					  : vp_payload__valid(p);

	if (rec->ts_ns >= VP_TS_MAX || !valid || vp_payloads__put(&s->payloads, p)) {
		s->host->payloads_bad++;
		return false;
	}
	s->host->payloads++;
	return true;
}

static bool usable_other(struct stream *s, const struct vpr_hdr *rec);

/*
 * Whether a record read is given on: known, its payload kept, its values
 * plausible.  Inline for most records, a socket operation of its own size,
 * whose only checks are plausible's: a call per record was 2% of the run.
 */
static inline bool usable(struct stream *s, const struct vpr_hdr *rec)
{
	if (rec->type == VPR_SOCK_OP && rec->size == sizeof(struct vpr_sock_op)) {
		if (plausible(rec))
			return true;
		s->host->skipped++;
		return false;
	}
	return usable_other(s, rec);
}

/* usable for every other record. */
static __attribute__((noinline)) bool usable_other(struct stream *s, const struct vpr_hdr *rec)
{
	if (!vpr_record_min_size(rec->type))
		return false;
	if ((rec->type == VPR_PAYLOAD || rec->type == VPR_LOG) && !keep_payload(s, rec))
		return false;
	if (plausible(rec))
		return true;
	s->host->skipped++;
	return false;
}

/* A reader ended early: the host's data stops there (file: the file it read). */
static void damaged(struct stream *s, const char *file, bool corrupt, const char *why)
{
	s->host->truncated = true;
	s->host->corrupt |= corrupt;
	snprintf(s->host->damage, sizeof(s->host->damage), "%s: %s", file, why);
}

/*
 * The next record of a local file (local.h): the same records, in the same
 * order, as its recordings gave, and their damage as their readers saw it.
 */
static const struct vpr_hdr *read_local(struct stream *s)
{
	const struct vpr_hdr *rec;
	const char *why;
	uint8_t status;
	int k;

	while ((k = vp_local__next_record(s->lr, &rec, &status, &why)) > 0) {
		s->host->bytes_read = s->bytes_done + vp_local__offset(s->lr);
		if (k == VP_ITEM_FILE_END) {
			const struct vp_host *h = s->host;

			if (status != VPR_READ_OK)
				damaged(s,
					s->lfile < h->nrecordings ? h->recordings[s->lfile] : "?",
					status == VPR_READ_CORRUPT, why);
			s->lfile++;
		} else if (usable(s, rec)) {
			return rec;
		}
	}
	if (k < 0)
		damaged(s, s->host->files[s->next_file - 1], vp_local__status(s->lr) == VPL_CORRUPT,
			vp_local__error(s->lr));
	return NULL;
}

/* A recording's reader ended: its damage noted, its bytes counted whole. */
static __attribute__((noinline)) void end_reader(struct stream *s)
{
	struct stat st;

	note_damage(s);
	vpr_reader__close(s->r);
	s->r = NULL;
	/* A damaged file counts whole: the bytes after the damage are not read. */
	if (!stat(s->host->files[s->next_file - 1], &st))
		s->bytes_done += (uint64_t)st.st_size;
	s->host->bytes_read = s->bytes_done;
}

/* read_raw where no recording is being read: the next file opened (a local file read). */
static __attribute__((noinline)) const struct vpr_hdr *read_files(struct stream *s)
{
	const struct vpr_hdr *rec;
	struct stat st;
	char why[256];

	for (;;) {
		if (!s->r && !s->lr) {
			const char *path;

			if (s->next_file >= s->host->nfiles)
				return NULL;
			path = s->host->files[s->next_file++];
			if (vpl_is_local(path))
				s->lr = vp_local__open(path, why, sizeof(why));
			else
				s->r = vpr_reader__open(path, why, sizeof(why));
			if (!s->r && !s->lr) { /* it was readable at open time: treat like damage */
				damaged(s, path, false, why);
				continue;
			}
		}
		if (s->lr) {
			if ((rec = read_local(s)))
				return rec;
			vp_local__close(s->lr);
			s->lr = NULL;
		} else {
			while (vpr_reader__next(s->r, &rec) == 1) {
				s->host->bytes_read = s->bytes_done + vpr_reader__offset(s->r);
				if (usable(s, rec))
					return rec;
			}
			end_reader(s);
			continue;
		}
		/* A damaged file counts whole: the bytes after the damage are not read. */
		if (!stat(s->host->files[s->next_file - 1], &st))
			s->bytes_done += (uint64_t)st.st_size;
		s->host->bytes_read = s->bytes_done;
	}
}

/*
 * Next raw record of the host's files, NULL at the end of the last one.
 * Most come from the recording being read: that loop has no frame of its
 * own (read_files' path buffer and stat), which every record paid for.
 */
static const struct vpr_hdr *read_raw(struct stream *s)
{
	const struct vpr_hdr *rec;

	if (s->r) {
		while (vpr_reader__next(s->r, &rec) == 1) {
			s->host->bytes_read = s->bytes_done + vpr_reader__offset(s->r);
			if (usable(s, rec))
				return rec;
		}
		end_reader(s);
	}
	return read_files(s);
}

static struct vpr_sock_op *slot(struct stream *s, size_t i)
{
	return &s->ring[(s->head + i) & (s->cap - 1)];
}

static int ring_grow(struct stream *s)
{
	size_t cap = s->cap ? s->cap * 2 : 1024;
	struct vpr_sock_op *r = malloc(cap * sizeof(*r));

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < s->len; i++)
		r[i] = *slot(s, i);
	free(s->ring);
	s->ring = r;
	s->cap = cap;
	s->head = 0;
	return 0;
}

/* A place in big for a record longer than a slot; 0 or -ENOMEM. */
static int big_take(struct stream *s, uint32_t *at)
{
	if (!s->big_nfree) {
		size_t cap = s->big_cap ? s->big_cap * 2 : 64;
		union vpr_any *big = realloc(s->big, cap * sizeof(*big));
		uint32_t *free_at;

		if (!big)
			return -ENOMEM;
		s->big = big;
		if (!(free_at = realloc(s->big_free, cap * sizeof(*free_at))))
			return -ENOMEM;
		s->big_free = free_at;
		for (size_t i = cap; i-- > s->big_cap;)
			s->big_free[s->big_nfree++] = (uint32_t)i;
		s->big_cap = cap;
	}
	*at = s->big_free[--s->big_nfree];
	return 0;
}

/*
 * Insert keeping the window sorted: records are nearly in order, so walk from
 * the back.  A record older than the whole window goes in front at once (a
 * file in reverse order stays linear), and one that would move more than
 * WALK_MAX records stops there and goes out late: real recordings are never
 * that far out of order, damaged ones must not make the read quadratic.
 */
static int ring_insert(struct stream *s, const struct vpr_hdr *rec)
{
	size_t n = rec->size < sizeof(union vpr_any) ? rec->size : sizeof(union vpr_any);
	size_t i, walked = 0;
	struct vpr_sock_op v;

	if (s->len == s->cap && ring_grow(s))
		return -ENOMEM;
	/* Only the record's own bytes: readers look at the fields of its type, which it holds. */
	if (n == sizeof(v)) {
		v = *(const struct vpr_sock_op *)rec;
	} else if (n < sizeof(v)) {
		memcpy(&v, rec, n);
	} else {
		uint32_t at;

		if (big_take(s, &at))
			return -ENOMEM;
		memcpy(&s->big[at], rec, n);
		memcpy(&v, rec, sizeof(v));
		v.cookie = at;
	}
	if (rec->ts_ns >= s->max_ts) {
		/* In order (most records): none in the window is later. */
		i = s->len;
	} else if (s->len && rec->ts_ns < slot(s, 0)->h.ts_ns) {
		s->head = (s->head - 1) & (s->cap - 1);
		i = 0;
	} else {
		i = s->len;
		while (i > 0 && walked++ < WALK_MAX && slot(s, i - 1)->h.ts_ns > rec->ts_ns) {
			*slot(s, i) = *slot(s, i - 1);
			i--;
		}
	}
	*slot(s, i) = v;
	s->len++;
	if (rec->ts_ns > s->max_ts)
		s->max_ts = rec->ts_ns;
	return 0;
}

/*
 * Whether the oldest record in the window may go out: one reorder window is
 * behind it, or the window holds RING_MAX records (a damaged file whose
 * records all have one time must not be read into memory whole).
 */
static inline bool window_full(const struct vp_input *in, struct stream *s)
{
	return s->eof || (s->len && (s->max_ts - slot(s, 0)->h.ts_ns >= in->reorder_ns ||
				     s->len >= RING_MAX));
}

/* Called once fill found the window not full: it reads at least one record. */
static void fill_slow(struct vp_input *in, struct stream *s)
{
	do {
		const struct vpr_hdr *rec = read_raw(s);

		if (!rec || ring_insert(s, rec)) {
			s->eof = true;
			break;
		}
	} while (!window_full(in, s));
}

/*
 * Called twice per record (peek, next): the common case, nothing to read,
 * stays inline.  The window stays full until a record goes out, so the
 * second call, after the first and before vp_input__next takes one, has
 * nothing to ask.
 */
static inline void fill(struct vp_input *in, struct stream *s)
{
	if (s->filled)
		return;
	if (!window_full(in, s))
		fill_slow(in, s);
	s->filled = true;
}

uint64_t vp_input__peek_ts(struct vp_input *in, size_t host)
{
	struct stream *s = &in->streams[host];

	fill(in, s);
	return s->len ? slot(s, 0)->h.ts_ns : UINT64_MAX;
}

/*
 * Loss windows are kept sorted and disjoint, so that a lookup is a binary
 * search however long (or lossy, or damaged) the recording: a window that
 * overlaps the last ones (other CPUs' loss of the same tick, a late drop
 * record) is merged with them.
 */
static void add_loss(struct vp_host *h, uint64_t from, uint64_t to, uint64_t lost)
{
	if (from > to) /* a drop record older than its tick (damage): a point */
		from = to;
	while (h->nlosses && h->losses[h->nlosses - 1].to_ns >= from) {
		const struct vp_loss *l = &h->losses[--h->nlosses];

		from = l->from_ns < from ? l->from_ns : from;
		to = l->to_ns > to ? l->to_ns : to;
		lost += l->lost;
	}
	if (h->nlosses == h->losses_cap) {
		size_t cap = h->losses_cap ? h->losses_cap * 2 : 16;
		struct vp_loss *nl = realloc(h->losses, cap * sizeof(*nl));

		if (!nl)
			return;
		h->losses = nl;
		h->losses_cap = cap;
	}
	h->losses[h->nlosses++] = (struct vp_loss){.from_ns = from, .to_ns = to, .lost = lost};
}

static void note_drops(struct stream *s, const struct vpr_drops *d)
{
	uint32_t cpu = d->h.tid;
	struct cpu_drops *c;

	if (cpu >= 65536)
		return;
	if (cpu >= s->ncpus) {
		size_t n = cpu + 1;
		struct cpu_drops *nc = realloc(s->cpus, n * sizeof(*nc));

		if (!nc)
			return;
		memset(nc + s->ncpus, 0, (n - s->ncpus) * sizeof(*nc));
		s->cpus = nc;
		s->ncpus = n;
	}
	c = &s->cpus[cpu];
	if (d->lost > c->lost) {
		struct vp_host *h = s->host;
		/*
		 * Nothing earlier than the previous count of this CPU was
		 * lost, nor before the previous tick (the recorder writes a
		 * CPU's count at each tick where it changed).
		 */
		uint64_t tick = d->h.ts_ns - h->last_tick_ns < TICK_SPREAD_NS ? h->prev_tick_ns
									      : h->last_tick_ns;
		uint64_t from = c->ts ? c->ts : h->first_ts;

		add_loss(h, tick > from ? tick : from, d->h.ts_ns, d->lost - c->lost);
		h->lost += d->lost - c->lost;
		c->lost = d->lost;
	}
	c->ts = d->h.ts_ns;
}

/* |v| without overflow. */
static uint64_t magnitude(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

/* A clock record: did the wall clock step since the last one?  (Counted, the largest kept.) */
static void note_wall(struct vp_host *h, const struct vpr_clock *c)
{
	int64_t now = (int64_t)(c->realtime_ns - c->h.ts_ns);
	int64_t step = (int64_t)((uint64_t)now - (uint64_t)h->wall_now_ns);

	if (h->has_clock && magnitude(step) > (uint64_t)VP_WALL_STEP_NS &&
	    (!h->wall_steps++ || magnitude(step) > magnitude(h->wall_step_ns))) {
		h->wall_step_ns = step;
		h->wall_step_at_ns = c->h.ts_ns;
	}
	h->wall_now_ns = now;
}

const struct vpr_hdr *vp_input__next(struct vp_input *in, size_t host)
{
	struct stream *s = &in->streams[host];
	struct vp_host *h = s->host;
	const union vpr_any *cur;
	const struct vpr_sock_op *first;

	fill(in, s);
	if (!s->len)
		return NULL;
	/* Handed out in place: the slot (or place in big) is written again only by a later fill. */
	first = slot(s, 0);
	if (first->h.size > sizeof(*first)) {
		cur = &s->big[first->cookie];
		s->big_free[s->big_nfree++] = (uint32_t)first->cookie;
	} else {
		cur = (const union vpr_any *)first;
	}
	s->head = (s->head + 1) & (s->cap - 1);
	s->len--;
	s->filled = false;
	if (cur->h.ts_ns < s->last_out_ts) {
		/*
		 * Analyzed after records stamped later: the thread rules saw its
		 * thread's operations out of order, so what they linked around it
		 * is not evidence.  A window as for loss (none counted) keeps the
		 * requests it touches from being called complete and exact.
		 */
		h->late++;
		add_loss(h, cur->h.ts_ns, s->last_out_ts, 0);
	} else
		s->last_out_ts = cur->h.ts_ns;
	if (!h->records++)
		h->first_ts = cur->h.ts_ns;
	if (cur->h.ts_ns > h->last_ts)
		h->last_ts = cur->h.ts_ns;
	if (h->has_clock && cur->h.ts_ns >= h->last_tick_ns + TICK_SPREAD_NS)
		h->loss_known_ns = h->last_tick_ns;
	if (cur->h.type == VPR_DROPS)
		note_drops(s, &cur->drops);
	if (cur->h.type == VPR_CLOCK) {
		note_wall(h, &cur->clock);
		h->has_clock = true;
		h->prev_tick_ns = h->last_tick_ns;
		h->last_tick_ns = cur->h.ts_ns;
	}
	return &cur->h;
}

static void free_host(struct vp_host *h)
{
	for (int f = 0; f < h->nfiles; f++)
		free(h->files[f]);
	free(h->files);
	for (int f = 0; f < h->nrecordings; f++)
		free(h->recordings[f]);
	free(h->recordings);
	free(h->addrs);
	free(h->losses);
}

void vp_input__free(struct vp_input *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->nhosts; i++) {
		free_host(&in->hosts[i]);
		vpr_reader__close(in->streams[i].r);
		vp_local__close(in->streams[i].lr);
		free(in->streams[i].ring);
		free(in->streams[i].big);
		free(in->streams[i].big_free);
		free(in->streams[i].cpus);
		vp_payloads__free(&in->streams[i].payloads);
	}
	free(in->hosts);
	free(in->streams);
	free(in);
}

bool vp_input__payload(struct vp_input *in, size_t host, const struct vpr_hdr *head,
		       struct vpr_payload *out)
{
	return vp_payloads__take(&in->streams[host].payloads, (const struct vpr_payload *)head,
				 out);
}

bool vp_input__log(struct vp_input *in, size_t host, const struct vpr_hdr *head,
		   struct vpr_log *out)
{
	return vp_payloads__take(&in->streams[host].payloads, (const struct vpr_payload *)head,
				 (struct vpr_payload *)out);
}
