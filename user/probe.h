/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the running kernel offers, found by probing, never by version numbers. */
#ifndef VPATH_RECORD_PROBE_H
#define VPATH_RECORD_PROBE_H

#include <stdbool.h>

/* 0 when /sys/kernel/btf/vmlinux is readable, else prints why and -ENOENT. */
int probe_btf(void);
/* The fast path can load: sock_{send,recv}_length tracepoints and bpf_rdonly_cast (6.2+). */
bool probe_sock_length_tracepoints(void);
/* Classic tracepoints need tracefs; mount it at /sys/kernel/tracing if absent.  -errno. */
int probe_tracefs(void);

#endif
