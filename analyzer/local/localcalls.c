// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>

#include "localcalls.h"

static void put_end(struct vp_wbuf *b, const struct vp_endpoint *e)
{
	vp_wbuf__u8(b, e->family);
	vp_wbuf__var(b, e->port);
	vp_wbuf__bytes(b, e->addr, e->family == 2 ? 4 : 16); /* AF_INET: the rest is 0 */
}

static void get_end(struct vp_rbuf *b, struct vp_endpoint *e)
{
	memset(e, 0, sizeof(*e));
	e->family = vp_rbuf__u8(b);
	e->port = (uint16_t)vp_rbuf__varmax(b, UINT16_MAX);
	vp_rbuf__bytes(b, e->addr, e->family == 2 ? 4 : 16);
}

/*
 * A message: its first time from base, its start from where the last one of
 * its kind on the connection ended (*end), its first thread from the last
 * one there (*tid); both are then moved on.
 */
static void put_msg(struct vp_wbuf *b, const struct vp_msg *m, uint64_t base, uint32_t *end,
		    uint32_t *tid)
{
	vp_wbuf__svar(b, (int64_t)(m->first_ts - base));
	vp_wbuf__var(b, m->last_ts - m->first_ts);
	vp_wbuf__var(b, m->bytes);
	vp_wbuf__svar(b, (int32_t)(m->seq_start - *end));
	vp_wbuf__var(b, m->seq_end - m->seq_start);
	vp_wbuf__svar(b, (int64_t)m->first_tid - (int64_t)*tid);
	vp_wbuf__svar(b, (int64_t)m->last_tid - (int64_t)m->first_tid);
	*end = m->seq_end;
	*tid = m->last_tid;
	vp_wbuf__var(b, m->nops);
	vp_wbuf__var(b, m->nthreads);
	vp_wbuf__u8(b, m->gap);
}

static void get_msg(struct vp_rbuf *b, struct vp_msg *m, uint64_t base, uint32_t *end,
		    uint32_t *tid)
{
	memset(m, 0, sizeof(*m));
	m->first_ts = base + (uint64_t)vp_rbuf__svar(b);
	m->last_ts = m->first_ts + vp_rbuf__var(b);
	m->bytes = vp_rbuf__var(b);
	m->seq_start = *end + (uint32_t)vp_rbuf__svar(b);
	m->seq_end = m->seq_start + (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	m->first_tid = (uint32_t)((int64_t)*tid + vp_rbuf__svar(b));
	m->last_tid = (uint32_t)((int64_t)m->first_tid + vp_rbuf__svar(b));
	*end = m->seq_end;
	*tid = m->last_tid;
	m->nops = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	m->nthreads = (uint16_t)vp_rbuf__varmax(b, UINT16_MAX);
	m->gap = vp_rbuf__u8(b) != 0;
}

static bool same_sock(const struct vp_callsock *s, const struct vp_local_call *c)
{
	return s->cookie == c->cookie && s->netns == c->netns && s->have_tuple == c->have_tuple &&
	       !memcmp(&s->local, &c->local, sizeof(s->local)) &&
	       !memcmp(&s->remote, &c->remote, sizeof(s->remote));
}

static struct vp_callsock *sock_add(struct vp_callsock **v, size_t *n, size_t *cap)
{
	return vp_grow((void **)v, n, cap, sizeof(**v));
}

/* The connection end: 0 and its key when new to the block, else its place + 1. */
static struct vp_callsock *put_sock(struct vp_callenc *e, const struct vp_local_call *c)
{
	uintptr_t idx = (uintptr_t)u64map__get(&e->by_cookie, c->cookie);
	struct vp_callsock *s;

	if (idx && same_sock(&e->socks[idx - 1], c)) {
		vp_wbuf__var(&e->buf, idx);
		return &e->socks[idx - 1];
	}
	vp_wbuf__var(&e->buf, 0);
	vp_wbuf__var(&e->buf, c->cookie);
	vp_wbuf__var(&e->buf, c->netns);
	vp_wbuf__u8(&e->buf, c->have_tuple);
	put_end(&e->buf, &c->local);
	put_end(&e->buf, &c->remote);
	if (!(s = sock_add(&e->socks, &e->nsocks, &e->cap)) ||
	    u64map__put(&e->by_cookie, c->cookie, (void *)(uintptr_t)e->nsocks)) {
		e->buf.oom = true;
		return NULL;
	}
	*s = (struct vp_callsock){.cookie = c->cookie,
				  .netns = c->netns,
				  .have_tuple = c->have_tuple,
				  .local = c->local,
				  .remote = c->remote};
	return s;
}

static uint64_t who_hash(const struct vp_callwho *w)
{
	uint64_t h = hash64(w->pid);

	for (const char *p = w->comm; *p; p++)
		h = hash64(h ^ (uint8_t)*p);
	for (const char *p = w->proc; *p; p++)
		h = hash64(h ^ (uint8_t)*p ^ 0x100);
	return h;
}

/* Who the end is: 0 and pid, thread and process names when new to the block, else its place + 1. */
static void put_who(struct vp_callenc *e, const struct vp_local_call *c)
{
	struct vp_callwho w = {.pid = c->pid}, *n;
	uint64_t h;
	uintptr_t idx;

	memcpy(w.comm, c->comm, sizeof(w.comm));
	memcpy(w.proc, c->proc, sizeof(w.proc));
	h = who_hash(&w);
	idx = (uintptr_t)u64map__get(&e->by_who, h);
	if (idx && !memcmp(&e->who[idx - 1], &w, sizeof(w))) {
		vp_wbuf__var(&e->buf, idx);
		return;
	}
	vp_wbuf__var(&e->buf, 0);
	vp_wbuf__var(&e->buf, c->pid);
	vp_wbuf__str(&e->buf, c->comm, VPR_COMM_LEN);
	vp_wbuf__str(&e->buf, c->proc, VPR_COMM_LEN);
	if (!(n = vp_grow((void **)&e->who, &e->nwho, &e->whocap, sizeof(*n))) ||
	    u64map__put(&e->by_who, h, (void *)(uintptr_t)e->nwho)) {
		e->buf.oom = true;
		return;
	}
	*n = w;
}

void vp_callenc__add(struct vp_callenc *e, const struct vp_local_call *c)
{
	struct vp_wbuf *b = &e->buf;

	struct vp_callsock *s, none = {0};

	vp_wbuf__svar(b, (int64_t)(c->id - e->prev_id));
	vp_wbuf__u8(b, c->side);
	if (!(s = put_sock(e, c)))
		s = &none;
	vp_wbuf__var(b, c->conn_index);
	put_who(e, c);
	vp_wbuf__var(b, c->flags);
	put_msg(b, &c->req, e->prev_ts, &s->req_end, &s->tid);
	if (c->flags & VPL_HAS_REP)
		put_msg(b, &c->rep, c->req.first_ts, &s->rep_end, &s->tid);
	vp_wbuf__var(b, c->setup_ns);
	vp_wbuf__var(b, c->parent);
	vp_wbuf__var(b, c->peer);
	vp_wbuf__u8(b, c->link.basis);
	vp_wbuf__u8(b, c->link.exact);
	vp_wbuf__var(b, c->link.candidates);
	vp_wbuf__u8(b, c->wit.proto);
	if (c->wit.proto) {
		vp_wbuf__u8(b, c->wit.flags);
		vp_wbuf__var(b, c->wit.status);
		vp_wbuf__var(b, c->wit.count);
		vp_wbuf__str(b, c->wit.verb, VP_WIT_VERB_MAX - 1);
		vp_wbuf__str(b, c->wit.text, VP_WIT_TEXT_MAX - 1);
		vp_wbuf__str(b, c->wit.err, VP_WIT_ERR_MAX - 1);
	}
	e->prev_id = c->id;
	e->prev_ts = c->req.first_ts;
	e->count++;
}

void vp_callenc__reset(struct vp_callenc *e)
{
	e->buf.len = 0;
	e->count = 0;
	e->nsocks = 0;
	e->nwho = 0;
	e->prev_id = e->prev_ts = 0;
	u64map__free(&e->by_cookie);
	u64map__free(&e->by_who);
}

void vp_callenc__free(struct vp_callenc *e)
{
	vp_wbuf__free(&e->buf);
	u64map__free(&e->by_cookie);
	u64map__free(&e->by_who);
	free(e->socks);
	free(e->who);
	memset(e, 0, sizeof(*e));
}

void vp_calldec__block(struct vp_calldec *d, const uint8_t *p, size_t len, uint32_t count)
{
	d->b = (struct vp_rbuf){p, p + len, false};
	d->left = count;
	d->nsocks = 0;
	d->nwho = 0;
	d->prev_id = d->prev_ts = 0;
}

static int get_who(struct vp_calldec *d, struct vp_local_call *c)
{
	uint64_t idx = vp_rbuf__var(&d->b);
	struct vp_callwho *w;

	if (idx) {
		if (idx > d->nwho)
			return -EINVAL;
		w = &d->who[idx - 1];
	} else {
		if (!(w = vp_grow((void **)&d->who, &d->nwho, &d->whocap, sizeof(*w))))
			return -ENOMEM;
		w->pid = (uint32_t)vp_rbuf__varmax(&d->b, UINT32_MAX);
		vp_rbuf__str(&d->b, w->comm, sizeof(w->comm));
		vp_rbuf__str(&d->b, w->proc, sizeof(w->proc));
	}
	c->pid = w->pid;
	memcpy(c->comm, w->comm, sizeof(c->comm));
	memcpy(c->proc, w->proc, sizeof(c->proc));
	return 0;
}

static struct vp_callsock *get_sock(struct vp_calldec *d, struct vp_local_call *c)
{
	uint64_t idx = vp_rbuf__var(&d->b);
	struct vp_callsock *s;

	if (idx) {
		if (idx > d->nsocks)
			return NULL;
		s = &d->socks[idx - 1];
	} else {
		if (!(s = sock_add(&d->socks, &d->nsocks, &d->cap)))
			return NULL;
		s->cookie = vp_rbuf__var(&d->b);
		s->netns = (uint32_t)vp_rbuf__varmax(&d->b, UINT32_MAX);
		s->have_tuple = vp_rbuf__u8(&d->b) != 0;
		get_end(&d->b, &s->local);
		get_end(&d->b, &s->remote);
	}
	c->cookie = s->cookie;
	c->netns = s->netns;
	c->have_tuple = s->have_tuple;
	c->local = s->local;
	c->remote = s->remote;
	return s;
}

int vp_calldec__next(struct vp_calldec *d, struct vp_local_call *c)
{
	struct vp_rbuf *b = &d->b;
	struct vp_callsock *s;
	int err;

	if (!d->left)
		return b->p == b->end ? 0 : -EINVAL;
	d->left--;
	memset(c, 0, sizeof(*c));
	c->id = d->prev_id + (uint64_t)vp_rbuf__svar(b);
	c->side = vp_rbuf__u8(b);
	if (!(s = get_sock(d, c)))
		return -EINVAL;
	c->conn_index = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	if ((err = get_who(d, c)))
		return err;
	c->flags = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	get_msg(b, &c->req, d->prev_ts, &s->req_end, &s->tid);
	if (c->flags & VPL_HAS_REP)
		get_msg(b, &c->rep, c->req.first_ts, &s->rep_end, &s->tid);
	c->setup_ns = vp_rbuf__var(b);
	c->parent = vp_rbuf__var(b);
	c->peer = vp_rbuf__var(b);
	c->link.basis = vp_rbuf__u8(b);
	c->link.exact = vp_rbuf__u8(b) != 0;
	c->link.candidates = (uint16_t)vp_rbuf__varmax(b, UINT16_MAX);
	c->wit.proto = vp_rbuf__u8(b);
	if (c->wit.proto) {
		c->wit.flags = vp_rbuf__u8(b);
		c->wit.status = (uint16_t)vp_rbuf__varmax(b, UINT16_MAX);
		c->wit.count = (uint16_t)vp_rbuf__varmax(b, UINT16_MAX);
		vp_rbuf__str(b, c->wit.verb, sizeof(c->wit.verb));
		vp_rbuf__str(b, c->wit.text, sizeof(c->wit.text));
		vp_rbuf__str(b, c->wit.err, sizeof(c->wit.err));
	}
	if (b->bad || c->side > 1 || !c->id || c->link.basis >= VP_BASIS_MAX ||
	    c->wit.proto >= VP_PROTO_MAX)
		return -EINVAL;
	d->prev_id = c->id;
	d->prev_ts = c->req.first_ts;
	return 1;
}

void vp_calldec__free(struct vp_calldec *d)
{
	free(d->socks);
	free(d->who);
	memset(d, 0, sizeof(*d));
}
