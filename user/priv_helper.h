/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe helper: a small process forked before the recorder drops its
 * privileges, that keeps the few it needs to attach uprobes to programs
 * started later (docs/recorder.md, "Programs started later").  The
 * recorder asks; the helper opens executables and attaches, nothing else:
 * it never parses a file, the unprivileged recorder does.
 */
#ifndef VPATH_RECORD_PRIV_HELPER_H
#define VPATH_RECORD_PRIV_HELPER_H

#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "../bpf/vpath.h"

struct priv_helper;

/*
 * Forks the helper, which may attach obj's programs, at priority nice (best
 * effort).  NULL and errno on failure.
 */
struct priv_helper *priv_helper__start(struct bpf_object *obj, int nice);
/*
 * A read-only descriptor of the executable process pid runs, when it is
 * still the file id names (else -ESTALE: the process exec'ed again or is
 * gone), and its path in path ("" when unknown); -errno.
 */
int priv_helper__open_exe(struct priv_helper *ph, uint32_t pid, const struct vpath_exe_id *id,
			  char *path, size_t pathlen);
/* Attaches the program named prog to the file fd at byte offset off; 0 or -errno. */
int priv_helper__attach_uprobe(struct priv_helper *ph, const char *prog, int fd, uint64_t off);
/* Ends the helper: when this returns, every uprobe it attached is gone.  NULL-safe. */
void priv_helper__stop(struct priv_helper *ph);
void priv_helper__free(struct priv_helper *ph);

#endif
