// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Direct-mapped: a stream is marked for one operation, and thousands of
 * streams cut inside a secret at the same moment are not expected.  Two
 * marks that share a slot: the later replaces the earlier, whose next
 * operation then gets only the ordinary rules (docs/security.md).
 */
#include <stdlib.h>
#include <string.h>

#include "redact_carry.h"

#define CARRY_SLOTS 8192u

struct carry_slot {
	uint64_t key; /* cookie * 2 + dir + 1; 0: free */
	uint32_t seq;
};

struct side_slot {
	uint64_t key; /* as carry_slot's */
	uint8_t side;
};

struct header_slot {
	uint64_t key; /* as carry_slot's */
	uint32_t seq; /* where the body's operation must begin */
	uint8_t hdr[4];
};

struct redact_carry {
	struct carry_slot slot[CARRY_SLOTS];
	struct header_slot header[CARRY_SLOTS];
	struct side_slot side[CARRY_SLOTS]; /* a stream that lost its slot is unknown again */
};

static uint64_t carry_key(uint64_t cookie, uint8_t dir)
{
	return cookie * 2 + (dir & 1) + 1;
}

static size_t slot_index(uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 51 & (CARRY_SLOTS - 1));
}

static struct carry_slot *slot_of(struct redact_carry *c, uint64_t key)
{
	return &c->slot[slot_index(key)];
}

struct redact_carry *redact_carry__new(void)
{
	return calloc(1, sizeof(struct redact_carry));
}

void redact_carry__free(struct redact_carry *c)
{
	free(c);
}

void redact_carry__mark(struct redact_carry *c, uint64_t cookie, uint8_t dir, uint32_t seq_end)
{
	uint64_t key = carry_key(cookie, dir);
	struct carry_slot *s = slot_of(c, key);

	s->key = key;
	s->seq = seq_end;
}

bool redact_carry__take(struct redact_carry *c, uint64_t cookie, uint8_t dir, uint32_t seq_start)
{
	uint64_t key = carry_key(cookie, dir);
	struct carry_slot *s = slot_of(c, key);
	bool hit = s->key == key && s->seq == seq_start;

	if (s->key == key)
		s->key = 0;
	return hit;
}

void redact_carry__keep_header(struct redact_carry *c, uint64_t cookie, uint8_t dir,
			       uint32_t seq_end, const uint8_t hdr[4])
{
	uint64_t key = carry_key(cookie, dir);
	struct header_slot *h = &c->header[slot_index(key)];

	h->key = key;
	h->seq = seq_end;
	memcpy(h->hdr, hdr, sizeof(h->hdr));
}

bool redact_carry__take_header(struct redact_carry *c, uint64_t cookie, uint8_t dir,
			       uint32_t seq_start, uint8_t hdr[4])
{
	uint64_t key = carry_key(cookie, dir);
	struct header_slot *h = &c->header[slot_index(key)];
	bool hit = h->key == key && h->seq == seq_start;

	if (hit)
		memcpy(hdr, h->hdr, sizeof(h->hdr));
	if (h->key == key)
		h->key = 0;
	return hit;
}

uint8_t redact_carry__side(struct redact_carry *c, uint64_t cookie, uint8_t dir)
{
	uint64_t key = carry_key(cookie, dir);
	const struct side_slot *s = &c->side[slot_index(key)];

	return s->key == key ? s->side : 0;
}

void redact_carry__set_side(struct redact_carry *c, uint64_t cookie, uint8_t dir, uint8_t side)
{
	uint64_t key = carry_key(cookie, dir);
	struct side_slot *s = &c->side[slot_index(key)];

	s->key = key;
	s->side = side;
}
