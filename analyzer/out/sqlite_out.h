/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The requests as a SQLite database (docs/sqlite.md): hosts, processes,
 * patterns, requests, calls (one row per call, with its parent), the call
 * tree's ancestor pairs, and loss windows, indexed for the usual questions.
 */
#ifndef VPATH_SQLITE_OUT_H
#define VPATH_SQLITE_OUT_H

#include <stddef.h>

#include "analysis.h"
#include "request.h"

struct vp_sqlite;

/* Creates path anew (an existing file is replaced); NULL with err set. */
struct vp_sqlite *vp_sqlite__open(const char *path, char *err, size_t errlen);
/* 0, or -1 with err set (the database is then left unfinished). */
int vp_sqlite__add(struct vp_sqlite *s, const struct vp_analysis *a, const struct vp_request *r,
		   char *err, size_t errlen);
/* Hosts, processes, patterns and losses (final only at the end), indexes, commit. */
int vp_sqlite__finish(struct vp_sqlite *s, const struct vp_analysis *a, char *err, size_t errlen);
void vp_sqlite__free(struct vp_sqlite *s);

#endif
