/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* vApp topology: which servers exist, where they listen, how they are
 * threaded, whom they may call, and the knobs of the random decisions. */
#ifndef VAPP_CONFIG_H
#define VAPP_CONFIG_H

#include <netinet/in.h>

#define VAPP_MAX_SERVERS 64
#define VAPP_MAX_CALLEES 16
#define VAPP_NAME_LEN 16 /* fits a thread name with a short suffix */
#define VAPP_ADDR_LEN 24 /* "255.255.255.255:65535" */

enum vapp_model {
	VAPP_MODEL_THREAD,  /* one thread per connection, blocking I/O */
	VAPP_MODEL_WORKERS, /* dispatcher thread receives, worker pool calls and replies */
	VAPP_MODEL_EPOLL,   /* one thread, epoll, non-blocking downstream calls */
};

struct vapp_server_cfg {
	char name[VAPP_NAME_LEN];
	enum vapp_model model;
	int workers; /* VAPP_MODEL_WORKERS only */
	struct sockaddr_in addr;
	char addr_str[VAPP_ADDR_LEN];
	int ncallees;
	int callees[VAPP_MAX_CALLEES]; /* indexes into vapp_topology.servers */
};

/* Probabilities and sizes of the seeded random decisions (see plan.c). */
struct vapp_params {
	double call_prob;   /* chance to make (another) call, at depth 1 */
	double call_decay;  /* call_prob is multiplied by this per extra depth */
	int max_calls;	    /* per server visit */
	int max_depth;	    /* servers on a path, client excluded */
	double repeat_prob; /* chance a call goes to the same back end as the last */
	double parts_prob;  /* chance the reply is sent in two parts around a call */
	int min_bytes;	    /* request/reply padding */
	int max_bytes;
	double big_prob; /* chance of a big message, split over many segments */
	int big_bytes;
	int max_delay_us; /* service time per visit (threaded models only) */
	double slow_prob; /* chance of a slow visit instead (threaded models only) */
	int slow_us;
};

struct vapp_topology {
	int nservers;
	struct vapp_server_cfg servers[VAPP_MAX_SERVERS];
	int nfront; /* servers the client calls */
	int front[VAPP_MAX_SERVERS];
	char client_ip[VAPP_ADDR_LEN];
	struct vapp_params params;
};

/* Reads a topology file; prints a one-line error naming the line and
 * returns -EINVAL (or -errno) on bad input. */
int vapp_topology__load(struct vapp_topology *topo, const char *path);
int vapp_topology__find(const struct vapp_topology *topo, const char *name);
const char *vapp_model_name(enum vapp_model model);
/* "ip:port" -> sockaddr; 0 or -EINVAL. */
int vapp_parse_addr(const char *s, struct sockaddr_in *addr);

#endif
