// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* RESP's small readers (resp.h), beneath the Redis witness and its queue messages. */
#include <string.h>

#include "resp.h"

long vp_resp_line(const struct vp_bytes *b, size_t at)
{
	const uint8_t *nl;

	if (at >= b->len)
		return -1;
	nl = memchr(b->p + at, '\n', b->len - at);
	if (!nl || nl == b->p + at || nl[-1] != '\r')
		return -1;
	return (long)(nl - (b->p + at)) - 1;
}

bool vp_resp_number(const uint8_t *p, long n, long long *v)
{
	bool neg = n > 0 && p[0] == '-';
	long i = neg;

	if (n - i < 1 || n - i > 18)
		return false;
	*v = 0;
	for (; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		*v = *v * 10 + (p[i] - '0');
	}
	if (neg)
		*v = -*v;
	return true;
}
