// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Threading model (a): one thread per connection; it receives each request,
 * makes the calls and sends the reply, all with blocking I/O. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "server.h"

struct conn_thread_arg {
	struct vapp_server *srv;
	int fd;
};

static void *conn_thread(void *p)
{
	struct conn_thread_arg arg = *(struct conn_thread_arg *)p;
	struct vapp_scratch s = {};
	struct vapp_buf req = {};
	struct vapp_frame f;
	uint64_t served = 0;
	int err;

	free(p);
	vapp_set_thread_name(arg.srv->cfg->name, "conn");
	for (;;) {
		err = vapp_read_frame(arg.fd, &req, &f);
		if (err == -EPIPE || err == -ECONNRESET)
			break;
		if (!err)
			err = vapp_server__handle(arg.srv, arg.fd, served++, &f, &s);
		if (err) {
			fprintf(stderr, "vapp %s: connection dropped: %s\n", arg.srv->cfg->name,
				strerror(-err));
			break;
		}
	}
	close(arg.fd);
	vapp_buf__free(&req);
	vapp_scratch__free(&s);
	return NULL;
}

int vapp_server_thread__run(struct vapp_server *srv)
{
	pthread_attr_t attr;
	int one = 1;

	vapp_set_thread_name(srv->cfg->name, "accept");
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		struct conn_thread_arg *arg;
		pthread_t tid;
		int fd = accept4(srv->listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE)
				continue;
			return -errno;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		arg = malloc(sizeof(*arg));
		if (!arg) {
			close(fd);
			continue;
		}
		arg->srv = srv;
		arg->fd = fd;
		if (pthread_create(&tid, &attr, conn_thread, arg)) {
			fprintf(stderr, "vapp %s: cannot start a connection thread\n",
				srv->cfg->name);
			free(arg);
			close(fd);
		}
	}
}
