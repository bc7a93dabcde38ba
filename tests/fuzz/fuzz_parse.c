// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the parsers of the numbers and addresses people type
 * (common/parse.c: integers, sizes, durations; analyzer/endpoint.c: the
 * --entry HOST:PORT), checked against what they promise, not only for
 * memory errors:
 *   - parse_u64 accepts exactly the strings of decimal digits whose value
 *     fits (as strtoull reads them) and is at most max;
 *   - a size or a duration that parses is its digits times its unit,
 *     without overflow;
 *   - an endpoint that parses formats to text that parses back to it.
 * Input: any bytes; the first is max's bit length for parse_u64, the rest
 * is the string.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok, const char *what, const char *s)
{
	if (!ok) {
		fprintf(stderr, "fuzz_parse: %s for \"%s\"\n", what, s);
		abort();
	}
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The value of s's leading digits (ERANGE when they overflow) and where they end. */
static int digits_of(const char *s, uint64_t *v, const char **end)
{
	*v = 0;
	for (*end = s; isdigit((unsigned char)**end); (*end)++) {
		unsigned d = (unsigned)(**end - '0');

		if (*v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		*v = *v * 10 + d;
	}
	return *end == s ? -EINVAL : 0;
}

static void check_u64(const char *s, unsigned bits)
{
	uint64_t max = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1, v = 0, want;
	const char *end;
	int err = parse_u64(s, max, &v);
	bool fits = all_digits(s) && digits_of(s, &want, &end) == 0;

	check((err == 0) == (fits && want <= max), "parse_u64 accepts the wrong strings", s);
	if (!err)
		check(v == want, "parse_u64 value", s);
}

/* unit multiplier of a parsed suffix, as the documentation gives it. */
static uint64_t size_unit(const char *suffix)
{
	char c = (char)tolower((unsigned char)suffix[0]);

	return c == 'k' ? 1ull << 10 : c == 'm' ? 1ull << 20 : c == 'g' ? 1ull << 30 :
	       c == 't' ? 1ull << 40 : 1;
}

static uint64_t duration_unit(const char *suffix)
{
	if (!strcmp(suffix, "ms"))
		return 1000000ull;
	if (!strcmp(suffix, "m"))
		return 60 * 1000000000ull;
	if (!strcmp(suffix, "h"))
		return 3600 * 1000000000ull;
	if (!strcmp(suffix, "d"))
		return 86400 * 1000000000ull;
	return 1000000000ull; /* "" and "s" */
}

static void check_scaled(const char *s, int (*parse)(const char *, uint64_t *),
			 uint64_t (*unit)(const char *), const char *name)
{
	uint64_t v, digits;
	const char *end;

	if (parse(s, &v))
		return;
	check(digits_of(s, &digits, &end) == 0, name, s);
	check(digits <= UINT64_MAX / unit(end) && v == digits * unit(end), name, s);
}

static void check_endpoint(const char *s)
{
	struct vp_endpoint e, back;
	char text[VP_ADDRSTRLEN];

	memset(&e, 0xa5, sizeof(e));
	if (vp_endpoint__parse(s, &e))
		return;
	check(e.family == 2 || e.family == 10, "endpoint family", s);
	vp_endpoint__format(&e, text, sizeof(text));
	check(vp_endpoint__parse(text, &back) == 0, "formatted endpoint does not parse", s);
	check(vp_endpoint__equal(&e, &back) && e.port == back.port,
	      "endpoint changes through format and parse", s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	check_u64(s, data[0] % 65);
	check_scaled(s, parse_size, size_unit, "parse_size value");
	check_scaled(s, parse_duration, duration_unit, "parse_duration value");
	check_endpoint(s);
	free(s);
	return 0;
}
