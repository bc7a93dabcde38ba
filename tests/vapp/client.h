/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The vApp client: concurrent sessions on persistent connections to the
 * front tier; writes the true path of every request as JSON lines. */
#ifndef VAPP_CLIENT_H
#define VAPP_CLIENT_H

#include <stdint.h>
#include "config.h"

struct vapp_client_opts {
	const char *out_path; /* truth file; "-" for stdout */
	int sessions;
	long requests; /* in total; 0: run for duration_s */
	double duration_s;
	uint64_t seed;
	int think_us;	     /* random pause up to this between requests */
	int reconnect_every; /* new connection after this many requests; 0: never */
};

/* Prints a one-line JSON summary on stdout; returns 0 when every request
 * got a well-formed reply, -EIO if some failed, -Exxx on setup errors. */
int vapp_client__run(const struct vapp_topology *topo, const struct vapp_client_opts *opts);

#endif
