// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Requests as OTLP/JSON spans (docs/otlp.md).  A call has up to two spans:
 * the client's (kind CLIENT, on the client's process) and the server's
 * (kind SERVER, its parent the client span); a call made while serving
 * another hangs under that call's server span.  An end that was not
 * recorded has no span.  Times are Unix nanoseconds: the common timeline
 * plus one epoch (vp_otlp_epoch).  OTLP/JSON wants ids in hex, 64-bit
 * integers as decimal strings and enums as numbers.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "hashmap.h"
#include "loglines.h"
#include "otlp.h"
#include "output.h"

enum {
	KIND_SERVER = 2,
	KIND_CLIENT = 3
};

/* One process's spans of the request being built. */
struct resource {
	int host;
	uint32_t pid;
	cJSON *spans;
};

struct build {
	const struct vp_analysis *a;
	int64_t epoch;
	uint64_t trace_hi, trace_lo;
	char trace_hex[33];
	struct resource *res;
	size_t nres;
	size_t next_index; /* preorder number of the next call */
	cJSON *into;
};

static uint64_t mix_bytes(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = hash64(h ^ ((uint64_t)b[i] << ((i % 8) * 8)) ^ (i + 1));
	return h;
}

static uint64_t mix_end(uint64_t h, const struct vp_endpoint *e)
{
	h = mix_bytes(h, &e->family, 1);
	h = mix_bytes(h, &e->port, sizeof(e->port));
	return mix_bytes(h, e->addr, sizeof(e->addr));
}

/*
 * A request is the root call: its two addresses, its ordinal on the
 * connection and when it started (Unix time, so that recordings of other
 * days give other ids).
 */
static void trace_id(const struct vp_request *r, int64_t epoch, uint64_t *hi, uint64_t *lo)
{
	const struct vp_call *c = r->root;
	int64_t start = c->start_ns + epoch;
	uint64_t h = 0x7670617468ull; /* "vpath" */

	h = mix_end(h, &c->client.addr);
	h = mix_end(h, &c->server.addr);
	h = mix_bytes(h, &c->conn_index, sizeof(c->conn_index));
	h = mix_bytes(h, &start, sizeof(start));
	*hi = h;
	*lo = hash64(h ^ 0x9e3779b97f4a7c15ull);
	if (!*hi && !*lo) /* all zero is invalid in OTLP */
		*lo = 1;
}

char *vp_otlp_trace_id(const struct vp_analysis *a, const struct vp_request *r, char *buf)
{
	uint64_t hi, lo;

	trace_id(r, vp_out_unix_epoch(a), &hi, &lo);
	snprintf(buf, 33, "%016" PRIx64 "%016" PRIx64, hi, lo);
	return buf;
}

/* Span ids: the call's preorder number and side, never 0. */
static uint64_t span_id(const struct build *b, size_t index, int side)
{
	uint64_t id = hash64(b->trace_lo ^ hash64(b->trace_hi + index * 2 + (uint64_t)side + 1));

	return id ? id : 1;
}

static void add_u64_string(cJSON *o, const char *key, int64_t v)
{
	char s[32];

	snprintf(s, sizeof(s), "%" PRId64, v);
	cJSON_AddStringToObject(o, key, s);
}

static void add_hex(cJSON *o, const char *key, uint64_t id)
{
	char s[17];

	snprintf(s, sizeof(s), "%016" PRIx64, id);
	cJSON_AddStringToObject(o, key, s);
}

/* KeyValue with an AnyValue: string, int (a decimal string in JSON) or bool. */
static cJSON *kv_begin(cJSON *attrs, const char *key)
{
	cJSON *kv = cJSON_CreateObject();

	cJSON_AddStringToObject(kv, "key", key);
	cJSON_AddItemToArray(attrs, kv);
	return cJSON_AddObjectToObject(kv, "value");
}

static void attr_str(cJSON *attrs, const char *key, const char *v)
{
	cJSON_AddStringToObject(kv_begin(attrs, key), "stringValue", v);
}

static void attr_int(cJSON *attrs, const char *key, int64_t v)
{
	add_u64_string(kv_begin(attrs, key), "intValue", v);
}

static void attr_bool(cJSON *attrs, const char *key, bool v)
{
	cJSON_AddBoolToObject(kv_begin(attrs, key), "boolValue", v);
}

static void attr_addr(cJSON *attrs, const char *prefix, const struct vp_endpoint *e)
{
	char key[40], ad[VP_ADDRSTRLEN];

	if (!e->family)
		return;
	snprintf(key, sizeof(key), "%s.address", prefix);
	attr_str(attrs, key, vp_addr__format(e->family, e->addr, ad, sizeof(ad)));
	snprintf(key, sizeof(key), "%s.port", prefix);
	attr_int(attrs, key, e->port);
}

static cJSON *resource_spans(struct build *b, const struct vp_call_end *e)
{
	const struct vp_host *ho = vp_analysis__host(b->a, (size_t)e->host);
	cJSON *rs, *res, *attrs, *ss, *scope;
	struct resource *nr;
	char name[VPR_HOSTNAME_LEN + VPR_COMM_LEN + 40];

	for (size_t i = 0; i < b->nres; i++)
		if (b->res[i].host == e->host && b->res[i].pid == e->pid)
			return b->res[i].spans;
	nr = realloc(b->res, (b->nres + 1) * sizeof(*nr));
	if (!nr)
		abort(); /* a trace with spans missing would mislead */
	b->res = nr;
	rs = cJSON_CreateObject();
	res = cJSON_AddObjectToObject(rs, "resource");
	attrs = cJSON_AddArrayToObject(res, "attributes");
	attr_str(attrs, "service.name",
		 vp_call_end__name(b->a, e, VP_NAME_PROCESS, name, sizeof(name)));
	attr_str(attrs, "host.name", ho->name);
	attr_int(attrs, "process.pid", e->pid);
	if (e->proc[0])
		attr_str(attrs, "process.executable.name", e->proc);
	if (ho->boot_id[0])
		attr_str(attrs, "vpath.host.boot_id", ho->boot_id);
	ss = cJSON_AddArrayToObject(rs, "scopeSpans");
	scope = cJSON_CreateObject();
	cJSON_AddItemToArray(ss, scope);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(scope, "scope"), "name", "vpath");
	b->res[b->nres] =
		(struct resource){e->host, e->pid, cJSON_AddArrayToObject(scope, "spans")};
	cJSON_AddItemToArray(b->into, rs);
	return b->res[b->nres++].spans;
}

/* Lost-record windows of the end's host that overlap [first, last] of its clock. */
static void loss_events(struct build *b, cJSON *span, int host, uint64_t first, uint64_t last)
{
	const struct vp_host *ho = vp_analysis__host(b->a, (size_t)host);
	int64_t to_unix = vp_analysis__offset(b->a, (size_t)host) + b->epoch;
	cJSON *events = NULL;

	if (!vp_host__lost_between(ho, first, last))
		return;
	for (size_t i = 0; i < ho->nlosses; i++) {
		const struct vp_loss *l = &ho->losses[i];
		cJSON *ev, *attrs;

		if (l->to_ns < first || l->from_ns > last)
			continue;
		if (!events)
			events = cJSON_AddArrayToObject(span, "events");
		ev = cJSON_CreateObject();
		add_u64_string(ev, "timeUnixNano",
			       (int64_t)(l->from_ns > first ? l->from_ns : first) + to_unix);
		cJSON_AddStringToObject(ev, "name", "vpath.records_lost");
		attrs = cJSON_AddArrayToObject(ev, "attributes");
		attr_int(attrs, "vpath.lost.records", (int64_t)l->lost);
		attr_int(attrs, "vpath.lost.from_unix_nano", (int64_t)l->from_ns + to_unix);
		attr_int(attrs, "vpath.lost.to_unix_nano", (int64_t)l->to_ns + to_unix);
		cJSON_AddItemToArray(events, ev);
	}
}

/* The log lines the server wrote for the call (loglines.h), as span events named "log". */
static void log_events(struct build *b, cJSON *span, const struct vp_call *c)
{
	cJSON *events;

	if (!c->logs)
		return;
	events = cJSON_GetObjectItemCaseSensitive(span, "events");
	if (!events)
		events = cJSON_AddArrayToObject(span, "events");
	for (const struct vp_logline *l = c->logs; l; l = l->next) {
		cJSON *ev = cJSON_CreateObject(), *attrs;

		add_u64_string(ev, "timeUnixNano", l->at_ns + b->epoch);
		cJSON_AddStringToObject(ev, "name", "log");
		attrs = cJSON_AddArrayToObject(ev, "attributes");
		attr_str(attrs, "message", l->text);
		attr_int(attrs, "thread.id", l->tid);
		attr_bool(attrs, "vpath.log.exact", l->link.exact);
		attr_str(attrs, "vpath.log.basis", vp_basis_name(l->link.basis));
		if (l->cut)
			attr_bool(attrs, "vpath.log.cut", true);
		cJSON_AddItemToArray(events, ev);
	}
}

/* The witness as OpenTelemetry's semantic conventions name it (HTTP, database). */
static void witness_attrs(cJSON *attrs, const struct vp_witness *w)
{
	char path[VP_WIT_TEXT_MAX];
	const char *q;

	if (w->proto == VP_PROTO_HTTP) {
		q = strchr(w->text, '?');
		snprintf(path, sizeof(path), "%.*s", q ? (int)(q - w->text) : (int)strlen(w->text),
			 w->text);
		attr_str(attrs, "http.request.method", w->verb);
		attr_str(attrs, "url.path", path);
		if (q && q[1])
			attr_str(attrs, "url.query", q + 1);
		if (w->status)
			attr_int(attrs, "http.response.status_code", w->status);
	} else if (w->proto == VP_PROTO_AMQP) {
		/* A broker, not a database: messaging_attrs() names the system. */
		attr_str(attrs, "messaging.operation.name", w->verb);
		if (w->flags & VP_WIT_ERROR)
			attr_str(attrs, "error.type", w->err);
	} else {
		attr_str(attrs, "db.system", vp_proto_name(w->proto));
		if (w->proto == VP_PROTO_REDIS) {
			attr_str(attrs, "db.operation.name", w->verb);
			if (w->count > 1)
				attr_int(attrs, "db.operation.batch.size", w->count);
		} else {
			attr_str(attrs, "db.query.text", w->text);
			attr_str(attrs, "db.statement", w->text);
		}
		if (w->flags & VP_WIT_ERROR)
			attr_str(attrs, "error.type", w->err);
	}
	if (w->flags & VP_WIT_CUT)
		attr_bool(attrs, "vpath.witness.cut", true);
}

/*
 * OpenTelemetry's messaging conventions, where the witness read a queue
 * message (queues.h): the system, the operation (a push sends; a delivery
 * receives; the work hung under a push as a queue hop processes it) and,
 * for AMQP, the exchange and routing key it was published with.  Redis's
 * key is not kept in the witness, so its destination is not given.
 */
static void messaging_attrs(cJSON *attrs, const struct vp_call *c)
{
	const struct vp_witness *w = &c->wit;
	const char *op = NULL, *route = w->text, *slash;
	bool amqp = w->proto == VP_PROTO_AMQP;

	if (w->qkind == VP_WIT_Q_PUSH)
		op = "send";
	else if (w->qkind == VP_WIT_Q_POP)
		op = "receive";
	else if (c->link.basis == VP_BASIS_QUEUED)
		op = "process";
	/* Every AMQP call names its broker: witness_attrs() gives it no db.system. */
	if (amqp || (op && w->proto == VP_PROTO_REDIS))
		attr_str(attrs, "messaging.system", amqp ? "rabbitmq" : "redis");
	if (!op)
		return;
	attr_str(attrs, "messaging.operation.type", op);
	if (!strncmp(route, "deliver ", 8))
		route += 8;
	if (!amqp || !w->qkind || !route[0] || (w->flags & VP_WIT_CUT))
		return;
	/* amqp.c's route text: "exchange/key", or the key alone on the default exchange. */
	slash = strchr(route, '/');
	if (slash) {
		char ex[VP_WIT_TEXT_MAX];

		snprintf(ex, sizeof(ex), "%.*s", (int)(slash - route), route);
		attr_str(attrs, "messaging.destination.name", ex);
		route = slash + 1;
	} else {
		attr_str(attrs, "messaging.destination.name", route);
	}
	attr_str(attrs, "messaging.rabbitmq.destination.routing_key", route);
}

/* A queue hop's span links to the span of the push it hangs under (OTLP Span.links). */
static void hop_link(const struct build *b, cJSON *span, uint64_t push)
{
	cJSON *links = cJSON_AddArrayToObject(span, "links"), *l = cJSON_CreateObject();

	cJSON_AddStringToObject(l, "traceId", b->trace_hex);
	add_hex(l, "spanId", push);
	attr_str(cJSON_AddArrayToObject(l, "attributes"), "vpath.link.basis", "queued");
	cJSON_AddItemToArray(links, l);
}

static void span_name(const struct vp_call *c, char *buf, size_t len)
{
	char ad[VP_ADDRSTRLEN];

	/* What the call was, in a form of few values ("GET /item/?", SQL with '?' for values). */
	if (c->wit.proto && len > 4) {
		vp_witness_pattern_key(&c->wit, buf, len);
		if (strlen(buf) > VP_LABEL_TEXT)
			strcpy(buf + VP_LABEL_TEXT - 3, "...");
		return;
	}
	if (c->server.recorded)
		snprintf(buf, len, "%s :%u", c->server.proc[0] ? c->server.proc : "?",
			 c->server.addr.port);
	else
		snprintf(buf, len, "%s", vp_endpoint__format(&c->server.addr, ad, sizeof(ad)));
}

static cJSON *add_span(struct build *b, const struct vp_request *r, const struct vp_call *c,
		       bool server, uint64_t id, uint64_t parent)
{
	const struct vp_call_end *me = server ? &c->server : &c->client;
	const struct vp_call_end *peer = server ? &c->client : &c->server;
	cJSON *span = cJSON_CreateObject(), *attrs;
	int64_t start = c->start_ns, end = c->end_ns;
	char name[VP_ADDRSTRLEN + VPR_COMM_LEN + VP_LABEL_TEXT + 8];

	if (server) {
		start = vp_call__server_start(c);
		end = vp_call__server_end(c);
	}
	cJSON_AddStringToObject(span, "traceId", b->trace_hex);
	add_hex(span, "spanId", id);
	if (parent)
		add_hex(span, "parentSpanId", parent);
	span_name(c, name, sizeof(name));
	cJSON_AddStringToObject(span, "name", name);
	cJSON_AddNumberToObject(span, "kind", server ? KIND_SERVER : KIND_CLIENT);
	add_u64_string(span, "startTimeUnixNano", start + b->epoch);
	add_u64_string(span, "endTimeUnixNano", end + b->epoch);
	attrs = cJSON_AddArrayToObject(span, "attributes");
	attr_int(attrs, "thread.id", me->tid);
	if (me->comm[0])
		attr_str(attrs, "thread.name", me->comm);
	attr_addr(attrs, "network.peer", &peer->addr);
	attr_addr(attrs, "network.local", &me->addr);
	attr_str(attrs, "network.transport", "tcp");
	if (me->addr.family)
		attr_str(attrs, "network.type", me->addr.family == AF_INET6 ? "ipv6" : "ipv4");
	attr_int(attrs, "vpath.request.id", (int64_t)r->id);
	attr_int(attrs, "vpath.conn_index", c->conn_index);
	attr_int(attrs, "vpath.request_bytes", (int64_t)c->request_bytes);
	attr_int(attrs, "vpath.reply_bytes", (int64_t)c->reply_bytes);
	attr_str(attrs, "vpath.link.basis", vp_basis_name(c->link.basis));
	attr_bool(attrs, "vpath.link.exact", c->link.exact);
	attr_int(attrs, "vpath.link.candidates", c->link.candidates);
	if (c->link.basis == VP_BASIS_QUEUED) { /* a follows-from child: a queue hop (queues.h) */
		attr_bool(attrs, "vpath.link.async", true);
		attr_int(attrs, "vpath.queue_ns", c->queue_ns);
	}
	attr_str(attrs, "vpath.outcome", vp_outcome_name(vp_call__outcome(c)));
	if (c->may_hand_off) /* why its request is not exact (handoff.h) */
		attr_bool(attrs, "vpath.may_hand_off", true);
	if (c->setup_ns)
		attr_int(attrs, "vpath.setup_ns", c->setup_ns);
	if (c->wit.proto)
		witness_attrs(attrs, &c->wit);
	messaging_attrs(attrs, c);
	if (c == r->root) {
		attr_bool(attrs, "vpath.request.exact", r->exact);
		attr_bool(attrs, "vpath.request.complete", r->complete);
	}
	if (server) {
		loss_events(b, span, me->host, c->srv_first, c->srv_last);
		log_events(b, span, c);
	} else
		loss_events(b, span, me->host, c->cli_first, c->cli_last);
	cJSON_AddItemToArray(resource_spans(b, me), span);
	return span;
}

/*
 * Call c's spans under parent; push: the span of the call whose push c's
 * queue hop hangs under (its client's, the publisher's own), for the link.
 */
static void add_call(struct build *b, const struct vp_request *r, const struct vp_call *c,
		     uint64_t parent, uint64_t push)
{
	size_t index = b->next_index++;
	uint64_t client = 0, server = 0;
	cJSON *first = NULL;

	if (c->client.recorded) {
		client = span_id(b, index, 0);
		first = add_span(b, r, c, false, client, parent);
	}
	if (c->server.recorded) {
		server = span_id(b, index, 1);
		if (!first)
			first = add_span(b, r, c, true, server, parent);
		else
			add_span(b, r, c, true, server, client);
	}
	if (first && c->link.basis == VP_BASIS_QUEUED && push)
		hop_link(b, first, push);
	for (size_t i = 0; i < c->ncalls; i++)
		add_call(b, r, c->calls[i],
			 server	  ? server
			 : client ? client
				  : parent,
			 client ? client : server);
}

void vp_otlp_request(const struct vp_analysis *a, const struct vp_request *r, cJSON *into)
{
	struct build b = {.a = a, .epoch = vp_out_unix_epoch(a), .into = into};

	trace_id(r, b.epoch, &b.trace_hi, &b.trace_lo);
	snprintf(b.trace_hex, sizeof(b.trace_hex), "%016" PRIx64 "%016" PRIx64, b.trace_hi,
		 b.trace_lo);
	add_call(&b, r, r->root, 0, 0);
	free(b.res);
}
