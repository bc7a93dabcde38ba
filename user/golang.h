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

enum go_goid_source { GO_GOID_DWARF, GO_GOID_TABLE };

struct go_binary {
	char version[32]; /* runtime.buildVersion, "" when unreadable */
	struct vpath_go_offsets off;
	enum go_goid_source goid_from;
};

/*
 * What path is: 1 a Go binary whose goroutines can be followed (*info
 * filled), 0 not a Go binary, -1 a Go binary that cannot be followed (*why
 * says why: stripped, unknown version, ...) or an unreadable file.
 */
int go_binary__inspect(const char *path, struct go_binary *info, const char **why);

/* The goid offset in runtime.g for a Go version ("go1.19.8"); 0 when unknown. */
uint32_t go_goid_offset_for_version(const char *version);

struct go_follow;

/*
 * Finds the Go processes running now (among pids when npids > 0, in network
 * namespace netns when it is not 0) and the binaries named, fills the BPF
 * maps and attaches the runtime uprobes.  A
 * binary that cannot be followed gets one warning line; never fails the
 * recording except for lack of memory (NULL, errno set).
 */
struct go_follow *go_follow__start(struct bpf_object *obj, const char *const *binaries,
				   unsigned nbinaries, const uint32_t *pids, unsigned npids,
				   uint32_t netns, int verbose);
/* Some Go binary is followed: the BPF side must look for Go processes. */
bool go_follow__active(const struct go_follow *gf);
/* Detaches the uprobes (before the last drain). */
void go_follow__detach(struct go_follow *gf);
void go_follow__free(struct go_follow *gf);

#endif
