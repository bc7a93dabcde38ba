/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The recorder's command line. */
#ifndef VPATH_RECORD_OPTIONS_H
#define VPATH_RECORD_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "../bpf/vpath.h"

#define VPATH_MAX_GO_BINARIES 16

struct record_opts {
	const char *output;
	uint64_t duration_ns; /* 0: until a signal */
	uint32_t pids[VPATH_MAX_PIDS];
	unsigned npids;
	uint16_t ports[VPATH_MAX_PORTS];
	unsigned nports;
	const char *go_binaries[VPATH_MAX_GO_BINARIES]; /* --go-binary */
	unsigned ngo_binaries;
	const char *cgroup;    /* cgroup v2 directory */
	const char *netns;     /* path, name in /run/netns, or inode */
	const char *host;      /* label written as the host name */
	unsigned ring;	       /* segments kept; 0: one plain file */
	const char *group;     /* --group: recordings are 0640 and owned by this group */
	unsigned capture;      /* --capture N: first N bytes of each operation; 0: none */
	unsigned capture_hash; /* --capture-hash N: keyed hashes of the first N bytes; 0: none */
	uint32_t capture_pids[VPATH_MAX_PIDS];
	unsigned ncapture_pids;
	uint16_t capture_ports[VPATH_MAX_PORTS];
	unsigned ncapture_ports;
	unsigned logs; /* --logs N: first N bytes of each write to a log; 0: none */
	gid_t gid;     /* its id; valid when group is set */
	uint64_t segment_size;
	uint64_t ringbuf_size;
	int verbose;
	bool no_wakeups; /* --no-wakeups: no VPR_WAKEUP records (docs/recorder.md) */
	bool force_fallback;
	bool no_batches; /* as if the kernel refused to run the flush program (tests) */
	unsigned test_stall_ms, test_stall_every; /* --test-stall: a stalled CPU (tests) */
	unsigned test_go_late_ms; /* --test-go-late: a Go program's probes that late (tests) */
	bool invalid;		  /* an option was refused (seen when argp does not exit) */
};

/*
 * Parse argv into opts; prints its own one-line error.  0 or -EINVAL.
 * argp_flags: 0 for the program (errors and --help exit); the fuzz target
 * passes ARGP_SILENT so that every input comes back.
 */
int record_opts__parse(struct record_opts *opts, int argc, char **argv, unsigned argp_flags);

#endif
