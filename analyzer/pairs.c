// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairs.h"

struct host_key {
	char key[VP_HOST_KEY_LEN];
	int32_t host;
};

void vp_pairs__host_key(char *buf, size_t len, const char *boot_id, uint32_t netns)
{
	char id[VPR_ID_LEN + 1];
	size_t i;

	for (i = 0; i < VPR_ID_LEN && boot_id[i]; i++) {
		char ch = boot_id[i];
		bool ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
			  (ch >= 'A' && ch <= 'Z') || ch == '-';

		id[i] = ok ? ch : '_';
	}
	id[i] = 0;
	snprintf(buf, len, "%s/%" PRIu32, id, netns);
}

static int cmp_key(const void *x, const void *y)
{
	return strcmp(((const struct host_key *)x)->key, ((const struct host_key *)y)->key);
}

static int cmp_end(const void *x, const void *y)
{
	const struct vp_pair_end *a = x, *b = y;

	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	if (a->cookie != b->cookie)
		return a->cookie < b->cookie ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The analyzed host a "BOOT_ID/NETNS" names, -1 when none. */
static int32_t host_of(const struct host_key *keys, size_t n, const char *s)
{
	struct host_key k;
	const struct host_key *f;

	if (strlen(s) >= sizeof(k.key))
		return -1;
	strcpy(k.key, s);
	f = n ? bsearch(&k, keys, n, sizeof(*keys), cmp_key) : NULL;
	return f ? f->host : -1;
}

static int parse_u64_field(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end || *v > max ? -EINVAL : 0;
}

static int add_end(struct vp_pairs *p, size_t *cap, const struct vp_pair_end *e)
{
	if (p->nends == *cap) {
		size_t n = *cap ? *cap * 2 : 1024;
		struct vp_pair_end *v = realloc(p->ends, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->ends = v;
		*cap = n;
	}
	p->ends[p->nends++] = *e;
	return 0;
}

/* One call's line: its two ends, or none when a host is not analyzed; -EINVAL when malformed. */
static int parse_line(struct vp_pairs *p, size_t *cap, char *line, const struct host_key *keys,
		      size_t nkeys)
{
	char *f[6];
	int n = 0;
	uint64_t ccookie, scookie, seq;
	int32_t ch, sh;

	for (char *s = line, *tok; n < 6 && (tok = strsep(&s, "\t"));)
		f[n++] = tok;
	if (n != 5 || parse_u64_field(f[1], UINT64_MAX, &ccookie) ||
	    parse_u64_field(f[3], UINT64_MAX, &scookie) || parse_u64_field(f[4], UINT32_MAX, &seq))
		return -EINVAL;
	p->calls++;
	ch = host_of(keys, nkeys, f[0]);
	sh = host_of(keys, nkeys, f[2]);
	if (ch < 0 || sh < 0) {
		p->foreign++;
		return 0;
	}
	if (add_end(p, cap,
		    &(struct vp_pair_end){ccookie, scookie, (uint32_t)seq, ch, sh, VP_CLIENT}) ||
	    add_end(p, cap,
		    &(struct vp_pair_end){scookie, ccookie, (uint32_t)seq, sh, ch, VP_SERVER}))
		return -ENOMEM;
	return 0;
}

static int load(struct vp_pairs *p, FILE *f, const char *path, const struct host_key *keys,
		size_t nkeys, char *err, size_t errlen)
{
	char *line = NULL;
	size_t len = 0, cap = 0;
	uint64_t lineno = 0;
	ssize_t got;
	int ret = 0;

	while ((got = getline(&line, &len, f)) >= 0) {
		lineno++;
		if (got && line[got - 1] == '\n')
			line[--got] = 0;
		if (lineno == 1) {
			if (strcmp(line, VP_PAIRS_MAGIC)) {
				snprintf(err, errlen,
					 "%s: not a pairs file (its first line is not '%s')", path,
					 VP_PAIRS_MAGIC);
				ret = -EINVAL;
				break;
			}
			continue;
		}
		if (!got || line[0] == '#')
			continue;
		if ((ret = parse_line(p, &cap, line, keys, nkeys))) {
			if (ret == -EINVAL)
				snprintf(err, errlen,
					 "%s:%" PRIu64 ": not CLIENT_HOST, CLIENT_COOKIE, "
					 "SERVER_HOST, SERVER_COOKIE, REQ_SEQ_START separated by "
					 "tabs",
					 path, lineno);
			break;
		}
	}
	if (!ret && ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		ret = -EIO;
	} else if (!ret && !lineno) {
		snprintf(err, errlen, "%s: empty (a pairs file begins with '%s')", path,
			 VP_PAIRS_MAGIC);
		ret = -EINVAL;
	}
	free(line);
	return ret;
}

int vp_pairs__load(struct vp_pairs *p, const char *path, const struct vp_host *const *hosts,
		   size_t nhosts, char *err, size_t errlen)
{
	struct host_key *keys = calloc(nhosts ? nhosts : 1, sizeof(*keys));
	FILE *f;
	int ret;

	memset(p, 0, sizeof(*p));
	if (!keys) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < nhosts; i++) {
		vp_pairs__host_key(keys[i].key, sizeof(keys[i].key), hosts[i]->boot_id,
				   hosts[i]->netns);
		keys[i].host = (int32_t)i;
	}
	if (nhosts)
		qsort(keys, nhosts, sizeof(*keys), cmp_key);
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(keys);
		return ret;
	}
	ret = load(p, f, path, keys, nhosts, err, errlen);
	fclose(f);
	free(keys);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory reading %s", path);
	if (!ret && p->nends) {
		qsort(p->ends, p->nends, sizeof(*p->ends), cmp_end);
		for (size_t i = 1; i < p->nends; i++) {
			if (!cmp_end(&p->ends[i - 1], &p->ends[i])) {
				snprintf(err, errlen,
					 "%s: socket %" PRIu64 " at stream position %u is in "
					 "two calls",
					 path, p->ends[i].cookie, p->ends[i].seq);
				ret = -EINVAL;
				break;
			}
		}
	}
	if (ret)
		vp_pairs__free(p);
	return ret;
}

bool vp_pairs__paired(const struct vp_pairs *p, const struct vp_xchg *x, const struct vp_xchg *y)
{
	struct vp_pair_end k = {
		.cookie = x->cookie, .seq = x->req.seq_start, .host = x->host, .side = x->side};
	const struct vp_pair_end *e =
		p->nends ? bsearch(&k, p->ends, p->nends, sizeof(k), cmp_end) : NULL;

	return e && y->side != x->side && y->host == e->peer_host && y->cookie == e->peer_cookie &&
	       y->req.seq_start == x->req.seq_start;
}

void vp_pairs__free(struct vp_pairs *p)
{
	free(p->ends);
	memset(p, 0, sizeof(*p));
}
