/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The HOST block of a local file (localfile.h), its first: which recordings
 * the file was made from (their headers and paths) and the host's own
 * addresses as the read stage gathered them.
 */
#ifndef VPATH_LOCALHOST_H
#define VPATH_LOCALHOST_H

#include <stddef.h>
#include <stdint.h>

#include "endpoint.h"
#include "varbuf.h"
#include "vpath/record.h"

/* What a HOST block says. */
struct vp_local_host {
	uint32_t nfiles;
	struct vpr_file_header *hdrs; /* the recordings' headers, in segment order */
	char **paths;		      /* and their paths as `local` was given them */
	struct vp_endpoint *addrs; /* the host's own addresses, as the read stage gathered them */
	size_t naddrs;
	uint32_t addr_netns;
};

void vp_local_host__free(struct vp_local_host *h);
void vp_local_host__encode(const struct vp_local_host *h, struct vp_wbuf *b);
int vp_local_host__decode(struct vp_local_host *h, const uint8_t *p, size_t n);

#endif
