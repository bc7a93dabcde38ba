// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The recorder's clocks (clock.h): clock_gettime(2) in nanoseconds. */
#include <time.h>

#include "clock.h"

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
