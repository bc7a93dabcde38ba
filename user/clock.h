/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The recorder's two clocks.  Every record is stamped with CLOCK_MONOTONIC,
 * the clock bpf_ktime_get_ns() reads in the kernel, so user space and BPF
 * stamps compare directly; CLOCK_REALTIME is read only beside it, into file
 * headers and clock ticks, to place the recording in wall time.  A module
 * of its own, at the bottom, so that host.c and output.c both use it and
 * neither has to include the other for it.
 */
#ifndef VPATH_RECORD_CLOCK_H
#define VPATH_RECORD_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC / CLOCK_REALTIME in nanoseconds. */
uint64_t mono_ns(void);
uint64_t real_ns(void);

#endif
