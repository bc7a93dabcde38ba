/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One vApp server: a listening socket, pooled connections to its back ends,
 * and one of three threading models running it. */
#ifndef VAPP_SERVER_H
#define VAPP_SERVER_H

#include <stdint.h>
#include "call.h"
#include "config.h"
#include "plan.h"
#include "proto.h"

struct vapp_server {
	const struct vapp_topology *topo;
	const struct vapp_server_cfg *cfg;
	int self;
	int listen_fd;
	int log_visits; /* --log-visits: a line per visit on stderr (vapp_server__visit) */
	struct vapp_pool pools[VAPP_MAX_SERVERS]; /* by server index; callees only */
};

/* Per-thread buffers of the blocking models, reused across requests. */
struct vapp_scratch {
	struct vapp_buf io, tree, out;
};

int vapp_server__open(struct vapp_server *srv, const struct vapp_topology *topo, int self);
/* Serves until killed; returns -Exxx on a setup failure. */
int vapp_server__run(struct vapp_server *srv);
void vapp_server__close(struct vapp_server *srv);

/* Blocking models: plan the request, make its calls through the pools, send
 * the reply (maybe in two parts) on fd. */
int vapp_server__handle(struct vapp_server *srv, int fd, uint64_t ordinal,
			const struct vapp_frame *req, struct vapp_scratch *s);
/*
 * The visited list a request forwards and this server's depth on the path.
 * With log_visits, says "vapp NAME: visit CLIENT#ORDINAL" in one write to
 * stderr: the request's client (fd's peer) and its ordinal on fd from 0,
 * the truth's key of the call (a log line whose request is known).
 */
int vapp_server__visit(const struct vapp_server *srv, int fd, uint64_t ordinal,
		       const struct vapp_frame *req, uint64_t *seed, char *visited, size_t size,
		       int *depth);
void vapp_scratch__free(struct vapp_scratch *s);

int vapp_server_thread__run(struct vapp_server *srv);
int vapp_server_workers__run(struct vapp_server *srv);
int vapp_server_epoll__run(struct vapp_server *srv);

#endif
