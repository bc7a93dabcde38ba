/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Secrets out of captured payload, before anything is written
 * (docs/security.md).  Each byte of a secret value is replaced by '*', so
 * lengths and framing stay and the URL, SQL statement and Redis command
 * name stay readable.  The recorder sees only the first bytes of single
 * operations, so the rules err towards replacing.
 */
#ifndef VPATH_RECORD_REDACT_H
#define VPATH_RECORD_REDACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REDACT_MASK '*'

/* What redact_payload() found. */
enum redact_result {
	REDACT_NONE = 0,
	REDACT_DONE = 1, /* bytes were replaced */
	/*
	 * A secret ran to the end of the captured bytes and may go on in the
	 * stream's next operation (redact_continued() is for that one).
	 */
	REDACT_OPEN = 2,
};

/*
 * Replaces the secret values in data[0..len), the first len bytes of an
 * operation of `bytes` bytes: HTTP Authorization, Proxy-Authorization,
 * Cookie and Set-Cookie values; PostgreSQL 'p' messages (password, SASL,
 * GSS); MySQL authentication packets; Redis AUTH arguments (and those of
 * HELLO ... AUTH, MIGRATE ... AUTH, CONFIG SET, ACL SETUSER).  Returns a
 * mask of enum redact_result.
 */
unsigned redact_payload(uint8_t *data, size_t len, uint32_t bytes);

/*
 * For an operation that may begin inside a secret cut off at the end of the
 * previous one in its stream (REDACT_OPEN): replaces its first line, unless
 * that is a whole HTTP request or status line, then applies
 * redact_payload().  Returns a mask like redact_payload().
 */
unsigned redact_continued(uint8_t *data, size_t len, uint32_t bytes);

#endif
