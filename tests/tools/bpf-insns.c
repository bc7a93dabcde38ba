// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpf-insns: how much of the verifier's budget a running process's eBPF
 * programs use, one line each, for benchmarks.
 *
 *   bpf-insns PID
 *   prog=sock_sendmsg verified_insns=2143 xlated_bytes=8816 jited_bytes=4901
 *   total programs=27 verified_insns=31202
 *
 * The programs are those PID holds open (prog_id in /proc/PID/fdinfo, of
 * a program's fd or of a link's, each program counted once), so other
 * tracers on the machine do not count.  verified_insns is the number
 * of instructions the verifier walked (its limit is 1M per program): it
 * grows with every branch the program's paths add, which is what a new
 * record kind costs at load time.  bpftool 7.1 does not show it.  Needs
 * CAP_SYS_ADMIN (root), as reading another process's programs does.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int prog_info(uint32_t id, struct bpf_prog_info *info)
{
	union bpf_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	int fd = (int)sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
	if (fd < 0)
		return -errno;
	memset(info, 0, sizeof(*info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = (uint64_t)(uintptr_t)info;
	long err = sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
	int saved = errno;
	close(fd);
	return err < 0 ? -saved : 0;
}

/* The program id an fd of PID refers to, or 0 when it is no program. */
static uint32_t fd_prog_id(const char *pid, const char *fd)
{
	char path[512], line[256];
	snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	uint32_t id = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "prog_id: %u", &id) == 1)
			break;
	fclose(f);
	return id;
}

int main(int argc, char **argv)
{
	if (argc != 2 || strspn(argv[1], "0123456789") != strlen(argv[1])) {
		fprintf(stderr, "usage: bpf-insns PID\n");
		return 2;
	}
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%s/fdinfo", argv[1]);
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "bpf-insns: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	enum { MAX_PROGS = 1024 };
	uint32_t seen[MAX_PROGS];
	unsigned programs = 0;
	uint64_t total = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		uint32_t id = fd_prog_id(argv[1], e->d_name);
		struct bpf_prog_info info;
		int known = !id;
		for (unsigned i = 0; i < programs && !known; i++)
			known = seen[i] == id;
		if (known || programs == MAX_PROGS)
			continue;
		int err = prog_info(id, &info);
		if (err) {
			fprintf(stderr, "bpf-insns: program %u: %s\n", id, strerror(-err));
			closedir(d);
			return 1;
		}
		printf("prog=%s verified_insns=%u xlated_bytes=%u jited_bytes=%u\n", info.name,
		       info.verified_insns, info.xlated_prog_len, info.jited_prog_len);
		seen[programs++] = id;
		total += info.verified_insns;
	}
	closedir(d);
	printf("total programs=%u verified_insns=%llu\n", programs, (unsigned long long)total);
	return programs ? 0 : 1;
}
