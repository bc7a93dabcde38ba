// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workers.h"

static void take_jobs(struct vp_workers *w)
{
	size_t j;

	while ((j = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->njobs)
		w->fn(w->ctx, j);
}

/* The mutex orders each batch's setup before its jobs, and the jobs' writes before the caller goes on. */
static void *worker_main(void *arg)
{
	struct vp_workers *w = arg;
	unsigned seen = 0;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->batch == seen && !w->stop)
			pthread_cond_wait(&w->go, &w->mu);
		if (w->stop)
			break;
		seen = w->batch;
		pthread_mutex_unlock(&w->mu);
		take_jobs(w);
		pthread_mutex_lock(&w->mu);
		if (--w->running == 0)
			pthread_cond_signal(&w->idle);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int vp_workers__init(struct vp_workers *w, unsigned nthreads)
{
	unsigned want = nthreads ? nthreads : 1;
	int err = 0;

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

void vp_workers__run(struct vp_workers *w, size_t njobs, vp_job_fn fn, void *ctx)
{
	if (w->use == 1 || njobs < 2) {
		for (size_t j = 0; j < njobs; j++)
			fn(ctx, j);
		return;
	}
	pthread_mutex_lock(&w->mu);
	w->fn = fn;
	w->ctx = ctx;
	w->njobs = njobs;
	w->next = 0;
	w->running = w->n - 1;
	w->batch++;
	pthread_cond_broadcast(&w->go);
	pthread_mutex_unlock(&w->mu);
	take_jobs(w);
	pthread_mutex_lock(&w->mu);
	while (w->running)
		pthread_cond_wait(&w->idle, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

void vp_workers__free(struct vp_workers *w)
{
	if (w->sync) {
		pthread_mutex_lock(&w->mu);
		w->stop = true;
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
