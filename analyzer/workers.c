// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "workers.h"

/*
 * VPATH_THREAD_STATS set: at exit, the CPU time of the caller's thread, of
 * the batches in it and of the other threads (docs/analyzer.md, "Threads"):
 * at --threads 1 the batches' share is the part that can run in parallel.
 */
static struct {
	bool on;
	uint64_t batches, others; /* ns; others: atomically added as threads end */
} stats;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void stats_print(void)
{
	double self = (double)thread_cpu_ns() * 1e-9, in = (double)stats.batches * 1e-9;

	fprintf(stderr,
		"thread stats: caller %.3f s CPU, of it %.3f s in batches (%.1f%%); other threads "
		"%.3f s\n",
		self, in, self > 0 ? 100 * in / self : 0,
		(double)__atomic_load_n(&stats.others, __ATOMIC_ACQUIRE) * 1e-9);
}

static void stats_start(void)
{
	static bool once;

	if (once)
		return;
	once = true;
	stats.on = getenv("VPATH_THREAD_STATS") != NULL;
	if (stats.on)
		atexit(stats_print);
}

static void stats_thread_end(void)
{
	__atomic_add_fetch(&stats.others, thread_cpu_ns(), __ATOMIC_ACQ_REL);
}

static void take_jobs(struct vp_workers *w)
{
	size_t j;

	while ((j = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->njobs)
		w->fn(w->ctx, j);
}

/* How long a thread waits awake for the next batch, or the caller for the batch's end. */
#define VP_WORKERS_SPIN_NS (50ull * 1000)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/*
 * Waits a little for *v to differ from `was` without sleeping: batches come
 * a quantum's join apart (tens of microseconds), and a thread put to sleep
 * and woken costs a wake-up, on a busy machine a wait for a processor.
 * True when it changed.
 */
static bool spin_while(const unsigned *v, unsigned was)
{
	uint64_t until = 0;

	for (unsigned i = 0;; i++) {
		if (__atomic_load_n(v, __ATOMIC_ACQUIRE) != was)
			return true;
		if ((i & 63) == 63) {
			uint64_t t = now_ns();

			if (!until)
				until = t + VP_WORKERS_SPIN_NS;
			else if (t >= until)
				return false;
		}
		cpu_relax();
	}
}

/* Waits a little for the other threads to finish the batch (running at 0). */
static bool spin_running(struct vp_workers *w)
{
	uint64_t until = now_ns() + VP_WORKERS_SPIN_NS;

	do {
		for (int i = 0; i < 64; i++) {
			if (!__atomic_load_n(&w->running, __ATOMIC_ACQUIRE))
				return true;
			cpu_relax();
		}
	} while (now_ns() < until);
	return false;
}

/* The mutex guards sleeping only: a batch is published by its number (release), the end by running. */
static void *worker_main(void *arg)
{
	struct vp_workers *w = arg;
	unsigned seen = 0;

	for (;;) {
		if (!spin_while(&w->batch, seen)) {
			pthread_mutex_lock(&w->mu);
			while (__atomic_load_n(&w->batch, __ATOMIC_ACQUIRE) == seen && !w->stop)
				pthread_cond_wait(&w->go, &w->mu);
			pthread_mutex_unlock(&w->mu);
		}
		if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
			if (stats.on)
				stats_thread_end();
			break;
		}
		seen = __atomic_load_n(&w->batch, __ATOMIC_ACQUIRE);
		take_jobs(w);
		if (__atomic_sub_fetch(&w->running, 1, __ATOMIC_ACQ_REL) == 0) {
			pthread_mutex_lock(&w->mu);
			pthread_cond_signal(&w->idle);
			pthread_mutex_unlock(&w->mu);
		}
	}
	return NULL;
}

int vp_workers__init(struct vp_workers *w, unsigned nthreads)
{
	unsigned want = nthreads ? nthreads : 1;
	int err = 0;

	stats_start();
	memset(w, 0, sizeof(*w));
	w->n = w->use = 1;
	if (want == 1)
		return 0;
	if (pthread_mutex_init(&w->mu, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&w->go, NULL)) {
		pthread_mutex_destroy(&w->mu);
		return -ENOMEM;
	}
	if (pthread_cond_init(&w->idle, NULL)) {
		pthread_cond_destroy(&w->go);
		pthread_mutex_destroy(&w->mu);
		return -ENOMEM;
	}
	w->sync = true;
	w->tids = calloc(want - 1, sizeof(*w->tids));
	if (!w->tids) {
		vp_workers__free(w);
		return -ENOMEM;
	}
	for (; w->n < want; w->n++) {
		if ((err = pthread_create(&w->tids[w->n - 1], NULL, worker_main, w))) {
			vp_workers__free(w); /* stops the threads started so far */
			return -err;
		}
	}
	w->use = w->n;
	return 0;
}

static void run_batch(struct vp_workers *w, size_t njobs, vp_job_fn fn, void *ctx)
{
	if (w->use == 1 || njobs < 2) {
		for (size_t j = 0; j < njobs; j++)
			fn(ctx, j);
		return;
	}
	w->fn = fn;
	w->ctx = ctx;
	w->njobs = njobs;
	w->next = 0;
	__atomic_store_n(&w->running, w->n - 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&w->mu); /* a thread between its check and its sleep is not missed */
	__atomic_add_fetch(&w->batch, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&w->go);
	pthread_mutex_unlock(&w->mu);
	take_jobs(w);
	if (!spin_running(w)) {
		pthread_mutex_lock(&w->mu);
		while (__atomic_load_n(&w->running, __ATOMIC_ACQUIRE))
			pthread_cond_wait(&w->idle, &w->mu);
		pthread_mutex_unlock(&w->mu);
	}
}

void vp_workers__run(struct vp_workers *w, size_t njobs, vp_job_fn fn, void *ctx)
{
	uint64_t t0;

	if (!stats.on) {
		run_batch(w, njobs, fn, ctx);
		return;
	}
	t0 = thread_cpu_ns();
	run_batch(w, njobs, fn, ctx);
	stats.batches += thread_cpu_ns() - t0;
}

void vp_workers__free(struct vp_workers *w)
{
	if (w->sync) {
		pthread_mutex_lock(&w->mu);
		__atomic_store_n(&w->stop, true, __ATOMIC_RELEASE);
		__atomic_add_fetch(&w->batch, 1, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&w->go);
		pthread_mutex_unlock(&w->mu);
		for (unsigned i = 0; i + 1 < w->n; i++)
			pthread_join(w->tids[i], NULL);
		pthread_cond_destroy(&w->idle);
		pthread_cond_destroy(&w->go);
		pthread_mutex_destroy(&w->mu);
	}
	free(w->tids);
	memset(w, 0, sizeof(*w));
}

unsigned vp_workers__cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}
