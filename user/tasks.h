/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The threads the recording knows about, with their names: filled from
 * /proc at the start and kept current from the recorded task records, so
 * that every ring segment can begin with a snapshot of them.
 */
#ifndef VPATH_RECORD_TASKS_H
#define VPATH_RECORD_TASKS_H

#include <stdint.h>
#include "vpath/record.h"
#include "procs.h"

struct output;
struct task_table;

/* Which processes the /proc scan keeps (0: no filter). */
struct task_filter {
	struct proc_filter procs;
	uint64_t cgroup_id;
};

struct task_table *task_table__new(void);
void task_table__free(struct task_table *t);
/* Add every thread of /proc that passes f.  -errno. */
int task_table__scan_proc(struct task_table *t, const struct task_filter *f);
/* Follow a recorded VPR_TASK (fork, exec, rename add or rename; exit removes). */
int task_table__update(struct task_table *t, const struct vpr_task *rec);
/* Append one VPR_TASK SNAPSHOT per known thread, stamped ts (0: now).  -errno. */
int task_table__write_snapshot(struct task_table *t, struct output *out, uint64_t ts);
unsigned task_table__count(const struct task_table *t);

#endif
