// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * SQLite output (docs/sqlite.md).  Requests and calls are inserted as they
 * are found, in one transaction; what is final only at the end (hosts and
 * their clock offsets, processes, patterns and their ranks, loss windows)
 * and the indexes come last, so that inserting stays cheap.
 */
#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loglines.h"
#include "output.h"
#include "sqlite_out.h"

static const char schema[] =
	"PRAGMA journal_mode=OFF;"
	"PRAGMA synchronous=OFF;"
	"CREATE TABLE hosts(id INTEGER PRIMARY KEY, name TEXT NOT NULL, boot_id TEXT, netns "
	"INTEGER,"
	" files TEXT, offset_ns INTEGER, clock TEXT, wall_offset_ns INTEGER, records INTEGER,"
	" lost INTEGER, truncated INTEGER, damage TEXT);"
	"CREATE TABLE processes(host INTEGER REFERENCES hosts(id), pid INTEGER, name TEXT, model "
	"TEXT,"
	" served INTEGER, calls INTEGER, PRIMARY KEY(host, pid));"
	"CREATE TABLE patterns(id INTEGER PRIMARY KEY, rank INTEGER, requests INTEGER, total_ns "
	"INTEGER,"
	" mean_ns INTEGER, shape TEXT, example_request INTEGER);"
	"CREATE TABLE requests(id INTEGER PRIMARY KEY, root_call INTEGER, pattern INTEGER"
	" REFERENCES patterns(id), entry TEXT, client TEXT, start_ns INTEGER, end_ns INTEGER,"
	" duration_ns INTEGER, start_unix_ns INTEGER, calls INTEGER, hosts INTEGER,"
	" complete INTEGER, exact INTEGER);"
	"CREATE TABLE calls(id INTEGER PRIMARY KEY, request_id INTEGER REFERENCES requests(id),"
	" parent_id INTEGER REFERENCES calls(id), depth INTEGER, position INTEGER, service TEXT,"
	" server_host INTEGER, server_pid INTEGER, server_tid INTEGER, server_thread TEXT,"
	" server_process TEXT, server_addr TEXT, server_port INTEGER,"
	" client_host INTEGER, client_pid INTEGER, client_tid INTEGER, client_thread TEXT,"
	" client_process TEXT, client_addr TEXT, client_port INTEGER, conn_index INTEGER,"
	" start_ns INTEGER, end_ns INTEGER, duration_ns INTEGER, server_start_ns INTEGER,"
	" server_end_ns INTEGER, server_ns INTEGER, self_ns INTEGER, request_bytes INTEGER,"
	" reply_bytes INTEGER, link_basis TEXT, link_exact INTEGER, link_candidates INTEGER,"
	" outcome TEXT, complete INTEGER, setup_ns INTEGER, protocol TEXT, label TEXT,"
	" operation TEXT, target TEXT, status INTEGER, statement TEXT, error TEXT, pattern_key "
	"TEXT, queue_ns INTEGER, may_hand_off INTEGER);"
	"CREATE TABLE call_ancestors(call_id INTEGER, ancestor_id INTEGER, distance INTEGER,"
	" PRIMARY KEY(call_id, ancestor_id)) WITHOUT ROWID;"
	"CREATE TABLE losses(host INTEGER REFERENCES hosts(id), from_ns INTEGER, to_ns INTEGER,"
	" host_from_ns INTEGER, host_to_ns INTEGER, records INTEGER);"
	"CREATE TABLE logs(call_id INTEGER REFERENCES calls(id), request_id INTEGER"
	" REFERENCES requests(id), time_ns INTEGER, tid INTEGER, text TEXT, exact INTEGER,"
	" basis TEXT, cut INTEGER);"
	"BEGIN;";

static const char indexes[] =
	"CREATE INDEX requests_by_entry ON requests(entry, duration_ns DESC);"
	"CREATE INDEX requests_by_pattern ON requests(pattern, duration_ns DESC);"
	"CREATE INDEX requests_by_duration ON requests(duration_ns DESC);"
	"CREATE INDEX requests_by_start ON requests(start_ns);"
	"CREATE INDEX calls_by_request ON calls(request_id, position);"
	"CREATE INDEX calls_by_parent ON calls(parent_id);"
	"CREATE INDEX calls_by_service ON calls(service, duration_ns);"
	"CREATE INDEX calls_by_server_host ON calls(server_host);"
	"CREATE INDEX calls_by_client_host ON calls(client_host);"
	"CREATE INDEX ancestors_by_ancestor ON call_ancestors(ancestor_id, distance);"
	"CREATE INDEX losses_by_host ON losses(host, from_ns);"
	"CREATE INDEX logs_by_call ON logs(call_id, time_ns);"
	"CREATE INDEX logs_by_request ON logs(request_id, time_ns);"
	"ANALYZE;";

enum {
	ST_REQUEST,
	ST_CALL,
	ST_ANCESTOR,
	ST_LOG,
	ST_MAX
};

static const char *const statements[ST_MAX] = {
	"INSERT INTO requests VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
	("INSERT INTO calls "
	 "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
	 "?,?,?,?,?,?,?,?,?,?)"),
	"INSERT INTO call_ancestors VALUES(?,?,?)",
	"INSERT INTO logs VALUES(?,?,?,?,?,?,?,?)",
};

struct vp_sqlite {
	sqlite3 *db;
	sqlite3_stmt *st[ST_MAX];
	struct vp_patterns *patterns;
	int64_t next_call_id;
	int64_t *path; /* ids of the calls from the root down to the one being added */
	size_t path_cap;
};

static int fail(struct vp_sqlite *s, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "sqlite: %s: %s", what, sqlite3_errmsg(s->db));
	return -1;
}

struct vp_sqlite *vp_sqlite__open(const char *path, char *err, size_t errlen)
{
	struct vp_sqlite *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (unlink(path) && errno != ENOENT) {
		snprintf(err, errlen, "%s: cannot replace it: %s", path, strerror(errno));
		free(s);
		return NULL;
	}
	if (sqlite3_open(path, &s->db) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path,
			 s->db ? sqlite3_errmsg(s->db) : "cannot open");
		vp_sqlite__free(s);
		return NULL;
	}
	if (sqlite3_exec(s->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(s->db));
		vp_sqlite__free(s);
		return NULL;
	}
	for (int i = 0; i < ST_MAX; i++) {
		if (sqlite3_prepare_v2(s->db, statements[i], -1, &s->st[i], NULL) != SQLITE_OK) {
			fail(s, err, errlen, "prepare");
			vp_sqlite__free(s);
			return NULL;
		}
	}
	s->patterns = vp_patterns__new();
	if (!s->patterns) {
		snprintf(err, errlen, "out of memory");
		vp_sqlite__free(s);
		return NULL;
	}
	return s;
}

/* Binds values left to right: one cursor per statement row. */
struct row {
	sqlite3_stmt *st;
	int i;
};

static void col_i64(struct row *r, int64_t v)
{
	sqlite3_bind_int64(r->st, ++r->i, v);
}

static void col_text(struct row *r, const char *v)
{
	sqlite3_bind_text(r->st, ++r->i, v, -1, SQLITE_TRANSIENT);
}

static void col_null(struct row *r)
{
	sqlite3_bind_null(r->st, ++r->i);
}

static void col_text_or_null(struct row *r, const char *v)
{
	if (v)
		col_text(r, v);
	else
		col_null(r);
}

/* What the call was (docs/sqlite.md): NULL where not known or not of its protocol. */
static void witness_cols(struct row *r, const struct vp_witness *w)
{
	char buf[VP_WIT_TEXT_MAX + VP_WIT_VERB_MAX + VP_WIT_ERR_MAX + 32];
	bool http = w->proto == VP_PROTO_HTTP,
	     sql = w->proto == VP_PROTO_PGSQL || w->proto == VP_PROTO_MYSQL;

	if (!w->proto) {
		for (int i = 0; i < 8; i++)
			col_null(r);
		return;
	}
	col_text(r, vp_proto_name(w->proto));
	col_text(r, vp_witness_label(w, VP_WIT_TEXT_MAX, buf, sizeof(buf)));
	col_text_or_null(r, w->verb[0] ? w->verb : NULL);
	col_text_or_null(r, http ? w->text : NULL);
	if (http && w->status)
		col_i64(r, w->status);
	else
		col_null(r);
	col_text_or_null(r, sql ? w->text : NULL);
	col_text_or_null(r, w->flags & VP_WIT_ERROR ? w->err : NULL);
	col_text(r, vp_witness_pattern_key(w, buf, sizeof(buf)));
}

static int step(struct row *r)
{
	int rc = sqlite3_step(r->st);

	sqlite3_reset(r->st);
	sqlite3_clear_bindings(r->st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static void col_end(struct row *r, const struct vp_call_end *e)
{
	char ad[VP_ADDRSTRLEN];

	if (e->recorded) {
		col_i64(r, e->host);
		col_i64(r, e->pid);
		col_i64(r, e->tid);
		col_text(r, e->comm);
		col_text(r, e->proc);
	} else {
		for (int i = 0; i < 5; i++)
			col_null(r);
	}
	if (e->addr.family) {
		col_text(r, vp_addr__format(e->addr.family, e->addr.addr, ad, sizeof(ad)));
		col_i64(r, e->addr.port);
	} else {
		col_null(r);
		col_null(r);
	}
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* What the server (or, when it was not recorded, the call) took minus its calls' union. */
static int64_t self_time(const struct vp_call *c, int64_t from, int64_t to)
{
	int64_t covered = 0, reach = from;

	/* Calls are by start: a sweep merges overlapping ones. */
	for (size_t i = 0; i < c->ncalls; i++) {
		int64_t s = max64(c->calls[i]->start_ns, reach), e = c->calls[i]->end_ns;

		if (e > to)
			e = to;
		if (e > s) {
			covered += e - s;
			reach = e;
		}
	}
	return to - from - covered;
}

static int add_call(struct vp_sqlite *s, const struct vp_analysis *a, const struct vp_request *r,
		    const struct vp_call *c, size_t depth, int64_t *position)
{
	int64_t id = ++s->next_call_id;
	int64_t from = c->start_ns, to = c->end_ns;
	struct row row = {s->st[ST_CALL], 0};
	char name[VP_ADDRSTRLEN + VPR_HOSTNAME_LEN + VPR_COMM_LEN + 40];

	if (depth + 1 > s->path_cap) {
		s->path_cap = (depth + 1) * 2;
		s->path = realloc(s->path, s->path_cap * sizeof(*s->path));
		if (!s->path)
			abort();
	}
	s->path[depth] = id;
	col_i64(&row, id);
	col_i64(&row, (int64_t)r->id);
	if (depth)
		col_i64(&row, s->path[depth - 1]);
	else
		col_null(&row);
	col_i64(&row, (int64_t)depth);
	col_i64(&row, (*position)++);
	col_text(&row, vp_call_end__name(a, &c->server, VP_NAME_SERVICE, name, sizeof(name)));
	col_end(&row, &c->server);
	col_end(&row, &c->client);
	col_i64(&row, c->conn_index);
	col_i64(&row, c->start_ns);
	col_i64(&row, c->end_ns);
	col_i64(&row, c->end_ns - c->start_ns);
	if (c->server.recorded) {
		from = vp_call__server_start(c);
		to = vp_call__server_end(c);
		col_i64(&row, from);
		col_i64(&row, to);
		col_i64(&row, to - from);
	} else {
		col_null(&row);
		col_null(&row);
		col_null(&row);
	}
	col_i64(&row, self_time(c, from, to));
	col_i64(&row, (int64_t)c->request_bytes);
	col_i64(&row, (int64_t)c->reply_bytes);
	col_text(&row, vp_basis_name(c->link.basis));
	col_i64(&row, c->link.exact);
	col_i64(&row, c->link.candidates);
	col_text(&row, vp_outcome_name(vp_call__outcome(c)));
	col_i64(&row, c->complete);
	col_i64(&row, c->setup_ns);
	witness_cols(&row, &c->wit);
	if (c->link.basis == VP_BASIS_QUEUED) /* an asynchronous hop: its time in the queue */
		col_i64(&row, c->queue_ns);
	else
		col_null(&row);
	col_i64(&row, c->may_hand_off); /* its work may go on elsewhere, unlinked (handoff.h) */
	if (step(&row))
		return -1;
	for (const struct vp_logline *l = c->logs; l; l = l->next) {
		struct row lr = {s->st[ST_LOG], 0};

		col_i64(&lr, id);
		col_i64(&lr, (int64_t)r->id);
		col_i64(&lr, l->at_ns);
		col_i64(&lr, l->tid);
		col_text(&lr, l->text);
		col_i64(&lr, l->link.exact);
		col_text(&lr, vp_basis_name(l->link.basis));
		col_i64(&lr, l->cut);
		if (step(&lr))
			return -1;
	}
	for (size_t d = 0; d < depth; d++) {
		struct row anc = {s->st[ST_ANCESTOR], 0};

		col_i64(&anc, id);
		col_i64(&anc, s->path[d]);
		col_i64(&anc, (int64_t)(depth - d));
		if (step(&anc))
			return -1;
	}
	for (size_t i = 0; i < c->ncalls; i++)
		if (add_call(s, a, r, c->calls[i], depth + 1, position))
			return -1;
	return 0;
}

int vp_sqlite__add(struct vp_sqlite *s, const struct vp_analysis *a, const struct vp_request *r,
		   char *err, size_t errlen)
{
	struct row row = {s->st[ST_REQUEST], 0};
	const struct vp_call *c = r->root;
	char name[VP_ADDRSTRLEN + VPR_HOSTNAME_LEN + VPR_COMM_LEN + 40];
	int64_t position = 0;

	vp_patterns__add(s->patterns, a, r);
	col_i64(&row, (int64_t)r->id);
	col_i64(&row, s->next_call_id + 1);
	col_i64(&row, (int64_t)vp_patterns__last(s->patterns) + 1);
	col_text(&row, vp_call_end__name(a, &c->server, VP_NAME_SERVICE, name, sizeof(name)));
	col_text(&row, vp_call_end__name(a, &c->client, VP_NAME_PROCESS, name, sizeof(name)));
	col_i64(&row, c->start_ns);
	col_i64(&row, c->end_ns);
	col_i64(&row, c->end_ns - c->start_ns);
	col_i64(&row, c->start_ns + vp_out_unix_epoch(a));
	col_i64(&row, (int64_t)r->ncalls);
	col_i64(&row, (int64_t)r->nhosts);
	col_i64(&row, r->complete);
	col_i64(&row, r->exact);
	if (step(&row))
		return fail(s, err, errlen, "insert request");
	if (add_call(s, a, r, c, 0, &position))
		return fail(s, err, errlen, "insert call");
	return 0;
}

/* "a(b(c),d)": the pattern's services in the nesting of its calls. */
static char *shape(const struct vp_patterns *ps, size_t index, size_t nnodes)
{
	size_t cap = 256, len = 0;
	char *out = malloc(cap);
	uint32_t depth = 0;

	if (!out)
		abort();
	out[0] = '\0';
	for (size_t k = 0; k < nnodes; k++) {
		struct vp_pattern_node nd;
		char piece[VP_ADDRSTRLEN + VPR_HOSTNAME_LEN + VPR_COMM_LEN + 80];
		int n = 0;

		vp_patterns__node(ps, index, k, &nd);
		if (k && nd.depth > depth)
			n += snprintf(piece + n, sizeof(piece) - (size_t)n, "(");
		for (; k && depth > nd.depth; depth--)
			n += snprintf(piece + n, sizeof(piece) - (size_t)n, ")");
		if (k && nd.depth <= depth)
			n += snprintf(piece + n, sizeof(piece) - (size_t)n, ",");
		snprintf(piece + n, sizeof(piece) - (size_t)n, "%s", nd.name);
		depth = nd.depth;
		while (len + strlen(piece) + depth + 2 > cap)
			cap *= 2;
		out = realloc(out, cap);
		if (!out)
			abort();
		len += (size_t)sprintf(out + len, "%s", piece);
	}
	for (; depth; depth--)
		len += (size_t)sprintf(out + len, ")");
	return out;
}

static int finish_patterns(struct vp_sqlite *s)
{
	size_t n = vp_patterns__count(s->patterns), *rank = vp_patterns__ranking(s->patterns);
	sqlite3_stmt *st;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, "INSERT INTO patterns VALUES(?,?,?,?,?,?,?)", -1, &st,
			       NULL)) {
		free(rank);
		return -1;
	}
	for (size_t r = 0; r < n && !ret; r++) {
		struct vp_pattern_info pi;
		struct row row = {st, 0};
		char *sh;

		vp_patterns__info(s->patterns, rank[r], &pi);
		sh = shape(s->patterns, rank[r], pi.nnodes);
		col_i64(&row, (int64_t)rank[r] + 1);
		col_i64(&row, (int64_t)r + 1);
		col_i64(&row, (int64_t)pi.count);
		col_i64(&row, (int64_t)pi.total_ns);
		col_i64(&row, (int64_t)(pi.total_ns / (double)pi.count));
		col_text(&row, sh);
		col_i64(&row, (int64_t)pi.example_id);
		ret = step(&row);
		free(sh);
	}
	sqlite3_finalize(st);
	free(rank);
	return ret;
}

static int finish_hosts(struct vp_sqlite *s, const struct vp_analysis *a)
{
	sqlite3_stmt *st, *ls;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, "INSERT INTO hosts VALUES(?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st,
			       NULL))
		return -1;
	if (sqlite3_prepare_v2(s->db, "INSERT INTO losses VALUES(?,?,?,?,?,?)", -1, &ls, NULL)) {
		sqlite3_finalize(st);
		return -1;
	}
	for (size_t h = 0; h < vp_analysis__nhosts(a) && !ret; h++) {
		const struct vp_host *ho = vp_analysis__host(a, h);
		int64_t off = vp_analysis__offset(a, h);
		struct row row = {st, 0};
		char how[64], files[4096];
		size_t n = 0;

		files[0] = '\0';
		for (int f = 0; f < ho->nrecordings && n < sizeof(files); f++)
			n += (size_t)snprintf(files + n, sizeof(files) - n, "%s%s", f ? " " : "",
					      ho->recordings[f]);
		col_i64(&row, (int64_t)h);
		col_text(&row, ho->name);
		col_text(&row, ho->boot_id);
		col_i64(&row, ho->netns);
		col_text(&row, files);
		col_i64(&row, off);
		col_text(&row, vp_analysis__clock_source(a, h, how, sizeof(how)));
		col_i64(&row, ho->wall_offset_ns);
		col_i64(&row, (int64_t)ho->records);
		col_i64(&row, (int64_t)ho->lost);
		col_i64(&row, ho->truncated);
		if (ho->damage[0])
			col_text(&row, ho->damage);
		else
			col_null(&row);
		ret = step(&row);
		for (size_t i = 0; i < ho->nlosses && !ret; i++) {
			const struct vp_loss *l = &ho->losses[i];
			struct row lr = {ls, 0};

			col_i64(&lr, (int64_t)h);
			col_i64(&lr, (int64_t)l->from_ns + off);
			col_i64(&lr, (int64_t)l->to_ns + off);
			col_i64(&lr, (int64_t)l->from_ns);
			col_i64(&lr, (int64_t)l->to_ns);
			col_i64(&lr, (int64_t)l->lost);
			ret = step(&lr);
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ls);
	return ret;
}

static int finish_processes(struct vp_sqlite *s, const struct vp_analysis *a)
{
	size_t np;
	const struct vp_proc **pv = vp_analysis__procs(a, &np);
	sqlite3_stmt *st;
	int ret = 0;

	if (sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO processes VALUES(?,?,?,?,?,?)", -1,
			       &st, NULL)) {
		free(pv);
		return -1;
	}
	for (size_t i = 0; pv && i < np && !ret; i++) {
		struct row row = {st, 0};

		if (vp_proc__model(pv[i]) == VP_MODEL_IDLE)
			continue;
		col_i64(&row, pv[i]->host);
		col_i64(&row, pv[i]->pid);
		col_text(&row, pv[i]->comm);
		col_text(&row, vp_model_name(vp_proc__model(pv[i])));
		col_i64(&row, (int64_t)pv[i]->served);
		col_i64(&row, (int64_t)pv[i]->calls);
		ret = step(&row);
	}
	sqlite3_finalize(st);
	free(pv);
	return ret;
}

int vp_sqlite__finish(struct vp_sqlite *s, const struct vp_analysis *a, char *err, size_t errlen)
{
	if (finish_hosts(s, a))
		return fail(s, err, errlen, "hosts");
	if (finish_processes(s, a))
		return fail(s, err, errlen, "processes");
	if (finish_patterns(s))
		return fail(s, err, errlen, "patterns");
	if (sqlite3_exec(s->db, indexes, NULL, NULL, NULL) != SQLITE_OK)
		return fail(s, err, errlen, "indexes");
	if (sqlite3_exec(s->db, "COMMIT;", NULL, NULL, NULL) != SQLITE_OK)
		return fail(s, err, errlen, "commit");
	return 0;
}

void vp_sqlite__free(struct vp_sqlite *s)
{
	if (!s)
		return;
	for (int i = 0; i < ST_MAX; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	vp_patterns__free(s->patterns);
	free(s->path);
	free(s);
}
