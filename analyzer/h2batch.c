// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stage 5: what one read of a Go HTTP/2 reader carried and whom it readied (h2batch.h). */
#include <string.h>

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
	memset(b->taken, 0, sizeof(b->taken));
	memset(b->pair, 0, sizeof(b->pair));
	b->nstreams = b->nwoken = b->ncont = b->ntaken = 0;
	b->overflow = b->decided = b->held = false;
	b->ts = b->last_sent = 0;
}

/* The streams paired by order: all but those taken, or skip_cont: none left over. */
static unsigned by_order(const struct vp_h2batch *b, bool skip_cont)
{
	return b->nstreams - (skip_cont ? b->ncont : b->ntaken);
}

/*
 * The k-th readied unit took the k-th stream's reply; skip_cont: counting
 * only the streams not left over from the previous read.
 */
static void give_all(struct vp_h2batch *b, bool skip_cont, vp_h2batch_give give, void *ctx)
{
	/* A held reader's first ready, when one too many, was the lock handed on. */
	unsigned k = b->held && b->nwoken > by_order(b, skip_cont);

	for (unsigned i = 0; i < b->nstreams && k < b->nwoken; i++) {
		if (b->taken[i] || (skip_cont && b->cont[i]))
			continue;
		b->pair[i] = b->woken[k];
		if (b->req[k])
			give(ctx, b->streams[i], b->req[k]);
		k++;
	}
}

/*
 * Unit readied again for a stream left over from the previous read, whose
 * caller it was given there: it takes that stream (true), or it was
 * readied once already for one (true, nothing to do).
 */
static bool take_cont(struct vp_h2batch *b, uint64_t unit, struct vp_xchg *s, vp_h2batch_give give,
		      void *ctx)
{
	for (unsigned i = 0; i < b->nstreams; i++) {
		if (b->taken[i] && b->pair[i] == unit)
			return true;
		if (!b->cont[i] || b->taken[i] || b->cont_unit[i] != unit)
			continue;
		b->taken[i] = true;
		b->ntaken++;
		b->pair[i] = unit;
		if (s)
			give(ctx, b->streams[i], s);
		return true;
	}
	return false;
}

void vp_h2batch__frame(struct vp_h2batch *b, struct vp_hpaths *paths, uint64_t ts,
		       struct vp_xchg *c)
{
	bool cont = false;

	if (b->ts != ts || b->nwoken) {
		/* A new read, or frames after readies (another read at the same tick). */
		if (b->held && !b->decided && !b->overflow && b->nwoken == by_order(b, false))
			give_all(b, false, b->held_give, b->held_ctx);
		b->nprev = b->overflow ? 0 : b->nstreams;
		for (unsigned i = 0; i < b->nprev; i++) {
			b->prev[i] = b->streams[i]->id;
			b->prev_unit[i] = b->pair[i];
		}
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
	b->cont_unit[b->nstreams] = 0;
	for (unsigned i = 0; i < b->nprev; i++) {
		if (b->prev[i] != c->id)
			continue;
		cont = true;
		b->cont_unit[b->nstreams] = b->prev_unit[i];
	}
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
	/*
	 * A caller given a stream in the previous read, readied again for it
	 * (it parked for the rest of its reply), is no caller of another: in a
	 * kept go-grpc run, such a caller readied first shifted the pairing of
	 * the five other streams of its read.
	 */
	if (b->ncont && take_cont(b, unit, s, give, ctx))
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
	if (b->nwoken == by_order(b, false) + b->held) {
		b->decided = true;
		give_all(b, false, give, ctx);
	} else if (b->ncont > b->ntaken && b->nwoken == by_order(b, true) + b->held) {
		/* Until the callers of the streams left over are readied too. */
		give_all(b, true, give, ctx);
	}
}

void vp_h2batch__held(struct vp_h2batch *b)
{
	if (b->nstreams && !b->nwoken && !b->decided)
		b->held = true;
}
