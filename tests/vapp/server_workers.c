// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Threading model (b): a dispatcher thread receives every request (epoll,
 * one-shot per connection) and queues it; a worker from a fixed pool makes
 * the calls and sends the reply, then re-arms the connection.  The thread
 * that received a request is never the one that answers it. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "server.h"

struct client_conn {
	int fd;
	uint64_t served; /* requests read on it so far */
	struct vapp_buf in;
	struct client_conn *next; /* job queue */
};

struct workers {
	struct vapp_server *srv;
	int epfd;
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	struct client_conn *head, *tail;
};

static void client_conn__free(struct client_conn *c)
{
	if (!c)
		return;
	close(c->fd);
	vapp_buf__free(&c->in);
	free(c);
}

static int arm(struct workers *w, struct client_conn *c, int op)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLONESHOT, .data.ptr = c};

	return epoll_ctl(w->epfd, op, c->fd, &ev) < 0 ? -errno : 0;
}

static void enqueue(struct workers *w, struct client_conn *c)
{
	pthread_mutex_lock(&w->lock);
	c->next = NULL;
	if (w->tail)
		w->tail->next = c;
	else
		w->head = c;
	w->tail = c;
	pthread_cond_signal(&w->nonempty);
	pthread_mutex_unlock(&w->lock);
}

static struct client_conn *dequeue(struct workers *w)
{
	struct client_conn *c;

	pthread_mutex_lock(&w->lock);
	while (!w->head)
		pthread_cond_wait(&w->nonempty, &w->lock);
	c = w->head;
	w->head = c->next;
	if (!w->head)
		w->tail = NULL;
	pthread_mutex_unlock(&w->lock);
	return c;
}

static void *worker_thread(void *p)
{
	struct workers *w = p;
	struct vapp_scratch s = {};
	static int next_id;
	char role[8];

	snprintf(role, sizeof(role), "w%d", __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED));
	vapp_set_thread_name(w->srv->cfg->name, role);
	for (;;) {
		struct client_conn *c = dequeue(w);
		struct vapp_frame f;
		long n = vapp_frame__parse(c->in.data, c->in.len, &f);
		int err = n > 0 ? vapp_server__handle(w->srv, c->fd, c->served++, &f, &s) : -EPROTO;

		if (!err) {
			vapp_buf__consume(&c->in, (size_t)n);
			err = arm(w, c, EPOLL_CTL_MOD);
		}
		if (err) {
			fprintf(stderr, "vapp %s: connection dropped: %s\n", w->srv->cfg->name,
				strerror(-err));
			client_conn__free(c);
		}
	}
	return NULL;
}

static void accept_one(struct workers *w)
{
	struct client_conn *c;
	int one = 1, fd = accept4(w->srv->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	c->fd = fd;
	if (arm(w, c, EPOLL_CTL_ADD))
		client_conn__free(c);
}

/* Reads what arrived; hands the connection to a worker once a whole request is in. */
static void receive(struct workers *w, struct client_conn *c)
{
	struct vapp_frame f;
	ssize_t n;
	long whole;

	if (vapp_buf__reserve(&c->in, 65536)) {
		client_conn__free(c);
		return;
	}
	n = read(c->fd, c->in.data + c->in.len, c->in.cap - c->in.len);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		client_conn__free(c);
		return;
	}
	if (n > 0)
		c->in.len += (size_t)n;
	whole = vapp_frame__parse(c->in.data, c->in.len, &f);
	if (whole > 0 && f.type == VAPP_FRAME_REQUEST)
		enqueue(w, c);
	else if (whole < 0 || (whole > 0 && f.type != VAPP_FRAME_REQUEST) ||
		 arm(w, c, EPOLL_CTL_MOD))
		client_conn__free(c);
}

int vapp_server_workers__run(struct vapp_server *srv)
{
	struct epoll_event ev = {.events = EPOLLIN}, events[64];
	struct workers w = {.srv = srv};
	int err = 0;

	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.nonempty, NULL);
	w.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w.epfd < 0)
		return -errno;
	ev.data.ptr = NULL; /* NULL marks the listening socket */
	if (epoll_ctl(w.epfd, EPOLL_CTL_ADD, srv->listen_fd, &ev) < 0) {
		err = -errno;
		goto cleanup;
	}
	for (int i = 0; i < srv->cfg->workers; i++) {
		pthread_t tid;

		if (pthread_create(&tid, NULL, worker_thread, &w)) {
			err = -EAGAIN;
			goto cleanup;
		}
		pthread_detach(tid);
	}
	vapp_set_thread_name(srv->cfg->name, "disp");
	for (;;) {
		int n = epoll_wait(w.epfd, events, 64, -1);

		if (n < 0 && errno != EINTR) {
			err = -errno;
			break;
		}
		for (int i = 0; i < n; i++) {
			if (!events[i].data.ptr)
				accept_one(&w);
			else
				receive(&w, events[i].data.ptr);
		}
	}
cleanup:
	close(w.epfd);
	return err;
}
