// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>

#include "h2state.h"
#include "proto/hpack.h"

void vp_h2__free(struct vp_h2 *h)
{
	size_t pos = 0;
	void *v;

	if (!h)
		return;
	while (u64map__next(&h->open, &pos, NULL, &v))
		free(v);
	u64map__free(&h->open);
	for (int d = 0; d < 2; d++) {
		vp_hpack__free(h->hpack[d]);
		free(h->fields[d]);
	}
	free(h);
}
