/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 1, read: open recordings, validate them, group them into hosts (one
 * file, or the segments of a --ring recording, per (boot_id, netns)), and
 * give each host's records in time order.
 *
 * Records of one file are only roughly in time order (CPUs race for the ring
 * buffer), so each host's stream passes a reorder window: a record is given
 * out once a record reorder_ns newer has been read.  Memory is bounded by
 * the records of that window, never by the length of the recording.
 * Drop records become loss windows on the host as they pass.
 */
#ifndef VPATH_INPUT_H
#define VPATH_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "vpath/record.h"

/*
 * Timestamps at or beyond this (73 years of uptime) cannot come from a
 * recorder: such records are skipped, so that every later stage may add
 * clock offsets (clock.h, VP_OFFSET_MAX) and take differences of times in
 * int64_t without overflow.
 */
#define VP_TS_MAX (1ull << 61)

/* NTP slews at most 0.5 ms/s; anything this large between two ticks is a step. */
#define VP_WALL_STEP_NS (100ll * 1000 * 1000)

struct vp_input_opts {
	uint64_t reorder_ns; /* 0: default 10 ms */
	unsigned threads;    /* the files' first blocks are read on this many (0, 1: one) */
};

struct vp_input;

/*
 * Open and validate every file and group them into hosts.  On error returns
 * -errno and writes a one-line message naming the file into err.
 */
int vp_input__open(struct vp_input **out, char *const *paths, int npaths,
		   const struct vp_input_opts *opts, char *err, size_t errlen);
size_t vp_input__nhosts(const struct vp_input *in);
uint64_t vp_input__reorder_ns(const struct vp_input *in);
struct vp_host *vp_input__host(struct vp_input *in, size_t i);
/* Timestamp of the host's next record, UINT64_MAX at its end. */
uint64_t vp_input__peek_ts(struct vp_input *in, size_t host);
/* The host's next record in time order (valid until the next call), NULL at its end. */
const struct vpr_hdr *vp_input__next(struct vp_input *in, size_t host);
/*
 * The whole payload record whose head (a VPR_PAYLOAD given out by next)
 * names an operation, taken out of the read stage (payloads.h); false
 * when it is not there (already taken, or damaged and dropped).
 */
bool vp_input__payload(struct vp_input *in, size_t host, const struct vpr_hdr *head,
		       struct vpr_payload *out);
/* The whole VPR_LOG record whose head the analysis was given (as vp_input__payload). */
bool vp_input__log(struct vp_input *in, size_t host, const struct vpr_hdr *head,
		   struct vpr_log *out);
void vp_input__free(struct vp_input *in);

#endif
