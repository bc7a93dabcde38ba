// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One way in for the file outputs (export.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "otlp.h"
#include "report.h"
#include "sqlite_out.h"
#include "sink.h"

struct vp_export {
	enum vp_export_kind kind;
	const char *path;
	FILE *f;
	struct vp_otlp_sink *otlp;
	struct vp_sqlite *db;
	struct vp_report *rep;
	bool failed; /* an error was printed: the rest is skipped */
};

struct vp_export *vp_export__open(enum vp_export_kind kind, const struct vp_export_opts *o,
				  char *err, size_t errlen)
{
	struct vp_export *x = calloc(1, sizeof(*x));

	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->kind = kind;
	x->path = o->path ? o->path : "standard output";
	if (kind != VP_EXPORT_SQLITE && !(kind == VP_EXPORT_OTLP && o->endpoint)) {
		x->f = o->path ? fopen(o->path, "w") : stdout;
		if (!x->f) {
			snprintf(err, errlen, "%s: %s", o->path, strerror(errno));
			free(x);
			return NULL;
		}
	}
	switch (kind) {
	case VP_EXPORT_OTLP:
		x->otlp = vp_otlp_sink__new(x->f, o->endpoint, err, errlen);
		break;
	case VP_EXPORT_SQLITE:
		x->db = vp_sqlite__open(o->path, err, errlen);
		break;
	case VP_EXPORT_REPORT:
		x->rep = vp_report__new(&(struct vp_report_opts){.slowest = o->slowest});
		if (!x->rep)
			snprintf(err, errlen, "out of memory");
		break;
	}
	if (!x->otlp && !x->db && !x->rep) {
		vp_export__free(x);
		return NULL;
	}
	return x;
}

void vp_export__add(struct vp_export *x, const struct vp_analysis *a, const struct vp_request *r)
{
	char err[512];

	if (x->failed)
		return;
	if (x->otlp)
		vp_otlp_sink__add(x->otlp, a, r);
	if (x->rep)
		vp_report__add(x->rep, a, r);
	if (x->db && vp_sqlite__add(x->db, a, r, err, sizeof(err))) {
		fprintf(stderr, "error: %s: %s\n", x->path, err);
		x->failed = true;
	}
}

int vp_export__finish(struct vp_export *x, const struct vp_analysis *a, int64_t t0)
{
	char err[512];
	int ret = x->failed ? -1 : 0;

	if (!ret && x->otlp)
		ret = vp_otlp_sink__finish(x->otlp);
	if (!ret && x->db && vp_sqlite__finish(x->db, a, err, sizeof(err))) {
		fprintf(stderr, "error: %s: %s\n", x->path, err);
		ret = -1;
	}
	if (!ret && x->rep && vp_report__write(x->rep, a, t0, x->f)) {
		fprintf(stderr, "error: %s: cannot write the report\n", x->path);
		ret = -1;
	}
	if (x->f && (fflush(x->f) || ferror(x->f)) && !ret) {
		fprintf(stderr, "error: %s: %s\n", x->path, strerror(errno));
		ret = -1;
	}
	return ret;
}

void vp_export__free(struct vp_export *x)
{
	if (!x)
		return;
	vp_otlp_sink__free(x->otlp);
	vp_sqlite__free(x->db);
	vp_report__free(x->rep);
	if (x->f && x->f != stdout)
		fclose(x->f);
	free(x);
}

/* The three as sinks (sink.h): one vp_export each. */
static int export_open(struct vp_sink *s, enum vp_export_kind kind, char *err, size_t errlen)
{
	struct vp_export_opts o = {
		.path = s->opts->path, .endpoint = s->opts->endpoint, .slowest = s->opts->slowest};

	s->state = vp_export__open(kind, &o, err, errlen);
	return s->state ? 0 : -1;
}

static int otlp_open(struct vp_sink *s, char *err, size_t errlen)
{
	return export_open(s, VP_EXPORT_OTLP, err, errlen);
}

static int sqlite_open(struct vp_sink *s, char *err, size_t errlen)
{
	return export_open(s, VP_EXPORT_SQLITE, err, errlen);
}

static int report_open(struct vp_sink *s, char *err, size_t errlen)
{
	return export_open(s, VP_EXPORT_REPORT, err, errlen);
}

static void export_request(struct vp_sink *s, const struct vp_request *r)
{
	vp_export__add(s->state, s->out->a, r);
}

static int export_finish(struct vp_sink *s, bool complete)
{
	return vp_export__finish(s->state, s->out->a, s->out->t0);
}

static void export_free(struct vp_sink *s)
{
	vp_export__free(s->state);
}

#define EXPORT_SINK(kind)                                                      \
	{                                                                      \
		.name = #kind, .open = kind##_open, .request = export_request, \
		.finish = export_finish, .free = export_free                   \
	}
const struct vp_sink_ops vp_sink_otlp = EXPORT_SINK(otlp);
const struct vp_sink_ops vp_sink_sqlite = EXPORT_SINK(sqlite);
const struct vp_sink_ops vp_sink_report = EXPORT_SINK(report);
