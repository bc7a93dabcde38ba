// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `vpath-analyze calls`: a local file's call ends as tab-separated rows in
 * the columns of tools/clickhouse/schema.sql (ClickHouse's TabSeparated:
 * backslash, tab and line breaks in text escaped), for an engine outside
 * vpath to load and pair (docs/clickhouse.md).
 */
#include <errno.h>
#include <inttypes.h>

#include "localtsv.h"
#include "pairs.h"

static void put_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			fputs("\\\\", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			fputc(*s, out);
		}
	}
	fputc('\t', out);
}

static void put_msg(FILE *out, const struct vp_msg *m)
{
	fprintf(out, "%" PRIu32 "\t%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t",
		m->seq_start, m->seq_end, m->first_ts, m->last_ts, m->bytes);
}

static void put_call(FILE *out, const char *host, const char *hostname, int64_t wall,
		     const struct vp_local_call *c)
{
	static const struct vp_msg none;
	char l[VP_ADDRSTRLEN] = "?", r[VP_ADDRSTRLEN] = "?";
	bool rep = c->flags & VPL_HAS_REP;

	if (c->have_tuple) {
		vp_endpoint__format(&c->local, l, sizeof(l));
		vp_endpoint__format(&c->remote, r, sizeof(r));
	}
	put_text(out, host);
	put_text(out, hostname);
	fprintf(out, "%" PRIu64 "\t%u\t%" PRIu64 "\t%" PRIu32 "\t%u\t%s\t%s\t%" PRIu32 "\t", c->id,
		c->side, c->cookie, c->netns, c->have_tuple, l, r, c->conn_index);
	put_msg(out, &c->req);
	fprintf(out, "%u\t", rep);
	put_msg(out, rep ? &c->rep : &none);
	fprintf(out, "%" PRIu32 "\t", c->pid);
	put_text(out, c->proc);
	put_text(out, c->comm);
	fprintf(out, "%" PRIu32 "\t%" PRIu64 "\t%s\t%u\t%" PRId64 "\n", c->flags, c->parent,
		c->side == VP_CLIENT ? vp_basis_name(c->link.basis) : "",
		c->side == VP_CLIENT && c->link.exact, wall);
}

int vp_local__tsv(const char *path, FILE *out, FILE *errf)
{
	char err[400], host[VP_HOST_KEY_LEN], hostname[VPR_HOSTNAME_LEN + 1];
	const struct vp_local_host *h;
	struct vp_local_reader *r;
	struct vp_local_call c;
	enum vpl_status st;
	int64_t wall = 0;
	int k;

	if (!(r = vp_local__open(path, err, sizeof(err)))) {
		fprintf(errf, "error: %s: %s\n", path, err);
		return -EINVAL;
	}
	h = vp_local__host(r);
	if (!h->nfiles) {
		fprintf(errf, "error: %s: names no recording of its host\n", path);
		vp_local__close(r);
		return -EINVAL;
	}
	vp_pairs__host_key(host, sizeof(host), h->hdrs[0].boot_id, h->hdrs[0].netns);
	snprintf(hostname, sizeof(hostname), "%.*s", VPR_HOSTNAME_LEN, h->hdrs[0].hostname);
	wall = (int64_t)(h->hdrs[0].start_real_ns - h->hdrs[0].start_mono_ns);
	while ((k = vp_local__next_call(r, &c)) == 1)
		put_call(out, host, hostname, wall, &c);
	st = vp_local__status(r);
	/* The rows before damage are good: printed, and the damage said. */
	if (k < 0)
		fprintf(errf, "%s: %s: %s\n", st == VPL_CORRUPT ? "error" : "warning", path,
			vp_local__error(r));
	vp_local__close(r);
	return k < 0 && st == VPL_CORRUPT ? -EBADMSG : 0;
}
