// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>

#include "hashmap.h"

void *u64map__get(const struct u64map *m, uint64_t key)
{
	size_t mask, i;

	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	for (i = hash64(key) & mask; m->vals[i]; i = (i + 1) & mask)
		if (m->keys[i] == key)
			return m->vals[i];
	return NULL;
}

static void place(uint64_t *keys, void **vals, size_t mask, uint64_t key, void *val)
{
	size_t i = hash64(key) & mask;

	while (vals[i] && keys[i] != key)
		i = (i + 1) & mask;
	keys[i] = key;
	vals[i] = val;
}

static int grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	void **vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			place(keys, vals, cap - 1, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int u64map__put(struct u64map *m, uint64_t key, void *val)
{
	size_t mask, i;

	/* Load factor below 1/2 keeps linear probes short. */
	if ((m->len + 1) * 2 > m->cap) {
		int err = grow(m);

		if (err)
			return err;
	}
	mask = m->cap - 1;
	for (i = hash64(key) & mask; m->vals[i]; i = (i + 1) & mask) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->len++;
	return 0;
}

void *u64map__del(struct u64map *m, uint64_t key)
{
	size_t mask, i, j;
	void *val;

	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	for (i = hash64(key) & mask;; i = (i + 1) & mask) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			break;
	}
	val = m->vals[i];
	m->vals[i] = NULL;
	m->len--;
	/* Backward-shift deletion: move later members of the probe run up. */
	for (j = (i + 1) & mask; m->vals[j]; j = (j + 1) & mask) {
		size_t home = hash64(m->keys[j]) & mask;

		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->vals[j] = NULL;
			i = j;
		}
	}
	return val;
}

int u64map__next(const struct u64map *m, size_t *pos, uint64_t *key, void **val)
{
	for (; *pos < m->cap; (*pos)++) {
		if (m->vals[*pos]) {
			if (key)
				*key = m->keys[*pos];
			if (val)
				*val = m->vals[*pos];
			(*pos)++;
			return 1;
		}
	}
	return 0;
}

void u64map__free(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->len = 0;
}
