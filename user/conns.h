/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* TCP connections already open when a recording or a segment starts (sock_diag). */
#ifndef VPATH_RECORD_CONNS_H
#define VPATH_RECORD_CONNS_H

#include <stdint.h>

struct output;

/*
 * Append one VPR_CONN (origin PREEXISTING) per open TCP connection of the
 * current network namespace (inode netns) whose ports pass the filter
 * (nports = 0: all), stamped ts (0: now).  -errno.
 */
int conns_write_preexisting(struct output *out, uint32_t netns, const uint16_t *ports,
			    unsigned nports, uint64_t ts);

#endif
