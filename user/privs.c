// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "privs.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define CAP(c) (1ull << (c))

static uint64_t effective_caps(void)
{
	char line[256];
	uint64_t caps = 0;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %" SCNx64, &caps) == 1)
			break;
	fclose(f);
	return caps;
}

int privs_check(void)
{
	uint64_t caps = effective_caps();
	uint64_t need = CAP(CAP_BPF) | CAP(CAP_PERFMON);

	if ((caps & need) == need || (caps & CAP(CAP_SYS_ADMIN)))
		return 0;
	fprintf(stderr, "vpath-record: not permitted to load BPF programs: run as root (sudo) or "
			"with CAP_BPF and CAP_PERFMON\n");
	return -EPERM;
}

static int last_cap(void)
{
	int last = 40;
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = 40;
		fclose(f);
	}
	return last;
}

/* Keeps only the capabilities in keep (those the process has), for good: no exec gets more. */
static int privs_keep_only(uint64_t keep)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	int top = last_cap();

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	/* The bounding set first: dropping from it needs CAP_SETPCAP, which goes last. */
	for (int cap = 0; cap <= top; cap++)
		if (!(keep & CAP(cap)) && cap != CAP_SETPCAP)
			prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	prctl(PR_CAPBSET_DROP, CAP_SETPCAP, 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(data, 0, sizeof(data));
	keep &= effective_caps();
	data[0].effective = data[0].permitted = (uint32_t)keep;
	data[1].effective = data[1].permitted = (uint32_t)(keep >> 32);
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

int privs_drop(bool keep_dac, bool keep_chown)
{
	return privs_keep_only(CAP(CAP_BPF) | (keep_dac ? CAP(CAP_DAC_OVERRIDE) : 0) |
			       (keep_chown ? CAP(CAP_CHOWN) : 0));
}

int privs_drop_to_prober(void)
{
	return privs_keep_only(CAP(CAP_BPF) | CAP(CAP_PERFMON) | CAP(CAP_SYS_ADMIN) |
			       CAP(CAP_SYS_PTRACE) | CAP(CAP_DAC_READ_SEARCH));
}
