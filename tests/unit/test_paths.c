// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Paths across hosts: clock offsets estimated from messages (not wall
 * clocks), completeness under lost events and truncated recordings, and
 * the outputs built from the trees (JSON per docs/json.md, patterns).
 */
#include <cjson/cJSON.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../lib/twohosts.h"
#include "output.h"

#define US(x) ((uint64_t)(x)*1000)
#define SEC(x) ((uint64_t)(x)*1000000000ull)

static int setup(void **state)
{
	*state = two_hosts__new("web", "10.0.0.1", "db", "10.0.0.2");
	return *state ? 0 : -1;
}

/* The hosts written unpacked (format 1), for a story of several blocks of few records. */
static int setup_unpacked(void **state)
{
	synth_version = 1;
	*state = two_hosts__new("web", "10.0.0.1", "db", "10.0.0.2");
	synth_version = 0;
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	two_hosts__free(*state);
	return 0;
}

static void close_hosts(struct two_hosts *t)
{
	assert_int_equal(two_hosts__close(t), 0);
}

/*
 * On the common timeline a request is read after it was sent and a reply
 * after it was sent (between machines: within one machine a receive may be
 * stamped a little before its send returns), and a call starts neither
 * before its parent call started nor before its parent's server read the
 * request that caused it.
 */
static void assert_causal(const struct vp_analysis *a, const struct vp_call *c)
{
	if (c->client.recorded && c->server.recorded &&
	    strcmp(vp_analysis__host(a, (size_t)c->client.host)->boot_id,
		   vp_analysis__host(a, (size_t)c->server.host)->boot_id)) {
		if (c->srv_req_first < c->start_ns || c->srv_rep_last > c->end_ns)
			fail_msg("call at %lld..%lld served at %lld..%lld", (long long)c->start_ns,
				 (long long)c->end_ns, (long long)c->srv_req_first,
				 (long long)c->srv_rep_last);
	}
	for (size_t i = 0; i < c->ncalls; i++) {
		const struct vp_call *k = c->calls[i];

		if (k->start_ns < c->start_ns ||
		    (c->server.recorded && k->start_ns < c->srv_req_first))
			fail_msg("call at %lld starts before its parent %lld (read at %lld)",
				 (long long)k->start_ns, (long long)c->start_ns,
				 (long long)c->srv_req_first);
		assert_causal(a, k);
	}
}

/* Another recording in the fixture's directory: path gets its name. */
static struct synth_host *extra_host(struct two_hosts *t, char *path, size_t len, const char *name,
				     const char *boot_id, uint32_t netns, const char *addr)
{
	struct synth_host *h;

	snprintf(path, len, "%s/%s.vpr", t->dir, name);
	h = synth_host__new(path, name, boot_id, netns);
	assert_non_null(h);
	synth_addr(h, addr);
	return h;
}

/* n requests from an external client to web, each calling db once, 1 ms apart. */
static void traffic(struct two_hosts *t, int n, uint64_t t0)
{
	struct synth_link *in, *d;

	in = synth_link__open(NULL, 0, 0, t->a, 11, 30, "192.168.1.1:50000", "10.0.0.1:80", t0);
	d = synth_link__open(t->a, 21, 30, t->b, 31, 40, "10.0.0.1:50001", "10.0.0.2:5432", t0);
	for (int i = 0; i < n; i++) {
		uint64_t s = t0 + US(1000) * (uint64_t)(i + 1);

		synth_req(in, 100, 0, s, 31);
		synth_req(d, 10, 31, s + US(10), 41);
		synth_rep(d, 20, 41, s + US(40), 31);
		synth_rep(in, 100, 31, s + US(60), 0);
	}
	synth_link__free(in);
	synth_link__free(d);
}

/*
 * db's monotonic clock is 7 s ahead of web's (its wall clock says nothing
 * useful): calls still pair, the offset is learned from the messages, and
 * on the common timeline each call lies inside its parent.
 */
static void test_clock_offset_from_messages(void **state)
{
	struct two_hosts *t = *state;
	int64_t off;

	synth_host__set_clock(t->b, (int64_t)SEC(7));
	traffic(t, 20, US(100));
	close_hosts(t);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
	assert_int_equal(t->c.n, 20);
	off = vp_analysis__offset(t->c.a, 1);
	/* Truth is -7 s; one-way delays of 5 us bound the estimate within 5 us. */
	assert_true(off <= -(int64_t)SEC(7) + (int64_t)US(5) &&
		    off >= -(int64_t)SEC(7) - (int64_t)US(5));
	for (size_t i = 0; i < t->c.n; i++) {
		const struct vp_call *r = t->c.reqs[i]->root;

		assert_int_equal(r->ncalls, 1);
		assert_true(r->calls[0]->server.recorded);
		assert_causal(t->c.a, r);
	}
}

/*
 * db's recorder started with its wall clock an hour ahead: until messages
 * align it, its records lie an hour late on the timeline, read after all of
 * web's.  web's calls wait for them (not the usual 10 s: the recordings'
 * starts are an hour apart), so each pairs once: no call given up, none
 * also found as a root of its own.
 */
static void test_clock_wall_an_hour_ahead(void **state)
{
	struct two_hosts *t = *state;
	int64_t off;

	assert_int_equal(synth_host__close(t->b), 0);
	t->b = synth_host__new_wall(t->pb, "db", NULL, 2, (int64_t)SEC(3600));
	assert_non_null(t->b);
	synth_addr(t->b, "10.0.0.2");
	traffic(t, 600, US(100));
	close_hosts(t);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
	assert_int_equal(t->c.n, 600);
	off = vp_analysis__offset(t->c.a, 1);
	assert_true(off <= (int64_t)US(5) && off >= -(int64_t)US(5));
	for (size_t i = 0; i < t->c.n; i++) {
		const struct vp_call *r = t->c.reqs[i]->root;

		assert_true(t->c.reqs[i]->complete);
		assert_int_equal(r->ncalls, 1);
		assert_true(r->calls[0]->server.recorded);
	}
}

/*
 * Three machines whose clocks are seconds apart, with one-way delays that
 * differ by direction (10 us out, 100 us back between web and db and
 * between db and cache; 10 us both ways between web and cache).  Estimating
 * each pair alone (the middle of its bounds) would put cache 45 us before
 * db and show db's calls to cache received before they were sent; bounds
 * combined along chains of machines keep every message after its send.
 */
static void test_clock_chain_of_machines(void **state)
{
	struct two_hosts *t = *state;
	struct synth_link *in, *wd, *dc, *wc;
	struct synth_host *cache;
	char pc[128], *files[3] = {t->pa, t->pb, pc};
	int64_t off;

	cache = extra_host(t, pc, sizeof(pc), "cache", NULL, 3, "10.0.0.3");
	/* db 5 s ahead of web, cache 4 s behind: shifted so that no clock reads below 0. */
	synth_host__set_clock(t->a, (int64_t)SEC(4));
	synth_host__set_clock(t->b, (int64_t)SEC(9));
	in = synth_link__open(NULL, 0, 0, t->a, 1, 10, "192.168.1.1:50000", "10.0.0.1:80", 0);
	wd = synth_link__open(t->a, 2, 10, t->b, 3, 20, "10.0.0.1:50001", "10.0.0.2:5432", 0);
	dc = synth_link__open(t->b, 4, 20, cache, 5, 30, "10.0.0.2:50002", "10.0.0.3:6379", 0);
	wc = synth_link__open(t->a, 6, 10, cache, 7, 30, "10.0.0.1:50003", "10.0.0.3:6379", 0);
	for (int i = 0; i < 20; i++) {
		uint64_t s = US(1000) * (uint64_t)(i + 1);

		synth_req(in, 100, 0, s, 11);
		synth_xfer(wd, SYNTH_C2S, 10, 11, s + US(10), 21, s + US(20));
		synth_xfer(dc, SYNTH_C2S, 10, 21, s + US(30), 31, s + US(40));
		synth_xfer(dc, SYNTH_S2C, 20, 31, s + US(50), 21, s + US(150));
		synth_xfer(wd, SYNTH_S2C, 20, 21, s + US(160), 11, s + US(260));
		synth_xfer(wc, SYNTH_C2S, 10, 11, s + US(270), 32, s + US(280));
		synth_xfer(wc, SYNTH_S2C, 20, 32, s + US(290), 11, s + US(300));
		synth_rep(in, 100, 11, s + US(310), 0);
	}
	synth_link__free(in);
	synth_link__free(wd);
	synth_link__free(dc);
	synth_link__free(wc);
	assert_int_equal(synth_host__close(cache), 0);
	close_hosts(t);
	assert_int_equal(collect_run(&t->c, files, 3, NULL), 0);
	assert_int_equal(t->c.n, 20);
	off = vp_analysis__offset(t->c.a, 1);
	assert_true(off >= -(int64_t)SEC(5) - (int64_t)US(10) &&
		    off <= -(int64_t)SEC(5) + (int64_t)US(100));
	off = vp_analysis__offset(t->c.a, 2);
	assert_true(off >= (int64_t)SEC(4) - (int64_t)US(10) &&
		    off <= (int64_t)SEC(4) + (int64_t)US(10));
	for (size_t i = 0; i < t->c.n; i++) {
		assert_int_equal(t->c.reqs[i]->ncalls, 4);
		assert_causal(t->c.a, t->c.reqs[i]->root);
	}
}

/*
 * web and db are network namespaces of one machine (same boot_id): they
 * read one clock, so their offsets are equal exactly, even though on one
 * machine db's receive can be stamped before web's send returned (here by
 * 2 us), which an estimate from messages would take for a clock offset.
 * The load generator lg is another machine whose clock is 3 s off.
 */
static void test_clock_same_machine(void **state)
{
	struct two_hosts *t = *state;
	struct synth_host *web, *db, *lg;
	struct synth_link *in, *wd;
	char pw[128], pd[128], pl[128], *files[3] = {pw, pd, pl};
	int64_t off;

	web = extra_host(t, pw, sizeof(pw), "web", "machine-1", 1, "10.0.0.1");
	db = extra_host(t, pd, sizeof(pd), "db", "machine-1", 2, "10.0.0.2");
	lg = extra_host(t, pl, sizeof(pl), "lg", NULL, 1, "10.0.0.9");
	synth_host__set_clock(lg, (int64_t)SEC(3));
	in = synth_link__open(lg, 1, 90, web, 2, 10, "10.0.0.9:40000", "10.0.0.1:80", 0);
	wd = synth_link__open(web, 3, 10, db, 4, 20, "10.0.0.1:50001", "10.0.0.2:5432", 0);
	for (int i = 0; i < 20; i++) {
		uint64_t s = US(1000) * (uint64_t)(i + 1);

		synth_req(in, 100, 91, s, 11);
		synth_xfer(wd, SYNTH_C2S, 10, 11, s + US(10), 21, s + US(8));
		synth_xfer(wd, SYNTH_S2C, 20, 21, s + US(30), 11, s + US(31));
		synth_rep(in, 100, 11, s + US(40), 91);
	}
	synth_link__free(in);
	synth_link__free(wd);
	assert_int_equal(synth_host__close(web), 0);
	assert_int_equal(synth_host__close(db), 0);
	assert_int_equal(synth_host__close(lg), 0);
	assert_int_equal(collect_run(&t->c, files, 3, NULL), 0);
	assert_int_equal(t->c.n, 20);
	assert_int_equal(vp_analysis__offset(t->c.a, 1), 0);
	off = vp_analysis__offset(t->c.a, 2);
	assert_true(off >= -(int64_t)SEC(3) - (int64_t)US(5) &&
		    off <= -(int64_t)SEC(3) + (int64_t)US(5));
	for (size_t i = 0; i < t->c.n; i++) {
		const struct vp_call *r = t->c.reqs[i]->root;

		assert_int_equal(t->c.reqs[i]->ncalls, 2);
		/* The call starts where web's own clock says: 10 us after web read the request. */
		assert_int_equal(r->calls[0]->start_ns - r->srv_req_first, US(10) - SYNTH_DELAY_NS);
		assert_causal(t->c.a, r);
	}
}

/*
 * The recorder lost records on db between 5.5 and 8.5 ms: requests 6..8
 * (db busy from k ms + 15 us to k ms + 45 us) overlap the loss and are
 * incomplete, the others are complete.
 */
static void test_lost_events(void **state)
{
	struct two_hosts *t = *state;

	synth_drops(t->b, US(50), 0, 0);
	synth_drops(t->b, US(5500), 0, 0);
	traffic(t, 12, 0);
	synth_drops(t->b, US(8500), 0, 3);
	close_hosts(t);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
	assert_int_equal(t->c.n, 12);
	for (size_t i = 0; i < t->c.n; i++) {
		bool overlaps = i + 1 >= 6 && i + 1 <= 8;

		if (t->c.reqs[i]->complete == overlaps)
			fail_msg("request %zu: complete=%d", i + 1, t->c.reqs[i]->complete);
		/* Thread-per-request: decided, unless loss touched it. */
		if (t->c.reqs[i]->exact == overlaps)
			fail_msg("request %zu: exact=%d", i + 1, t->c.reqs[i]->exact);
	}
	assert_int_equal(vp_analysis__host(t->c.a, 1)->lost, 3);
}

/*
 * A truncated recording (the recorder was killed): everything before the
 * damage is used, the host is marked truncated, and the requests near the cut
 * are incomplete while those well before it are not.
 */
static void test_truncated_recording(void **state)
{
	struct two_hosts *t = *state;
	struct stat st;

	traffic(t, 5000, 0); /* 2 blocks of records on db (format 1: 80 bytes per request) */
	close_hosts(t);
	assert_int_equal(stat(t->pb, &st), 0);
	assert_int_equal(truncate(t->pb, st.st_size - 64), 0);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
	assert_int_equal(t->c.n, 5000);
	assert_true(vp_analysis__host(t->c.a, 1)->truncated);
	/* Calls before the damage were matched; the ones after it lost their server end. */
	assert_true(t->c.reqs[0]->root->calls[0]->server.recorded);
	assert_false(t->c.reqs[4999]->root->calls[0]->server.recorded);
	assert_false(t->c.reqs[4999]->complete);
	assert_true(t->c.reqs[0]->complete);
}

static FILE *capture(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	assert_non_null(f);
	return f;
}

static void json_of(struct two_hosts *t, char **buf, size_t *len)
{
	struct vp_out_ctx o = {0};

	o.f = capture(buf, len);
	o.a = t->c.a;
	vp_out_json_begin(&o);
	for (size_t i = 0; i < t->c.n; i++)
		vp_out_json_request(&o, t->c.reqs[i]);
	vp_out_json_end(&o);
	fclose(o.f);
}

/* The JSON document has the agreed shape, and says what the tree says. */
static void test_json_schema(void **state)
{
	struct two_hosts *t = *state;
	cJSON *doc, *req, *root, *call, *hosts, *procs;
	char *buf;
	size_t len;

	traffic(t, 2, 0);
	close_hosts(t);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
	json_of(t, &buf, &len);
	doc = cJSON_Parse(buf);
	assert_non_null(doc);
	assert_int_equal(cJSON_GetObjectItem(doc, "version")->valueint, 2);
	hosts = cJSON_GetObjectItem(doc, "hosts");
	assert_int_equal(cJSON_GetArraySize(hosts), 2);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(hosts, 1), "name")->valuestring,
			    "db");
	procs = cJSON_GetObjectItem(doc, "processes");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(procs, 0), "model")->valuestring,
			    "thread-per-request");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "requests")), 2);
	req = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "requests"), 1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(req, "complete")));
	root = cJSON_GetObjectItem(req, "root");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "client"), "host")));
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetObjectItem(root, "client"), "addr")->valuestring,
		"192.168.1.1:50000");
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetObjectItem(root, "server"), "addr")->valuestring,
		"10.0.0.1:80");
	assert_int_equal(cJSON_GetObjectItem(root, "conn_index")->valueint, 1);
	/* The client is external: times are the server's, request read .. reply sent. */
	assert_int_equal(cJSON_GetObjectItem(root, "duration_ns")->valuedouble, US(55));
	call = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "calls"), 0);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(call, "server"), "host")->valueint,
			 1);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(call, "server"), "tid")->valueint,
			 41);
	assert_int_equal(cJSON_GetObjectItem(call, "reply_bytes")->valueint, 20);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(call, "calls")), 0);
	/* Evidence: a thread serving one request made the call; the root came from outside. */
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(req, "exact")));
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetObjectItem(root, "link"), "basis")->valuestring,
		"root");
	assert_string_equal(
		cJSON_GetObjectItem(cJSON_GetObjectItem(call, "link"), "basis")->valuestring,
		"thread");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(call, "link"), "exact")));
	assert_string_equal(cJSON_GetObjectItem(call, "outcome")->valuestring, "complete");
	assert_int_equal(cJSON_GetObjectItem(call, "setup_ns")->valueint, 0);
	cJSON_Delete(doc);
	free(buf);
}

/* The patterns text of the requests collected. */
static char *patterns_of(struct two_hosts *t)
{
	struct vp_patterns *p = vp_patterns__new();
	struct vp_out_ctx o = {0};
	char *buf;
	size_t len;

	for (size_t i = 0; i < t->c.n; i++)
		assert_int_equal(vp_patterns__add(p, t->c.a, t->c.reqs[i]), 0);
	o.f = capture(&buf, &len);
	o.a = t->c.a;
	vp_patterns__print(p, &o);
	fclose(o.f);
	vp_patterns__free(p);
	return buf;
}

/* Same-shaped requests form one pattern, whatever the order of concurrent calls. */
static void test_patterns(void **state)
{
	struct two_hosts *t = *state;
	char *buf;

	traffic(t, 10, 0);
	close_hosts(t);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
	buf = patterns_of(t);
	assert_non_null(strstr(buf, "pattern 1: 10 requests"));
	assert_non_null(strstr(buf, "), 100% exact\n")); /* one thread per request: decided */
	assert_null(strstr(buf, "pattern 2"));
	assert_non_null(strstr(buf, "\n    db ? :5432 "));
	free(buf);
}

/*
 * Two load generator threads (lg-1, lg-2 of process loadgen on host lg),
 * each served by its own nginx worker on web and postgres backend on db
 * (named pg-connection-N, as long as thread names go): ten requests, 1 ms
 * apart, alternating; the first eight call db, the last two do not.
 */
static void two_workers(struct two_hosts *t, char *pl, size_t len)
{
	struct synth_link *in[2], *wd[2];
	struct synth_host *lg;

	lg = extra_host(t, pl, len, "lg", NULL, 3, "10.0.0.9");
	synth_task(lg, 0, 90, 90, VPR_TASK_SNAPSHOT, "loadgen");
	synth_task(t->a, 0, 30, 30, VPR_TASK_SNAPSHOT, "nginx");
	synth_task(t->b, 0, 40, 40, VPR_TASK_SNAPSHOT, "postgres");
	for (uint32_t j = 0; j < 2; j++) {
		char name[16], cli[32], mid[32];

		snprintf(name, sizeof(name), "lg-%u", j + 1);
		synth_task(lg, 1, 90, 91 + j, VPR_TASK_SNAPSHOT, name);
		snprintf(name, sizeof(name), "nginx-w%u", j + 1);
		synth_task(t->a, 1, 30, 31 + j, VPR_TASK_SNAPSHOT, name);
		snprintf(name, sizeof(name), "pg-connection-%u", j + 1);
		synth_task(t->b, 1, 40, 41 + j, VPR_TASK_SNAPSHOT, name);
		snprintf(cli, sizeof(cli), "10.0.0.9:4000%u", j);
		snprintf(mid, sizeof(mid), "10.0.0.1:5000%u", j);
		in[j] = synth_link__open(lg, 1 + j, 90, t->a, 11 + j, 30, cli, "10.0.0.1:80", 2);
		wd[j] = synth_link__open(t->a, 21 + j, 30, t->b, 31 + j, 40, mid, "10.0.0.2:5432",
					 2);
	}
	for (uint32_t k = 0; k < 10; k++) {
		uint64_t s = US(1000) * (k + 1);
		uint32_t j = k % 2;

		synth_req(in[j], 100, 91 + j, s, 31 + j);
		if (k < 8) {
			synth_req(wd[j], 10, 31 + j, s + US(10), 41 + j);
			synth_rep(wd[j], 20, 41 + j, s + US(40), 31 + j);
		}
		synth_rep(in[j], 100, 31 + j, s + US(60), 91 + j);
	}
	for (int j = 0; j < 2; j++) {
		synth_link__free(in[j]);
		synth_link__free(wd[j]);
	}
	assert_int_equal(synth_host__close(lg), 0);
	close_hosts(t);
}

/*
 * A pattern is a path through services (host, process, port), not through
 * threads: two load generator threads, each served by its own nginx worker
 * and postgres backend, send requests of one shape; they are one pattern.
 * Requests that skip the database are another.
 */
static void test_patterns_by_service(void **state)
{
	struct two_hosts *t = *state;
	char pl[128], *files[3] = {t->pa, t->pb, pl};
	char *buf;

	two_workers(t, pl, sizeof(pl));
	assert_int_equal(collect_run(&t->c, files, 3, NULL), 0);
	assert_int_equal(t->c.n, 10);
	buf = patterns_of(t);
	if (!strstr(buf, "pattern 1: 8 requests") || !strstr(buf, "pattern 2: 2 requests") ||
	    strstr(buf, "pattern 3") || !strstr(buf, "  from lg loadgen (8)\n") ||
	    !strstr(buf, "\n  web nginx :80 ") || !strstr(buf, "\n    db postgres :5432 "))
		fail_msg("patterns:\n%s", buf);
	free(buf);
}

/*
 * The text tree names who served each call (host, process(pid), thread(tid)),
 * with its address and sizes, and its columns stay aligned when names
 * differ in length.
 */
static void test_text_tree(void **state)
{
	struct two_hosts *t = *state;
	char pl[128], *files[3] = {t->pa, t->pb, pl};
	struct vp_out_ctx o = {0};
	char *buf, *line, *save;
	size_t len;
	long addr_col = -1;
	int calls = 0;

	two_workers(t, pl, sizeof(pl));
	assert_int_equal(collect_run(&t->c, files, 3, NULL), 0);
	o.f = capture(&buf, &len);
	o.a = t->c.a;
	vp_out_text(&o, t->c.reqs[1]);
	fclose(o.f);
	if (!strstr(buf, "request 2  65.0us  at +0.002000s  2 calls on 3 hosts\n") ||
	    !strstr(buf, "\n  from lg loadgen(90)/lg-2(92)  10.0.0.9:40001\n") ||
	    !strstr(buf, "  web nginx(30)/nginx-w2(32)  ") ||
	    !strstr(buf, "  `- db postgres(40)/pg-connection-2(42)  10.0.0.2:5432  10B/20B\n") ||
	    !strstr(buf, "\n        +0ns     65.0us  [========================]  web ") ||
	    !strstr(buf, "\n     +10.0us     35.0us  [   =============        ]  `- db ") ||
	    strstr(buf, "conn#"))
		fail_msg("text:\n%s", buf);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *at = strstr(line, "  10.0.0.");

		if (!strchr(line, '['))
			continue;
		calls++;
		assert_non_null(at);
		if (addr_col < 0)
			addr_col = at - line;
		if (at - line != addr_col)
			fail_msg("address column moved: %s", line);
	}
	assert_int_equal(calls, 2);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_clock_offset_from_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_chain_of_machines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_wall_an_hour_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock_same_machine, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_recording, setup_unpacked, teardown),
		cmocka_unit_test_setup_teardown(test_json_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_patterns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_patterns_by_service, setup, teardown),
		cmocka_unit_test_setup_teardown(test_text_tree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
