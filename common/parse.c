// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

/* Leading decimal digits of s into *out; *end points after them. */
static int parse_digits(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*end = s;
	*out = v;
	return 0;
}

static int scale(uint64_t v, uint64_t mul, uint64_t *out)
{
	if (mul && v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int err = parse_digits(s, &end, &v);

	if (err)
		return err;
	if (*end)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

struct unit {
	const char *suffix;
	uint64_t mul;
};

/* digits followed by one of the units' suffixes, scaled by that unit. */
static int parse_with_units(const char *s, const struct unit *units, size_t n, bool ignore_case,
			    uint64_t *out)
{
	const char *end;
	uint64_t v;
	int err = parse_digits(s, &end, &v);

	if (err)
		return err;
	for (size_t i = 0; i < n; i++)
		if (!(ignore_case ? strcasecmp : strcmp)(end, units[i].suffix))
			return scale(v, units[i].mul, out);
	return -EINVAL;
}

int parse_size(const char *s, uint64_t *out)
{
	static const struct unit units[] = {
		{"", 1},
		{"b", 1},
		{"k", 1ull << 10},
		{"kb", 1ull << 10},
		{"kib", 1ull << 10},
		{"m", 1ull << 20},
		{"mb", 1ull << 20},
		{"mib", 1ull << 20},
		{"g", 1ull << 30},
		{"gb", 1ull << 30},
		{"gib", 1ull << 30},
		{"t", 1ull << 40},
		{"tb", 1ull << 40},
		{"tib", 1ull << 40},
	};

	return parse_with_units(s, units, sizeof(units) / sizeof(units[0]), true, out);
}

int parse_duration(const char *s, uint64_t *out_ns)
{
	static const struct unit units[] = {
		{"", 1000000000ull},	     {"ms", 1000000ull},
		{"s", 1000000000ull},	     {"m", 60 * 1000000000ull},
		{"h", 3600 * 1000000000ull}, {"d", 86400 * 1000000000ull},
	};

	return parse_with_units(s, units, sizeof(units) / sizeof(units[0]), false, out_ns);
}
