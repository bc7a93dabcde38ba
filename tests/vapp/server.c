// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "server.h"

int vapp_server__open(struct vapp_server *srv, const struct vapp_topology *topo, int self)
{
	const struct vapp_server_cfg *cfg = &topo->servers[self];
	int one = 1, err;

	memset(srv, 0, sizeof(*srv));
	srv->topo = topo;
	srv->cfg = cfg;
	srv->self = self;
	srv->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (srv->listen_fd < 0)
		return -errno;
	setsockopt(srv->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(srv->listen_fd, (const struct sockaddr *)&cfg->addr, sizeof(cfg->addr)) < 0 ||
	    listen(srv->listen_fd, 1024) < 0) {
		err = -errno;
		close(srv->listen_fd);
		srv->listen_fd = -1;
		return err;
	}
	for (int i = 0; i < cfg->ncallees; i++)
		vapp_pool__init(&srv->pools[cfg->callees[i]], &topo->servers[cfg->callees[i]].addr);
	return 0;
}

void vapp_server__close(struct vapp_server *srv)
{
	if (!srv || !srv->cfg)
		return;
	for (int i = 0; i < srv->cfg->ncallees; i++)
		vapp_pool__destroy(&srv->pools[srv->cfg->callees[i]]);
	if (srv->listen_fd >= 0)
		close(srv->listen_fd);
	srv->listen_fd = -1;
}

int vapp_server__run(struct vapp_server *srv)
{
	switch (srv->cfg->model) {
	case VAPP_MODEL_THREAD:
		return vapp_server_thread__run(srv);
	case VAPP_MODEL_WORKERS:
		return vapp_server_workers__run(srv);
	case VAPP_MODEL_EPOLL:
		return vapp_server_epoll__run(srv);
	}
	return -EINVAL;
}

static void log_visit(const struct vapp_server *srv, int fd, uint64_t ordinal)
{
	struct sockaddr_in peer;
	socklen_t plen = sizeof(peer);
	char ip[INET_ADDRSTRLEN] = "?", line[128];
	int n;

	if (getpeername(fd, (struct sockaddr *)&peer, &plen) == 0 && peer.sin_family == AF_INET)
		inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof(ip));
	n = snprintf(line, sizeof(line), "vapp %s: visit %s:%u#%" PRIu64 "\n", srv->cfg->name, ip,
		     ntohs(peer.sin_port), ordinal);
	/* One write, so that lines of concurrent visits never mix. */
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

int vapp_server__visit(const struct vapp_server *srv, int fd, uint64_t ordinal,
		       const struct vapp_frame *req, uint64_t *seed, char *visited, size_t size,
		       int *depth)
{
	size_t len;
	int err = vapp_request__parse(req, seed, visited, size);

	if (err)
		return err;
	if (srv->log_visits)
		log_visit(srv, fd, ordinal);
	*depth = 1;
	for (const char *p = visited; *p; p++)
		*depth += *p == '>';
	len = strlen(visited);
	if (len + 1 + strlen(srv->cfg->name) >= size)
		return -E2BIG;
	snprintf(visited + len, size - len, ">%s", srv->cfg->name);
	return 0;
}

static int handle_call(struct vapp_server *srv, const struct vapp_step *st, const char *visited,
		       struct vapp_scratch *s)
{
	struct vapp_pool *pool = &srv->pools[st->callee];
	struct vapp_conn *c;
	int err;

	if (s->tree.len > 0 && (err = vapp_buf__append(&s->tree, ",", 1)))
		return err;
	err = vapp_pool__take(pool, &c);
	if (err) {
		fprintf(stderr, "vapp %s: cannot connect to %s: %s\n", srv->cfg->name,
			srv->topo->servers[st->callee].addr_str, strerror(-err));
		return err;
	}
	err = vapp_call(c, srv->topo->servers[st->callee].name, st->seed, st->bytes, visited,
			&s->io, &s->tree);
	if (err) {
		fprintf(stderr, "vapp %s: call to %s failed: %s\n", srv->cfg->name,
			srv->topo->servers[st->callee].name, strerror(-err));
		vapp_conn__close(c);
		return err;
	}
	vapp_pool__put(pool, c);
	return 0;
}

int vapp_server__handle(struct vapp_server *srv, int fd, uint64_t ordinal,
			const struct vapp_frame *req, struct vapp_scratch *s)
{
	char visited[2048];
	struct vapp_plan plan;
	uint64_t seed;
	int depth, err;

	err = vapp_server__visit(srv, fd, ordinal, req, &seed, visited, sizeof(visited), &depth);
	if (err)
		return err;
	vapp_plan__make(&plan, srv->topo, srv->self, seed, depth);
	s->tree.len = 0;
	for (int i = 0; i < plan.nsteps; i++) {
		const struct vapp_step *st = &plan.steps[i];

		if (st->kind == VAPP_STEP_CALL) {
			err = handle_call(srv, st, visited, s);
		} else {
			s->out.len = 0;
			err = vapp_frame__append(&s->out, VAPP_FRAME_PART, NULL, st->bytes);
			if (!err)
				err = vapp_write_all(fd, s->out.data, s->out.len);
		}
		if (err)
			return err;
	}
	if (plan.delay_us)
		usleep(plan.delay_us);
	/* the tree must be NUL-terminated to become the REPLY text */
	err = vapp_buf__append(&s->tree, "", 1);
	s->out.len = 0;
	if (!err)
		err = vapp_frame__append(&s->out, VAPP_FRAME_REPLY, s->tree.data, plan.reply_bytes);
	if (!err)
		err = vapp_write_all(fd, s->out.data, s->out.len);
	return err;
}

void vapp_scratch__free(struct vapp_scratch *s)
{
	if (!s)
		return;
	vapp_buf__free(&s->io);
	vapp_buf__free(&s->tree);
	vapp_buf__free(&s->out);
}
