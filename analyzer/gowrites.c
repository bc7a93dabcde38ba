// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stage 5: grpc-go's Writes matched to the streams they made (gowrites.h). */
#include <stdlib.h>
#include <string.h>

#include "gowrites.h"

/* Streams of one id open at once in one process (one per connection) that are followed. */
#define GW_CALLS 8
/* How long a Write that found no stream makes its id's matches ambiguous. */
#define GW_LOST_NS 1000000000ull

struct vp_gowrite_slot {
	uint64_t key;
	struct vp_gowrite_slot *next;	 /* the list, least recently looked at first */
	uint64_t seen_ts;		 /* when put at the list's tail */
	struct vp_xchg *calls[GW_CALLS]; /* its id's streams open in the process (references) */
	uint8_t ncalls;
	bool overflow; /* more open than GW_CALLS: no match until the slot goes */
	/* A Write that came before its stream's HEADERS were written. */
	bool waiting, alone;
	uint64_t unit, write_ts;
	struct vp_xchg *req; /* (a reference) */
	/* The last match, made ambiguous by another stream of that id opening within the window. */
	struct vp_xchg *matched; /* (a reference) */
	uint64_t matched_ts;	 /* its Write's time */
	uint64_t lost_ts;	 /* when a Write of this id found no stream; 0 never */
};

void vp_gowrites__init(struct vp_gowrites *g, struct vp_hpaths *paths)
{
	memset(g, 0, sizeof(*g));
	g->paths = paths;
}

static void unref(struct vp_gowrites *g, struct vp_xchg **x)
{
	if (*x)
		vp_hpaths__unref(g->paths, *x);
	*x = NULL;
}

static struct vp_xchg *ref(struct vp_xchg *x)
{
	if (x)
		x->refs++;
	return x;
}

static void slot_free(struct vp_gowrites *g, struct vp_gowrite_slot *s)
{
	for (unsigned i = 0; i < s->ncalls; i++)
		unref(g, &s->calls[i]);
	unref(g, &s->req);
	unref(g, &s->matched);
	free(s);
}

void vp_gowrites__free(struct vp_gowrites *g)
{
	while (g->head) {
		struct vp_gowrite_slot *s = g->head;

		g->head = s->next;
		slot_free(g, s);
	}
	g->tail = NULL;
	u64map__free(&g->slots);
}

void vp_gowrites__match_done(struct vp_gowrites *g, struct vp_gowrite_match *m)
{
	unref(g, &m->call);
	unref(g, &m->req);
	unref(g, &m->unmake);
}

/* What is over by now: streams whose request ended, a Write waiting too long, an old match. */
static void prune(struct vp_gowrites *g, struct vp_gowrite_slot *s, uint64_t now)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->ncalls; i++) {
		if (s->calls[i]->done || s->calls[i]->h2_req_ended)
			unref(g, &s->calls[i]);
		else
			s->calls[n++] = s->calls[i];
	}
	s->ncalls = (uint8_t)n;
	if (s->waiting && now - s->write_ts > VP_GOWRITE_WINDOW_NS) {
		s->waiting = false;
		s->lost_ts = s->write_ts;
		unref(g, &s->req);
		g->unmatched++;
	}
	if (s->matched && now - s->matched_ts > VP_GOWRITE_WINDOW_NS)
		unref(g, &s->matched);
	if (s->lost_ts && now - s->lost_ts > GW_LOST_NS)
		s->lost_ts = 0;
}

static bool slot_idle(const struct vp_gowrite_slot *s, uint64_t now)
{
	if (s->overflow && now - s->seen_ts < GW_LOST_NS)
		return false;
	return !s->ncalls && !s->waiting && !s->matched && !s->lost_ts;
}

static void append(struct vp_gowrites *g, struct vp_gowrite_slot *s, uint64_t now)
{
	s->seen_ts = now;
	s->next = NULL;
	if (g->tail)
		g->tail->next = s;
	else
		g->head = s;
	g->tail = s;
}

/* A few of the slots not looked at for a window: let go of, or put back at the tail. */
static void sweep(struct vp_gowrites *g, uint64_t now)
{
	for (int i = 0; i < 4 && g->head && now - g->head->seen_ts > VP_GOWRITE_WINDOW_NS; i++) {
		struct vp_gowrite_slot *s = g->head;

		g->head = s->next;
		if (!g->head)
			g->tail = NULL;
		prune(g, s, now);
		if (slot_idle(s, now)) {
			u64map__del(&g->slots, s->key);
			slot_free(g, s);
		} else {
			append(g, s, now);
		}
	}
}

static struct vp_gowrite_slot *slot_get(struct vp_gowrites *g, uint64_t key, uint64_t now)
{
	struct vp_gowrite_slot *s;

	sweep(g, now);
	s = u64map__get(&g->slots, key);
	if (!s) {
		if (!(s = calloc(1, sizeof(*s))) || u64map__put(&g->slots, key, s))
			abort(); /* out of memory: no sensible partial result */
		s->key = key;
		append(g, s, now);
	}
	prune(g, s, now);
	return s;
}

static void remember(struct vp_gowrites *g, struct vp_gowrite_slot *s, struct vp_xchg *c,
		     uint64_t write_ts)
{
	unref(g, &s->matched);
	s->matched = ref(c);
	s->matched_ts = write_ts;
	g->matched++;
}

bool vp_gowrites__call(struct vp_gowrites *g, uint32_t pid, struct vp_xchg *c, uint64_t ts,
		       struct vp_gowrite_match *m)
{
	struct vp_gowrite_slot *s = slot_get(g, (uint64_t)pid << 32 | c->h2_id, ts);

	memset(m, 0, sizeof(*m));
	/* Another stream of the id, opened soon after a Write was matched: it may be that one's. */
	if (s->matched && s->matched != c) {
		m->unmake = s->matched;
		s->matched = NULL;
		g->ambiguous++;
	}
	if (s->waiting) {
		s->waiting = false;
		if (!s->ncalls && !s->overflow) {
			m->call = ref(c);
			m->req = s->req;
			s->req = NULL;
			m->exact = s->alone && !s->lost_ts;
			remember(g, s, c, s->write_ts);
		} else {
			unref(g, &s->req);
			g->ambiguous++;
		}
	}
	if (s->ncalls < GW_CALLS)
		s->calls[s->ncalls++] = ref(c);
	else
		s->overflow = true;
	return m->call || m->unmake;
}

bool vp_gowrites__write(struct vp_gowrites *g, uint32_t pid, uint32_t sid, uint64_t unit,
			struct vp_xchg *req, bool alone, uint64_t ts, struct vp_gowrite_match *m)
{
	struct vp_gowrite_slot *s = slot_get(g, (uint64_t)pid << 32 | sid, ts);

	memset(m, 0, sizeof(*m));
	if (s->overflow || s->ncalls > 1) {
		g->ambiguous++;
		return false;
	}
	if (s->ncalls == 1) {
		m->call = ref(s->calls[0]);
		m->req = ref(req);
		m->exact = alone && !s->lost_ts;
		remember(g, s, m->call, ts);
		return true;
	}
	if (s->waiting && s->unit != unit) {
		/* Two goroutines' Writes before any stream of the id: neither is placed. */
		s->waiting = false;
		s->lost_ts = ts;
		unref(g, &s->req);
		g->ambiguous++;
	} else if (!s->waiting) {
		s->waiting = true;
		s->unit = unit;
		s->write_ts = ts;
		s->req = ref(req);
		s->alone = alone;
	}
	return false;
}
