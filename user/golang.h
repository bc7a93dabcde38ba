/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Go processes: which binaries are Go, where their goroutine id is, and the
 * uprobes on their runtime (docs/recorder.md, "Go goroutines").
 */
#ifndef VPATH_RECORD_GOLANG_H
#define VPATH_RECORD_GOLANG_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "../bpf/vpath.h"

#include "exec_watch.h"
#include "priv_helper.h"

enum go_goid_source {
	GO_GOID_DWARF,
	GO_GOID_TABLE
};

/* The runtime functions probed (runtime.newproc1, runtime.runqput, runtime.goready). */
#define GO_NPROBES 3

struct go_binary {
	char version[32]; /* runtime.buildVersion, "" when unreadable */
	struct vpath_go_offsets off;
	enum go_goid_source goid_from;
	bool has_dwarf;
	uint32_t
		table_goid; /* go_binary__verify's: the table's offset, when DWARF said otherwise */
	uint64_t probe_off[GO_NPROBES]; /* where in the file each probe goes (golang.c) */
	/*
	 * grpc-go's client transport Write (GO_GRPC_WRITE_SYM), where in the
	 * file; 0: not in this binary (no gRPC client, or stripped of it).
	 */
	uint64_t grpc_write_off;
};

/* Probed when a followed binary has it: the goroutine making a gRPC call, and its stream. */
#define GO_GRPC_WRITE_SYM "google.golang.org/grpc/internal/transport.(*http2Client).Write"

/*
 * What the file open at fd is: 1 a Go binary whose goroutines can be
 * followed (*info filled), 0 not a Go binary (or not an ELF file), -1 a Go
 * binary that cannot be followed (*why says why: stripped, unknown
 * version, ...).
 */
int go_binary__inspect(int fd, struct go_binary *info, const char **why);
/*
 * After go_binary__inspect took goid's offset from the table: checks it
 * against the binary's DWARF, when it has some.  1 when they differ (DWARF's
 * is then in info->off), else 0.
 */
int go_binary__verify(int fd, struct go_binary *info);

/* The goid offset in runtime.g for a Go version ("go1.19.8"); 0 when unknown. */
uint32_t go_goid_offset_for_version(const char *version);

struct go_follow;

struct go_follow_opts {
	const char *const *binaries; /* --go-binary */
	unsigned nbinaries;
	const uint32_t *pids; /* -p: only those processes (and none started later) */
	unsigned npids;
	uint32_t netns; /* --netns: only processes of that namespace; 0 every one */
	int verbose;
	/*
	 * The BPF side's go_active: set when the first binary is followed, at
	 * start or later, so that until then a socket operation pays one load.
	 */
	volatile uint32_t *go_active;
	/* The BPF side's go_pid_bits (bpf/vpath.h): a process's bit is set before it joins go_procs. */
	volatile uint64_t *go_pid_bits;
	/* The BPF side's tls_active and go_tls_active: set when some binary's crypto/tls is probed (gotls.h). */
	volatile uint32_t *tls_active;
	volatile uint32_t *go_tls_active;
	/*
	 * Set by the recorder: process pid exec'ed a Go binary at exec_ns
	 * (CLOCK_MONOTONIC) and its goroutines are not seen yet (its probes
	 * are being put in place); called in the exec watch's thread, before
	 * the probes' attach (a VPR_GO_PENDING record, docs/format.md).
	 */
	void (*pending)(void *ctx, uint32_t pid, uint64_t exec_ns);
	void *pending_ctx;
	unsigned test_late_ms; /* --test-go-late: the probes of a program found at exec that late */
};

/*
 * Finds the Go processes running now and the binaries named, fills the BPF
 * maps and attaches the runtime uprobes through ph; with ew, registers to
 * do the same for Go programs exec'ed later (docs/recorder.md, "Programs
 * started later").  A binary that cannot be followed gets one warning
 * line; never fails the recording except for lack of memory (NULL, errno
 * set).
 */
struct go_follow *go_follow__start(struct bpf_object *obj, struct priv_helper *ph,
				   struct exec_watch *ew, const struct go_follow_opts *opts);
/*
 * Once the exec tracepoint is attached: the Go processes started since
 * go_follow__start's look at /proc, which neither it nor their exec (not
 * watched yet) showed.  Before the exec watch's thread starts.
 */
void go_follow__rescan(struct go_follow *gf);
/* Some Go binary is followed: the BPF side must look for Go processes. */
bool go_follow__active(const struct go_follow *gf);
void go_follow__free(struct go_follow *gf);

#endif
