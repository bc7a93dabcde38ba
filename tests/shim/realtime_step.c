// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * LD_PRELOAD shim for the wall-clock fault test (test_fault_clock.sh): steps
 * CLOCK_REALTIME for one process only, as an NTP step or an operator's
 * `date -s` would, without touching the machine's clock (other tests run on
 * it).  VPATH_REALTIME_STEP_FILE names a file the test writes when the clock
 * is to jump: its number is the step in seconds (negative: back), taken
 * from the moment it appears; no file, no step.  CLOCK_MONOTONIC and every
 * other clock are left alone, as a real step leaves them.  clock_gettime is
 * the recorder's only way to the wall clock (no time() or gettimeofday()).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

/* The step in ns now in force: the file's number, read on each call. */
static long long step_ns(void)
{
	const char *path = getenv("VPATH_REALTIME_STEP_FILE");
	double s = 0;
	FILE *f;

	if (!path || !(f = fopen(path, "re")))
		return 0;
	if (fscanf(f, "%lf", &s) != 1)
		s = 0;
	fclose(f);
	return (long long)(s * 1e9);
}

static void add_ns(struct timespec *ts, long long ns)
{
	long long t = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + ns;

	ts->tv_sec = (time_t)(t / 1000000000LL);
	ts->tv_nsec = (long)(t % 1000000000LL);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static clock_gettime_fn real;
	int ret;

	if (!real)
		real = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
	ret = real(id, ts);
	if (ret == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		add_ns(ts, step_ns());
	return ret;
}
