// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/nsfs.h>

#include "netns.h"
#include "parse.h"

/*
 * A file naming the namespace with this inode, into path: a name in
 * dir_path (/run/netns), or with pids set, a /proc/PID/ns/net.
 */
static int find_in(const char *dir_path, bool pids, uint32_t inode, char *path, size_t len)
{
	struct dirent *de;
	DIR *dir = opendir(dir_path);
	int err = -ENOENT;

	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		struct stat st;
		uint64_t pid;

		if (de->d_name[0] == '.' || (pids && parse_u64(de->d_name, INT32_MAX, &pid)))
			continue;
		snprintf(path, len, pids ? "%s/%s/ns/net" : "%s/%s", dir_path, de->d_name);
		if (stat(path, &st) == 0 && st.st_ino == inode) {
			err = 0;
			break;
		}
	}
	closedir(dir);
	return err;
}

int netns_enter(const char *spec, uint32_t *inode)
{
	char path[PATH_MAX];
	struct stat st;
	uint64_t ino;
	int fd, err;

	if (parse_u64(spec, UINT32_MAX, &ino) == 0) {
		err = find_in("/run/netns", false, (uint32_t)ino, path, sizeof(path));
		if (err)
			err = find_in("/proc", true, (uint32_t)ino, path, sizeof(path));
		if (err) {
			fprintf(stderr,
				"vpath-record: --netns %s: neither a name in /run/netns nor a "
				"process is in that namespace (give a path instead)\n",
				spec);
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
