// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Threading model (c): one thread, one epoll loop, every socket
 * non-blocking.  A request's calls are made one after the other, but while
 * one waits for its back end the loop serves other requests, so a single
 * thread interleaves many requests (the case vPath's thread rule cannot
 * handle and BorderPatrol's "latest input" rule can).  It has no service time
 * (max_delay_us, slow_prob): sleeping would stall every request it holds. */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "server.h"

enum ep_kind {
	EP_LISTEN,
	EP_UPSTREAM,
	EP_DOWNSTREAM
};

struct ep_conn {
	enum ep_kind kind;
	int fd; /* -1 once closed; freed after the current batch of events */
	uint32_t events;
	struct vapp_buf in, out;
	struct ep_conn *next_dead;
};

struct request;

struct upstream {
	struct ep_conn c;
	uint64_t served;     /* requests read on it so far */
	struct request *req; /* in progress, or NULL */
};

struct downstream {
	struct ep_conn c;
	int callee;
	int connecting;
	char local[VAPP_ADDR_LEN];
	uint64_t nsent, ordinal, t0;
	struct request *req; /* waiting for our reply, or NULL when idle */
	struct downstream *next_idle;
};

struct request {
	struct upstream *up; /* NULL if the client went away meanwhile */
	struct vapp_plan plan;
	int step;
	char visited[2048];
	struct vapp_buf tree;
};

struct loop {
	struct vapp_server *srv;
	int epfd;
	struct ep_conn listener;
	struct downstream *idle[VAPP_MAX_SERVERS];
	struct ep_conn *dead;
};

static int set_events(struct loop *l, struct ep_conn *c, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = c};
	int op = c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;

	if (c->events == events)
		return 0;
	if (epoll_ctl(l->epfd, op, c->fd, &ev) < 0)
		return -errno;
	c->events = events;
	return 0;
}

static void conn_close(struct loop *l, struct ep_conn *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);
	c->fd = -1;
	c->next_dead = l->dead;
	l->dead = c;
}

static void bury_dead(struct loop *l)
{
	while (l->dead) {
		struct ep_conn *c = l->dead;

		l->dead = c->next_dead;
		vapp_buf__free(&c->in);
		vapp_buf__free(&c->out);
		free(c);
	}
}

/* Sends what is queued; waits for EPOLLOUT only while something is left. */
static int flush(struct loop *l, struct ep_conn *c)
{
	while (c->out.len > 0) {
		ssize_t n = send(c->fd, c->out.data, c->out.len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return set_events(l, c, EPOLLIN | EPOLLOUT);
		if (n < 0)
			return -errno;
		vapp_buf__consume(&c->out, (size_t)n);
	}
	return set_events(l, c, EPOLLIN);
}

static void request_free(struct request *req)
{
	if (!req)
		return;
	if (req->up)
		req->up->req = NULL;
	vapp_buf__free(&req->tree);
	free(req);
}

static void request_fail(struct loop *l, struct request *req, const char *what, int err)
{
	fprintf(stderr, "vapp %s: %s: %s\n", l->srv->cfg->name, what, strerror(-err));
	if (req->up)
		conn_close(l, &req->up->c);
	request_free(req);
}

static void downstream_drop(struct loop *l, struct downstream *d)
{
	struct downstream **pp = &l->idle[d->callee];

	while (*pp && *pp != d)
		pp = &(*pp)->next_idle;
	if (*pp)
		*pp = d->next_idle;
	conn_close(l, &d->c);
}

static int downstream_open(struct loop *l, int callee, struct downstream **out)
{
	const struct sockaddr_in *addr = &l->srv->topo->servers[callee].addr;
	struct sockaddr_in local;
	socklen_t len = sizeof(local);
	struct downstream *d;
	int one = 1, err;

	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->c.kind = EP_DOWNSTREAM;
	d->callee = callee;
	d->c.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d->c.fd < 0) {
		free(d);
		return -errno;
	}
	setsockopt(d->c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(d->c.fd, (const struct sockaddr *)addr, sizeof(*addr)) < 0) {
		if (errno != EINPROGRESS)
			goto fail;
		d->connecting = 1;
	}
	/* connect() has bound the local port already, even when in progress */
	if (getsockname(d->c.fd, (struct sockaddr *)&local, &len) < 0)
		goto fail;
	vapp_format_addr(&local, d->local);
	if (set_events(l, &d->c, EPOLLIN | EPOLLOUT))
		goto fail;
	*out = d;
	return 0;
fail:
	err = -errno;
	close(d->c.fd);
	free(d);
	return err;
}

static int start_call(struct loop *l, struct request *req, const struct vapp_step *st)
{
	struct downstream *d = l->idle[st->callee];
	char text[2200];
	int err;

	if (d) {
		l->idle[st->callee] = d->next_idle;
	} else {
		err = downstream_open(l, st->callee, &d);
		if (err)
			return err;
	}
	d->req = req;
	d->ordinal = d->nsent++;
	snprintf(text, sizeof(text), "%016" PRIx64 " %s", st->seed, req->visited);
	err = vapp_frame__append(&d->c.out, VAPP_FRAME_REQUEST, text, st->bytes);
	d->t0 = vapp_now_ns();
	if (!err && !d->connecting)
		err = flush(l, &d->c);
	if (err) {
		d->req = NULL;
		downstream_drop(l, d);
	}
	return err;
}

static int send_frame(struct loop *l, struct request *req, uint32_t type, const char *text,
		      uint32_t pad)
{
	int err;

	if (!req->up)
		return 0; /* the client left; finish the calls anyway */
	err = vapp_frame__append(&req->up->c.out, type, text, pad);
	return err ? err : flush(l, &req->up->c);
}

/* Runs the request's plan until it must wait for a back end, or to the end. */
static void advance(struct loop *l, struct request *req)
{
	int err = 0;

	while (req->step < req->plan.nsteps) {
		const struct vapp_step *st = &req->plan.steps[req->step++];

		if (st->kind == VAPP_STEP_CALL) {
			err = start_call(l, req, st);
			if (err)
				request_fail(l, req, "cannot call a back end", err);
			return;
		}
		err = send_frame(l, req, VAPP_FRAME_PART, NULL, st->bytes);
		if (err) {
			request_fail(l, req, "cannot send a reply part", err);
			return;
		}
	}
	err = vapp_buf__append(&req->tree, "", 1);
	if (!err)
		err = send_frame(l, req, VAPP_FRAME_REPLY, req->tree.data, req->plan.reply_bytes);
	if (err)
		request_fail(l, req, "cannot send a reply", err);
	else
		request_free(req);
}

static int start_request(struct loop *l, struct upstream *up, const struct vapp_frame *f)
{
	struct request *req = calloc(1, sizeof(*req));
	uint64_t seed;
	int depth, err;

	if (!req)
		return -ENOMEM;
	err = vapp_server__visit(l->srv, up->c.fd, up->served++, f, &seed, req->visited,
				 sizeof(req->visited), &depth);
	if (err) {
		free(req);
		return err;
	}
	vapp_plan__make(&req->plan, l->srv->topo, l->srv->self, seed, depth);
	req->up = up;
	up->req = req;
	advance(l, req);
	return 0;
}

static int read_some(struct ep_conn *c)
{
	ssize_t n;
	int err = vapp_buf__reserve(&c->in, 65536);

	if (err)
		return err;
	n = read(c->fd, c->in.data + c->in.len, c->in.cap - c->in.len);
	if (n == 0)
		return -EPIPE;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	c->in.len += (size_t)n;
	return 0;
}

static void on_upstream(struct loop *l, struct upstream *up, uint32_t events)
{
	struct vapp_frame f;
	long n;
	int err = 0;

	if (events & EPOLLOUT)
		err = flush(l, &up->c);
	if (!err && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		err = read_some(&up->c);
	/* strictly synchronous: the next request only after the reply */
	while (!err && !up->req && up->c.fd >= 0 &&
	       (n = vapp_frame__parse(up->c.in.data, up->c.in.len, &f)) != 0) {
		if (n < 0 || f.type != VAPP_FRAME_REQUEST) {
			err = -EPROTO;
			break;
		}
		err = start_request(l, up, &f);
		vapp_buf__consume(&up->c.in, (size_t)n);
	}
	if (err) {
		if (err != -EPIPE)
			fprintf(stderr, "vapp %s: client connection: %s\n", l->srv->cfg->name,
				strerror(-err));
		if (up->req)
			up->req->up = NULL;
		conn_close(l, &up->c);
	}
}

static int finish_connect(struct loop *l, struct downstream *d)
{
	int soerr = 0;
	socklen_t len = sizeof(soerr);

	if (getsockopt(d->c.fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
		return -errno;
	if (soerr)
		return -soerr;
	d->connecting = 0;
	return flush(l, &d->c);
}

/* A whole reply from the back end ends the call: record it, go on. */
static int take_reply(struct loop *l, struct downstream *d)
{
	struct request *req;
	struct vapp_frame f;
	long n;
	int err;

	while ((n = vapp_frame__parse(d->c.in.data, d->c.in.len, &f)) != 0) {
		if (n < 0 || !d->req || f.type == VAPP_FRAME_REQUEST)
			return -EPROTO;
		if (f.type == VAPP_FRAME_PART) {
			vapp_buf__consume(&d->c.in, (size_t)n);
			continue;
		}
		req = d->req;
		if (req->tree.len > 0 && (err = vapp_buf__append(&req->tree, ",", 1)))
			return err;
		err = vapp_buf__printf(&req->tree, "%s@%s#%" PRIu64 "~%" PRIu64 "[%.*s]",
				       l->srv->topo->servers[d->callee].name, d->local, d->ordinal,
				       vapp_now_ns() - d->t0, (int)f.text_len, f.text);
		if (err)
			return err;
		vapp_buf__consume(&d->c.in, (size_t)n);
		d->req = NULL;
		d->next_idle = l->idle[d->callee];
		l->idle[d->callee] = d;
		advance(l, req);
		return 0;
	}
	return 0;
}

static void on_downstream(struct loop *l, struct downstream *d, uint32_t events)
{
	int err = 0;

	if (d->connecting && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
		err = finish_connect(l, d);
	else if (events & EPOLLOUT)
		err = flush(l, &d->c);
	if (!err && !d->connecting && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		err = read_some(&d->c);
	if (!err && d->c.in.len > 0)
		err = take_reply(l, d);
	if (err) {
		struct request *req = d->req;

		d->req = NULL;
		downstream_drop(l, d);
		if (req)
			request_fail(l, req, "back-end connection failed", err);
	}
}

static void on_listener(struct loop *l)
{
	struct upstream *up;
	int one = 1, fd = accept4(l->srv->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	up = calloc(1, sizeof(*up));
	if (!up) {
		close(fd);
		return;
	}
	up->c.kind = EP_UPSTREAM;
	up->c.fd = fd;
	if (set_events(l, &up->c, EPOLLIN)) {
		close(fd);
		free(up);
	}
}

int vapp_server_epoll__run(struct vapp_server *srv)
{
	struct epoll_event events[128];
	struct loop l = {.srv = srv};
	int err = 0;

	vapp_set_thread_name(srv->cfg->name, "loop");
	l.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l.epfd < 0)
		return -errno;
	l.listener.kind = EP_LISTEN;
	l.listener.fd = srv->listen_fd;
	err = set_events(&l, &l.listener, EPOLLIN);
	while (!err) {
		int n = epoll_wait(l.epfd, events, 128, -1);

		if (n < 0 && errno != EINTR)
			err = -errno;
		for (int i = 0; i < n; i++) {
			struct ep_conn *c = events[i].data.ptr;

			if (c->fd < 0)
				continue; /* closed earlier in this batch */
			if (c->kind == EP_LISTEN)
				on_listener(&l);
			else if (c->kind == EP_UPSTREAM)
				on_upstream(&l, (struct upstream *)c, events[i].events);
			else
				on_downstream(&l, (struct downstream *)c, events[i].events);
		}
		bury_dead(&l);
	}
	close(l.epfd);
	return err;
}
