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
 * Waits a little for the batch number in *v to differ from `was` without
 * sleeping: batches come a quantum's join apart (tens of microseconds), and
 * a thread put to sleep and woken costs a wake-up, on a busy machine a wait
 * for a processor.  True when it changed.
 */
static bool spin_while(const uint64_t *v, uint32_t was)
{
	uint64_t until = 0;

	for (unsigned i = 0;; i++) {
		if ((uint32_t)(__atomic_load_n(v, __ATOMIC_ACQUIRE) >> 32) != was)
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

/* Waits a little for the batch's jobs to be done (done at njobs). */
static bool spin_done(struct vp_workers *w, size_t njobs)
{
	uint64_t until = now_ns() + VP_WORKERS_SPIN_NS;

	do {
		for (int i = 0; i < 64; i++) {
			if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) == njobs)
				return true;
			cpu_relax();
		}
	} while (now_ns() < until);
	return false;
}

static uint32_t batch_of(uint64_t next)
{
	return (uint32_t)(next >> 32);
}

/*
 * Takes and runs jobs of batch `no` until none is left.  The batch's
 * description is read before the job is taken, and a job taken only while
 * `next` still holds that batch's number: if the caller has begun another
 * batch since (so rewritten the description), the take fails.  A thread
 * that took a job holds the batch open (done) until the job is done.
 */
static void take_jobs(struct vp_workers *w, uint32_t no)
{
	const struct vp_workers_batch *b = &w->b[no & 1];
	uint64_t cur = __atomic_load_n(&w->next, __ATOMIC_ACQUIRE);

	for (;;) {
		vp_job_fn first, fn;
		void *first_ctx, *ctx;
		size_t njobs, j;

		if (batch_of(cur) != no)
			return;
		first = __atomic_load_n(&b->first, __ATOMIC_RELAXED);
		first_ctx = __atomic_load_n(&b->first_ctx, __ATOMIC_RELAXED);
		fn = __atomic_load_n(&b->fn, __ATOMIC_RELAXED);
		ctx = __atomic_load_n(&b->ctx, __ATOMIC_RELAXED);
		njobs = __atomic_load_n(&b->njobs, __ATOMIC_RELAXED);
		j = (uint32_t)cur;
		if (j >= njobs)
			return;
		if (!__atomic_compare_exchange_n(&w->next, &cur, cur + 1, true, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		if (first && j == 0)
			first(first_ctx, 0);
		else
			fn(ctx, first ? j - 1 : j);
		if (__atomic_add_fetch(&w->done, 1, __ATOMIC_ACQ_REL) == njobs) {
			/* The caller may sleep on idle: it is woken under mu, so not missed. */
			pthread_mutex_lock(&w->mu);
			pthread_cond_signal(&w->idle);
			pthread_mutex_unlock(&w->mu);
		}
		cur = __atomic_load_n(&w->next, __ATOMIC_ACQUIRE);
	}
}

/* The mutex guards sleeping only: a batch is published by its number (release), its end by done. */
static void *worker_main(void *arg)
{
	struct vp_workers *w = arg;
	uint32_t seen = 0;

	for (;;) {
		if (!spin_while(&w->next, seen)) {
			pthread_mutex_lock(&w->mu);
			while (batch_of(__atomic_load_n(&w->next, __ATOMIC_ACQUIRE)) == seen &&
			       !__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
				pthread_cond_wait(&w->go, &w->mu);
			pthread_mutex_unlock(&w->mu);
		}
		if (__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
			if (stats.on)
				stats_thread_end();
			break;
		}
		seen = batch_of(__atomic_load_n(&w->next, __ATOMIC_ACQUIRE));
		take_jobs(w, seen);
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

static void run_batch(struct vp_workers *w, const struct vp_workers_batch *nb)
{
	/* Only the caller changes the number; threads change the job in the low half. */
	uint32_t no = batch_of(__atomic_load_n(&w->next, __ATOMIC_RELAXED)) + 1;
	struct vp_workers_batch *b = &w->b[no & 1];

	if (w->use == 1 || nb->njobs < 2 || nb->njobs > UINT32_MAX) {
		for (size_t j = 0; j < nb->njobs; j++) {
			if (nb->first && j == 0)
				nb->first(nb->first_ctx, 0);
			else
				nb->fn(nb->ctx, nb->first ? j - 1 : j);
		}
		return;
	}
	/*
	 * A thread late for the last batch reads the other half of b.  One two
	 * batches late may read this half as it is written (hence atomics),
	 * but cannot take a job with what it read: `next` holds another
	 * number by then.
	 */
	__atomic_store_n(&b->first, nb->first, __ATOMIC_RELAXED);
	__atomic_store_n(&b->first_ctx, nb->first_ctx, __ATOMIC_RELAXED);
	__atomic_store_n(&b->fn, nb->fn, __ATOMIC_RELAXED);
	__atomic_store_n(&b->ctx, nb->ctx, __ATOMIC_RELAXED);
	__atomic_store_n(&b->njobs, nb->njobs, __ATOMIC_RELAXED);
	__atomic_store_n(&w->done, 0, __ATOMIC_RELAXED);
	pthread_mutex_lock(&w->mu); /* a thread between its check and its sleep is not missed */
	__atomic_store_n(&w->next, (uint64_t)no << 32, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&w->go);
	pthread_mutex_unlock(&w->mu);
	take_jobs(w, no);
	if (!spin_done(w, nb->njobs)) {
		pthread_mutex_lock(&w->mu);
		while (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) != nb->njobs)
			pthread_cond_wait(&w->idle, &w->mu);
		pthread_mutex_unlock(&w->mu);
	}
}

static void run_timed(struct vp_workers *w, const struct vp_workers_batch *nb)
{
	uint64_t t0;

	if (!stats.on) {
		run_batch(w, nb);
		return;
	}
	t0 = thread_cpu_ns();
	run_batch(w, nb);
	stats.batches += thread_cpu_ns() - t0;
}

void vp_workers__run(struct vp_workers *w, size_t njobs, vp_job_fn fn, void *ctx)
{
	run_timed(w, &(struct vp_workers_batch){.fn = fn, .ctx = ctx, .njobs = njobs});
}

void vp_workers__run_first(struct vp_workers *w, vp_job_fn first, void *first_ctx, size_t njobs,
			   vp_job_fn fn, void *ctx)
{
	run_timed(w, &(struct vp_workers_batch){.first = first,
						.first_ctx = first_ctx,
						.fn = fn,
						.ctx = ctx,
						.njobs = njobs + (first != NULL)});
}

void vp_workers__free(struct vp_workers *w)
{
	if (w->sync) {
		pthread_mutex_lock(&w->mu);
		__atomic_store_n(&w->stop, true, __ATOMIC_RELEASE);
		__atomic_add_fetch(&w->next, 1ull << 32, __ATOMIC_RELEASE);
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
