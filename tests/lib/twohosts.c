// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <stdlib.h>

#include "twohosts.h"

struct two_hosts *two_hosts__new(const char *name_a, const char *addr_a, const char *name_b,
				 const char *addr_b)
{
	struct two_hosts *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (synth_tmpdir(t->dir, sizeof(t->dir))) {
		free(t);
		return NULL;
	}
	snprintf(t->pa, sizeof(t->pa), "%s/a.vpr", t->dir);
	snprintf(t->pb, sizeof(t->pb), "%s/b.vpr", t->dir);
	t->files[0] = t->pa;
	t->files[1] = t->pb;
	t->a = synth_host__new(t->pa, name_a, NULL, 1);
	t->b = synth_host__new(t->pb, name_b, NULL, 2);
	if (!t->a || !t->b) {
		two_hosts__free(t);
		return NULL;
	}
	synth_addr(t->a, addr_a);
	synth_addr(t->b, addr_b);
	return t;
}

int two_hosts__close(struct two_hosts *t)
{
	int ra = synth_host__close(t->a), rb = synth_host__close(t->b);

	t->a = t->b = NULL;
	return ra ? ra : rb;
}

void two_hosts__free(struct two_hosts *t)
{
	if (!t)
		return;
	two_hosts__close(t);
	collected_free(&t->c);
	synth_rmdir(t->dir);
	free(t);
}
