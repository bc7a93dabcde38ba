// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"

static void keep(void *ctx, struct vp_request *r)
{
	struct collected *c = ctx;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		c->reqs = realloc(c->reqs, c->cap * sizeof(*c->reqs));
		if (!c->reqs)
			abort();
	}
	c->reqs[c->n++] = r;
}

static int by_start(const void *x, const void *y)
{
	const struct vp_request *a = *(struct vp_request *const *)x;
	const struct vp_request *b = *(struct vp_request *const *)y;

	if (a->root->start_ns != b->root->start_ns)
		return a->root->start_ns < b->root->start_ns ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

int collect_run(struct collected *c, char *const *files, int nfiles,
		const struct vp_analysis_opts *opts)
{
	struct vp_analysis_opts o = {0};
	int ret;

	memset(c, 0, sizeof(*c));
	if (opts)
		o = *opts;
	o.on_request = keep;
	o.ctx = c;
	ret = vp_analysis__new(&c->a, files, nfiles, &o, c->err, sizeof(c->err));
	if (ret)
		return ret;
	ret = vp_analysis__run(c->a);
	qsort(c->reqs, c->n, sizeof(*c->reqs), by_start);
	return ret;
}

static size_t end_sig(const struct collected *c, const struct vp_call_end *e, char *buf, size_t len)
{
	char a[VP_ADDRSTRLEN];

	if (e->recorded)
		return (size_t)snprintf(buf, len, "%s/%u",
					vp_analysis__host(c->a, (size_t)e->host)->name, e->tid);
	return (size_t)snprintf(buf, len, "%s", vp_endpoint__format(&e->addr, a, sizeof(a)));
}

char *call_sig(const struct collected *c, const struct vp_call *call, char *buf, size_t len)
{
	size_t n = 0;

#define ROOM (n < len ? len - n : 0)
	n += end_sig(c, &call->client, buf + n, ROOM);
	n += (size_t)snprintf(buf + n, ROOM, ">");
	n += end_sig(c, &call->server, buf + n, ROOM);
	if (call->ncalls) {
		n += (size_t)snprintf(buf + n, ROOM, "(");
		for (size_t i = 0; i < call->ncalls; i++) {
			if (i)
				n += (size_t)snprintf(buf + n, ROOM, ",");
			call_sig(c, call->calls[i], buf + (n < len ? n : len), ROOM);
			n += strlen(buf + (n < len ? n : len));
		}
		n += (size_t)snprintf(buf + n, ROOM, ")");
	}
#undef ROOM
	return buf;
}

const char *collected_sigs(struct collected *c)
{
	size_t len = 64 + c->n * 4096, n = 0;

	free(c->sigs);
	c->sigs = calloc(1, len);
	if (!c->sigs)
		abort();
	for (size_t i = 0; i < c->n; i++) {
		if (i)
			n += (size_t)snprintf(c->sigs + n, len - n, " | ");
		call_sig(c, c->reqs[i]->root, c->sigs + n, len - n);
		n += strlen(c->sigs + n);
	}
	return c->sigs;
}

const struct vp_proc *collected_proc(const struct collected *c, const char *hostname, unsigned pid)
{
	const struct vp_proc **v, *found = NULL;
	size_t n;

	v = vp_analysis__procs(c->a, &n);
	for (size_t i = 0; v && i < n; i++)
		if (v[i]->pid == pid &&
		    !strcmp(vp_analysis__host(c->a, (size_t)v[i]->host)->name, hostname))
			found = v[i];
	free(v);
	return found;
}

void collected_free(struct collected *c)
{
	for (size_t i = 0; i < c->n; i++)
		vp_request__free(c->reqs[i]);
	free(c->reqs);
	free(c->sigs);
	vp_analysis__free(c->a);
	memset(c, 0, sizeof(*c));
}
