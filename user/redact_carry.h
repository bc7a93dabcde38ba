/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which streams may begin their next operation inside a secret that the
 * previous one cut off (REDACT_OPEN, user/redact.h): a fixed table by
 * socket and direction, holding the stream position where that next
 * operation must begin.  Beside it, what each stream's earlier operations
 * told of its direction (enum redact_side, user/redact.h), and a packet
 * header read alone, for the operation that reads its body.
 */
#ifndef VPATH_RECORD_REDACT_CARRY_H
#define VPATH_RECORD_REDACT_CARRY_H

#include <stdbool.h>
#include <stdint.h>

struct redact_carry;

struct redact_carry *redact_carry__new(void); /* NULL: out of memory */
void redact_carry__free(struct redact_carry *c);
/* The operation of (cookie, dir) after the one ending at seq_end may begin in a secret. */
void redact_carry__mark(struct redact_carry *c, uint64_t cookie, uint8_t dir, uint32_t seq_end);
/* Was the operation of (cookie, dir) beginning at seq_start marked?  Forgets the mark. */
bool redact_carry__take(struct redact_carry *c, uint64_t cookie, uint8_t dir, uint32_t seq_start);

/*
 * The operation of (cookie, dir) ending at seq_end was 4 bytes alone: a
 * packet header that its reader (MariaDB's server, a header-first client)
 * took before the body, whose rules need it (user/redact.c, MySQL).
 */
void redact_carry__keep_header(struct redact_carry *c, uint64_t cookie, uint8_t dir,
			       uint32_t seq_end, const uint8_t hdr[4]);
/* Was the operation of (cookie, dir) beginning at seq_start preceded by one kept so?  Copies and forgets it. */
bool redact_carry__take_header(struct redact_carry *c, uint64_t cookie, uint8_t dir,
			       uint32_t seq_start, uint8_t hdr[4]);

/* What (cookie, dir) is known to be (enum redact_side); REDACT_SIDE_UNKNOWN when not. */
uint8_t redact_carry__side(struct redact_carry *c, uint64_t cookie, uint8_t dir);
void redact_carry__set_side(struct redact_carry *c, uint64_t cookie, uint8_t dir, uint8_t side);

#endif
