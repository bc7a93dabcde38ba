/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Who is recording: host identity for the file header, and the host's own addresses. */
#ifndef VPATH_RECORD_HOST_H
#define VPATH_RECORD_HOST_H

#include <stdint.h>
#include "vpath/record.h"

struct output;

/* Fill hostname (label, or uname -n), machine-id, boot-id, kernel and netns. */
void host_identity(struct vpr_file_header *hdr, const char *label, uint32_t netns);
/* Append one VPR_ADDR per address of the current network namespace.  -errno. */
/* VPR_ADDR records stamped ts (0: now). */
int host_write_addresses(struct output *out, uint32_t netns, uint64_t ts);
/* Inode of the current task's network namespace, 0 if unknown. */
uint32_t current_netns(void);

#endif
