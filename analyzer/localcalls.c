// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>

#include "localcalls.h"

static void put_end(struct vp_wbuf *b, const struct vp_endpoint *e)
{
	vp_wbuf__u8(b, e->family);
	vp_wbuf__var(b, e->port);
	vp_wbuf__bytes(b, e->addr, 16);
}

static void get_end(struct vp_rbuf *b, struct vp_endpoint *e)
{
	memset(e, 0, sizeof(*e));
	e->family = vp_rbuf__u8(b);
	e->port = (uint16_t)vp_rbuf__varmax(b, UINT16_MAX);
	vp_rbuf__bytes(b, e->addr, 16);
}

/* A message: times as first and first-to-last, the rest as they are. */
static void put_msg(struct vp_wbuf *b, const struct vp_msg *m)
{
	vp_wbuf__var(b, m->first_ts);
	vp_wbuf__var(b, m->last_ts - m->first_ts);
	vp_wbuf__var(b, m->bytes);
	vp_wbuf__var(b, m->seq_start);
	vp_wbuf__var(b, m->seq_end);
	vp_wbuf__var(b, m->first_tid);
	vp_wbuf__var(b, m->last_tid);
	vp_wbuf__var(b, m->nops);
	vp_wbuf__var(b, m->nthreads);
	vp_wbuf__u8(b, m->gap);
}

static void get_msg(struct vp_rbuf *b, struct vp_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->first_ts = vp_rbuf__var(b);
	m->last_ts = m->first_ts + vp_rbuf__var(b);
	m->bytes = vp_rbuf__var(b);
	m->seq_start = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	m->seq_end = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	m->first_tid = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	m->last_tid = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	m->nops = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	m->nthreads = (uint16_t)vp_rbuf__varmax(b, UINT16_MAX);
	m->gap = vp_rbuf__u8(b) != 0;
}

void vp_local_call__encode(const struct vp_local_call *c, struct vp_wbuf *b)
{
	vp_wbuf__var(b, c->id);
	vp_wbuf__u8(b, c->side);
	vp_wbuf__var(b, c->cookie);
	vp_wbuf__var(b, c->netns);
	vp_wbuf__u8(b, c->have_tuple);
	put_end(b, &c->local);
	put_end(b, &c->remote);
	vp_wbuf__var(b, c->conn_index);
	vp_wbuf__var(b, c->pid);
	vp_wbuf__str(b, c->comm, VPR_COMM_LEN);
	vp_wbuf__str(b, c->proc, VPR_COMM_LEN);
	vp_wbuf__var(b, c->flags);
	put_msg(b, &c->req);
	if (c->flags & VPL_HAS_REP)
		put_msg(b, &c->rep);
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
}

int vp_local_call__decode(struct vp_local_call *c, struct vp_rbuf *b)
{
	memset(c, 0, sizeof(*c));
	c->id = vp_rbuf__var(b);
	c->side = vp_rbuf__u8(b);
	c->cookie = vp_rbuf__var(b);
	c->netns = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	c->have_tuple = vp_rbuf__u8(b) != 0;
	get_end(b, &c->local);
	get_end(b, &c->remote);
	c->conn_index = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	c->pid = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	vp_rbuf__str(b, c->comm, sizeof(c->comm));
	vp_rbuf__str(b, c->proc, sizeof(c->proc));
	c->flags = (uint32_t)vp_rbuf__varmax(b, UINT32_MAX);
	get_msg(b, &c->req);
	if (c->flags & VPL_HAS_REP)
		get_msg(b, &c->rep);
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
	return 0;
}
