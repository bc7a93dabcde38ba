/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 5's units for Go (before attribution): in a Go process the
 * goroutine, not the OS thread, is what serves a request, so every socket
 * operation of a thread the recorder saw running a goroutine (VPR_GO_RUN)
 * is attributed to a unit standing for that goroutine.  Units get ids of
 * their own, above every kernel thread id (VP_GOR_UNIT_BASE), so that
 * attribution keys them like threads.  Creation (VPR_GO_NEW) is kept: a
 * goroutine that reads a connection right after its creator operated on it
 * (net/http's background read of the next request) is its creator there.
 */
#ifndef VPATH_GOROUTINES_H
#define VPATH_GOROUTINES_H

#include <stdbool.h>
#include <stdint.h>

#include "hashmap.h"

#define VP_GOR_UNIT_BASE 0x80000000u

struct vp_gor {
	struct u64map threads; /* tid -> struct vp_gor_unit * it runs now */
	struct u64map procs;   /* pid -> &procs: the processes whose records have begun */
	uint32_t last_pid;     /* of the last vp_gor__first_of, in procs (0: none) */
	struct u64map units;   /* pid << 40 | goid -> struct vp_gor_unit * */
	uint32_t next_id;
};

struct vp_gor_unit {
	uint32_t id;
	uint32_t parent; /* the unit of the goroutine that created it, 0: unknown */
};

void vp_gor__init(struct vp_gor *g);
void vp_gor__free(struct vp_gor *g);
/* True once per process: at pid's first goroutine record (VPR_GO_PENDING aside). */
bool vp_gor__first_of(struct vp_gor *g, uint32_t pid);
/* The unit of goroutine goid of process pid (made on first sight). */
struct vp_gor_unit *vp_gor__unit(struct vp_gor *g, uint32_t pid, uint64_t goid);
/* Thread tid runs goroutine goid from now on. */
void vp_gor__run(struct vp_gor *g, uint32_t tid, uint32_t pid, uint64_t goid);
/* The unit thread tid runs now, or NULL for a thread of no followed Go process. */
struct vp_gor_unit *vp_gor__of_thread(const struct vp_gor *g, uint32_t tid);

#endif
