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
/*
 * The end of a dump, of a recording or of a local file (localdump.h): how
 * its reader's reading ended, damage 0 intact, 1 a torn tail, 2 corrupt (the
 * values of both enum vpr_read_status and enum vpl_status), why (the
 * reader's message), and what is intact before a torn tail.  Returns dump's
 * status: 0, 1 (torn tail, warning on err), -EBADMSG (corrupt, error on err).
 */
int vp_dump_status(FILE *out, FILE *err, const char *path, unsigned damage, const char *why,
		   const char *intact);
/* A recording's header as a line (with its newline). */
void vp_dump_header(FILE *out, const struct vpr_file_header *hd);
/* One record as a line (no newline), for dump and for debugging output. */
void vp_dump_record(FILE *out, const struct vpr_hdr *rec);

#endif
