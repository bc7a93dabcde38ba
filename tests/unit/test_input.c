// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The read stage: files grouped into hosts, segments of a ring recording
 * joined in order, records given out in time order, loss windows from drop
 * records, and one clear error for each kind of bad input.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../lib/synth.h"
#include "input.h"
#include "recfile.h"

static char dir[64];

static int setup(void **state)
{
	return synth_tmpdir(dir, sizeof(dir));
}

static int teardown(void **state)
{
	synth_rmdir(dir);
	return 0;
}

static char *path_of(const char *name)
{
	static char buf[8][128];
	static int k;

	k = (k + 1) % 8;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* A small recording: one op per timestamp in ts[]. */
static void write_ops(const char *name, const char *host, uint32_t netns, const uint64_t *ts, int n)
{
	struct synth_host *h = synth_host__new(path_of(name), host, NULL, netns);

	assert_non_null(h);
	for (int i = 0; i < n; i++)
		synth_op(h, ts[i], 1, 2, 3, VPR_DIR_SEND, 1, (uint32_t)i + 1);
	assert_int_equal(synth_host__close(h), 0);
}

static int open_input(struct vp_input **in, char **files, int n, char *err, size_t len)
{
	return vp_input__open(in, files, n, NULL, err, len);
}

/* Records out of order inside the reorder window come out sorted. */
static void test_time_order(void **state)
{
	const uint64_t ts[] = {100, 300, 200, 500, 400, 600, 1000, 900};
	char *files[] = {path_of("a.vpr")};
	const struct vpr_hdr *rec;
	struct vp_input *in;
	char err[256];
	uint64_t last = 0;
	int n = 0;

	write_ops("a.vpr", "a", 1, ts, 8);
	assert_int_equal(open_input(&in, files, 1, err, sizeof(err)), 0);
	assert_int_equal(vp_input__nhosts(in), 1);
	while ((rec = vp_input__next(in, 0))) {
		assert_true(rec->ts_ns >= last);
		last = rec->ts_ns;
		n++;
	}
	assert_int_equal(n, 8);
	assert_int_equal(vp_input__host(in, 0)->late, 0);
	assert_int_equal(vp_input__host(in, 0)->first_ts, 100);
	assert_int_equal(vp_input__host(in, 0)->last_ts, 1000);
	vp_input__free(in);
}

/*
 * Records longer than a socket operation (connections, tasks) are kept
 * apart from the window's slots (input.c): out of order among operations,
 * and more of them at once than one allocation of that store holds, each
 * still comes out whole, in time order, with its own contents.
 */
static void test_long_records_out_of_order(void **state)
{
	char *files[] = {path_of("m.vpr")};
	struct synth_host *h = synth_host__new(path_of("m.vpr"), "m", NULL, 1);
	const struct vpr_hdr *rec;
	struct vp_input *in;
	char err[256];
	uint64_t last = 0;
	int ops = 0, conns = 0, tasks = 0;
	const int n = 3000;

	assert_non_null(h);
	/* Each group of 3: an op, then a connection and a task stamped before it. */
	for (int i = 0; i < n; i++) {
		uint64_t t = 1000 + (uint64_t)i * 10;

		synth_op(h, t + 9, 7, 8, 100 + (uint64_t)i, VPR_DIR_SEND, 5, (uint32_t)i + 5);
		synth_conn(h, t + 3, 100 + (uint64_t)i, 7, VPR_ROLE_CONNECTED, 0, 1,
			   "10.0.0.1:1000", "10.0.0.2:80", (uint32_t)i, 0);
		synth_task(h, t + 6, 7, 1000 + (uint32_t)i, 0, "worker");
	}
	assert_int_equal(synth_host__close(h), 0);
	assert_int_equal(open_input(&in, files, 1, err, sizeof(err)), 0);
	while ((rec = vp_input__next(in, 0))) {
		uint64_t i = (rec->ts_ns - 1000) / 10, at = (rec->ts_ns - 1000) % 10;

		assert_true(rec->ts_ns >= last);
		last = rec->ts_ns;
		if (rec->type == VPR_SOCK_OP) {
			const struct vpr_sock_op *op = (const void *)rec;

			assert_int_equal(at, 9);
			assert_int_equal(op->cookie, 100 + i);
			assert_int_equal(op->seq_end, i + 5);
			ops++;
		} else if (rec->type == VPR_CONN) {
			const struct vpr_conn *c = (const void *)rec;

			assert_int_equal(at, 3);
			assert_int_equal(rec->size, sizeof(*c));
			assert_int_equal(c->cookie, 100 + i);
			assert_int_equal(c->snd_seq, i);
			conns++;
		} else if (rec->type == VPR_TASK) {
			const struct vpr_task *t = (const void *)rec;

			assert_int_equal(at, 6);
			assert_int_equal(rec->tid, 1000 + i);
			assert_string_equal(t->comm, "worker");
			tasks++;
		}
	}
	assert_int_equal(ops, n);
	assert_int_equal(conns, n);
	assert_int_equal(tasks, n);
	assert_int_equal(vp_input__host(in, 0)->late, 0);
	vp_input__free(in);
}

/*
 * A record further out of order than the reorder window comes out late,
 * after records stamped later: the span it was late by becomes a loss
 * window (no record counted lost), so the requests it touches are not
 * called complete.
 */
static void test_late_record_is_a_loss_window(void **state)
{
	const uint64_t ts[] = {1000000, 100000000, 200000000, 50000000};
	char *files[] = {path_of("late.vpr")};
	const struct vp_host *h;
	struct vp_input *in;
	char err[256];

	write_ops("late.vpr", "a", 1, ts, 4);
	assert_int_equal(open_input(&in, files, 1, err, sizeof(err)), 0);
	while (vp_input__next(in, 0))
		;
	h = vp_input__host(in, 0);
	assert_int_equal(h->late, 1);
	assert_int_equal(h->lost, 0);
	assert_true(vp_host__lost_between(h, 60000000, 70000000));
	assert_false(vp_host__lost_between(h, 1000000, 2000000));
	assert_false(vp_host__lost_between(h, 150000000, 200000000));
	vp_input__free(in);
}

/* Segments of one ring recording (given in any order) are one host, read in segment order. */
static void test_segments_form_one_host(void **state)
{
	char *files[] = {path_of("s2.vpr"), path_of("other.vpr"), path_of("s1.vpr")};
	const struct vpr_hdr *rec;
	struct synth_host *h;
	struct vp_input *in;
	char err[256];
	uint64_t seen[4];
	int n = 0;

	h = synth_host__new_segment(files[2], "web", "B1", 7, 1);
	synth_op(h, 10, 1, 2, 3, VPR_DIR_SEND, 1, 1);
	synth_op(h, 20, 1, 2, 3, VPR_DIR_SEND, 1, 2);
	assert_int_equal(synth_host__close(h), 0);
	h = synth_host__new_segment(files[0], "web", "B1", 7, 2);
	synth_op(h, 30, 1, 2, 3, VPR_DIR_SEND, 1, 3);
	assert_int_equal(synth_host__close(h), 0);
	h = synth_host__new(files[1], "web", "B1", 8); /* same machine, other netns: another host */
	assert_int_equal(synth_host__close(h), 0);

	assert_int_equal(open_input(&in, files, 3, err, sizeof(err)), 0);
	assert_int_equal(vp_input__nhosts(in), 2);
	assert_int_equal(vp_input__host(in, 0)->nfiles, 2);
	assert_string_equal(vp_input__host(in, 0)->files[0], files[2]);
	/* Two hosts named "web": names are made unique with the netns. */
	assert_string_equal(vp_input__host(in, 0)->name, "web#7");
	assert_string_equal(vp_input__host(in, 1)->name, "web#8");
	while ((rec = vp_input__next(in, 0)) && n < 4)
		seen[n++] = rec->ts_ns;
	assert_int_equal(n, 3);
	assert_int_equal(seen[0], 10);
	assert_int_equal(seen[2], 30);
	vp_input__free(in);
}

/* Drop records become loss windows: between the previous count of that CPU and this one. */
static void test_loss_windows(void **state)
{
	char *files[] = {path_of("l.vpr")};
	struct synth_host *h = synth_host__new(files[0], "l", NULL, 1);
	struct vp_input *in;
	struct vp_host *ho;
	char err[256];

	synth_op(h, 100, 1, 2, 3, VPR_DIR_SEND, 1, 1);
	synth_drops(h, 1000, 0, 0);
	synth_drops(h, 1000, 1, 0);
	synth_drops(h, 2000, 0, 5); /* cpu 0 lost 5 in (1000, 2000] */
	synth_drops(h, 3000, 1, 0); /* cpu 1 lost nothing */
	synth_drops(h, 4000, 0, 5); /* no change */
	synth_drops(h, 5000, 1, 2); /* cpu 1 lost 2 in (3000, 5000] */
	synth_op(h, 6000, 1, 2, 3, VPR_DIR_SEND, 1, 2);
	assert_int_equal(synth_host__close(h), 0);
	assert_int_equal(open_input(&in, files, 1, err, sizeof(err)), 0);
	while (vp_input__next(in, 0))
		;
	ho = vp_input__host(in, 0);
	assert_int_equal(ho->lost, 7);
	assert_int_equal(ho->nlosses, 2);
	assert_true(vp_host__lost_between(ho, 1500, 1600));
	assert_true(vp_host__lost_between(ho, 900, 1100));
	assert_false(vp_host__lost_between(ho, 2100, 2900));
	assert_true(vp_host__lost_between(ho, 4500, 9000));
	assert_false(vp_host__lost_between(ho, 5500, 9000));
	vp_input__free(in);
}

/*
 * Loss windows stay sorted and disjoint however many there are: the CPUs
 * that lost records in one tick overlap and become one window, a drop
 * record that comes late merges with the windows it overlaps, and a lookup
 * finds exactly the windows a brute-force scan would.
 */
static void test_loss_windows_many(void **state)
{
	char *files[] = {path_of("many.vpr")};
	struct synth_host *h = synth_host__new(files[0], "many", NULL, 1);
	const uint64_t n = 20000;
	struct vp_input *in;
	struct vp_host *ho;
	char err[256];

	/* Window k: cpus 0 and 1 lose a record in (10k+1, 10k+5] and (10k+2, 10k+6]. */
	for (uint64_t k = 1; k <= n; k++) {
		synth_drops(h, 10 * k + 1, 0, k - 1);
		synth_drops(h, 10 * k + 2, 1, k - 1);
		synth_drops(h, 10 * k + 5, 0, k);
		synth_drops(h, 10 * k + 6, 1, k);
	}
	synth_drops(h, 10 * n + 3, 2, 0);
	synth_drops(h, 10 * n + 8, 2, 1); /* cpu 2: (10n+3, 10n+8], overlaps the last window */
	assert_int_equal(synth_host__close(h), 0);
	assert_int_equal(open_input(&in, files, 1, err, sizeof(err)), 0);
	while (vp_input__next(in, 0))
		;
	ho = vp_input__host(in, 0);
	assert_int_equal(ho->lost, 2 * n + 1);
	assert_int_equal(ho->nlosses, n);
	for (size_t i = 1; i < ho->nlosses; i++)
		assert_true(ho->losses[i - 1].to_ns < ho->losses[i].from_ns);
	for (uint64_t t = 0; t < 10 * n + 20; t++) {
		bool brute = false;

		if (t < 10 * n - 40 && t % 997) /* the brute force is slow: its end and a sample */
			continue;
		for (uint64_t k = 1; k <= n && !brute; k++)
			brute = 10 * k + 1 <= t + 2 && (k == n ? 10 * n + 8 : 10 * k + 6) >= t;
		assert_int_equal(vp_host__lost_between(ho, t, t + 2), brute);
	}
	vp_input__free(in);
}

/*
 * The recorder writes a clock record each tick and then the counts of the
 * CPUs whose count changed: loss lies between the previous tick and this
 * one, even when the CPU's previous count is much older.  Loss is known
 * (loss_known_ns) once the stream is past a tick.
 */
static void test_loss_between_ticks(void **state)
{
	const uint64_t ms = 1000000;
	char *files[] = {path_of("ticks.vpr")};
	struct synth_host *h = synth_host__new(files[0], "ticks", NULL, 1);
	struct vp_input *in;
	struct vp_host *ho;
	const struct vpr_hdr *rec;
	char err[256];

	synth_drops(h, 0, 0, 0); /* start: every CPU */
	for (uint64_t t = 1; t <= 4; t++) {
		synth_clock(h, t * 1000 * ms, 0);
		if (t == 4)
			synth_drops(h, t * 1000 * ms + 1000, 0, 9); /* lost during the 4th second */
		synth_op(h, t * 1000 * ms + 500 * ms, 1, 2, 3, VPR_DIR_SEND, 1, (uint32_t)t);
	}
	assert_int_equal(synth_host__close(h), 0);
	assert_int_equal(open_input(&in, files, 1, err, sizeof(err)), 0);
	ho = vp_input__host(in, 0);
	while ((rec = vp_input__next(in, 0))) {
		if (rec->type == VPR_SOCK_OP && rec->ts_ns == 2500 * ms)
			assert_int_equal(ho->loss_known_ns, 2000 * ms);
	}
	assert_true(ho->has_clock);
	assert_int_equal(ho->nlosses, 1);
	assert_int_equal(ho->losses[0].from_ns, 3000 * ms);
	assert_false(vp_host__lost_between(ho, 2000 * ms, 2900 * ms));
	assert_true(vp_host__lost_between(ho, 3500 * ms, 3600 * ms));
	vp_input__free(in);
}

/*
 * Wall-clock steps: realtime - monotonic moving by more than VP_WALL_STEP_NS
 * between two clock records is counted and the largest kept; a slew (a few
 * ms over a second) is not.  Record times stay monotonic whatever realtime says.
 */
static void test_wall_steps(void **state)
{
	const int64_t s = 1000000000;
	/* realtime - monotonic per tick: 5 ms of slew, +300 s, -180 s, a 50 ms slew */
	const int64_t wall[] = {0, 0, 5000000, 300 * s, 120 * s, 120 * s + 50000000};
	char *files[] = {path_of("wall.vpr")};
	struct synth_host *h = synth_host__new(files[0], "wall", NULL, 1);
	struct vp_input *in;
	struct vp_host *ho;
	const struct vpr_hdr *rec;
	uint64_t last = 0;
	char err[256];

	for (int t = 1; t <= 6; t++) {
		synth_clock(h, (uint64_t)(t * s), (uint64_t)(1700000000 * s + t * s + wall[t - 1]));
		synth_op(h, (uint64_t)(t * s + s / 2), 1, 2, 3, VPR_DIR_SEND, 1, (uint32_t)t);
	}
	assert_int_equal(synth_host__close(h), 0);
	assert_int_equal(open_input(&in, files, 1, err, sizeof(err)), 0);
	ho = vp_input__host(in, 0);
	while ((rec = vp_input__next(in, 0))) {
		assert_true(rec->ts_ns >= last);
		last = rec->ts_ns;
	}
	assert_int_equal(ho->wall_steps, 2);
	assert_int_equal(ho->wall_step_ns, 300 * s - 5000000);
	assert_int_equal(ho->wall_step_at_ns, 4 * s);
	vp_input__free(in);
}

/* A torn tail is used up to the damage and reported; the host is marked truncated. */
static void test_torn_tail(void **state)
{
	char *files[] = {path_of("t.vpr")};
	struct synth_host *h = synth_host__new(files[0], "t", NULL, 1);
	struct vp_input *in;
	struct stat st;
	char err[256];
	int n = 0;

	for (int i = 0; i < 200000; i++) /* several blocks, packed */
		synth_op(h, (uint64_t)i, 1, 2, 3, VPR_DIR_SEND, 1, (uint32_t)i);
	assert_int_equal(synth_host__close(h), 0);
	assert_int_equal(stat(files[0], &st), 0);
	assert_int_equal(truncate(files[0], st.st_size - 100), 0);
	assert_int_equal(open_input(&in, files, 1, err, sizeof(err)), 0);
	while (vp_input__next(in, 0))
		n++;
	assert_true(n > 0 && n < 200000);
	assert_true(vp_input__host(in, 0)->truncated);
	assert_false(vp_input__host(in, 0)->corrupt);
	assert_non_null(strstr(vp_input__host(in, 0)->damage, "truncated at offset"));
	vp_input__free(in);
}

static void expect_error(char **files, int n, const char *want)
{
	struct vp_input *in = NULL;
	char err[512] = "";

	assert_true(open_input(&in, files, n, err, sizeof(err)) < 0);
	assert_null(in);
	if (!strstr(err, want))
		fail_msg("error '%s' does not say '%s'", err, want);
}

static void test_bad_inputs(void **state)
{
	char *missing[] = {path_of("missing.vpr")};
	char *junk[] = {path_of("junk.vpr")};
	char *twice[] = {path_of("x1.vpr"), path_of("x2.vpr")};
	char *version[] = {path_of("v.vpr")};
	struct vpr_file_header hdr;
	FILE *f;

	expect_error(missing, 1, "missing.vpr: cannot open");
	f = fopen(junk[0], "w");
	assert_non_null(f);
	fputs("this is not a recording at all, but long enough to have a header .....\n", f);
	fclose(f);
	expect_error(junk, 1, "junk.vpr: not a vpath recording");
	write_ops("x1.vpr", "dup", 5, NULL, 0);
	write_ops("x2.vpr", "dup", 5, NULL, 0);
	expect_error(twice, 2, "two recordings of the same host");
	/* A future format version. */
	write_ops("v.vpr", "v", 1, NULL, 0);
	f = fopen(version[0], "r+");
	assert_non_null(f);
	assert_int_equal(fread(&hdr, sizeof(hdr), 1, f), 1);
	hdr.version = 99;
	vpr_file_header__seal(&hdr);
	hdr.version = 99;
	rewind(f);
	assert_int_equal(fwrite(&hdr, sizeof(hdr), 1, f), 1);
	fclose(f);
	expect_error(version, 1, "unsupported format version 99");
	expect_error(NULL, 0, "no recording given");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_order),
		cmocka_unit_test(test_long_records_out_of_order),
		cmocka_unit_test(test_late_record_is_a_loss_window),
		cmocka_unit_test(test_segments_form_one_host),
		cmocka_unit_test(test_loss_windows),
		cmocka_unit_test(test_loss_windows_many),
		cmocka_unit_test(test_loss_between_ticks),
		cmocka_unit_test(test_wall_steps),
		cmocka_unit_test(test_torn_tail),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
