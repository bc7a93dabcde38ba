/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Named fields in a message's bytes (queues.c: which message of a read
 * of several a consumer's call was for).  A field is a name, then `=` or
 * `:` (a closing quote and blanks around it allowed), then a value: a
 * JSON member `"id": 17` or `"kind": "resize"` and a query's `id=17` are
 * the same field, (id, 17).  Names are [A-Za-z_][A-Za-z0-9_-]* (at most
 * VP_FIELD_NAME_MAX bytes); values are runs of letters, digits and
 * `.-_+`; nested objects give their inner fields.  Each field is kept as a
 * 64-bit hash of its name and value.
 */
#ifndef VPATH_PROTO_FIELDS_H
#define VPATH_PROTO_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#define VP_FIELD_NAME_MAX 64

/*
 * The fields of p[0..n): their hashes in h[] (at most max, each once, in
 * the order found); returns how many distinct fields there are when they
 * fit, and more than max when some did not (then only a bound).
 */
size_t vp_fields(const uint8_t *p, size_t n, uint64_t *h, size_t max);

#endif
