// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Numbers, sizes and durations from the command line: accepted forms and rejected ones. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "parse.h"

static void test_u64(void **state)
{
	uint64_t v = 7;

	assert_int_equal(parse_u64("0", 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64("4294967295", UINT32_MAX, &v), 0);
	assert_int_equal(v, 4294967295u);
	assert_int_equal(parse_u64("18446744073709551615", UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	assert_int_equal(parse_u64("4294967296", UINT32_MAX, &v), -ERANGE);
	assert_int_equal(parse_u64("18446744073709551616", UINT64_MAX, &v), -ERANGE);
	assert_int_equal(parse_u64("", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("-1", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("+1", 10, &v), -EINVAL);
	assert_int_equal(parse_u64(" 1", 10, &v), -EINVAL);
	assert_int_equal(parse_u64("1x", 10, &v), -EINVAL);
	assert_int_equal(parse_u64(NULL, 10, &v), -EINVAL);
	assert_int_equal(v, 7); /* untouched on error */
}

static void test_size(void **state)
{
	uint64_t v;

	assert_int_equal(parse_size("512", &v), 0);
	assert_int_equal(v, 512);
	assert_int_equal(parse_size("4k", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(parse_size("64M", &v), 0);
	assert_int_equal(v, 64ull << 20);
	assert_int_equal(parse_size("64MiB", &v), 0);
	assert_int_equal(v, 64ull << 20);
	assert_int_equal(parse_size("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(parse_size("1T", &v), 0);
	assert_int_equal(v, 1ull << 40);
	assert_int_equal(parse_size("16777216T", &v), -ERANGE);
	assert_int_equal(parse_size("64X", &v), -EINVAL);
	assert_int_equal(parse_size("M", &v), -EINVAL);
	assert_int_equal(parse_size("1.5M", &v), -EINVAL);
}

static void test_duration(void **state)
{
	uint64_t v;

	assert_int_equal(parse_duration("30", &v), 0);
	assert_int_equal(v, 30000000000ull);
	assert_int_equal(parse_duration("30s", &v), 0);
	assert_int_equal(v, 30000000000ull);
	assert_int_equal(parse_duration("5m", &v), 0);
	assert_int_equal(v, 300000000000ull);
	assert_int_equal(parse_duration("250ms", &v), 0);
	assert_int_equal(v, 250000000ull);
	assert_int_equal(parse_duration("2h", &v), 0);
	assert_int_equal(v, 7200000000000ull);
	assert_int_equal(parse_duration("1d", &v), 0);
	assert_int_equal(v, 86400000000000ull);
	assert_int_equal(parse_duration("5 m", &v), -EINVAL);
	assert_int_equal(parse_duration("5min", &v), -EINVAL);
	assert_int_equal(parse_duration("s", &v), -EINVAL);
	assert_int_equal(parse_duration("999999999999d", &v), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_duration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
