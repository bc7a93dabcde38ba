/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Secrets out of recorded log lines (vpath-record --logs), before anything
 * is written (docs/security.md).  Logs have no protocol: what is found is a
 * value named as a secret (password=..., "api_key": "...", token: ...,
 * Authorization: ... to the end of its line) and the word after "Bearer" or
 * "Basic".  Each byte of a value is replaced by '*' (REDACT_MASK), so
 * lengths stay and the rest of the line can be read.
 */
#ifndef VPATH_RECORD_REDACT_LOG_H
#define VPATH_RECORD_REDACT_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "redact.h"

/*
 * Replaces the secret values in data[0..len), the first len bytes of a
 * write.  open: the previous write of the same thread to the same file
 * ended inside a secret value (REDACT_OPEN), whose rest begins this one.
 * Returns a mask of enum redact_result: REDACT_OPEN when a value runs to
 * the end of the write's bytes (len == bytes) and may go on in the next.
 */
unsigned redact_log(uint8_t *data, size_t len, uint32_t bytes, int open);

#endif
