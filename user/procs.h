/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The processes of /proc that the recorder's --pid and --netns let in: the
 * one walk behind the task table, the Go follower and the libssl follower,
 * so that the three look at the same processes.
 */
#ifndef VPATH_RECORD_PROCS_H
#define VPATH_RECORD_PROCS_H

#include <stdbool.h>
#include <stdint.h>

struct proc_filter {
	const uint32_t *pids; /* npids = 0: every process */
	unsigned npids;
	uint32_t netns; /* a network namespace's inode; 0: every namespace */
};

/* A process that left, or never showed its namespace, is not in one. */
bool proc_filter__passes(const struct proc_filter *f, uint32_t pid);
/*
 * fn for each process of /proc that passes f, until fn returns non-zero,
 * which is returned.  0, or -errno when /proc cannot be read.
 */
int proc_filter__each(const struct proc_filter *f, int (*fn)(uint32_t pid, void *ctx), void *ctx);

#endif
