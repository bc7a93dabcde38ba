// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The per-host phase (`vpath-analyze local`, localwrite.h): one host's recordings into a local file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "attribute.h"
#include "local/local.h"
#include "localwrite.h"
#include "recfile.h"

struct writing {
	struct vpl_writer *w;
	struct vp_local_stats *st;
	struct vp_callenc calls; /* the CALLS block being filled */
	int err;
};

/* Flush a filled block of kind; keeps the first error. */
static void put_block(struct writing *wr, enum vpl_block_kind kind, struct vp_wbuf *b,
		      uint32_t *count)
{
	uint64_t before = vpl_writer__bytes(wr->w);
	int err;

	if (!*count)
		return;
	if (b->oom)
		err = -ENOMEM;
	else
		err = vpl_writer__block(wr->w, kind, b->p, b->len, *count);
	if (kind == VPL_RECS)
		wr->st->recs_bytes += vpl_writer__bytes(wr->w) - before;
	else if (kind == VPL_CALLS)
		wr->st->calls_bytes += vpl_writer__bytes(wr->w) - before;
	if (err && !wr->err)
		wr->err = err;
	b->len = 0;
	*count = 0;
}

/* Recording f of host h, or NULL with the reason in err. */
static struct vpr_reader *open_recording(const struct vp_host *h, int f, char *err, size_t errlen)
{
	char why[256];
	struct vpr_reader *r = vpr_reader__open(h->files[f], why, sizeof(why));

	if (!r)
		snprintf(err, errlen, "%s: %s", h->files[f], why);
	return r;
}

/* The host's records, as the read stage will take them, file by file (common/reccodec.h). */
static int copy_records(struct writing *wr, const struct vp_host *h, char *err, size_t errlen)
{
	struct vp_recenc e = {0};
	int ret = 0;

	for (int f = 0; f < h->nfiles && !ret; f++) {
		const struct vpr_hdr *rec;
		struct vpr_reader *r = open_recording(h, f, err, errlen);

		if (!r) {
			ret = -EIO;
			break;
		}
		while (vpr_reader__next(r, &rec) == 1) {
			vp_recenc__record(&e, rec);
			wr->st->records++;
			if (e.buf.len >= VPL_BLOCK_FILL) {
				put_block(wr, VPL_RECS, &e.buf, &e.count);
				vp_recenc__reset(&e);
			}
		}
		vp_recenc__file_end(&e, (uint8_t)vpr_reader__status(r),
				    vpr_reader__status(r) ? vpr_reader__error(r) : "");
		vpr_reader__close(r);
	}
	put_block(wr, VPL_RECS, &e.buf, &e.count);
	vp_recenc__free(&e);
	return ret;
}

/* One exchange of the host's own analysis, as it is when its tree is done (paths.h). */
static void on_xchg(void *ctx, const struct vp_xchg *x)
{
	struct writing *wr = ctx;
	struct vp_local_call c = {
		.id = x->id + 1,
		.side = x->side,
		.cookie = x->cookie,
		.netns = x->netns,
		.have_tuple = x->have_tuple,
		.local = x->local,
		.remote = x->remote,
		.conn_index = x->conn_index,
		.pid = x->pid,
		.req = x->req,
		.rep = x->rep,
		.setup_ns = x->setup_ns,
		.link = x->link,
	};

	memcpy(c.comm, x->comm, VPR_COMM_LEN);
	if (x->proc)
		memcpy(c.proc, x->proc->comm, VPR_COMM_LEN);
	c.flags = (x->incomplete ? VPL_INCOMPLETE : 0) | (x->unanswered ? VPL_UNANSWERED : 0) |
		  (x->one_way ? VPL_ONE_WAY : 0) | (x->tls ? VPL_TLS : 0) |
		  (x->teardown ? VPL_TEARDOWN : 0) | (x->setup ? VPL_SETUP : 0) |
		  (x->tainted ? VPL_TAINTED : 0) | (x->pipe_head ? VPL_PIPE_HEAD : 0) |
		  (x->pipe_tail ? VPL_PIPE_TAIL : 0) | (x->has_rep ? VPL_HAS_REP : 0) |
		  (x->may_hand_off ? VPL_MAY_HAND_OFF : 0);
	if (!x->has_rep)
		memset(&c.rep, 0, sizeof(c.rep));
	if (x->side == VP_CLIENT && x->up_state == VP_UP_LINKED && x->up) {
		c.parent = x->up->id + 1;
		wr->st->links++;
	}
	if (x->side == VP_SERVER && x->peer)
		c.peer = x->peer->id + 1;
	if (x->wit)
		c.wit = *x->wit;
	vp_callenc__add(&wr->calls, &c);
	wr->st->calls++;
	if (wr->calls.buf.len >= VPL_BLOCK_FILL) {
		put_block(wr, VPL_CALLS, &wr->calls.buf, &wr->calls.count);
		vp_callenc__reset(&wr->calls);
	}
}

static void drop_request(void *ctx, struct vp_request *r)
{
	vp_request__free(r);
}

/* The host's own stages, as if it were the only host: its calls and in-host links. */
static int find_calls(struct writing *wr, char *const *files, int nfiles, char *err, size_t errlen)
{
	struct vp_analysis_opts o = {
		.threads = 1, .on_request = drop_request, .on_xchg = on_xchg, .xchg_ctx = wr};
	struct vp_analysis *a;
	int ret = vp_analysis__new(&a, files, nfiles, &o, err, errlen);

	if (ret)
		return ret;
	ret = vp_analysis__run(a);
	vp_analysis__free(a);
	put_block(wr, VPL_CALLS, &wr->calls.buf, &wr->calls.count);
	if (ret)
		snprintf(err, errlen, "analysis failed: %s", strerror(-ret));
	return ret;
}

/* The host's identity and addresses, as the read stage gathered them. */
static int host_block(struct writing *wr, const struct vp_host *h, char *err, size_t errlen)
{
	struct vp_local_host lh = {.nfiles = (uint32_t)h->nfiles,
				   .addrs = h->addrs,
				   .naddrs = h->naddrs,
				   .addr_netns = h->addr_netns};
	struct vp_wbuf b = {0};
	uint32_t one = 1;
	int ret = 0;

	lh.hdrs = calloc((size_t)h->nfiles, sizeof(*lh.hdrs));
	lh.paths = h->files;
	if (!lh.hdrs)
		return -ENOMEM;
	for (int f = 0; f < h->nfiles && !ret; f++) {
		struct vpr_reader *r = open_recording(h, f, err, errlen);

		if (!r) {
			ret = -EIO;
			break;
		}
		lh.hdrs[f] = *vpr_reader__header(r);
		vpr_reader__close(r);
	}
	if (!ret) {
		vp_local_host__encode(&lh, &b);
		put_block(wr, VPL_HOST, &b, &one);
	}
	vp_wbuf__free(&b);
	free(lh.hdrs);
	return ret;
}

static int end_block(struct writing *wr)
{
	struct vp_wbuf b = {0};
	uint32_t one = 1;

	vp_wbuf__var(&b, wr->st->records);
	vp_wbuf__var(&b, wr->st->calls);
	vp_wbuf__var(&b, wr->st->links);
	put_block(wr, VPL_END, &b, &one);
	vp_wbuf__free(&b);
	return wr->err;
}

int vp_local__write(char *const *files, int nfiles, const char *out, struct vp_local_stats *st,
		    char *err, size_t errlen)
{
	struct writing wr = {.st = st};
	struct vp_input *in = NULL;
	struct stat sb;
	int ret;

	memset(st, 0, sizeof(*st));
	for (int i = 0; i < nfiles; i++) {
		if (vpl_is_local(files[i])) {
			snprintf(err, errlen, "%s: a local file already; give the host's recording",
				 files[i]);
			return -EINVAL;
		}
	}
	if ((ret = vp_input__open(&in, files, nfiles, NULL, err, errlen)))
		return ret;
	if (vp_input__nhosts(in) != 1) {
		snprintf(err, errlen,
			 "the files are the recordings of %zu hosts; local takes one host's "
			 "(a recording, or the segments of one ring)",
			 vp_input__nhosts(in));
		ret = -EINVAL;
		goto cleanup;
	}
	if (!(wr.w = vpl_writer__create(out))) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", out, strerror(errno));
		goto cleanup;
	}
	if ((ret = host_block(&wr, vp_input__host(in, 0), err, errlen)) ||
	    (ret = copy_records(&wr, vp_input__host(in, 0), err, errlen)) ||
	    (ret = find_calls(&wr, files, nfiles, err, errlen)))
		goto cleanup;
	if ((ret = end_block(&wr)))
		snprintf(err, errlen, "%s: %s", out, strerror(-ret));
	st->out_bytes = vpl_writer__bytes(wr.w);
	for (int f = 0; f < vp_input__host(in, 0)->nfiles; f++)
		if (!stat(vp_input__host(in, 0)->files[f], &sb))
			st->in_bytes += (uint64_t)sb.st_size;
cleanup:
	if (wr.w) {
		int cret = vpl_writer__close(wr.w);

		if (!ret && cret) {
			ret = cret;
			snprintf(err, errlen, "%s: %s", out, strerror(-cret));
		}
		if (ret)
			unlink(out);
	}
	vp_callenc__free(&wr.calls);
	vp_input__free(in);
	return ret;
}
