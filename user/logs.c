// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>

#include "logs.h"
#include "redact_log.h"

static uint64_t pair_key(const struct vpr_log *l)
{
	uint64_t k = ((uint64_t)l->h.tid << 32 ^ l->ino) * 0x9e3779b97f4a7c15ull;

	return k ? k : 1;
}

int log_taker__take(struct log_taker *t, const void *data, size_t size, struct vpr_log *out)
{
	const struct vpr_log *in = data;
	uint64_t key, *slot;
	unsigned res;

	/* Reserved with a spare word (bpf/logs.h): up to 8 bytes more than the largest stored. */
	if (size < VPR_LOG_HDR_SIZE || size > sizeof(*out) + 8 || in->len == 0 ||
	    in->len > t->max_len || in->len > in->bytes || in->h.size != VPR_LOG_SIZE(in->len) ||
	    in->h.size > size || in->kind < VPR_LOG_FILE || in->kind > VPR_LOG_UNIX) {
		t->malformed++;
		return -EINVAL;
	}
	memcpy(out, in, in->h.size);
	key = pair_key(out);
	slot = &t->open[(key >> 56) % LOG_OPEN_SLOTS];
	res = redact_log(out->data, out->len, out->bytes, *slot == key);
	/* A write that ends inside a secret leaves its pair open; any other closes it. */
	if (res & REDACT_OPEN)
		*slot = key;
	else if (*slot == key)
		*slot = 0;
	if (res & REDACT_DONE)
		out->flags |= VPR_LOG_REDACTED;
	t->taken++;
	t->redacted += (out->flags & VPR_LOG_REDACTED) != 0;
	return 0;
}
