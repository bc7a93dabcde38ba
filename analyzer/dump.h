/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `vpath-analyze dump`: a recording as text, one line per record. */
#ifndef VPATH_DUMP_H
#define VPATH_DUMP_H

#include <stdio.h>
#include "vpath/record.h"

/*
 * Print the header and every record of path to out, then the validation
 * status.  Returns 0 when the file is intact, 1 when it has a torn tail
 * (records before it printed, warning written to err), and a negative errno
 * when the file cannot be used (message written to err).
 */
int vp_dump_file(const char *path, FILE *out, FILE *err);
/* A recording's header as a line (with its newline). */
void vp_dump_header(FILE *out, const struct vpr_file_header *hd);
/* One record as a line (no newline), for dump and for debugging output. */
void vp_dump_record(FILE *out, const struct vpr_hdr *rec);

#endif
