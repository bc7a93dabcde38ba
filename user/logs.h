/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Recorder stage for log lines (--logs, bpf/logs.h): a VPR_LOG record from
 * the ring checked as closely as a payload, and its secrets replaced
 * (redact_log.h) before it is held or written anywhere.  Remembers which
 * (thread, file) pairs ended a write inside a secret value, so that the
 * value's rest in the next write is replaced too.
 */
#ifndef VPATH_RECORD_LOGS_H
#define VPATH_RECORD_LOGS_H

#include <stddef.h>
#include <stdint.h>

#include "vpath/record.h"

/* (thread, file) pairs remembered as open inside a secret: a direct-mapped table. */
#define LOG_OPEN_SLOTS 256

struct log_taker {
	unsigned max_len;	       /* --logs N */
	uint64_t open[LOG_OPEN_SLOTS]; /* key of a pair left open, 0: none */
	uint64_t taken, redacted, malformed;
};

/*
 * The ring's bytes (reserved larger than stored, bpf/logs.h) into *out,
 * redacted.  0, or -EINVAL when they are no well-formed VPR_LOG record
 * (counted in malformed).
 */
int log_taker__take(struct log_taker *t, const void *data, size_t size, struct vpr_log *out);

#endif
