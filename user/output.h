/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where records go: one file, or a flight-recorder ring of segment files
 * PATH.000, PATH.001, ... of which the newest N are kept.  Every file starts
 * with a header and then whatever the start callback writes, so each
 * segment can be read alone.
 */
#ifndef VPATH_RECORD_OUTPUT_H
#define VPATH_RECORD_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "vpath/record.h"

struct output;

/* Writes the records a new file starts with.  -errno. */
typedef int (*output_start_fn)(void *ctx, struct output *out);

struct output_opts {
	const char *path;
	unsigned ring;	       /* 0: a single file at path */
	uint64_t segment_size; /* with ring: start a new segment past this size */
	bool group_readable;   /* files 0640 owned by gid; else 0600 */
	gid_t gid;
	struct vpr_file_header header; /* flags/segment/start times are set per file */
	output_start_fn start;
	void *ctx;
};

/* Create the (first) file and write its start records.  NULL and errno on error. */
struct output *output__open(const struct output_opts *opts);
/* Append one record; may start a new segment.  -errno. */
int output__append(struct output *out, const void *rec);
int output__flush(struct output *out);
/* Flush, fsync, close.  NULL-safe.  -errno of the first failure. */
int output__close(struct output *out);
uint64_t output__bytes(const struct output *out);   /* all files, headers included */
uint64_t output__records(const struct output *out); /* all files */
const char *output__path(const struct output *out); /* the file being written */

#endif
