// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "streams.h"

static uint64_t mix(uint64_t h, const struct vp_endpoint *e)
{
	uint64_t a, b;

	memcpy(&a, e->addr, 8);
	memcpy(&b, e->addr + 8, 8);
	h ^= a + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= b + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	h ^= ((uint64_t)e->family << 16 | e->port) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t key_of(const struct vp_endpoint *local, const struct vp_endpoint *remote)
{
	return mix(mix(0, local), remote);
}

static void endpoint_of(struct vp_endpoint *e, uint8_t family, uint16_t port, const uint8_t *addr)
{
	memset(e, 0, sizeof(*e));
	e->family = family;
	e->port = port;
	memcpy(e->addr, addr, 16);
}

void vp_streams__add(struct vp_streams *m, int host, const struct vpr_conn *c)
{
	struct vp_endpoint local, remote;
	struct vp_stream_end *head, *e;
	uint64_t key;

	if (!c->family || !c->sport || !c->dport)
		return;
	endpoint_of(&local, c->family, c->sport, c->saddr);
	endpoint_of(&remote, c->family, c->dport, c->daddr);
	key = key_of(&local, &remote);
	head = u64map__get(&m->by_tuple, key);
	for (e = head; e; e = e->next)
		if (e->host == host && e->cookie == c->cookie)
			return;
	if (!(e = malloc(sizeof(*e))))
		return; /* only a hint: messages are then cut by the receiver */
	e->local = local;
	e->remote = remote;
	e->host = host;
	e->cookie = c->cookie;
	e->next = head;
	if (u64map__put(&m->by_tuple, key, e))
		free(e);
}

struct vp_stream_end *vp_streams__find(struct vp_streams *m, const struct vp_endpoint *local,
				       const struct vp_endpoint *remote)
{
	return u64map__get(&m->by_tuple, key_of(local, remote));
}

void vp_streams__forget(struct vp_streams *m, int host, uint64_t cookie,
			const struct vp_endpoint *local, const struct vp_endpoint *remote)
{
	uint64_t key = key_of(local, remote);
	struct vp_stream_end *head = u64map__get(&m->by_tuple, key), **pp, *e;

	for (pp = &head; (e = *pp); pp = &e->next) {
		if (e->host == host && e->cookie == cookie) {
			*pp = e->next;
			free(e);
			break;
		}
	}
	if (head)
		u64map__put(&m->by_tuple, key, head);
	else
		u64map__del(&m->by_tuple, key);
}

void vp_streams__free(struct vp_streams *m)
{
	size_t pos = 0;
	void *v;

	while (u64map__next(&m->by_tuple, &pos, NULL, &v)) {
		struct vp_stream_end *e = v;

		while (e) {
			struct vp_stream_end *next = e->next;

			free(e);
			e = next;
		}
	}
	u64map__free(&m->by_tuple);
}
