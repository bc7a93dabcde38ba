// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "procs.h"
#include "parse.h"

static bool pid_listed(const struct proc_filter *f, uint32_t pid)
{
	if (!f->npids)
		return true;
	for (unsigned i = 0; i < f->npids; i++)
		if (f->pids[i] == pid)
			return true;
	return false;
}

bool proc_filter__passes(const struct proc_filter *f, uint32_t pid)
{
	char path[64];
	struct stat st;

	if (!pid_listed(f, pid))
		return false;
	if (!f->netns)
		return true;
	snprintf(path, sizeof(path), "/proc/%u/ns/net", pid);
	return stat(path, &st) == 0 && st.st_ino == f->netns;
}

int proc_filter__each(const struct proc_filter *f, int (*fn)(uint32_t pid, void *ctx), void *ctx)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	int ret = 0;

	if (!proc)
		return -errno;
	while (!ret && (de = readdir(proc))) {
		uint64_t pid;

		if (parse_u64(de->d_name, UINT32_MAX, &pid) || pid == 0)
			continue;
		if (proc_filter__passes(f, (uint32_t)pid))
			ret = fn((uint32_t)pid, ctx);
	}
	closedir(proc);
	return ret;
}
