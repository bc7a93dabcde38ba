/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where an entry uprobe goes on a Go function.  A function that may grow
 * its stack starts with its stack check, CMPQ 0x10(R14), SP then JBE to
 * morestack.  A uprobe on the CMP has the kernel run the CMP out of line:
 * the int3, then a single-step trap.  On the JBE, four bytes on, the kernel
 * emulates the branch: the int3 alone.  The registers and the stack there
 * are still the entry's (the CMP only sets flags), and a call that grows its
 * stack passes both points twice, so the probe sees the same calls with the
 * same arguments.  Measured on this project's virtual machine, where every
 * trap is expensive: docs/bench.md, "gRPC".
 */
#ifndef VPATH_RECORD_GO_ENTRY_H
#define VPATH_RECORD_GO_ENTRY_H

#include <stddef.h>
#include <stdint.h>

/* The bytes at a Go function's start: the offset of its stack check's JBE, or 0 (no check). */
size_t go_entry__past_stack_check(const uint8_t *code, size_t n);

/*
 * The file offset to probe for the function that starts at file offset
 * off of fd: off itself, or its stack check's JBE when it has one.
 */
uint64_t go_entry__probe_offset(int fd, uint64_t off);

#endif
