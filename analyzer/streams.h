/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every connection end by its 4-tuple, as the look-ahead sees the hosts'
 * connection records: a receiver finds the sender's end of its stream here
 * (to cut messages where the sender's begin, messages.h) before any call on
 * that connection has paired the two.  A tuple may name several ends over
 * time (ports are reused); the caller tells them apart by stream position.
 */
#ifndef VPATH_STREAMS_H
#define VPATH_STREAMS_H

#include <stdint.h>

#include "endpoint.h"
#include "hashmap.h"
#include "vpath/record.h"

struct vp_stream_end {
	struct vp_endpoint local, remote;
	int host;
	uint64_t cookie;
	struct vp_stream_end *next; /* same hash */
};

struct vp_streams {
	struct u64map by_tuple; /* hash of (local, remote) -> chain */
};

/* A connection record seen on host: remember its end (once). */
void vp_streams__add(struct vp_streams *m, int host, const struct vpr_conn *c);
/* The ends whose tuple is (local, remote), in a chain: iterate with ->next, compare tuples. */
struct vp_stream_end *vp_streams__find(struct vp_streams *m, const struct vp_endpoint *local,
				       const struct vp_endpoint *remote);
/* The end of (host, cookie) goes away. */
void vp_streams__forget(struct vp_streams *m, int host, uint64_t cookie,
			const struct vp_endpoint *local, const struct vp_endpoint *remote);
void vp_streams__free(struct vp_streams *m);

#endif
