// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.h"
#include "clock.h"
#include "recfile.h"

struct output {
	struct output_opts opts;
	struct vpr_writer *w;
	unsigned segment;
	bool starting;			   /* inside the start callback: no rotation */
	uint64_t done_bytes, done_records; /* of closed segments */
	char path[PATH_MAX];
};

static void segment_path(const struct output *out, unsigned segment, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%03u", out->opts.path, segment);
}

/*
 * Recordings say who talked to whom and when: owner only, unless the
 * operator named a group.  The mode is set explicitly, so that neither the
 * umask nor an older file at the same path (O_TRUNC keeps its mode and
 * owner) decides it.
 */
static struct vpr_writer *create_private(const struct output *out, const char *path,
					 const struct vpr_file_header *hdr)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int err;

	if (fd < 0)
		return NULL;
	if ((out->opts.group_readable && fchown(fd, (uid_t)-1, out->opts.gid)) ||
	    fchmod(fd, out->opts.group_readable ? 0640 : 0600)) {
		err = errno;
		close(fd);
		errno = err;
		return NULL;
	}
	return vpr_writer__from_fd(fd, hdr);
}

static int open_file(struct output *out)
{
	struct vpr_file_header hdr = out->opts.header;
	int err;

	hdr.start_mono_ns = mono_ns();
	hdr.start_real_ns = real_ns();
	if (out->opts.ring) {
		hdr.flags |= VPR_FILE_SEGMENT;
		hdr.segment = out->segment;
		segment_path(out, out->segment, out->path, sizeof(out->path));
	} else {
		snprintf(out->path, sizeof(out->path), "%s", out->opts.path);
	}
	out->w = create_private(out, out->path, &hdr);
	if (!out->w)
		return -errno;
	if (!out->opts.start)
		return 0;
	out->starting = true;
	err = out->opts.start(out->opts.ctx, out);
	out->starting = false;
	return err;
}

/* Segments of an earlier ring at the same path would be mistaken for ours. */
static int remove_old_segments(const struct output *out)
{
	char pattern[PATH_MAX + 32];
	glob_t g;
	int err = 0;

	snprintf(pattern, sizeof(pattern), "%s.[0-9][0-9][0-9]*", out->opts.path);
	if (glob(pattern, 0, NULL, &g))
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *suffix = g.gl_pathv[i] + strlen(out->opts.path) + 1;

		if (strspn(suffix, "0123456789") == strlen(suffix) && unlink(g.gl_pathv[i]) &&
		    errno != ENOENT)
			err = -errno;
	}
	globfree(&g);
	return err;
}

struct output *output__open(const struct output_opts *opts)
{
	struct output *out = calloc(1, sizeof(*out));
	int err = 0;

	if (!out)
		return NULL;
	out->opts = *opts;
	if (out->opts.ring)
		err = remove_old_segments(out);
	if (!err)
		err = open_file(out);
	if (err) {
		vpr_writer__close(out->w);
		free(out);
		errno = -err;
		return NULL;
	}
	return out;
}

static int next_segment(struct output *out)
{
	char old[PATH_MAX];
	int err;

	out->done_bytes += vpr_writer__bytes(out->w);
	out->done_records += vpr_writer__records(out->w);
	err = vpr_writer__close(out->w);
	out->w = NULL;
	if (err)
		return err;
	out->segment++;
	if (out->segment >= out->opts.ring) {
		segment_path(out, out->segment - out->opts.ring, old, sizeof(old));
		if (unlink(old) && errno != ENOENT)
			return -errno;
	}
	return open_file(out);
}

int output__append(struct output *out, const void *rec)
{
	int err;

	if (!out->w)
		return -EIO;
	err = vpr_writer__append(out->w, rec);
	if (err)
		return err;
	if (out->opts.ring && !out->starting && vpr_writer__bytes(out->w) >= out->opts.segment_size)
		return next_segment(out);
	return 0;
}

int output__flush(struct output *out)
{
	return out->w ? vpr_writer__flush(out->w) : -EIO;
}

int output__close(struct output *out)
{
	int err;

	if (!out)
		return 0;
	err = vpr_writer__close(out->w);
	free(out);
	return err;
}

uint64_t output__bytes(const struct output *out)
{
	return out->done_bytes + (out->w ? vpr_writer__bytes(out->w) : 0);
}

uint64_t output__records(const struct output *out)
{
	return out->done_records + (out->w ? vpr_writer__records(out->w) : 0);
}

const char *output__path(const struct output *out)
{
	return out->path;
}
