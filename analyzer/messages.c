// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "messages.h"

void vp_msg__start(struct vp_msg *m, const struct vpr_sock_op *op)
{
	memset(m, 0, sizeof(*m));
	m->first_ts = m->last_ts = op->h.ts_ns;
	m->bytes = op->bytes;
	m->seq_start = vp_op_seq_start(op);
	m->seq_end = op->seq_end;
	m->first_tid = m->last_tid = op->h.tid;
	m->nops = 1;
	m->nthreads = 1;
}

void vp_msg__add(struct vp_msg *m, const struct vpr_sock_op *op)
{
	/* A zero-byte op (EOF, EAGAIN shown as 0) carries no stream position. */
	if (op->bytes && vp_op_seq_start(op) != m->seq_end)
		m->gap = true;
	if (op->h.ts_ns > m->last_ts)
		m->last_ts = op->h.ts_ns;
	m->bytes += op->bytes;
	if (op->bytes)
		m->seq_end = op->seq_end;
	if (op->h.tid != m->last_tid && m->nthreads < UINT16_MAX)
		m->nthreads++;
	m->last_tid = op->h.tid;
	m->nops++;
}
