// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <search.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tasks.h"
#include "clock.h"
#include "output.h"
#include "parse.h"
#include "procs.h"

struct task_entry {
	uint32_t tid, pid;
	char comm[VPR_COMM_LEN];
};

struct task_table {
	void *root; /* tsearch tree of struct task_entry */
	unsigned count;
};

static int by_tid(const void *a, const void *b)
{
	const struct task_entry *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct task_table *task_table__new(void)
{
	return calloc(1, sizeof(struct task_table));
}

void task_table__free(struct task_table *t)
{
	if (!t)
		return;
	tdestroy(t->root, free);
	free(t);
}

unsigned task_table__count(const struct task_table *t)
{
	return t->count;
}

static int table_set(struct task_table *t, uint32_t tid, uint32_t pid, const char *comm)
{
	struct task_entry *e = malloc(sizeof(*e)), **slot;

	if (!e)
		return -ENOMEM;
	e->tid = tid;
	slot = tsearch(e, &t->root, by_tid);
	if (!slot) {
		free(e);
		return -ENOMEM;
	}
	if (*slot != e)
		free(e);
	else
		t->count++;
	e = *slot;
	e->pid = pid;
	memset(e->comm, 0, sizeof(e->comm));
	memcpy(e->comm, comm, strnlen(comm, sizeof(e->comm) - 1));
	return 0;
}

static void table_remove(struct task_table *t, uint32_t tid)
{
	struct task_entry key = {.tid = tid}, **slot = tfind(&key, &t->root, by_tid);
	struct task_entry *e;

	if (!slot)
		return;
	e = *slot;
	tdelete(&key, &t->root, by_tid);
	free(e);
	t->count--;
}

int task_table__update(struct task_table *t, const struct vpr_task *rec)
{
	char comm[VPR_COMM_LEN + 1] = {};

	memcpy(comm, rec->comm, VPR_COMM_LEN);
	if (rec->kind == VPR_TASK_EXIT) {
		table_remove(t, rec->h.tid);
		return 0;
	}
	return table_set(t, rec->h.tid, rec->pid, comm);
}

/* Where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup, or .../unified on hybrid systems). */
static void cgroup2_mount(char *buf, size_t len)
{
	char line[4096], mnt[4096], type[64];
	FILE *f = fopen("/proc/self/mountinfo", "re");

	snprintf(buf, len, "/sys/fs/cgroup");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - ");

		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - TYPE SOURCE OPTIONS" */
		if (sep && sscanf(sep, " - %63s", type) == 1 && !strcmp(type, "cgroup2") &&
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1) {
			snprintf(buf, len, "%s", mnt);
			break;
		}
	}
	fclose(f);
}

/* Inode of the cgroup v2 directory the process is in, 0 if unknown. */
static uint64_t process_cgroup_id(const char *root, uint32_t pid)
{
	char path[8192], line[4096];
	uint64_t id = 0;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s%s", root, line + 3);
		if (stat(path, &st) == 0)
			id = st.st_ino;
	}
	fclose(f);
	return id;
}

static int scan_threads(struct task_table *t, uint32_t pid)
{
	char path[96], comm[VPR_COMM_LEN + 2];
	struct dirent *de;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	dir = opendir(path);
	if (!dir)
		return 0; /* the process exited meanwhile */
	while (!err && (de = readdir(dir))) {
		uint64_t tid;
		FILE *f;

		if (parse_u64(de->d_name, UINT32_MAX, &tid))
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, (uint32_t)tid);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			err = table_set(t, (uint32_t)tid, pid, comm);
		}
		fclose(f);
	}
	closedir(dir);
	return err;
}

struct scan_ctx {
	struct task_table *t;
	uint64_t cgroup_id;
	char cgroot[4096];
};

static int scan_process(uint32_t pid, void *arg)
{
	struct scan_ctx *c = arg;

	if (c->cgroup_id && process_cgroup_id(c->cgroot, pid) != c->cgroup_id)
		return 0;
	return scan_threads(c->t, pid);
}

int task_table__scan_proc(struct task_table *t, const struct task_filter *f)
{
	struct scan_ctx c = {.t = t, .cgroup_id = f->cgroup_id};

	if (f->cgroup_id)
		cgroup2_mount(c.cgroot, sizeof(c.cgroot));
	return proc_filter__each(&f->procs, scan_process, &c);
}

struct snapshot_ctx {
	struct output *out;
	uint64_t ts;
	int err;
};

static void write_one(const void *node, VISIT which, void *arg)
{
	const struct task_entry *e = *(const struct task_entry *const *)node;
	struct snapshot_ctx *c = arg;
	struct vpr_task rec;

	if ((which != postorder && which != leaf) || c->err)
		return;
	memset(&rec, 0, sizeof(rec));
	rec.h.type = VPR_TASK;
	rec.h.size = sizeof(rec);
	rec.h.tid = e->tid;
	rec.h.ts_ns = c->ts;
	rec.pid = e->pid;
	rec.kind = VPR_TASK_SNAPSHOT;
	memcpy(rec.comm, e->comm, sizeof(rec.comm));
	c->err = output__append(c->out, &rec);
}

int task_table__write_snapshot(struct task_table *t, struct output *out, uint64_t ts)
{
	struct snapshot_ctx c = {.out = out, .ts = ts ? ts : mono_ns()};

	twalk_r(t->root, write_one, &c);
	return c.err;
}
