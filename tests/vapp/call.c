// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "call.h"

void vapp_set_thread_name(const char *server, const char *role)
{
	char name[16];

	snprintf(name, sizeof(name), "%s-%s", server, role);
	pthread_setname_np(pthread_self(), name);
}

uint64_t vapp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void vapp_format_addr(const struct sockaddr_in *addr, char out[VAPP_ADDR_LEN])
{
	char ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &addr->sin_addr, ip, sizeof(ip));
	snprintf(out, VAPP_ADDR_LEN, "%s:%u", ip, ntohs(addr->sin_port));
}

int vapp_conn__open(const struct sockaddr_in *addr, int retry_ms, struct vapp_conn **out)
{
	struct sockaddr_in local;
	socklen_t len = sizeof(local);
	struct vapp_conn *c;
	int fd = -1, err, one = 1;

	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0)
			break;
		err = -errno;
		close(fd);
		if ((err != -ECONNREFUSED && err != -EINTR) || retry_ms <= 0)
			return err;
		usleep(20000);
		retry_ms -= 20;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c = calloc(1, sizeof(*c));
	if (!c || getsockname(fd, (struct sockaddr *)&local, &len) < 0) {
		err = c ? -errno : -ENOMEM;
		free(c);
		close(fd);
		return err;
	}
	c->fd = fd;
	vapp_format_addr(&local, c->local);
	*out = c;
	return 0;
}

void vapp_conn__close(struct vapp_conn *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

void vapp_pool__init(struct vapp_pool *pool, const struct sockaddr_in *addr)
{
	pthread_mutex_init(&pool->lock, NULL);
	pool->idle = NULL;
	pool->addr = *addr;
}

int vapp_pool__take(struct vapp_pool *pool, struct vapp_conn **out)
{
	pthread_mutex_lock(&pool->lock);
	*out = pool->idle;
	if (*out)
		pool->idle = (*out)->next;
	pthread_mutex_unlock(&pool->lock);
	if (*out)
		return 0;
	return vapp_conn__open(&pool->addr, 5000, out);
}

void vapp_pool__put(struct vapp_pool *pool, struct vapp_conn *c)
{
	pthread_mutex_lock(&pool->lock);
	c->next = pool->idle;
	pool->idle = c;
	pthread_mutex_unlock(&pool->lock);
}

void vapp_pool__destroy(struct vapp_pool *pool)
{
	struct vapp_conn *c, *next;

	if (!pool)
		return;
	for (c = pool->idle; c; c = next) {
		next = c->next;
		vapp_conn__close(c);
	}
	pool->idle = NULL;
	pthread_mutex_destroy(&pool->lock);
}

int vapp_call(struct vapp_conn *c, const char *callee, uint64_t seed, uint32_t pad,
	      const char *visited, struct vapp_buf *scratch, struct vapp_buf *tree_out)
{
	struct vapp_frame f;
	uint64_t ordinal = c->nsent, t0;
	char text[4096];
	int err;

	if ((size_t)snprintf(text, sizeof(text), "%016" PRIx64 " %s", seed, visited) >=
	    sizeof(text))
		return -E2BIG;
	scratch->len = 0;
	err = vapp_frame__append(scratch, VAPP_FRAME_REQUEST, text, pad);
	if (err)
		return err;
	t0 = vapp_now_ns();
	c->nsent++;
	err = vapp_write_all(c->fd, scratch->data, scratch->len);
	while (!err) {
		err = vapp_read_frame(c->fd, scratch, &f);
		if (err || f.type == VAPP_FRAME_REPLY)
			break;
		if (f.type != VAPP_FRAME_PART)
			err = -EPROTO;
	}
	if (err)
		return err;
	return vapp_buf__printf(tree_out, "%s@%s#%" PRIu64 "~%" PRIu64 "[%.*s]", callee, c->local,
				ordinal, vapp_now_ns() - t0, (int)f.text_len, f.text);
}
