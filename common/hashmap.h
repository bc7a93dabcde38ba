/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An open-addressing map from 64-bit keys to non-NULL pointers.  Every
 * table of the analyzer (sockets by cookie, threads by tid, exchanges by
 * stream position) is one of these, so lookups stay O(1) on hot paths.
 */
#ifndef VPATH_HASHMAP_H
#define VPATH_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct u64map {
	uint64_t *keys;
	void **vals; /* NULL marks an empty slot */
	size_t cap;  /* power of two, 0 before the first insert */
	size_t len;
};

void *u64map__get(const struct u64map *m, uint64_t key);
/* Insert or replace.  -ENOMEM on failure. */
int u64map__put(struct u64map *m, uint64_t key, void *val);
/* Remove key; returns its value or NULL. */
void *u64map__del(struct u64map *m, uint64_t key);
void u64map__free(struct u64map *m);

/* Iteration: for (size_t i = 0; u64map__next(m, &i, &k, &v);) */
int u64map__next(const struct u64map *m, size_t *pos, uint64_t *key, void **val);

static inline uint64_t hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

#endif
