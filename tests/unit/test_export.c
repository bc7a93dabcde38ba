// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The file outputs on synthetic recordings: OTLP spans (parents, kinds, lost
 * records as events, ids), the SQLite tables (tree, loss windows), the HTML
 * report (a name that would end its script element cannot), and the
 * progress line.
 */
#include <cjson/cJSON.h>
#include <setjmp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../lib/twohosts.h"
#include "otlp.h"
#include "output.h"
#include "progress.h"
#include "report.h"
#include "sqlite_out.h"

#define US(x) ((uint64_t)(x)*1000)

static int setup(void **state)
{
	*state = two_hosts__new("web", "10.0.0.1", "db", "10.0.0.2");
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	two_hosts__free(*state);
	return 0;
}

/* n requests from an external client to web:80, each calling db:5432 once; hosts left open. */
static void traffic(struct two_hosts *t, int n, const char *web_name)
{
	struct synth_link *in, *d;

	synth_task(t->a, 0, 30, 30, VPR_TASK_SNAPSHOT, web_name);
	synth_task(t->b, 0, 40, 40, VPR_TASK_SNAPSHOT, "db");
	in = synth_link__open(NULL, 0, 0, t->a, 11, 30, "192.168.1.1:50000", "10.0.0.1:80", 0);
	d = synth_link__open(t->a, 21, 30, t->b, 31, 40, "10.0.0.1:50001", "10.0.0.2:5432", 0);
	for (int i = 0; i < n; i++) {
		uint64_t s = US(1000) * (uint64_t)(i + 1);

		synth_req(in, 100, 0, s, 30);
		synth_req(d, 10, 30, s + US(10), 40);
		synth_rep(d, 20, 40, s + US(40), 30);
		synth_rep(in, 100, 30, s + US(60), 0);
	}
	synth_link__free(in);
	synth_link__free(d);
}

/* 12 requests; db's recorder lost 3 records between 5.5 and 8.5 ms (requests 6..8). */
static void lossy_traffic(struct two_hosts *t)
{
	synth_drops(t->b, US(50), 0, 0);
	synth_drops(t->b, US(5500), 0, 0);
	traffic(t, 12, "web");
	synth_drops(t->b, US(8500), 0, 3);
	assert_int_equal(two_hosts__close(t), 0);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
}

static const char *attr(const cJSON *span, const char *key)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItem(span, "attributes"))
	{
		if (!strcmp(cJSON_GetObjectItem(a, "key")->valuestring, key))
			return cJSON_GetObjectItem(a, "value")->child->valuestring;
	}
	return NULL;
}

static bool has_attr(const cJSON *span, const char *key)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItem(span, "attributes"))
	{
		if (!strcmp(cJSON_GetObjectItem(a, "key")->valuestring, key))
			return true;
	}
	return false;
}

/* All spans of one request, in the order written. */
static size_t spans_of(cJSON *rs, const cJSON **out, size_t max)
{
	const cJSON *r, *ss, *s;
	size_t n = 0;

	cJSON_ArrayForEach(r, rs) cJSON_ArrayForEach(ss, cJSON_GetObjectItem(r, "scopeSpans"))
		cJSON_ArrayForEach(s, cJSON_GetObjectItem(ss, "spans")) if (n < max) out[n++] = s;
	return n;
}

/*
 * Records lost on db between 5.5 and 8.5 ms: the db spans of requests 6..8
 * carry the loss as an event, no other span does.  Every request is one
 * trace: web's server span (no parent: the client is external), web's
 * client span under it, db's server span under that.
 */
static void test_otlp_spans_and_loss(void **state)
{
	struct two_hosts *t = *state;
	char prev[33] = "";

	lossy_traffic(t);
	assert_int_equal(t->c.n, 12);
	for (size_t i = 0; i < t->c.n; i++) {
		cJSON *rs = cJSON_CreateArray();
		const cJSON *s[8], *ev;
		char id[33];
		bool lossy = i + 1 >= 6 && i + 1 <= 8;

		/* The first request's call may have handed its work off: its span says so. */
		t->c.reqs[i]->root->calls[0]->may_hand_off = i == 0;
		vp_otlp_request(t->c.a, t->c.reqs[i], rs);
		assert_int_equal(cJSON_GetArraySize(rs), 2); /* web's process, db's */
		assert_int_equal(spans_of(rs, s, 8), 3);
		assert_int_equal(cJSON_GetObjectItem(s[0], "kind")->valueint, 2);
		assert_null(cJSON_GetObjectItem(s[0], "parentSpanId"));
		assert_int_equal(cJSON_GetObjectItem(s[1], "kind")->valueint, 3);
		assert_string_equal(cJSON_GetObjectItem(s[1], "parentSpanId")->valuestring,
				    cJSON_GetObjectItem(s[0], "spanId")->valuestring);
		assert_int_equal(cJSON_GetObjectItem(s[2], "kind")->valueint, 2);
		assert_string_equal(cJSON_GetObjectItem(s[2], "parentSpanId")->valuestring,
				    cJSON_GetObjectItem(s[1], "spanId")->valuestring);
		assert_string_equal(attr(s[2], "network.local.port"), "5432");
		assert_string_equal(attr(s[1], "network.peer.address"), "10.0.0.2");
		assert_string_equal(attr(s[2], "vpath.link.basis"), "thread");
		assert_int_equal(has_attr(s[2], "vpath.may_hand_off"), i == 0);
		assert_false(has_attr(s[0], "vpath.may_hand_off"));
		ev = cJSON_GetObjectItem(s[2], "events");
		if (lossy) {
			assert_non_null(ev);
			assert_string_equal(cJSON_GetObjectItem(ev->child, "name")->valuestring,
					    "vpath.records_lost");
			assert_string_equal(attr(ev->child, "vpath.lost.records"), "3");
			assert_string_equal(attr(s[2], "vpath.outcome"), "incomplete");
		} else {
			assert_null(ev);
			assert_string_equal(attr(s[2], "vpath.outcome"), "complete");
		}
		assert_null(cJSON_GetObjectItem(s[0], "events")); /* web lost nothing */
		vp_otlp_trace_id(t->c.a, t->c.reqs[i], id);
		assert_string_equal(cJSON_GetObjectItem(s[0], "traceId")->valuestring, id);
		assert_string_not_equal(id, prev);
		memcpy(prev, id, sizeof(prev));
		cJSON_Delete(rs);
	}
}

static int64_t one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The tables: the tree, the ancestors, the loss window and the requests it spoils. */
static void test_sqlite_tables(void **state)
{
	struct two_hosts *t = *state;
	char path[200], err[512];
	struct vp_sqlite *s;
	sqlite3 *db;

	lossy_traffic(t);
	snprintf(path, sizeof(path), "%s/paths.db", t->dir);
	s = vp_sqlite__open(path, err, sizeof(err));
	assert_non_null(s);
	for (size_t i = 0; i < t->c.n; i++)
		assert_int_equal(vp_sqlite__add(s, t->c.a, t->c.reqs[i], err, sizeof(err)), 0);
	assert_int_equal(vp_sqlite__finish(s, t->c.a, err, sizeof(err)), 0);
	vp_sqlite__free(s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(one(db, "select count(*) from requests"), 12);
	assert_int_equal(one(db, "select count(*) from calls where parent_id is null"), 12);
	assert_int_equal(one(db,
			     "select count(*) from calls c join calls p on p.id = c.parent_id"
			     " where c.server_port = 5432 and p.server_port = 80 and c.depth = 1"),
			 12);
	assert_int_equal(one(db, "select count(*) from call_ancestors"), 12);
	assert_int_equal(one(db, "select sum(l.records) from losses l join hosts h on h.id = l.host"
				 " where h.name = 'db'"),
			 3);
	/* Requests overlapping the window are the incomplete ones. */
	assert_int_equal(one(db, "select count(*) from requests where not complete"), 3);
	assert_int_equal(
		one(db, "select count(*) from requests r join losses l on r.start_ns <= l.to_ns"
			" and r.end_ns >= l.from_ns where not r.complete"),
		3);
	/* Self time: all of a leaf's server time; the root's less its call (network included). */
	assert_int_equal(
		one(db,
		    "select count(*) from calls where server_port = 5432 and self_ns = server_ns"
		    " and self_ns > 0"),
		12);
	assert_int_equal(
		one(db, "select count(*) from calls c join calls k on k.parent_id = c.id"
			" where c.self_ns = c.server_ns - k.duration_ns and k.duration_ns > 0"),
		12);
	sqlite3_close(db);
}

/*
 * A process may name itself "</script>", or "<!--<script>" (which would keep
 * the data element from ending where it should): the page's data holds no
 * '<' at all, each written \u003c.
 */
static void test_report_escapes_names(void **state)
{
	struct two_hosts *t = *state;
	struct vp_report *rep;
	char *buf = NULL, *data, *end;
	size_t len = 0;
	FILE *f;

	traffic(t, 5, "<!--<script><b>");
	assert_int_equal(two_hosts__close(t), 0);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
	rep = vp_report__new(&(struct vp_report_opts){0});
	for (size_t i = 0; i < t->c.n; i++)
		vp_report__add(rep, t->c.a, t->c.reqs[i]);
	f = open_memstream(&buf, &len);
	assert_int_equal(vp_report__write(rep, t->c.a, 0, f), 0);
	fclose(f);
	vp_report__free(rep);
	assert_null(strstr(buf, "<!--"));
	assert_null(strstr(buf, "<b>"));
	assert_non_null(strstr(buf, "\\u003c!--\\u003cscript>\\u003cb>"));
	/* One data element and one script, each closed once. */
	data = strstr(buf, "<script type=\"application/json\" id=\"vpath-data\">");
	assert_non_null(data);
	data = strchr(data, '>') + 1;
	end = strstr(data, "</script>");
	assert_non_null(end);
	assert_null(memchr(data, '<', (size_t)(end - data)));
	assert_int_equal(strstr(strstr(buf, "</script>") + 1, "</script>") != NULL, 1);
	assert_null(strstr(strstr(strstr(buf, "</script>") + 1, "</script>") + 1, "</script>"));
	free(buf);
}

#define S(lit) lit, sizeof(lit) - 1

/*
 * Captured bytes (as vpath-record --capture stores them): an external
 * client's HTTP request to web, which runs one PostgreSQL query on db.
 */
static void witnessed_traffic(struct two_hosts *t)
{
	struct synth_link *in, *d;

	synth_task(t->a, 0, 30, 30, VPR_TASK_SNAPSHOT, "web");
	synth_task(t->b, 0, 40, 40, VPR_TASK_SNAPSHOT, "db");
	in = synth_link__open(NULL, 0, 0, t->a, 11, 30, "192.168.1.1:50000", "10.0.0.1:80", 0);
	d = synth_link__open(t->a, 21, 30, t->b, 31, 40, "10.0.0.1:50001", "10.0.0.2:5432", 0);
	synth_xfer_data(in, SYNTH_C2S, S("GET /cart?id=7 HTTP/1.1\r\nHost: web\r\n\r\n"), 256, 0, 0,
			30, US(1000));
	synth_xfer_data(d, SYNTH_C2S, S("Q\0\0\0\x0dSELECT 1\0"), 256, 30, US(1010), 40, US(1015));
	synth_xfer_data(d, SYNTH_S2C, S("C\0\0\0\x0dSELECT 1\0Z\0\0\0\x05I"), 256, 40, US(1040), 30,
			US(1045));
	synth_xfer_data(in, SYNTH_S2C, S("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), 256, 30,
			US(1060), 0, 0);
	synth_link__free(in);
	synth_link__free(d);
	assert_int_equal(two_hosts__close(t), 0);
	assert_int_equal(collect_run(&t->c, t->files, 2, NULL), 0);
	assert_int_equal(t->c.n, 1);
}

static const char *text_of(sqlite3 *db, const char *sql, char *buf, size_t len)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(buf, len, "%s",
		 sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "NULL");
	sqlite3_finalize(st);
	return buf;
}

/* What each call was, in the outputs not covered elsewhere: table's label, SQLite's columns, OTLP's attributes. */
static void test_witness_outputs(void **state)
{
	struct two_hosts *t = *state;
	struct vp_out_ctx o = {0};
	char path[200], err[512], v[300];
	const cJSON *sp[8];
	struct vp_sqlite *s;
	char *buf = NULL;
	size_t len = 0;
	sqlite3 *db;
	cJSON *rs;

	witnessed_traffic(t);
	/* table: the last column, in TSV and quoted in CSV. */
	o.f = open_memstream(&buf, &len);
	o.a = t->c.a;
	o.witnesses = true;
	vp_out_table_header(&o);
	vp_out_table_row(&o, t->c.reqs[0]);
	o.csv = true;
	vp_out_table_row(&o, t->c.reqs[0]);
	fclose(o.f);
	assert_non_null(strstr(buf, "\tlabel\n"));
	assert_non_null(strstr(buf, "\tGET /cart?id=7 200\n"));
	assert_non_null(strstr(buf, ",\"GET /cart?id=7 200\"\n"));
	free(buf);

	/* SQLite: the witness columns of both calls. */
	snprintf(path, sizeof(path), "%s/paths.db", t->dir);
	s = vp_sqlite__open(path, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(vp_sqlite__add(s, t->c.a, t->c.reqs[0], err, sizeof(err)), 0);
	assert_int_equal(vp_sqlite__finish(s, t->c.a, err, sizeof(err)), 0);
	vp_sqlite__free(s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_string_equal(
		text_of(db,
			"select protocol || '|' || label || '|' || operation || '|' || target"
			" || '|' || status || '|' || pattern_key from calls where server_port = 80",
			v, sizeof(v)),
		"http|GET /cart?id=7 200|GET|/cart?id=7|200|GET /cart");
	assert_string_equal(text_of(db,
				    "select protocol || '|' || statement || '|' || label from calls"
				    " where server_port = 5432",
				    v, sizeof(v)),
			    "postgresql|SELECT 1|SELECT 1");
	sqlite3_close(db);

	/* OTLP: HTTP and database attributes on the spans. */
	rs = cJSON_CreateArray();
	vp_otlp_request(t->c.a, t->c.reqs[0], rs);
	assert_int_equal(spans_of(rs, sp, 8), 3);
	assert_string_equal(attr(sp[0], "http.request.method"), "GET");
	assert_string_equal(attr(sp[0], "url.path"), "/cart");
	assert_string_equal(attr(sp[0], "url.query"), "id=7");
	assert_string_equal(attr(sp[0], "http.response.status_code"), "200");
	assert_string_equal(attr(sp[2], "db.system"), "postgresql");
	assert_string_equal(attr(sp[2], "db.query.text"), "SELECT 1");
	cJSON_Delete(rs);
}

/* The span of spans[0..n) with attribute key = v. */
static const cJSON *span_with(const cJSON **sp, size_t n, const char *key, const char *v)
{
	for (size_t i = 0; i < n; i++)
		if (attr(sp[i], key) && !strcmp(attr(sp[i], key), v))
			return sp[i];
	return NULL;
}

/*
 * A queue hop (queues.h) in OTLP: the request's call made a basic.publish
 * (a push), under it hang, as queue hops, the consumer's call that
 * delivered the message and a call of its work.  Messaging attributes on
 * each, and each hop's span links to the publisher's span.
 */
static void test_otlp_queue_hop(void **state)
{
	struct two_hosts *t = *state;
	struct vp_call *push, hops[2], *kids[2] = {&hops[0], &hops[1]};
	const cJSON *sp[8], *pub, *del, *work, *l;
	cJSON *rs = cJSON_CreateArray();
	size_t n;

	witnessed_traffic(t);
	push = t->c.reqs[0]->root->calls[0];
	memset(&push->wit, 0, sizeof(push->wit));
	push->wit.proto = VP_PROTO_AMQP;
	push->wit.qkind = VP_WIT_Q_PUSH;
	strcpy(push->wit.verb, "basic.publish");
	strcpy(push->wit.text, "jobs.fanout/jobs");
	for (int i = 0; i < 2; i++) {
		hops[i] = *push;
		hops[i].client = push->server; /* a consumer on db's host */
		hops[i].server.recorded = false;
		hops[i].link = vp_link_make(VP_BASIS_QUEUED, 1);
		hops[i].link.exact = true;
		hops[i].queue_ns = 5000;
	}
	hops[0].wit.qkind = VP_WIT_Q_POP;
	strcpy(hops[0].wit.verb, "basic.ack");
	strcpy(hops[0].wit.text, "deliver jobs.fanout/jobs");
	memset(&hops[1].wit, 0, sizeof(hops[1].wit));
	push->calls = kids;
	push->ncalls = 2;
	vp_otlp_request(t->c.a, t->c.reqs[0], rs);
	push->ncalls = 0;
	n = spans_of(rs, sp, 8);
	assert_int_equal(n, 5);
	pub = span_with(sp, n, "messaging.operation.type", "send");
	del = span_with(sp, n, "messaging.operation.type", "receive");
	work = span_with(sp, n, "messaging.operation.type", "process");
	assert_non_null(pub);
	assert_non_null(del);
	assert_non_null(work);
	assert_int_equal(cJSON_GetObjectItem(pub, "kind")->valueint, 3); /* the publisher's own */
	assert_string_equal(attr(pub, "messaging.system"), "rabbitmq");
	assert_string_equal(attr(pub, "messaging.destination.name"), "jobs.fanout");
	assert_string_equal(attr(pub, "messaging.rabbitmq.destination.routing_key"), "jobs");
	assert_string_equal(attr(del, "messaging.destination.name"), "jobs.fanout");
	/* A broker is not a database: no db.* on AMQP, its method named as messaging's. */
	assert_string_equal(attr(pub, "messaging.operation.name"), "basic.publish");
	assert_null(attr(pub, "db.system"));
	assert_null(attr(del, "db.query.text"));
	assert_null(cJSON_GetObjectItem(pub, "links"));
	for (int i = 0; i < 2; i++) {
		l = cJSON_GetArrayItem(cJSON_GetObjectItem(i ? work : del, "links"), 0);
		assert_non_null(l);
		assert_string_equal(cJSON_GetObjectItem(l, "spanId")->valuestring,
				    cJSON_GetObjectItem(pub, "spanId")->valuestring);
		assert_string_equal(cJSON_GetObjectItem(l, "traceId")->valuestring,
				    cJSON_GetObjectItem(pub, "traceId")->valuestring);
		assert_string_equal(attr(l, "vpath.link.basis"), "queued");
	}
	cJSON_Delete(rs);
}

static void test_progress_line(void **state)
{
	char line[160];

	(void)state;
	vp_progress__format(line, sizeof(line), 1234, 25, 100, 10.0);
	assert_string_equal(line, "1234 records, 25% of 100B, 30s left");
	vp_progress__format(line, sizeof(line), 2500000, 50000000, 80000000, 600.0);
	assert_string_equal(line, "2.5M records, 62% of 80.0MB, 6min left");
	vp_progress__format(line, sizeof(line), 12345, 0, 80000000, 1.0); /* no estimate yet */
	assert_string_equal(line, "12.3k records, 0% of 80.0MB");
	vp_progress__format(line, sizeof(line), 12345, 90, 80, 1.0); /* a file grew */
	assert_string_equal(line, "12.3k records, 100% of 80B");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_otlp_spans_and_loss, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sqlite_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_escapes_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_witness_outputs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_otlp_queue_hop, setup, teardown),
		cmocka_unit_test(test_progress_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
