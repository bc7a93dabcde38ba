/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A fixed set of threads that run one batch of independent jobs at a time
 * (the hosts of a merge quantum, analysis.c): the caller's thread takes part,
 * jobs are taken in turn as threads come free, and vp_workers__run returns
 * when every job of the batch is done.  Between batches a thread waits
 * awake a little (workers.c, VP_WORKERS_SPIN_NS) before it sleeps: batches
 * come tens of microseconds apart, and a wake-up on a busy machine waits
 * for a processor.  Which thread runs a job must not
 * matter to the result; with one thread the jobs run in order, in the caller.
 */
#ifndef VPATH_WORKERS_H
#define VPATH_WORKERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef void (*vp_job_fn)(void *ctx, size_t job);

struct vp_workers {
	pthread_t *tids;
	unsigned n; /* threads in all, the caller's included */
	/*
	 * Batches run on all n threads, or on the caller's alone when 1 (the
	 * others wait): the analysis times both ways (analysis.c, tune).
	 */
	unsigned use;
	pthread_mutex_t mu;
	pthread_cond_t go, idle;
	bool sync;	  /* mu, go and idle were made */
	unsigned batch;	  /* batches begun (atomic; changed under mu, so that sleepers wake) */
	unsigned running; /* threads still in the batch, the caller's not counted (atomic) */
	bool stop;	  /* atomic, set under mu */
	vp_job_fn fn;
	void *ctx;
	size_t njobs;
	size_t next; /* the next job to take (atomic) */
};

/* nthreads >= 1; 0 or -errno (no thread is left running then). */
int vp_workers__init(struct vp_workers *w, unsigned nthreads);
/* fn(ctx, j) for every j < njobs, over the threads; returns when all are done. */
void vp_workers__run(struct vp_workers *w, size_t njobs, vp_job_fn fn, void *ctx);
void vp_workers__free(struct vp_workers *w);

/* Online CPUs, at least 1. */
unsigned vp_workers__cpus(void);

#endif
