/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the BPF side and the recorder agree on besides the records
 * (include/vpath/record.h): limits of the filters set in .rodata.
 */
#ifndef VPATH_BPF_H
#define VPATH_BPF_H

#define VPATH_MAX_PIDS 16
#define VPATH_MAX_PORTS 16

/* Default ring buffer size; the recorder may change it before load. */
#define VPATH_RINGBUF_DEFAULT (16u << 20)

#endif /* VPATH_BPF_H */
