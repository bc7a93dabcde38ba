// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * vpr-convert: a recording rewritten in another format version, record for
 * record, its header kept (docs/format.md).
 *
 *   vpr-convert [--format N] IN OUT      (N: 1 unpacked, 2 packed; default 2)
 *
 * For the tests that compare what the analyzer makes of one recording read
 * the old way and the new way (test_format.sh), and to read a new recording
 * with an old analyzer.  Exit 0 when IN was read to its end intact, 1 when
 * it was damaged (everything before the damage is written), 2 on errors.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recfile.h"

int main(int argc, char **argv)
{
	static const struct option longopts[] = {{"format", required_argument, NULL, 'f'},
						 {NULL, 0, NULL, 0}};
	struct vpr_file_header hdr;
	const struct vpr_hdr *rec;
	struct vpr_reader *r;
	struct vpr_writer *w;
	unsigned long version = VPR_VERSION;
	char err[256];
	int c, ret;

	while ((c = getopt_long(argc, argv, "f:", longopts, NULL)) != -1) {
		if (c != 'f')
			goto usage;
		version = strtoul(optarg, NULL, 10);
		if (version < VPR_VERSION_MIN || version > VPR_VERSION) {
			fprintf(stderr, "vpr-convert: format %s: this build writes %d to %d\n",
				optarg, VPR_VERSION_MIN, VPR_VERSION);
			return 2;
		}
	}
	if (argc - optind != 2)
		goto usage;
	r = vpr_reader__open(argv[optind], err, sizeof(err));
	if (!r) {
		fprintf(stderr, "vpr-convert: %s: %s\n", argv[optind], err);
		return 2;
	}
	hdr = *vpr_reader__header(r);
	hdr.version = (uint32_t)version;
	w = vpr_writer__create(argv[optind + 1], &hdr);
	if (!w) {
		fprintf(stderr, "vpr-convert: %s: %s\n", argv[optind + 1], strerror(errno));
		vpr_reader__close(r);
		return 2;
	}
	ret = 0;
	while (!ret && vpr_reader__next(r, &rec) == 1)
		ret = vpr_writer__append(w, rec);
	if (!ret)
		ret = vpr_writer__close(w);
	else
		vpr_writer__close(w);
	if (ret) {
		fprintf(stderr, "vpr-convert: %s: %s\n", argv[optind + 1], strerror(-ret));
		vpr_reader__close(r);
		return 2;
	}
	ret = vpr_reader__status(r) != VPR_READ_OK;
	if (ret)
		fprintf(stderr, "vpr-convert: %s: %s\n", argv[optind], vpr_reader__error(r));
	vpr_reader__close(r);
	return ret;

usage:
	fprintf(stderr, "usage: vpr-convert [--format N] IN OUT\n");
	return 2;
}
