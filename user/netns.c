// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "netns.h"
#include "parse.h"

/* A /proc/PID/ns/net whose inode is inode, into path. */
static int find_process_in(uint32_t inode, char *path, size_t len)
{
	struct dirent *de;
	DIR *proc = opendir("/proc");
	int err = -ENOENT;

	if (!proc)
		return -errno;
	while ((de = readdir(proc))) {
		struct stat st;
		uint64_t pid;

		if (parse_u64(de->d_name, INT32_MAX, &pid))
			continue;
		snprintf(path, len, "/proc/%s/ns/net", de->d_name);
		if (stat(path, &st) == 0 && st.st_ino == inode) {
			err = 0;
			break;
		}
	}
	closedir(proc);
	return err;
}

int netns_enter(const char *spec, uint32_t *inode)
{
	char path[PATH_MAX];
	struct stat st;
	uint64_t ino;
	int fd, err;

	if (parse_u64(spec, UINT32_MAX, &ino) == 0) {
		err = find_process_in((uint32_t)ino, path, sizeof(path));
		if (err) {
			fprintf(stderr, "vpath-record: --netns %s: no process lives in that "
					"namespace (give a path or a name instead)\n", spec);
			return err;
		}
	} else if (strchr(spec, '/')) {
		snprintf(path, sizeof(path), "%s", spec);
	} else {
		snprintf(path, sizeof(path), "/run/netns/%s", spec);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		fprintf(stderr, "vpath-record: --netns %s: cannot open %s: %s\n", spec, path,
			strerror(errno));
		return err;
	}
	if (fstat(fd, &st) || ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
		fprintf(stderr, "vpath-record: --netns %s: %s is not a network namespace\n", spec,
			path);
		close(fd);
		return -EINVAL;
	}
	if (setns(fd, CLONE_NEWNET)) {
		err = -errno;
		fprintf(stderr, "vpath-record: --netns %s: cannot enter it: %s\n", spec,
			strerror(errno));
		close(fd);
		return err;
	}
	close(fd);
	*inode = (uint32_t)st.st_ino;
	return 0;
}
