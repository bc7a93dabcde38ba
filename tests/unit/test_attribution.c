// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Attribution (paper §2.3, BorderPatrol §5.5) on hand-written recordings:
 * each test writes what the threads of a small system did, then checks the
 * call trees found (collect.h signatures) and the process model named.
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

#define US(x) ((uint64_t)(x) * 1000)

/* A loader (lg), a front end (web), a database (db) and an app tier, each its own host. */
struct world {
	char dir[64];
	char path[4][128];
	char *files[4];
	struct synth_host *lg, *web, *app, *db;
	struct collected c;
};

static int setup(void **state)
{
	static const char *const names[] = {"lg", "web", "app", "db"};
	static const char *const addrs[] = {"10.0.0.9", "10.0.0.1", "10.0.0.3", "10.0.0.2"};
	struct world *w = calloc(1, sizeof(*w));
	struct synth_host **hs[] = {&w->lg, &w->web, &w->app, &w->db};

	if (!w || synth_tmpdir(w->dir, sizeof(w->dir)))
		return -1;
	for (int i = 0; i < 4; i++) {
		snprintf(w->path[i], sizeof(w->path[i]), "%s/%s.vpr", w->dir, names[i]);
		w->files[i] = w->path[i];
		*hs[i] = synth_host__new(w->path[i], names[i], NULL, 1000 + (uint32_t)i);
		if (!*hs[i])
			return -1;
		synth_addr(*hs[i], addrs[i]);
	}
	synth_task(w->lg, 0, 900, 900, VPR_TASK_SNAPSHOT, "loadgen");
	synth_task(w->web, 0, 300, 300, VPR_TASK_SNAPSHOT, "web");
	synth_task(w->db, 0, 400, 400, VPR_TASK_SNAPSHOT, "db");
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;

	collected_free(&w->c);
	synth_rmdir(w->dir);
	free(w);
	return 0;
}

/* Close the recordings and analyze them; returns the signatures. */
static const char *analyze(struct world *w)
{
	struct synth_host **hs[] = {&w->lg, &w->web, &w->app, &w->db};

	for (int i = 0; i < 4; i++) {
		assert_int_equal(synth_host__close(*hs[i]), 0);
		*hs[i] = NULL;
	}
	assert_int_equal(collect_run(&w->c, w->files, 4, NULL), 0);
	return collected_sigs(&w->c);
}

static const char *model_of(struct world *w, const char *host, unsigned pid)
{
	const struct vp_proc *p = collected_proc(&w->c, host, pid);

	assert_non_null(p);
	return vp_model_name(vp_proc__model(p));
}

/* Two clients, one web thread per connection, each calls the database once. */
static void test_thread_per_connection(void **state)
{
	struct world *w = *state;
	struct synth_link *l1, *l2, *d1, *d2;

	l1 = synth_link__open(w->lg, 1, 900, w->web, 11, 300, "10.0.0.9:40001", "10.0.0.1:80", 0);
	l2 = synth_link__open(w->lg, 2, 900, w->web, 12, 300, "10.0.0.9:40002", "10.0.0.1:80", 0);
	d1 = synth_link__open(w->web, 21, 300, w->db, 31, 400, "10.0.0.1:50001", "10.0.0.2:5432", 0);
	d2 = synth_link__open(w->web, 22, 300, w->db, 32, 400, "10.0.0.1:50002", "10.0.0.2:5432", 0);
	synth_req(l1, 100, 901, US(100), 301);
	synth_req(l2, 100, 902, US(101), 302);
	synth_req(d1, 50, 301, US(120), 401);
	synth_req(d2, 50, 302, US(121), 402);
	synth_rep(d2, 70, 402, US(130), 302);
	synth_rep(d1, 70, 401, US(131), 301);
	synth_rep(l2, 500, 302, US(140), 902);
	synth_rep(l1, 500, 301, US(141), 901);
	synth_link__close(l1, US(200));
	synth_link__close(l2, US(200));
	synth_link__close(d1, US(200));
	synth_link__close(d2, US(200));

	assert_string_equal(analyze(w), "lg/901>web/301(web/301>db/401) | lg/902>web/302(web/302>db/402)");
	assert_true(w->c.reqs[0]->complete);
	assert_int_equal(w->c.reqs[0]->root->request_bytes, 100);
	assert_int_equal(w->c.reqs[0]->root->reply_bytes, 500);
	assert_int_equal(w->c.reqs[0]->nhosts, 3);
	assert_string_equal(model_of(w, "web", 300), "thread-per-request");
	assert_string_equal(model_of(w, "lg", 900), "client");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_thread_per_connection, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
