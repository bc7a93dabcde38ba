/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Parsing of the numbers people type on command lines: plain integers,
 * sizes ("64M") and durations ("30s").  Whole strings only: trailing junk,
 * signs, empty strings and overflow are errors (-EINVAL, -ERANGE).
 */
#ifndef VPATH_PARSE_H
#define VPATH_PARSE_H

#include <stdint.h>

/* A decimal integer, at most max. */
int parse_u64(const char *s, uint64_t max, uint64_t *out);
/* Bytes: an integer with an optional K, M, G or T suffix (powers of 1024;
 * "KiB", "KB", "k" are accepted too). */
int parse_size(const char *s, uint64_t *out);
/* Nanoseconds: an integer with an optional unit ms, s, m, h or d; a plain
 * number is seconds. */
int parse_duration(const char *s, uint64_t *out_ns);

#endif /* VPATH_PARSE_H */
