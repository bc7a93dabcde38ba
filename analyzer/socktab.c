// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "h2state.h"
#include "pipeline.h"
#include "socktab.h"

/* The default Linux ephemeral range starts here (ip_local_port_range). */
#define EPHEMERAL_MIN 32768

struct vp_sock *vp_socktab__get(struct vp_socktab *t, uint64_t cookie, uint64_t ts)
{
	struct vp_sock *s = u64map__get(&t->by_cookie, cookie);

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cookie = cookie;
	s->dir = -1;
	vp_cuts__init(&s->cuts);
	s->first_ts = s->last_ts = ts;
	if (u64map__put(&t->by_cookie, cookie, s)) {
		free(s);
		return NULL;
	}
	t->nsocks++;
	return s;
}

static uint64_t port_key(uint8_t family, uint16_t port)
{
	return (uint64_t)family << 16 | port;
}

struct vp_sock *vp_socktab__conn(struct vp_socktab *t, const struct vpr_conn *c)
{
	struct vp_sock *s = vp_socktab__get(t, c->cookie, c->h.ts_ns);

	if (!s)
		return NULL;
	if (c->pid && !s->pid)
		s->pid = c->pid;
	s->netns = c->netns;
	if (c->origin == VPR_CONN_PREEXISTING && !s->nexch && s->dir < 0)
		s->preexisting = true;
	/* A handshake state has no peer address yet on some kernels: keep the first full one. */
	if (c->family && (c->dport || c->sport)) {
		memset(&s->local, 0, sizeof(s->local));
		memset(&s->remote, 0, sizeof(s->remote));
		s->local.family = s->remote.family = c->family;
		s->local.port = c->sport;
		s->remote.port = c->dport;
		memcpy(s->local.addr, c->saddr, 16);
		memcpy(s->remote.addr, c->daddr, 16);
		s->have_tuple = true;
		s->remote_host_known = false;
	}
	/* The role of a socket with operations already analyzed cannot change any more. */
	if ((c->role == VPR_ROLE_CONNECTED || c->role == VPR_ROLE_ACCEPTED) &&
	    (s->role == VPR_ROLE_UNKNOWN || s->dir < 0)) {
		s->role = c->role;
		s->role_source = VP_ROLE_RECORDED;
	}
	if (s->role == VPR_ROLE_ACCEPTED && s->have_tuple)
		u64map__put(&t->server_ports, port_key(s->local.family, s->local.port), (void *)1);
	if (vp_tcp_state__closing_orderly(c->newstate))
		s->saw_fin = true;
	if (c->h.ts_ns > s->last_ts)
		s->last_ts = c->h.ts_ns;
	return s;
}

void vp_socktab__infer_role(struct vp_socktab *t, struct vp_sock *s, uint8_t first_dir)
{
	if (s->role != VPR_ROLE_UNKNOWN)
		return;
	if (s->have_tuple) {
		bool local_srv =
			u64map__get(&t->server_ports, port_key(s->local.family, s->local.port));
		bool remote_eph = s->remote.port >= EPHEMERAL_MIN;
		bool local_eph = s->local.port >= EPHEMERAL_MIN;

		if (local_srv || (!local_eph && remote_eph)) {
			s->role = VPR_ROLE_ACCEPTED;
			s->role_source = VP_ROLE_BY_PORT;
			return;
		}
		if (local_eph && !remote_eph) {
			s->role = VPR_ROLE_CONNECTED;
			s->role_source = VP_ROLE_BY_PORT;
			return;
		}
	}
	/* Server greetings make this wrong for MySQL-like protocols; ports decide those above. */
	s->role = first_dir == VPR_DIR_SEND ? VPR_ROLE_CONNECTED : VPR_ROLE_ACCEPTED;
	s->role_source = VP_ROLE_BY_FIRST_SEND;
}

void vp_socktab__remove(struct vp_socktab *t, struct vp_sock *s)
{
	if (s->peer_sock)
		s->peer_sock->peer_sock = NULL;
	u64map__del(&t->by_cookie, s->cookie);
	vp_pipe__free(s->pipe);
	vp_h2__free(s->h2);
	free(s);
}

void vp_socktab__closed(struct vp_socktab *t, struct vp_sock *s, uint64_t ts)
{
	if (s->closed_ts)
		return;
	s->closed_ts = ts ? ts : 1;
	if (t->closed_tail)
		t->closed_tail->next_closed = s;
	else
		t->closed_head = s;
	t->closed_tail = s;
}

void vp_socktab__reap(struct vp_socktab *t, uint64_t before,
		      void (*gone)(void *ctx, const struct vp_sock *s), void *ctx)
{
	struct vp_sock *s;

	while ((s = t->closed_head) && s->closed_ts < before) {
		t->closed_head = s->next_closed;
		if (!t->closed_head)
			t->closed_tail = NULL;
		if (gone)
			gone(ctx, s);
		vp_socktab__remove(t, s);
	}
}

void vp_socktab__free(struct vp_socktab *t)
{
	size_t pos = 0;
	void *v;

	while (u64map__next(&t->by_cookie, &pos, NULL, &v)) {
		vp_pipe__free(((struct vp_sock *)v)->pipe);
		vp_h2__free(((struct vp_sock *)v)->h2);
		free(v);
	}
	u64map__free(&t->by_cookie);
	u64map__free(&t->server_ports);
}
