// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Named fields in a message's bytes (fields.h). */
#include <stdbool.h>

#include "fields.h"
#include "fnv.h"

static bool is_alpha(uint8_t c)
{
	return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_';
}

static bool is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static bool in_name(uint8_t c)
{
	return is_alpha(c) || is_digit(c) || c == '-';
}

static bool in_value(uint8_t c)
{
	return is_alpha(c) || is_digit(c) || c == '.' || c == '-' || c == '+';
}

/* Blanks from at on: where they end. */
static size_t blanks(const uint8_t *p, size_t n, size_t at)
{
	while (at < n && (p[at] == ' ' || p[at] == '\t'))
		at++;
	return at;
}

/* FNV-1a over the name, a byte no name or value holds, the value. */
static uint64_t field_hash(const uint8_t *name, size_t nlen, const uint8_t *val, size_t vlen)
{
	return vp_fnv1a(vp_fnv1a(vp_fnv1a(VP_FNV_BASIS, name, nlen), "=", 1), val, vlen);
}

/* Adds h to the set h[0..*k) unless there (counting those that did not fit in *k). */
static void add(uint64_t *set, size_t *k, size_t max, uint64_t h)
{
	for (size_t i = 0; i < *k && i < max; i++)
		if (set[i] == h)
			return;
	if (*k < max)
		set[*k] = h;
	++*k;
}

/*
 * The field whose name begins at `at`, if one does: its hash in *h.
 * Returns where scanning goes on (past the name, or past the value).
 */
static size_t field_at(const uint8_t *p, size_t n, size_t at, uint64_t *h, bool *found)
{
	size_t name = at, nlen, v;

	*found = false;
	while (at < n && in_name(p[at]))
		at++;
	nlen = at - name;
	v = at;
	if (nlen > VP_FIELD_NAME_MAX)
		return at;
	if (v < n && p[v] == '"')
		v++;
	v = blanks(p, n, v);
	if (v >= n || (p[v] != '=' && p[v] != ':'))
		return at;
	v = blanks(p, n, v + 1);
	if (v < n && p[v] == '"')
		v++;
	at = v;
	while (at < n && in_value(p[at]))
		at++;
	if (at == v)
		return v;
	*h = field_hash(p + name, nlen, p + v, at - v);
	*found = true;
	return at;
}

size_t vp_fields(const uint8_t *p, size_t n, uint64_t *h, size_t max)
{
	size_t k = 0, at = 0;

	while (at < n) {
		uint64_t f;
		bool found;

		/* A name begins a word: after a byte that could not be in it. */
		if (!is_alpha(p[at]) || (at && in_name(p[at - 1]))) {
			at++;
			continue;
		}
		at = field_at(p, n, at, &f, &found);
		if (found)
			add(h, &k, max, f);
	}
	return k;
}
