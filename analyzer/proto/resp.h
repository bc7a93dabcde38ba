/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * RESP's small readers (resp.c), shared by the Redis witness (redis.c) and
 * its queue messages (redisq.c).  Every reader stays inside the captured
 * bytes: what does not end there is not read.
 */
#ifndef VPATH_PROTO_RESP_H
#define VPATH_PROTO_RESP_H

#include "proto.h"

/* The line at [at, len) up to CRLF: its length without the CRLF, or -1 when it does not end. */
long vp_resp_line(const struct vp_bytes *b, size_t at);
/* A decimal (optionally negative) filling the n bytes at p; false when not one. */
bool vp_resp_number(const uint8_t *p, long n, long long *v);

#endif
