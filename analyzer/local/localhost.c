// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "localhost.h"

void vp_local_host__free(struct vp_local_host *h)
{
	for (uint32_t i = 0; h->paths && i < h->nfiles; i++)
		free(h->paths[i]);
	free(h->paths);
	free(h->hdrs);
	free(h->addrs);
	memset(h, 0, sizeof(*h));
}

void vp_local_host__encode(const struct vp_local_host *h, struct vp_wbuf *b)
{
	vp_wbuf__var(b, h->nfiles);
	for (uint32_t i = 0; i < h->nfiles; i++) {
		vp_wbuf__bytes(b, &h->hdrs[i], sizeof(h->hdrs[i]));
		vp_wbuf__str(b, h->paths[i], 4096);
	}
	vp_wbuf__var(b, h->addr_netns);
	vp_wbuf__var(b, h->naddrs);
	for (size_t i = 0; i < h->naddrs; i++) {
		vp_wbuf__u8(b, h->addrs[i].family);
		vp_wbuf__var(b, h->addrs[i].port);
		vp_wbuf__bytes(b, h->addrs[i].addr, 16);
	}
}

int vp_local_host__decode(struct vp_local_host *h, const uint8_t *p, size_t n)
{
	struct vp_rbuf b = {p, p + n, false};

	memset(h, 0, sizeof(*h));
	h->nfiles = (uint32_t)vp_rbuf__varmax(&b, 1u << 20);
	if (!h->nfiles || b.bad)
		return -EINVAL;
	h->hdrs = calloc(h->nfiles, sizeof(*h->hdrs));
	h->paths = calloc(h->nfiles, sizeof(*h->paths));
	if (!h->hdrs || !h->paths)
		goto oom;
	for (uint32_t i = 0; i < h->nfiles && !b.bad; i++) {
		vp_rbuf__bytes(&b, &h->hdrs[i], sizeof(h->hdrs[i]));
		if (!(h->paths[i] = malloc(4097)))
			goto oom;
		vp_rbuf__str(&b, h->paths[i], 4097);
	}
	h->addr_netns = (uint32_t)vp_rbuf__varmax(&b, UINT32_MAX);
	h->naddrs = vp_rbuf__varmax(&b, 1u << 20);
	if (h->naddrs && !(h->addrs = calloc(h->naddrs, sizeof(*h->addrs))))
		goto oom;
	for (size_t i = 0; i < h->naddrs && !b.bad; i++) {
		h->addrs[i].family = vp_rbuf__u8(&b);
		h->addrs[i].port = (uint16_t)vp_rbuf__varmax(&b, UINT16_MAX);
		vp_rbuf__bytes(&b, h->addrs[i].addr, 16);
	}
	if (!b.bad)
		return 0;
	vp_local_host__free(h);
	return -EINVAL;
oom:
	vp_local_host__free(h);
	return -ENOMEM;
}
