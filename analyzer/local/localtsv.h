/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `vpath-analyze calls`: a local file's call ends as rows for ClickHouse (localtsv.c). */
#ifndef VPATH_LOCALTSV_H
#define VPATH_LOCALTSV_H

#include <stdio.h>

#include "local.h"

/* Every call end of the local file at path, a row each; 0, -EINVAL (unreadable), -EBADMSG (damaged). */
int vp_local__tsv(const char *path, FILE *out, FILE *err);

#endif
