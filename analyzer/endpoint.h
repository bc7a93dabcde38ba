/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A TCP endpoint (address and port) as the analyzer shows and compares it. */
#ifndef VPATH_ENDPOINT_H
#define VPATH_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vp_endpoint {
	uint8_t family; /* AF_INET, AF_INET6, 0 when unknown */
	uint8_t pad;
	uint16_t port;	  /* host byte order */
	uint8_t addr[16]; /* network byte order; IPv4 in the first 4 bytes */
};

#define VP_ADDRSTRLEN 56

/* "10.0.0.1:80", "[2001:db8::1]:443", or "?" when unknown.  Returns buf. */
char *vp_endpoint__format(const struct vp_endpoint *e, char *buf, size_t len);
/* Address only, no port ("10.0.0.1"). */
char *vp_addr__format(uint8_t family, const uint8_t *addr, char *buf, size_t len);
bool vp_endpoint__equal(const struct vp_endpoint *a, const struct vp_endpoint *b);
bool vp_addr__equal(const struct vp_endpoint *a, const struct vp_endpoint *b);
bool vp_endpoint__is_loopback(const struct vp_endpoint *e);
/*
 * Parse "HOST:PORT" or "[V6]:PORT" (numeric only) into e.  Port 0 or a
 * missing port means "any port".  -EINVAL on bad input.
 */
int vp_endpoint__parse(const char *s, struct vp_endpoint *e);

#endif
