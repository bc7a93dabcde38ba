/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the recorder may do: check at the start, give up what it no longer needs. */
#ifndef VPATH_RECORD_PRIVS_H
#define VPATH_RECORD_PRIVS_H

#include <stdbool.h>

/* 0 when the process can load tracing BPF programs; else prints why and -EPERM. */
int privs_check(void);
/*
 * After attaching: set no_new_privs and keep only CAP_BPF (reading the
 * drop counters needs it on kernels before 6.5), plus CAP_DAC_OVERRIDE when
 * keep_dac (a ring must create and remove files later) and CAP_CHOWN when
 * keep_chown (a ring's later files go to the --group).  -errno.
 */
int privs_drop(bool keep_dac, bool keep_chown);
/*
 * For the probe helper (user/priv_helper.c): keep what opening another
 * user's executable through /proc/PID/exe (CAP_SYS_PTRACE, and
 * CAP_DAC_READ_SEARCH for one that is not readable) and attaching uprobes
 * (CAP_PERFMON, CAP_BPF) need, and nothing else.  -errno.
 */
int privs_drop_to_prober(void);

#endif
