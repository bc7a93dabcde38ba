/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `vpath-analyze dump` of a local file (localdump.c); of a recording: dump.h. */
#ifndef VPATH_LOCALDUMP_H
#define VPATH_LOCALDUMP_H

#include <stdio.h>

/* dump of a local file: its host, counts and every call as a line; exit status as dump's. */
int vp_local__dump(const char *path, FILE *out, FILE *err);

#endif
