// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Log lines given to requests (vp_attr__log, docs/analyzer.md "Log lines")
 * on hand-written recordings: a thread-per-connection server's lines are
 * exact on the request its thread serves (inferred while its thread is
 * the process's only reader, which may be an event loop, or when one write held
 * several: a buffer may have been filled earlier), a worker's are claimed by its
 * reply (handoff), an event loop's with several requests in flight are
 * inferred, and a thread that serves nothing (housekeeping) gives its lines
 * to no request.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../lib/collect.h"
#include "../lib/synth.h"
#include "loglines.h"

#define US(x) ((uint64_t)(x)*1000)
#define INO 77

/* A load generator (lg) and a front end (web) calling a database (db), each its own host. */
struct world {
	char dir[64];
	char path[3][128];
	char *files[3];
	struct synth_host *h[3]; /* lg, web, db */
	struct synth_link *l1, *l2, *d1, *d2;
	struct collected c;
};

static int setup(void **state)
{
	static const char *const names[] = {"lg", "web", "db"};
	static const char *const addrs[] = {"10.0.0.9", "10.0.0.1", "10.0.0.2"};
	struct world *w = calloc(1, sizeof(*w));

	if (!w || synth_tmpdir(w->dir, sizeof(w->dir)))
		return -1;
	for (int i = 0; i < 3; i++) {
		snprintf(w->path[i], sizeof(w->path[i]), "%s/%s.vpr", w->dir, names[i]);
		w->files[i] = w->path[i];
		w->h[i] = synth_host__new(w->path[i], names[i], NULL, 1000 + (uint32_t)i);
		if (!w->h[i])
			return -1;
		synth_addr(w->h[i], addrs[i]);
	}
	synth_task(w->h[1], 0, 300, 300, VPR_TASK_SNAPSHOT, "web");
	w->l1 = synth_link__open(w->h[0], 1, 900, w->h[1], 11, 300, "10.0.0.9:40001", "10.0.0.1:80",
				 0);
	w->l2 = synth_link__open(w->h[0], 2, 900, w->h[1], 12, 300, "10.0.0.9:40002", "10.0.0.1:80",
				 0);
	w->d1 = synth_link__open(w->h[1], 21, 300, w->h[2], 31, 400, "10.0.0.1:50001",
				 "10.0.0.2:5432", 0);
	w->d2 = synth_link__open(w->h[1], 22, 300, w->h[2], 32, 400, "10.0.0.1:50002",
				 "10.0.0.2:5432", 0);
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;

	synth_link__free(w->l1);
	synth_link__free(w->l2);
	synth_link__free(w->d1);
	synth_link__free(w->d2);
	collected_free(&w->c);
	synth_rmdir(w->dir);
	free(w);
	return 0;
}

static const char *analyze(struct world *w)
{
	for (int i = 0; i < 3; i++) {
		assert_int_equal(synth_host__close(w->h[i]), 0);
		w->h[i] = NULL;
	}
	assert_int_equal(collect_run(&w->c, w->files, 3, NULL), 0);
	return collected_sigs(&w->c);
}

/* The lines of request i's root call as "text/basis/exact" joined by ", ". */
static const char *lines_of(struct world *w, size_t i, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	assert_true(i < w->c.n);
	for (const struct vp_logline *l = w->c.reqs[i]->root->logs; l && at < len; l = l->next)
		at += (size_t)snprintf(buf + at, len - at, "%s%s/%s/%s", at ? ", " : "", l->text,
				       vp_basis_name(l->link.basis),
				       l->link.exact ? "exact" : "inferred");
	return buf;
}

/* Every connection closes at 200 us (closing frees a link). */
static void close_links(struct world *w)
{
	synth_link__close(w->l1, US(200));
	synth_link__close(w->l2, US(200));
	synth_link__close(w->d1, US(200));
	synth_link__close(w->d2, US(200));
	w->l1 = w->l2 = w->d1 = w->d2 = NULL;
}

static void test_thread_per_connection(void **state)
{
	struct world *w = *state;
	char b[512];

	synth_req(w->l1, 100, 901, US(100), 301);
	synth_log(w->h[1], US(106), 300, 301, INO, "start 1\n");
	synth_log(w->h[1], US(107), 300, 399, INO,
		  "tick\n"); /* housekeeping: no socket, no request */
	synth_req(w->l2, 100, 902, US(108), 302);
	synth_log(w->h[1], US(114), 300, 302, INO, "start 2\nsecond line of 2\n");
	synth_req(w->d1, 50, 301, US(120), 401);
	synth_log(w->h[1], US(122), 300, 302, INO, "end of 2 ");
	synth_rep(w->l2, 500, 302, US(125), 902);
	synth_log(w->h[1], US(128), 300, 302, INO, "written in two\n");
	synth_rep(w->d1, 70, 401, US(131), 301);
	synth_log(w->h[1], US(140), 300, 301, INO, "end 1\n");
	synth_rep(w->l1, 500, 301, US(141), 901);
	synth_log(w->h[1], US(150), 300, 399, INO, "tick\n");
	close_links(w);

	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401) | lg/902>web/302");
	/*
	 * "start 1" came while thread 301 was the process's only reader: a lone
	 * reader may be an event loop writing a timer's line, so not exact.
	 */
	assert_string_equal(lines_of(w, 0, b, sizeof(b)),
			    "start 1/thread/inferred, end 1/thread/exact");
	assert_string_equal(lines_of(w, 1, b, sizeof(b)),
			    "start 2/thread/inferred, second line of 2/thread/inferred, "
			    "end of 2 written in two/thread/exact");
	/* Lines of the db host's threads: none were written. */
	assert_null(w->c.reqs[0]->root->calls[0]->logs);
}

/* A dispatcher reads both requests; each worker's lines go to the request its reply answers. */
static void test_workers_by_reply(void **state)
{
	struct world *w = *state;
	char b[512];

	synth_req(w->l1, 100, 901, US(100), 310);
	synth_req(w->l2, 100, 902, US(101), 310);
	synth_log(w->h[1], US(107), 300, 310, INO, "dispatched\n");
	synth_log(w->h[1], US(109), 300, 312, INO, "worker on 2\n");
	synth_req(w->d2, 50, 312, US(110), 402);
	synth_log(w->h[1], US(111), 300, 311, INO, "worker on 1\n");
	synth_req(w->d1, 50, 311, US(112), 401);
	synth_rep(w->d1, 70, 401, US(130), 311);
	synth_rep(w->d2, 70, 402, US(131), 312);
	synth_rep(w->l1, 500, 311, US(140), 901);
	synth_rep(w->l2, 500, 312, US(141), 902);

	assert_string_equal(analyze(w),
			    "lg/901>web/311(web/311>db/401) | lg/902>web/312(web/312>db/402)");
	assert_string_equal(lines_of(w, 0, b, sizeof(b)), "worker on 1/handoff/exact");
	/* The dispatcher's line: the last request it read, among two in flight. */
	assert_string_equal(lines_of(w, 1, b, sizeof(b)),
			    "dispatched/last-input/inferred, worker on 2/handoff/exact");
}

/* An event loop (one thread, two connections): a line after a reply is the answered request's. */
static void test_event_loop_after_reply(void **state)
{
	struct world *w = *state;
	char b[512];

	synth_req(w->l1, 100, 901, US(100), 301);
	synth_log(w->h[1], US(106), 300, 301, INO, "start 1\n");
	synth_req(w->l2, 100, 902, US(108), 301);
	synth_log(w->h[1], US(114), 300, 301, INO, "start 2\n");
	synth_rep(w->l1, 500, 301, US(120), 901);
	synth_log(w->h[1], US(126), 300, 301, INO, "end 1\n");
	synth_rep(w->l2, 500, 301, US(130), 902);
	synth_log(w->h[1], US(136), 300, 301, INO, "end 2\n");
	close_links(w);

	assert_string_equal(analyze(w), "lg/901>web/301 | lg/902>web/301");
	/* A lone reader with one connection yet: maybe an event loop, so not exact. */
	assert_string_equal(lines_of(w, 0, b, sizeof(b)),
			    "start 1/thread/inferred, end 1/last-reply/inferred");
	assert_string_equal(lines_of(w, 1, b, sizeof(b)),
			    "start 2/last-input/inferred, end 2/last-input/inferred");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_thread_per_connection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_loop_after_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_workers_by_reply, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
