// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "owners.h"

int vp_owners__init(struct vp_owners *o, const struct vp_host *const *hosts, size_t nhosts)
{
	memset(o, 0, sizeof(*o));
	o->hosts = malloc((nhosts ? nhosts : 1) * sizeof(*o->hosts));
	if (!o->hosts)
		return -ENOMEM;
	memcpy(o->hosts, hosts, nhosts * sizeof(*hosts));
	o->nhosts = nhosts;
	o->listed = true;
	for (size_t i = 0; i < nhosts; i++)
		if (!hosts[i]->naddrs)
			o->listed = false;
	return 0;
}

static uint64_t addr_key(const struct vp_endpoint *e)
{
	uint64_t a, b;

	memcpy(&a, e->addr, 8);
	memcpy(&b, e->addr + 8, 8);
	return hash64(hash64(a ^ e->family) ^ b);
}

static const struct vp_owner_addr *learned_of(const struct vp_owners *o,
					      const struct vp_endpoint *e)
{
	for (const struct vp_owner_addr *l = u64map__get(&o->learned, addr_key(e)); l; l = l->next)
		if (vp_addr__equal(&l->addr, e))
			return l;
	return NULL;
}

int vp_owners__of(const struct vp_owners *o, const struct vp_endpoint *addr)
{
	const struct vp_owner_addr *l;

	for (size_t i = 0; i < o->nhosts; i++) {
		const struct vp_host *h = o->hosts[i];

		for (size_t k = 0; k < h->naddrs; k++)
			if (vp_addr__equal(&h->addrs[k], addr))
				return (int)i;
	}
	l = o->nlearned ? learned_of(o, addr) : NULL;
	return l ? l->host : -1;
}

static bool unspecified(const struct vp_endpoint *e)
{
	static const uint8_t zero[16];

	return !memcmp(e->addr, zero, e->family == AF_INET ? 4 : 16);
}

void vp_owners__see_conn(struct vp_owners *o, int host, const struct vpr_conn *c)
{
	const struct vp_host *h = o->hosts[host];
	struct vp_owner_addr *l;
	struct vp_endpoint e = {.family = c->family};

	if (h->netns) /* one namespace, whose addresses its recorder listed */
		return;
	if (c->netns && c->netns != h->addr_netns)
		o->spanning = true;
	if (c->family != AF_INET && c->family != AF_INET6)
		return;
	memcpy(e.addr, c->saddr, 16);
	if (unspecified(&e) || vp_endpoint__is_loopback(&e) || vp_owners__of(o, &e) >= 0 ||
	    o->nlearned >= VP_OWNERS_LEARN_MAX || !(l = malloc(sizeof(*l))))
		return;
	l->addr = e;
	l->host = host;
	l->next = u64map__get(&o->learned, addr_key(&e));
	if (u64map__put(&o->learned, addr_key(&e), l)) {
		free(l); /* out of memory: the address stays unknown, its peers wait */
		return;
	}
	o->nlearned++;
}

enum vp_peer_where vp_owners__where(const struct vp_owners *o, int owner,
				    const struct vp_endpoint *remote)
{
	if (owner >= 0 || vp_endpoint__is_loopback(remote))
		return VP_PEER_RECORDED;
	return o->listed && !o->spanning ? VP_PEER_EXTERNAL : VP_PEER_UNKNOWN;
}

void vp_owners__free(struct vp_owners *o)
{
	size_t pos = 0;
	void *v;

	while (u64map__next(&o->learned, &pos, NULL, &v)) {
		struct vp_owner_addr *l = v;

		while (l) {
			struct vp_owner_addr *next = l->next;

			free(l);
			l = next;
		}
	}
	u64map__free(&o->learned);
	free(o->hosts);
	memset(o, 0, sizeof(*o));
}
