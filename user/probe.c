// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "probe.h"

int probe_btf(void)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		return 0;
	fprintf(stderr, "vpath-record: the kernel has no BTF (/sys/kernel/btf/vmlinux): it needs "
			"a kernel built with CONFIG_DEBUG_INFO_BTF=y\n");
	return -ENOENT;
}

bool probe_sock_length_tracepoints(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found;

	if (!btf)
		return false;
	/* The fast path also needs the bpf_rdonly_cast kfunc (mainline has both since 6.2). */
	found = btf__find_by_name_kind(btf, "btf_trace_sock_send_length", BTF_KIND_TYPEDEF) > 0 &&
		btf__find_by_name_kind(btf, "btf_trace_sock_recv_length", BTF_KIND_TYPEDEF) > 0 &&
		btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
	btf__free(btf);
	return found;
}

int probe_tracefs(void)
{
	if (access("/sys/kernel/tracing/events", F_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/events", F_OK) == 0)
		return 0;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) && errno != EBUSY) {
		int err = -errno;

		fprintf(stderr,
			"vpath-record: the syscall tracepoints (the fallback, --logs) need "
			"tracefs, and mounting it on /sys/kernel/tracing failed: %s\n",
			strerror(errno));
		return err;
	}
	return 0;
}
