// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Pairs decided outside (pairs.h, `--pairs FILE`): the matcher pairs the
 * ends a pairs file names and no others, and a file it cannot use is
 * refused with one line naming it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../lib/twohosts.h"
#include "pairs.h"

#define US(x) ((uint64_t)(x)*1000)

struct fixture {
	struct two_hosts *t;
	uint32_t seq[2]; /* where each call's request began */
	char path[160];
};

/* Two calls on one reused 4-tuple: only stream positions tell them apart. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct synth_link *l;

	if (!f || !(f->t = two_hosts__new("cli", "10.0.0.9", "srv", "10.0.0.1")))
		return -1;
	l = synth_link__open(f->t->a, 1, 90, f->t->b, 11, 30, "10.0.0.9:40000", "10.0.0.1:80",
			     US(10));
	f->seq[0] = l->seq[SYNTH_C2S];
	synth_req(l, 100, 91, US(100), 31);
	synth_rep(l, 200, 31, US(110), 91);
	synth_link__close(l, US(120));
	l = synth_link__open(f->t->a, 2, 90, f->t->b, 12, 30, "10.0.0.9:40000", "10.0.0.1:80",
			     US(130));
	f->seq[1] = l->seq[SYNTH_C2S];
	synth_req(l, 100, 92, US(140), 32);
	synth_rep(l, 300, 32, US(150), 92);
	synth_link__close(l, US(160));
	snprintf(f->path, sizeof(f->path), "%s/pairs.tsv", f->t->dir);
	*state = f;
	return two_hosts__close(f->t);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unlink(f->path);
	two_hosts__free(f->t);
	free(f);
	return 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* Analyze with the pairs file: the requests' signatures, or NULL with the error in err. */
static const char *with_pairs(struct fixture *f, const char *text, char *err, size_t len)
{
	struct vp_analysis_opts o = {.pairs = f->path};
	static char sigs[512];

	if (text)
		write_file(f->path, text);
	collected_free(&f->t->c);
	if (collect_run(&f->t->c, f->t->files, 2, &o)) {
		snprintf(err, len, "%s", f->t->c.err);
		return NULL;
	}
	snprintf(sigs, sizeof(sigs), "%s", collected_sigs(&f->t->c));
	return sigs;
}

static void test_pairs_decide(void **state)
{
	struct fixture *f = *state;
	char text[512], err[512] = "";
	const char *sigs;

	assert_int_equal(collect_run(&f->t->c, f->t->files, 2, NULL), 0);
	assert_string_equal(collected_sigs(&f->t->c), "cli/91>srv/31 | cli/92>srv/32");

	/* Both calls named: what the matcher found. */
	snprintf(text, sizeof(text),
		 VP_PAIRS_MAGIC "\nboot-cli/1\t1\tboot-srv/2\t11\t%u\n"
				"boot-cli/1\t2\tboot-srv/2\t12\t%u\n",
		 f->seq[0], f->seq[1]);
	sigs = with_pairs(f, text, err, sizeof(err));
	assert_non_null(sigs);
	assert_string_equal(sigs, "cli/91>srv/31 | cli/92>srv/32");

	/* The second call not named: its ends stay apart, each a request of its own. */
	snprintf(text, sizeof(text), VP_PAIRS_MAGIC "\nboot-cli/1\t1\tboot-srv/2\t11\t%u\n",
		 f->seq[0]);
	sigs = with_pairs(f, text, err, sizeof(err));
	assert_non_null(sigs);
	assert_string_equal(sigs, "cli/91>srv/31 | cli/92>10.0.0.1:80 | 10.0.0.9:40000>srv/32");
	/* ... and says so: the other end was on a recorded host. */
	assert_true(f->t->c.reqs[0]->complete);
	assert_false(f->t->c.reqs[1]->complete);
	assert_false(f->t->c.reqs[2]->complete);

	/* Pairs of hosts not analyzed are skipped; the file's own hosts still pair. */
	snprintf(text, sizeof(text),
		 VP_PAIRS_MAGIC
		 "\nother/0\t5\tboot-srv/2\t11\t%u\n"
		 "boot-cli/1\t1\tboot-srv/2\t11\t%u\nboot-cli/1\t2\tboot-srv/2\t12\t%u\n",
		 f->seq[0], f->seq[0], f->seq[1]);
	sigs = with_pairs(f, text, err, sizeof(err));
	assert_non_null(sigs);
	assert_string_equal(sigs, "cli/91>srv/31 | cli/92>srv/32");
}

static void refused(struct fixture *f, const char *text, const char *why)
{
	char err[512] = "";

	assert_null(with_pairs(f, text, err, sizeof(err)));
	assert_non_null(strstr(err, f->path));
	assert_non_null(strstr(err, why));
	assert_null(strchr(err, '\n'));
}

static void test_pairs_refused(void **state)
{
	struct fixture *f = *state;
	char text[512];

	refused(f, "", "empty");
	refused(f, "client\tserver\n", "not a pairs file");
	refused(f, VP_PAIRS_MAGIC "\nboot-cli/1\t1\tboot-srv/2\n", ":2: not CLIENT_HOST");
	refused(f, VP_PAIRS_MAGIC "\nboot-cli/1\tx\tboot-srv/2\t11\t5\n", ":2: not CLIENT_HOST");
	refused(f, VP_PAIRS_MAGIC "\nboot-cli/1\t1\tboot-srv/2\t11\t4294967296\n",
		":2: not CLIENT_HOST");
	snprintf(text, sizeof(text),
		 VP_PAIRS_MAGIC "\nboot-cli/1\t1\tboot-srv/2\t11\t%u\n"
				"boot-cli/1\t1\tboot-srv/2\t12\t%u\n",
		 f->seq[0], f->seq[0]);
	refused(f, text, "is in two calls");
	refused(f, VP_PAIRS_MAGIC "\na/0\t1\tb/0\t11\t5\n", "none of its 1 calls");
	f->path[strlen(f->path) - 4] = 0; /* a file that is not there */
	refused(f, NULL, "No such file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pairs_decide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pairs_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
