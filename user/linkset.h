/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The uprobe links one follower (Go binaries, libssl files) attached in this
 * process: kept so that detaching is one call, and so that a file whose
 * probes fail half-way can give back the ones it got.
 */
#ifndef VPATH_LINKSET_H
#define VPATH_LINKSET_H

#include <stddef.h>

struct bpf_link;

struct linkset {
	struct bpf_link **links;
	size_t n, cap;
};

/* Keeps link; when out of memory destroys it and returns -ENOMEM. */
int linkset__add(struct linkset *ls, struct bpf_link *link);
/* Destroys the links added after the first n (n = 0: all of them). */
void linkset__truncate(struct linkset *ls, size_t n);
void linkset__free(struct linkset *ls);

#endif
