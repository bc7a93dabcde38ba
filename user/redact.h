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
 * GSS); MySQL authentication packets; AMQP connection.start-ok and
 * connection.secure-ok responses (PLAIN: user and password); Redis AUTH arguments (and those of
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

/*
 * What a stream's earlier operations told of its direction (MySQL): a
 * whole packet of sequence number 1-15 is a client's authentication data
 * (an auth switch response, a scrambled or encrypted password) only in the
 * client's direction while it authenticates.  Where nothing was seen (a
 * connection opened before the recording) every such packet is replaced.
 */
enum redact_side {
	REDACT_SIDE_UNKNOWN = 0,
	REDACT_SIDE_CLIENT_AUTH, /* a MySQL client's, authenticating */
	REDACT_SIDE_CLIENT,	 /* a MySQL client's, sending commands */
	REDACT_SIDE_SERVER,	 /* a MySQL server's */
};

/*
 * What the operation's first bytes tell of its direction (*side) and of
 * the stream's other direction (*other): a server's greeting, a client's
 * handshake response, COM_CHANGE_USER or other command.  false: nothing.
 * Call it before redacting, on the bytes as they came.
 */
bool redact_mysql_side(const uint8_t *data, size_t len, uint32_t bytes, uint8_t *side,
		       uint8_t *other);
/* redact_payload() and redact_continued() for an operation whose direction is known to be `side`. */
unsigned redact_payload_side(uint8_t *data, size_t len, uint32_t bytes, uint8_t side);
unsigned redact_continued_side(uint8_t *data, size_t len, uint32_t bytes, uint8_t side);

#endif
