/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 2b/4b from outside: which client end pairs with which server end,
 * as an engine outside vpath decided it (`paths --pairs FILE`; ClickHouse,
 * tools/clickhouse/, docs/clickhouse.md) from the hosts' local files.  The
 * matcher then asks this table instead of comparing the ends itself
 * (matcher.h); it still gives up an end whose peer comes later than the
 * join window, as in any run.
 *
 * A pairs file is text: the line "# vpath pairs 1", then one call a line,
 * tab-separated:
 *
 *   CLIENT_HOST  CLIENT_COOKIE  SERVER_HOST  SERVER_COOKIE  REQ_SEQ_START
 *
 * where a host is "BOOT_ID/NETNS" (the recording's boot id and namespace
 * filter, as the read stage groups files into hosts), a cookie a socket's,
 * and REQ_SEQ_START the stream position where the call's request began
 * (both ends agree on it).  An end is named by host, socket and request
 * start; pairs of hosts not being analyzed are skipped.
 */
#ifndef VPATH_PAIRS_H
#define VPATH_PAIRS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host.h"
#include "vpath/record.h"
#include "xchg.h"

#define VP_PAIRS_MAGIC "# vpath pairs 1"

struct vp_pair_end {
	uint64_t cookie, peer_cookie;
	uint32_t seq; /* req.seq_start */
	int32_t host, peer_host;
	uint8_t side;
};

struct vp_pairs {
	struct vp_pair_end *ends; /* two per call, sorted by (host, side, cookie, seq) */
	size_t nends;
	uint64_t calls, foreign; /* calls read; of which naming a host not analyzed */
};

/*
 * A host's name in a pairs file and in what `vpath-analyze calls` prints:
 * "BOOT_ID/NETNS", a byte of the boot id outside [0-9A-Za-z-] as '_'.
 */
#define VP_HOST_KEY_LEN (VPR_ID_LEN + 12)
void vp_pairs__host_key(char *buf, size_t len, const char *boot_id, uint32_t netns);

/* Read path for these hosts; 0, or -errno with a one-line reason (file:line) in err. */
int vp_pairs__load(struct vp_pairs *p, const char *path, const struct vp_host *const *hosts,
		   size_t nhosts, char *err, size_t errlen);
/* Whether the file pairs x with y. */
bool vp_pairs__paired(const struct vp_pairs *p, const struct vp_xchg *x, const struct vp_xchg *y);
void vp_pairs__free(struct vp_pairs *p);

#endif
