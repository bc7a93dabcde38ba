/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One host of an analysis: a machine's recordings in one network namespace,
 * as the read stage (input.h) found them, and what it learned while reading
 * them (counts, loss windows, clock steps).  Every later stage names hosts
 * by this struct, so it stands below all of them; input.h fills it in.
 */
#ifndef VPATH_HOST_H
#define VPATH_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "endpoint.h"
#include "vpath/record.h"

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
	uint64_t
		payloads_bad; /* payload records damaged (len beyond the record) or in excess, not used */
	uint64_t first_ts, last_ts;
	uint64_t bytes_total; /* size of its files, for progress */
	uint64_t bytes_read;  /* of which read so far */
	bool truncated;	      /* a torn tail or corruption ended a file early */
	bool captured;	      /* a file says it may hold payload (VPR_FILE_PAYLOAD, --capture) */
	bool corrupt;
	char damage[320];	   /* what the reader said about the damage */
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
	 * monotonic moved by more than VP_WALL_STEP_NS (input.h).  Only reported: every
	 * time used is the host's monotonic clock.
	 */
	int64_t wall_now_ns; /* realtime - monotonic at the last clock record */
	uint32_t wall_steps;
	int64_t wall_step_ns;	  /* the largest step, signed */
	uint64_t wall_step_at_ns; /* host clock: the record that showed it */
};

/* Whether [from, to] on the host's clock overlaps a loss window known so far. */
bool vp_host__lost_between(const struct vp_host *h, uint64_t from, uint64_t to);

#endif
