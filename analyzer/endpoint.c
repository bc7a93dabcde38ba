// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "endpoint.h"

char *vp_addr__format(uint8_t family, const uint8_t *addr, char *buf, size_t len)
{
	if ((family != AF_INET && family != AF_INET6) ||
	    !inet_ntop(family, addr, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

char *vp_endpoint__format(const struct vp_endpoint *e, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (e->family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", vp_addr__format(e->family, e->addr, a, sizeof(a)),
			 e->port);
	else if (e->family == AF_INET)
		snprintf(buf, len, "%s:%u", vp_addr__format(e->family, e->addr, a, sizeof(a)),
			 e->port);
	else
		snprintf(buf, len, "?");
	return buf;
}

static size_t addr_len(uint8_t family)
{
	return family == AF_INET ? 4 : 16;
}

bool vp_addr__equal(const struct vp_endpoint *a, const struct vp_endpoint *b)
{
	return a->family == b->family && !memcmp(a->addr, b->addr, addr_len(a->family));
}

bool vp_endpoint__equal(const struct vp_endpoint *a, const struct vp_endpoint *b)
{
	return a->port == b->port && vp_addr__equal(a, b);
}

bool vp_endpoint__is_loopback(const struct vp_endpoint *e)
{
	static const uint8_t v6_loop[16] = {[15] = 1};

	if (e->family == AF_INET)
		return e->addr[0] == 127;
	return e->family == AF_INET6 && !memcmp(e->addr, v6_loop, 16);
}

int vp_endpoint__parse(const char *s, struct vp_endpoint *e)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *h = s;
	size_t hl;
	unsigned long port = 0;
	char *end;

	memset(e, 0, sizeof(*e));
	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close)
			return -EINVAL;
		h = s + 1;
		hl = (size_t)(close - h);
		colon = close[1] == ':' ? close + 1 : NULL;
		if (close[1] && !colon)
			return -EINVAL;
	} else {
		colon = strrchr(s, ':');
		hl = colon ? (size_t)(colon - s) : strlen(s);
	}
	if (hl == 0 || hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = 0;
	if (colon) {
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end || port > 65535)
			return -EINVAL;
	}
	e->port = (uint16_t)port;
	if (inet_pton(AF_INET, host, e->addr) == 1)
		e->family = AF_INET;
	else if (inet_pton(AF_INET6, host, e->addr) == 1)
		e->family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}
