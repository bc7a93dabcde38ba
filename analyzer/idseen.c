// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stage 5b: the ids of a process's latest requests (idseen.h). */
#include "idseen.h"

#include <errno.h>
#include <stdlib.h>

#include "fnv.h"

/* FNV-1a over the kind and the value: never 0 (u64map's keys may be anything). */
static uint64_t id_hash(const struct vp_propid *id)
{
	return vp_fnv1a(vp_fnv1a(VP_FNV_BASIS, &id->kind, 1), id->id, id->len);
}

static uintptr_t count_of(const struct vp_idseen *s, uint64_t h)
{
	return (uintptr_t)u64map__get(&s->count, h);
}

static void forget_oldest(struct vp_idseen *s)
{
	uint64_t h = s->ring[s->head];
	uintptr_t c = count_of(s, h);

	if (c > 1)
		u64map__put(&s->count, h,
			    (void *)(c - 1)); /* failing, it keeps a higher count: safe */
	else
		u64map__del(&s->count, h);
	s->head = (s->head + 1) % VP_IDSEEN_MAX;
	s->n--;
}

int vp_idseen__add(struct vp_idseen *s, const struct vp_propid *id)
{
	return vp_idseen__add_hash(s, id_hash(id));
}

int vp_idseen__add_hash(struct vp_idseen *s, uint64_t h)
{
	if (!s->ring && !(s->ring = malloc(VP_IDSEEN_MAX * sizeof(*s->ring))))
		return -ENOMEM;
	if (s->n == VP_IDSEEN_MAX)
		forget_oldest(s);
	if (u64map__put(&s->count, h, (void *)(count_of(s, h) + 1)))
		return -ENOMEM;
	s->ring[(s->head + s->n) % VP_IDSEEN_MAX] = h;
	s->n++;
	return 0;
}

uint32_t vp_idseen__count(const struct vp_idseen *s, const struct vp_propid *id)
{
	return vp_idseen__count_hash(s, id_hash(id));
}

uint32_t vp_idseen__count_hash(const struct vp_idseen *s, uint64_t h)
{
	return s->ring ? (uint32_t)count_of(s, h) : 0;
}

void vp_idseen__free(struct vp_idseen *s)
{
	free(s->ring);
	u64map__free(&s->count);
	*s = (struct vp_idseen){0};
}
