/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Secrets out of captured HTTP/2 header blocks (VPR_PAYLOAD_H2_FRAME),
 * before anything is written (docs/security.md): the values of
 * authorization, proxy-authorization, cookie and set-cookie fields.  HPACK
 * (RFC 7541) codes a field's name as an index into a static table, into
 * the connection's dynamic table (the fields this direction inserted
 * before), or as a literal string, maybe Huffman-coded; so a direction's
 * blocks are read in order and, of each field inserted, whether its name
 * is one of those is remembered.  A value to replace becomes '*'s of its
 * coded length and loses its Huffman flag, so the block keeps its length
 * and framing and still decodes (analyzer/proto/hpack.h says why the
 * analyzer's table stays right).
 *
 * The rules err towards replacing: a field whose name is not known for
 * sure (an index past what was seen, a direction whose earlier blocks were
 * missed or cut, a name that does not decode) has its value replaced, and
 * bytes that cannot be read as HPACK are replaced whole.
 */
#ifndef VPATH_RECORD_REDACT_H2_H
#define VPATH_RECORD_REDACT_H2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct redact_h2;

struct redact_h2 *redact_h2__new(void); /* NULL: out of memory */
void redact_h2__free(struct redact_h2 *r);
/*
 * One HEADERS or CONTINUATION frame's captured bytes data[0..len) (its
 * header first) of `total`, of direction dir of socket cookie, flags the
 * payload record's (VPR_PAYLOAD_H2_*), in the direction's order: replaces
 * the secret values.  Returns REDACT_DONE (user/redact.h) when bytes were
 * replaced, else 0.
 */
unsigned redact_h2__frame(struct redact_h2 *r, uint64_t cookie, uint8_t dir, uint8_t flags,
			  uint8_t *data, size_t len, uint64_t total);

#endif
