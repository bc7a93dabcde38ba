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

#include "endpoint.h"
#include "vpath/record.h"

/*
 * Timestamps at or beyond this (73 years of uptime) cannot come from a
 * recorder: such records are skipped, so that every later stage may add
 * clock offsets (clock.h, VP_OFFSET_MAX) and take differences of times in
 * int64_t without overflow.
 */
#define VP_TS_MAX (1ull << 61)

struct vp_loss {
	uint64_t from_ns, to_ns; /* host clock: records were lost somewhere in here */
	uint64_t lost;
};

struct vp_host {
	int id;
	char name[VPR_HOSTNAME_LEN + 24]; /* hostname, made unique with the netns */
	char boot_id[VPR_ID_LEN + 1];
	uint32_t netns;
	char **files; /* in segment order */
	int nfiles;
	/* The recordings its data came from: files, or those its local file was made from. */
	char **recordings;
	int nrecordings;
	int64_t wall_offset_ns; /* start_real - start_mono of the first file */
	int64_t start_real_ns;	/* start_real of the first file (its wall clock) */
	uint64_t records;	/* records given out so far */
	uint64_t lost;		/* records the recorder reported lost */
	uint64_t late;		/* records older than the reorder window allowed */
	uint64_t skipped;	/* records with impossible values (time, direction), not used */
	uint64_t payloads;	/* payload records read (vpath-record --capture) */
	uint64_t payloads_bad;	/* payload records damaged (len beyond the record) or in excess, not used */
	uint64_t first_ts, last_ts;
	uint64_t bytes_total;	/* size of its files, for progress */
	uint64_t bytes_read;	/* of which read so far */
	bool truncated;		/* a torn tail or corruption ended a file early */
	bool captured;		/* a file says it may hold payload (VPR_FILE_PAYLOAD, --capture) */
	bool corrupt;
	char damage[320];	/* what the reader said about the damage */
	struct vp_endpoint *addrs; /* the host's own addresses (VPR_ADDR) */
	size_t naddrs;
	uint32_t addr_netns; /* the namespace they are of (the recorder's; netns 0 records all) */
	struct vp_loss *losses; /* sorted by time, disjoint */
	size_t nlosses, losses_cap;
	/*
	 * The recorder writes a clock record each tick and, right after it,
	 * drop records of the CPUs that lost records since the last tick.  Once
	 * the stream is past a tick, loss before it is known: loss_known_ns.
	 */
	bool has_clock;
	uint64_t loss_known_ns;
	uint64_t last_tick_ns, prev_tick_ns;
	/*
	 * Wall-clock steps (NTP, date -s) seen in the clock records: realtime -
	 * monotonic moved by more than VP_WALL_STEP_NS.  Only reported: every
	 * time used is the host's monotonic clock.
	 */
	int64_t wall_now_ns;	 /* realtime - monotonic at the last clock record */
	uint32_t wall_steps;
	int64_t wall_step_ns;	 /* the largest step, signed */
	uint64_t wall_step_at_ns; /* host clock: the record that showed it */
};

/* NTP slews at most 0.5 ms/s; anything this large between two ticks is a step. */
#define VP_WALL_STEP_NS (100ll * 1000 * 1000)

struct vp_input_opts {
	uint64_t reorder_ns; /* 0: default 10 ms */
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
bool vp_input__log(struct vp_input *in, size_t host, const struct vpr_hdr *head, struct vpr_log *out);
/* Whether [from, to] on the host's clock overlaps a loss window known so far. */
bool vp_host__lost_between(const struct vp_host *h, uint64_t from, uint64_t to);
void vp_input__free(struct vp_input *in);

#endif
