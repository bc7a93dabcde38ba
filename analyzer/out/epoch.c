// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unix time of the common timeline, for outputs that give wall-clock times. */
#include <stdlib.h>

#include "output.h"

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

int64_t vp_out_unix_epoch(const struct vp_analysis *a)
{
	size_t n = vp_analysis__nhosts(a), k = 0;
	int64_t *v = calloc(n + 1, sizeof(*v)), epoch = 0;

	if (!v)
		return 0;
	for (size_t h = 0; h < n; h++) {
		const struct vp_host *ho = vp_analysis__host(a, h);

		if (ho->records || n == 1)
			v[k++] = ho->wall_offset_ns - vp_analysis__offset(a, h);
	}
	if (k) {
		qsort(v, k, sizeof(*v), cmp_i64);
		epoch = v[k / 2];
	}
	free(v);
	return epoch;
}
