/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The outputs that go to a file or a receiver rather than the terminal:
 * OpenTelemetry (otlp.h), SQLite (sqlite_out.h) and the HTML report
 * (report.h), behind one open/add/finish, so that the command line only
 * picks one.
 */
#ifndef VPATH_EXPORT_H
#define VPATH_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "request.h"

enum vp_export_kind {
	VP_EXPORT_OTLP,
	VP_EXPORT_SQLITE,
	VP_EXPORT_REPORT
};

struct vp_export_opts {
	const char *path;     /* -o FILE; NULL: standard output (not for SQLite) */
	const char *endpoint; /* otlp: post to this OTLP/HTTP receiver instead */
	size_t slowest;	      /* report: waterfalls of the N slowest (0: default) */
};

struct vp_export;
/* NULL with a one-line reason in err. */
struct vp_export *vp_export__open(enum vp_export_kind kind, const struct vp_export_opts *o,
				  char *err, size_t errlen);
void vp_export__add(struct vp_export *x, const struct vp_analysis *a, const struct vp_request *r);
/* Everything written and closed: 0, or -1 after printing one error line. */
int vp_export__finish(struct vp_export *x, const struct vp_analysis *a, int64_t t0);
void vp_export__free(struct vp_export *x);

#endif
