// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <bpf/libbpf.h>

#include "varbuf.h"
#include "linkset.h"

int linkset__add(struct linkset *ls, struct bpf_link *link)
{
	struct bpf_link **slot = vp_grow((void **)&ls->links, &ls->n, &ls->cap, sizeof(*ls->links));

	if (!slot) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	*slot = link;
	return 0;
}

void linkset__truncate(struct linkset *ls, size_t n)
{
	while (ls->n > n)
		bpf_link__destroy(ls->links[--ls->n]);
}

void linkset__free(struct linkset *ls)
{
	linkset__truncate(ls, 0);
	free(ls->links);
	ls->links = NULL;
	ls->cap = 0;
}
