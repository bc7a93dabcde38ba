// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JSON per docs/json.md.  The document is streamed: each request is built
 * with cJSON, printed and freed as it is found, and "hosts" and "processes"
 * come after "requests" because offsets and models are final only at the end
 * (JSON objects are unordered, so readers see the same schema).
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>

#include "clock.h"
#include "loglines.h"
#include "output.h"
#include "sink.h"

static cJSON *end_json(const struct vp_call_end *e)
{
	cJSON *o = cJSON_CreateObject();
	char ad[VP_ADDRSTRLEN];

	if (e->recorded) {
		cJSON_AddNumberToObject(o, "host", e->host);
		cJSON_AddNumberToObject(o, "pid", e->pid);
		cJSON_AddNumberToObject(o, "tid", e->tid);
		cJSON_AddStringToObject(o, "comm", e->comm);
		cJSON_AddStringToObject(o, "process", e->proc);
	} else {
		cJSON_AddNullToObject(o, "host");
		cJSON_AddNullToObject(o, "pid");
		cJSON_AddNullToObject(o, "tid");
		cJSON_AddNullToObject(o, "comm");
		cJSON_AddNullToObject(o, "process");
	}
	cJSON_AddStringToObject(o, "addr", vp_endpoint__format(&e->addr, ad, sizeof(ad)));
	return o;
}

/* What the call was (proto/proto.h), when its bytes were captured: docs/json.md. */
static void witness_json(cJSON *o, const struct vp_witness *w)
{
	cJSON *j = cJSON_AddObjectToObject(o, "witness");
	char buf[VP_WIT_TEXT_MAX + VP_WIT_VERB_MAX + VP_WIT_ERR_MAX + 32];

	cJSON_AddStringToObject(j, "protocol", vp_proto_name(w->proto));
	cJSON_AddStringToObject(j, "label", vp_witness_label(w, VP_WIT_TEXT_MAX, buf, sizeof(buf)));
	cJSON_AddStringToObject(j, "pattern", vp_witness_pattern_key(w, buf, sizeof(buf)));
	switch (w->proto) {
	case VP_PROTO_HTTP:
		cJSON_AddStringToObject(j, "method", w->verb);
		cJSON_AddStringToObject(j, "target", w->text);
		cJSON_AddNumberToObject(j, "status", w->status);
		if (w->flags & VP_WIT_GRPC)
			cJSON_AddNumberToObject(j, "grpc_status", w->grpc_status);
		break;
	case VP_PROTO_REDIS:
		cJSON_AddStringToObject(j, "command", w->verb);
		cJSON_AddNumberToObject(j, "count", w->count);
		cJSON_AddBoolToObject(j, "count_is_minimum", w->flags & VP_WIT_MORE);
		break;
	default:
		cJSON_AddStringToObject(j, "statement", w->text);
		break;
	}
	cJSON_AddBoolToObject(j, "cut", w->flags & VP_WIT_CUT);
	if (w->flags & VP_WIT_ERROR)
		cJSON_AddStringToObject(j, "error", w->err);
}

/* The lines its server wrote for the call (loglines.h), only when there are some. */
static void logs_json(cJSON *o, const struct vp_call *c)
{
	cJSON *arr;

	if (!c->logs)
		return;
	arr = cJSON_AddArrayToObject(o, "logs");
	for (const struct vp_logline *l = c->logs; l; l = l->next) {
		cJSON *j = cJSON_CreateObject();

		cJSON_AddNumberToObject(j, "time_ns", (double)l->at_ns);
		cJSON_AddNumberToObject(j, "tid", l->tid);
		cJSON_AddStringToObject(j, "text", l->text);
		cJSON_AddBoolToObject(j, "exact", l->link.exact);
		cJSON_AddStringToObject(j, "basis", vp_basis_name(l->link.basis));
		if (l->cut)
			cJSON_AddBoolToObject(j, "cut", true);
		if (l->batched)
			cJSON_AddBoolToObject(j, "batched", true);
		if (l->redacted)
			cJSON_AddBoolToObject(j, "redacted", true);
		cJSON_AddItemToArray(arr, j);
	}
}

static cJSON *call_json(const struct vp_call *c)
{
	cJSON *o = cJSON_CreateObject(), *calls, *link;

	cJSON_AddItemToObject(o, "client", end_json(&c->client));
	cJSON_AddItemToObject(o, "server", end_json(&c->server));
	cJSON_AddNumberToObject(o, "conn_index", c->conn_index);
	cJSON_AddNumberToObject(o, "start_ns", (double)c->start_ns);
	cJSON_AddNumberToObject(o, "end_ns", (double)c->end_ns);
	cJSON_AddNumberToObject(o, "duration_ns", (double)(c->end_ns - c->start_ns));
	cJSON_AddNumberToObject(o, "request_bytes", (double)c->request_bytes);
	cJSON_AddNumberToObject(o, "reply_bytes", (double)c->reply_bytes);
	if (c->server.recorded) {
		/* Extension: time the server spent, request read .. reply sent. */
		cJSON_AddNumberToObject(o, "server_start_ns", (double)c->srv_req_first);
		cJSON_AddNumberToObject(o, "server_end_ns", (double)c->srv_rep_last);
	}
	cJSON_AddBoolToObject(o, "complete", c->complete);
	cJSON_AddStringToObject(o, "outcome", vp_outcome_name(vp_call__outcome(c)));
	cJSON_AddNumberToObject(o, "setup_ns", (double)c->setup_ns);
	if (c->may_hand_off) /* its work may go on elsewhere, unlinked (handoff.h) */
		cJSON_AddBoolToObject(o, "may_hand_off", true);
	link = cJSON_AddObjectToObject(o, "link");
	cJSON_AddStringToObject(link, "basis", vp_basis_name(c->link.basis));
	cJSON_AddBoolToObject(link, "exact", c->link.exact);
	cJSON_AddNumberToObject(link, "candidates", c->link.candidates);
	if (c->link.basis == VP_BASIS_QUEUED) { /* an asynchronous hop (queues.h) */
		cJSON_AddBoolToObject(link, "async", true);
		cJSON_AddNumberToObject(link, "queue_ns", (double)c->queue_ns);
	}
	if (c->wit.proto)
		witness_json(o, &c->wit);
	logs_json(o, c);
	calls = cJSON_AddArrayToObject(o, "calls");
	for (size_t i = 0; i < c->ncalls; i++)
		cJSON_AddItemToArray(calls, call_json(c->calls[i]));
	return o;
}

void vp_out_json_begin(struct vp_out_ctx *o)
{
	fprintf(o->f, "{\"version\":2,\"requests\":[");
	o->count = 0;
}

void vp_out_json_request(struct vp_out_ctx *o, const struct vp_request *r)
{
	cJSON *req = cJSON_CreateObject();
	char *s;

	cJSON_AddNumberToObject(req, "id", (double)r->id);
	cJSON_AddBoolToObject(req, "complete", r->complete);
	cJSON_AddBoolToObject(req, "exact", r->exact);
	cJSON_AddItemToObject(req, "root", call_json(r->root));
	s = cJSON_PrintUnformatted(req);
	if (s)
		fprintf(o->f, "%s\n%s", o->count++ ? "," : "", s);
	cJSON_free(s); /* cJSON's memory goes back through cJSON's hooks */
	cJSON_Delete(req);
}

void vp_out_json_end(struct vp_out_ctx *o)
{
	cJSON *rest = cJSON_CreateObject(), *hosts, *procs;
	const struct vp_proc **pv;
	size_t np;
	char *s;

	hosts = cJSON_AddArrayToObject(rest, "hosts");
	for (size_t i = 0; i < vp_analysis__nhosts(o->a); i++) {
		const struct vp_host *h = vp_analysis__host(o->a, i);
		cJSON *ho = cJSON_CreateObject(), *files;

		cJSON_AddNumberToObject(ho, "id", h->id);
		cJSON_AddStringToObject(ho, "name", h->name);
		files = cJSON_AddArrayToObject(ho, "files");
		for (int f = 0; f < h->nrecordings; f++)
			cJSON_AddItemToArray(files, cJSON_CreateString(h->recordings[f]));
		cJSON_AddNumberToObject(ho, "netns", h->netns);
		cJSON_AddNumberToObject(ho, "offset_ns", (double)vp_analysis__offset(o->a, i));
		cJSON_AddNumberToObject(ho, "records", (double)h->records);
		cJSON_AddNumberToObject(ho, "lost", (double)h->lost);
		cJSON_AddBoolToObject(ho, "truncated", h->truncated);
		cJSON_AddItemToArray(hosts, ho);
	}
	procs = cJSON_AddArrayToObject(rest, "processes");
	pv = vp_analysis__procs(o->a, &np);
	for (size_t i = 0; i < np; i++) {
		cJSON *po;

		if (vp_proc__model(pv[i]) == VP_MODEL_IDLE)
			continue; /* only seen in a task snapshot: no traffic */
		po = cJSON_CreateObject();
		cJSON_AddNumberToObject(po, "host", pv[i]->host);
		cJSON_AddNumberToObject(po, "pid", pv[i]->pid);
		cJSON_AddStringToObject(po, "name", pv[i]->comm);
		cJSON_AddStringToObject(po, "model", vp_model_name(vp_proc__model(pv[i])));
		cJSON_AddNumberToObject(po, "calls", (double)pv[i]->calls);
		cJSON_AddNumberToObject(po, "calls_exact", (double)vp_proc__calls_exact(pv[i]));
		if (pv[i]->calls_with_id) {
			cJSON_AddNumberToObject(po, "calls_with_id", (double)pv[i]->calls_with_id);
			cJSON_AddNumberToObject(po, "calls_by_id", (double)pv[i]->calls_by_id);
			cJSON_AddNumberToObject(po, "id_disagreements", (double)pv[i]->id_disagree);
		}
		/* Only where forwarded bytes linked or disagreed: outputs without payload stay as they were. */
		if (pv[i]->calls_forwarded || pv[i]->fwd_disagree) {
			cJSON_AddNumberToObject(po, "calls_forwarded",
						(double)pv[i]->calls_forwarded);
			cJSON_AddNumberToObject(po, "forward_disagreements",
						(double)pv[i]->fwd_disagree);
		}
		/* Only where grpc-go's Writes linked or disagreed (gowrites.h). */
		if (pv[i]->calls_by_gowrite || pv[i]->gowrite_disagree) {
			cJSON_AddNumberToObject(po, "calls_by_grpc_write",
						(double)pv[i]->calls_by_gowrite);
			cJSON_AddNumberToObject(po, "grpc_write_disagreements",
						(double)pv[i]->gowrite_disagree);
		}
		cJSON_AddItemToArray(procs, po);
	}
	free(pv);
	s = cJSON_PrintUnformatted(rest);
	/* rest is {"hosts":..,"processes":..}: splice its members after "requests". */
	if (s)
		fprintf(o->f, "],%s\n", s + 1);
	cJSON_free(s);
	cJSON_Delete(rest);
}

static int json_open(struct vp_sink *s, char *err, size_t errlen)
{
	vp_out_json_begin(s->out);
	return 0;
}

static void json_request(struct vp_sink *s, const struct vp_request *r)
{
	vp_out_json_request(s->out, r);
}

static int json_finish(struct vp_sink *s, bool complete)
{
	vp_out_json_end(s->out);
	return 0;
}

const struct vp_sink_ops vp_sink_json = {
	.name = "json", .open = json_open, .request = json_request, .finish = json_finish};
