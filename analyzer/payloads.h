/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 1, read (its payload side): VPR_PAYLOAD and VPR_LOG records are longer than the
 * fixed-size slots of the reorder window and the look-ahead (union
 * vpr_any), which keep only their head.  Their whole bytes wait here, from
 * when the record is read until the analysis takes them by the operation
 * they name (tid, ts_ns, cookie, dir, seq_end), so recordings without
 * payload pay nothing and those with it pay only for the records in flight.
 */
#ifndef VPATH_PAYLOADS_H
#define VPATH_PAYLOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vpath/record.h"

/* Payloads waiting on one host; beyond this the newest are dropped (and counted). */
#define VP_PAYLOADS_MAX (1u << 16)

struct vp_payload_entry;

struct vp_payloads {
	struct vp_payload_entry **buckets;
	size_t nbuckets, n;
};

/* Whether a payload record's len fits its size and its operation (else it is damaged). */
bool vp_payload__valid(const struct vpr_payload *p);
/* Whether a VPR_PAYLOAD_HASH record's size, len and dir are those a recorder writes. */
bool vp_payload_hash__valid(const struct vpr_payload_hash *p);
/*
 * Whether a VPR_LOG record's len fits its size and write.  Log lines wait
 * here too, passed as a struct vpr_payload: the two share their layout up
 * to len, and a log's (pid, fd, ino) stand where a payload's (cookie,
 * seq_end) do, so each is found by its own fields.
 */
bool vp_log__valid(const struct vpr_log *l);
/* Keep a valid record's stored bytes; -ENOMEM, -ENOSPC when VP_PAYLOADS_MAX wait. */
int vp_payloads__put(struct vp_payloads *t, const struct vpr_payload *p);
/* Take the whole record of the operation head names (its first bytes suffice); false: none. */
bool vp_payloads__take(struct vp_payloads *t, const struct vpr_payload *head,
		       struct vpr_payload *out);
void vp_payloads__free(struct vp_payloads *t);

#endif
