// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fuzz_analyze's allocator for cJSON's items (json_arena.h says why). */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "json_arena.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#endif
#endif
#ifndef ASAN_POISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

#define CHUNK_BYTES (64u << 10)
#define ALIGN 16u /* also the poisoned gap after each item */
#define LIVE 0x4a534f4eu
#define FREED 0x44454144u

/* In front of each item, poisoned except while the arena reads it. */
struct item {
	size_t size;
	uint32_t magic;
};

struct chunk {
	struct chunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

_Static_assert(sizeof(struct item) <= ALIGN, "an item's header fits its slot");

static struct chunk *chunks; /* newest first; the oldest is kept across inputs */
static long live;

static size_t round_up(size_t n)
{
	return (n + ALIGN - 1) / ALIGN * ALIGN;
}

static void *arena_alloc(size_t n)
{
	size_t need = ALIGN + round_up(n ? n : 1) + ALIGN;
	struct chunk *c = chunks;
	struct item *it;

	if (!c || c->cap - c->used < need) {
		size_t cap = need > CHUNK_BYTES ? need : CHUNK_BYTES;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = chunks;
		chunks = c;
		ASAN_POISON_MEMORY_REGION(c->data, cap);
	}
	it = (struct item *)(c->data + c->used);
	c->used += need;
	ASAN_UNPOISON_MEMORY_REGION(it, sizeof(*it));
	it->size = n;
	it->magic = LIVE;
	ASAN_POISON_MEMORY_REGION(it, sizeof(*it));
	ASAN_UNPOISON_MEMORY_REGION((unsigned char *)it + ALIGN, n);
	live++;
	return (unsigned char *)it + ALIGN;
}

static void arena_free(void *p)
{
	struct item *it;
	size_t n;

	if (!p)
		return;
	it = (struct item *)((unsigned char *)p - ALIGN);
	ASAN_UNPOISON_MEMORY_REGION(it, sizeof(*it));
	if (it->magic != LIVE) {
		fprintf(stderr, "json_arena: cJSON item %p freed twice or not from the arena\n", p);
		abort();
	}
	it->magic = FREED;
	n = it->size;
	ASAN_POISON_MEMORY_REGION(it, sizeof(*it));
	ASAN_POISON_MEMORY_REGION(p, n);
	live--;
}

void json_arena__install(void)
{
	cJSON_Hooks h = {.malloc_fn = arena_alloc, .free_fn = arena_free};

	cJSON_InitHooks(&h);
}

void json_arena__reset(void)
{
	if (live) {
		fprintf(stderr, "json_arena: %ld cJSON allocations not freed at the end of the input\n", live);
		abort();
	}
	while (chunks && chunks->next) {
		struct chunk *c = chunks;

		chunks = c->next;
		free(c);
	}
	if (chunks) {
		ASAN_POISON_MEMORY_REGION(chunks->data, chunks->used);
		chunks->used = 0;
	}
}
