// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Baseline input stage: vpath's calls flattened into a Project 5 message trace (btrace.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "baseline/btrace.h"

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 256;
	p = realloc(*v, c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

static int add_node(struct vp_btrace *t, int host, const struct vp_endpoint *addr, const char *name)
{
	struct vp_bnode *n;

	if (grow((void **)&t->nodes, &t->nodecap, t->nnodes, sizeof(*t->nodes)))
		return -ENOMEM;
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	n->host = host;
	if (addr)
		n->addr = *addr;
	n->addr.port = 0;
	snprintf(n->name, sizeof(n->name), "%s", name);
	return (int)t->nnodes++;
}

int vp_btrace__add_node(struct vp_btrace *t, const char *name)
{
	for (size_t i = 0; i < t->nnodes; i++)
		if (!strcmp(t->nodes[i].name, name))
			return (int)i;
	return add_node(t, -2, NULL, name);
}

/* The node of a call's end: its host when recorded, else its address (without port). */
static int node_of(struct vp_btrace *t, const struct vp_analysis *a, const struct vp_call_end *e)
{
	char buf[VP_ADDRSTRLEN];

	for (size_t i = 0; i < t->nnodes; i++) {
		const struct vp_bnode *n = &t->nodes[i];

		if (e->recorded ? n->host == e->host
				: n->host == -1 && vp_addr__equal(&n->addr, &e->addr))
			return (int)i;
	}
	if (e->recorded)
		return add_node(t, e->host, NULL, vp_analysis__host(a, (size_t)e->host)->name);
	return add_node(t, -1, &e->addr,
			vp_addr__format(e->addr.family, e->addr.addr, buf, sizeof(buf)));
}

int vp_btrace__add_msg(struct vp_btrace *t, const struct vp_bmsg *m)
{
	if (grow((void **)&t->msgs, &t->msgcap, t->nmsgs, sizeof(*t->msgs)))
		return -ENOMEM;
	t->msgs[t->nmsgs++] = *m;
	return 0;
}

int vp_btrace__add_call(struct vp_btrace *t, const struct vp_bcall *c)
{
	if (grow((void **)&t->calls, &t->callcap, t->ncalls, sizeof(*t->calls)))
		return -ENOMEM;
	t->calls[t->ncalls] = *c;
	return (int)t->ncalls++;
}

static int64_t wall(const struct vp_analysis *a, int host, int64_t host_ts)
{
	return host_ts + vp_analysis__host(a, (size_t)host)->wall_offset_ns;
}

static int add_call(struct vp_btrace *t, const struct vp_analysis *a, const struct vp_call *c)
{
	struct vp_bcall id = {
		.client = c->client.addr, .server = c->server.addr, .conn_index = c->conn_index};
	int src = node_of(t, a, &c->client), dst = node_of(t, a, &c->server), call;
	int64_t c_send = 0, c_recv = 0, r_send = 0, r_recv = 0;
	struct vp_bmsg m;

	if (src < 0 || dst < 0 || (call = vp_btrace__add_call(t, &id)) < 0)
		return -ENOMEM;
	/*
	 * Host clocks only: the call's *_ns fields are on vpath's aligned
	 * timeline; srv_first is the server's own clock, and srv_req_first
	 * minus it is the offset vpath added, taken off srv_rep_last again.
	 * A return is stamped with its last byte, a call with its first: a
	 * reply sent in parts around the calls it waits for (a header first)
	 * still ends after them, and the call is still open until then.
	 */
	if (c->client.recorded) {
		c_send = wall(a, c->client.host, (int64_t)c->cli_first);
		r_recv = wall(a, c->client.host, (int64_t)c->cli_last);
	}
	if (c->server.recorded) {
		int64_t off = c->srv_req_first - (int64_t)c->srv_first;

		c_recv = wall(a, c->server.host, (int64_t)c->srv_first);
		r_send = wall(a, c->server.host, c->srv_rep_last - off);
	}
	if (!c->client.recorded) {
		c_send = c_recv;
		r_recv = r_send;
	}
	if (!c->server.recorded) {
		c_recv = c_send;
		r_send = r_recv;
	}
	m = (struct vp_bmsg){c_send,	    c_recv,	    (uint32_t)src,
			     (uint32_t)dst, (uint32_t)call, VP_BMSG_CALL};
	if (vp_btrace__add_msg(t, &m))
		return -ENOMEM;
	if (!c->reply_bytes)
		return 0;
	m = (struct vp_bmsg){r_send,	    r_recv,	    (uint32_t)dst,
			     (uint32_t)src, (uint32_t)call, VP_BMSG_RETURN};
	return vp_btrace__add_msg(t, &m);
}

static int add_tree(struct vp_btrace *t, const struct vp_analysis *a, const struct vp_call *c)
{
	if (add_call(t, a, c))
		return -ENOMEM;
	for (size_t i = 0; i < c->ncalls; i++)
		if (add_tree(t, a, c->calls[i]))
			return -ENOMEM;
	return 0;
}

int vp_btrace__add_request(struct vp_btrace *t, const struct vp_analysis *a,
			   const struct vp_request *r)
{
	return add_tree(t, a, r->root);
}

static int by_send(const void *x, const void *y)
{
	const struct vp_bmsg *a = x, *b = y;

	if (a->send_ns != b->send_ns)
		return a->send_ns < b->send_ns ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->call < b->call ? -1 : a->call > b->call;
}

void vp_btrace__sort(struct vp_btrace *t)
{
	if (t->nmsgs)
		qsort(t->msgs, t->nmsgs, sizeof(*t->msgs), by_send);
}

void vp_btrace__free(struct vp_btrace *t)
{
	free(t->msgs);
	free(t->calls);
	free(t->nodes);
	memset(t, 0, sizeof(*t));
}
