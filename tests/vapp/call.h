/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Blocking client side of the protocol: persistent connections, a pool of
 * them per back end, and one synchronous call. */
#ifndef VAPP_CALL_H
#define VAPP_CALL_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include "config.h"
#include "proto.h"

struct vapp_conn {
	int fd;
	char local[VAPP_ADDR_LEN]; /* this end's ip:port, as the analyzer reports it */
	uint64_t nsent;		   /* requests sent so far = the next one's ordinal */
	struct vapp_conn *next;	   /* idle list */
};

struct vapp_pool {
	pthread_mutex_t lock;
	struct vapp_conn *idle;
	struct sockaddr_in addr;
};

uint64_t vapp_now_ns(void);
/* "NAME-ROLE", cut to the 15 characters a thread name holds. */
void vapp_set_thread_name(const char *server, const char *role);
void vapp_format_addr(const struct sockaddr_in *addr, char out[VAPP_ADDR_LEN]);

/* Connects, retrying refused connections for up to retry_ms (a back end
 * still starting); nonblock leaves the socket O_NONBLOCK after connecting. */
int vapp_conn__open(const struct sockaddr_in *addr, int retry_ms, struct vapp_conn **out);
void vapp_conn__close(struct vapp_conn *c);

void vapp_pool__init(struct vapp_pool *pool, const struct sockaddr_in *addr);
/* An idle pooled connection, or a new one. */
int vapp_pool__take(struct vapp_pool *pool, struct vapp_conn **out);
void vapp_pool__put(struct vapp_pool *pool, struct vapp_conn *c);
void vapp_pool__destroy(struct vapp_pool *pool);

/* One synchronous call on c: sends a REQUEST with seed, padding and the
 * visited list, reads PART frames until the REPLY, and appends the call to
 * tree_out as NAME@LOCAL#ORDINAL~RT_NS[CALLEE'S TREE]. */
int vapp_call(struct vapp_conn *c, const char *callee, uint64_t seed, uint32_t pad,
	      const char *visited, struct vapp_buf *scratch, struct vapp_buf *tree_out);

#endif
