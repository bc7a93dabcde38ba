// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "host.h"

bool vp_host__lost_between(const struct vp_host *h, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = h->nlosses;

	/* The first window that ends at or after from (add_loss keeps them sorted). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->losses[mid].to_ns < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < h->nlosses && h->losses[lo].from_ns <= to;
}
