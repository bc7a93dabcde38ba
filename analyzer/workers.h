/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A fixed set of threads that run one batch of independent jobs at a time
 * (the hosts of a merge quantum, analysis.c): the caller's thread takes part,
 * jobs are taken in turn as threads come free, and vp_workers__run returns
 * when every job of the batch is done.  It waits for the jobs, not for the
 * threads: a thread the scheduler has not run yet (another program has the
 * processor) takes no job, and the caller does them all rather than wait
 * for it.  Between batches a thread waits awake a little (workers.c,
 * VP_WORKERS_SPIN_NS) before it sleeps: batches come tens of microseconds
 * apart, and a wake-up on a busy machine waits for a processor.  Which
 * thread runs a job must not matter to the result; with one thread the
 * jobs run in order, in the caller.
 */
#ifndef VPATH_WORKERS_H
#define VPATH_WORKERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*vp_job_fn)(void *ctx, size_t job);

/* A batch's jobs: the analysis's batches have a first job of another kind (vp_workers__run_first). */
struct vp_workers_batch {
	vp_job_fn first; /* job 0 when set, fn(ctx, j - 1) the others */
	void *first_ctx;
	vp_job_fn fn;
	void *ctx;
	size_t njobs; /* the first included */
};

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
	bool sync; /* mu, go and idle were made */
	/*
	 * The batch's number (high 32 bits) and its next job to take (low):
	 * one word, so that a thread late for a batch cannot take a job of
	 * the next one (atomic; a new number is stored under mu, so that
	 * sleepers wake).
	 */
	uint64_t next;
	/* By the batch number's parity: a late thread reads the last batch's while the next is set. */
	struct vp_workers_batch b[2];
	size_t done; /* jobs of the batch finished (atomic) */
	bool stop;   /* atomic, set under mu */
};
/* nthreads >= 1; 0 or -errno (no thread is left running then). */
int vp_workers__init(struct vp_workers *w, unsigned nthreads);
/* fn(ctx, j) for every j < njobs, over the threads; returns when all are done. */
void vp_workers__run(struct vp_workers *w, size_t njobs, vp_job_fn fn, void *ctx);
/*
 * first(first_ctx, 0) unless first is NULL, and fn(ctx, j) for every j <
 * njobs, over the threads: first is taken first, so the longest job should
 * go there.
 */
void vp_workers__run_first(struct vp_workers *w, vp_job_fn first, void *first_ctx, size_t njobs,
			   vp_job_fn fn, void *ctx);
void vp_workers__free(struct vp_workers *w);

/* Online CPUs, at least 1. */
unsigned vp_workers__cpus(void);

#endif
