// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stage 5: what one read of a Go HTTP/2 reader carried and whom it readied (h2batch.h). */
#include "h2batch.h"

static void ref(struct vp_xchg **slot, struct vp_xchg *x)
{
	*slot = x;
	if (x)
		x->refs++;
}

void vp_h2batch__clear(struct vp_h2batch *b, struct vp_hpaths *paths)
{
	for (unsigned i = 0; i < b->nstreams; i++)
		vp_hpaths__unref(paths, b->streams[i]);
	for (unsigned i = 0; i < b->nwoken; i++)
		if (b->req[i])
			vp_hpaths__unref(paths, b->req[i]);
	b->nstreams = b->nwoken = b->ncont = 0;
	b->overflow = b->decided = b->held = false;
	b->ts = b->last_sent = 0;
}

/*
 * The k-th readied unit took the k-th stream's reply; skip_cont: counting
 * only the streams not left over from the previous read.
 */
static void give_all(struct vp_h2batch *b, bool skip_cont, vp_h2batch_give give, void *ctx)
{
	/* A held reader's first ready, when one too many, was the lock handed on. */
	unsigned k = b->held && b->nwoken > b->nstreams - (skip_cont ? b->ncont : 0);

	for (unsigned i = 0; i < b->nstreams && k < b->nwoken; i++) {
		if (skip_cont && b->cont[i])
			continue;
		if (b->req[k])
			give(ctx, b->streams[i], b->req[k]);
		k++;
	}
}

void vp_h2batch__frame(struct vp_h2batch *b, struct vp_hpaths *paths, uint64_t ts,
		       struct vp_xchg *c)
{
	bool cont = false;

	if (b->ts != ts || b->nwoken) {
		/* A new read, or frames after readies (another read at the same tick). */
		if (b->held && !b->decided && !b->overflow && b->nwoken == b->nstreams)
			give_all(b, false, b->held_give, b->held_ctx);
		b->nprev = b->overflow ? 0 : b->nstreams;
		for (unsigned i = 0; i < b->nprev; i++)
			b->prev[i] = b->streams[i]->id;
		vp_h2batch__clear(b, paths);
		b->ts = ts;
	}
	for (unsigned i = 0; i < b->nstreams; i++)
		if (b->streams[i] == c)
			return;
	if (b->nstreams == VP_H2BATCH_MAX) {
		b->overflow = true;
		return;
	}
	for (unsigned i = 0; i < b->nprev; i++)
		cont |= b->prev[i] == c->id;
	b->cont[b->nstreams] = cont;
	b->ncont += cont;
	if (c->req.first_ts > b->last_sent)
		b->last_sent = c->req.first_ts;
	ref(&b->streams[b->nstreams++], c);
}

void vp_h2batch__woken(struct vp_h2batch *b, struct vp_hpaths *paths, uint64_t unit,
		       struct vp_xchg *s, vp_h2batch_give give, void *ctx)
{
	if (!b->nstreams || b->decided || b->overflow)
		return;
	/*
	 * A goroutine working for a request that began after every stream of
	 * the read was sent made none of them: grpc-go's reader, held up with
	 * the transport's mutex, hands it to a goroutine about to open its
	 * request's stream, before it readies the callers (13 of 19 wrong
	 * links in a kept 1,500-request go-grpc run were shifted so).
	 */
	if (s && s->req.first_ts > b->last_sent)
		return;
	for (unsigned i = 0; i < b->nwoken; i++)
		if (b->woken[i] == unit)
			return;
	if (b->nwoken == VP_H2BATCH_MAX) {
		b->overflow = true;
		return;
	}
	b->woken[b->nwoken] = unit;
	ref(&b->req[b->nwoken++], s);
	/*
	 * Decided as soon as the counts meet: the calls' requests may finish
	 * (and their pending calls be settled) long before the reader's next
	 * read.
	 */
	b->held_give = give;
	b->held_ctx = ctx;
	if (b->nwoken == b->nstreams + b->held) {
		b->decided = true;
		give_all(b, false, give, ctx);
	} else if (b->ncont && b->nwoken == b->nstreams - b->ncont + b->held) {
		/* Until the callers of the streams left over are readied too. */
		give_all(b, true, give, ctx);
	}
}

void vp_h2batch__held(struct vp_h2batch *b)
{
	if (b->nstreams && !b->nwoken && !b->decided)
		b->held = true;
}
