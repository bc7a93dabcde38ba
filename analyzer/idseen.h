/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The propagated ids of a process's latest requests (stage 5b): whether an
 * id named more than one of them.  A trace id names a trace, not a
 * request: when a trace came through a process twice, a call carrying it
 * may be a late call of the earlier request (sent after that one was
 * finished) as well as a call of the later one, and the id decides
 * nothing.  Ids are kept by a 64-bit hash (two ids that collide count as
 * one: the id then decides less, never wrongly) for the latest
 * VP_IDSEEN_MAX requests that carried one, so memory stays bounded by
 * that, not by the recording's length.
 */
#ifndef VPATH_IDSEEN_H
#define VPATH_IDSEEN_H

#include <stdint.h>
#include "hashmap.h"
#include "proto/propid.h"

#define VP_IDSEEN_MAX 4096

struct vp_idseen {
	uint64_t *ring; /* hashes of the latest ids, oldest at head; NULL before the first */
	uint32_t head, n;
	struct u64map count; /* hash -> how many of the ring hold it (as a pointer value) */
};

/* One more request carried id.  -ENOMEM on failure (then it is not counted). */
int vp_idseen__add(struct vp_idseen *s, const struct vp_propid *id);
/* How many of the latest requests carried id. */
uint32_t vp_idseen__count(const struct vp_idseen *s, const struct vp_propid *id);
/* The same for something else a request carries, by its hash (forward.h: content). */
int vp_idseen__add_hash(struct vp_idseen *s, uint64_t h);
uint32_t vp_idseen__count_hash(const struct vp_idseen *s, uint64_t h);
void vp_idseen__free(struct vp_idseen *s);

#endif
