/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The RET instructions of an x86-64 function, found by decoding it from its
 * first byte (docs/recorder.md, "TLS in Go programs").  A uprobe set
 * inside an instruction would corrupt the program, so a byte 0xc3 is a RET
 * only where the walk of instruction lengths lands on it; a scan for the
 * byte would also find it inside displacements and immediates.
 */
#ifndef VPATH_RECORD_X86_RET_H
#define VPATH_RECORD_X86_RET_H

#include <stddef.h>
#include <stdint.h>

/*
 * The length of the instruction at code (at most n bytes there), or 0 when
 * it is not one the decoder knows (or runs past n).  Covers the general
 * purpose, x87, SSE and VEX/EVEX encodings a compiler emits; not the
 * 32-bit-only ones, invalid in 64-bit mode.
 */
size_t x86_insn_len(const uint8_t *code, size_t n);

/*
 * The offsets of the RET instructions (0xc3, 0xc2 imm16) of the function
 * whose len bytes are at code, in rets (room for max).  Their number, or
 * -1 when the walk cannot decode an instruction, does not end exactly at
 * len, or finds more than max: then no offset can be trusted.
 */
int x86_find_rets(const uint8_t *code, size_t len, uint32_t *rets, int max);

/*
 * The offset of the first CALL rel32 to target at or after offset from, in
 * the function whose len bytes are at code and whose first byte is at
 * address at_addr, found on the walk of instruction lengths; -1 when there
 * is none or the walk fails anywhere in the function (as x86_find_rets).
 */
long x86_find_call(const uint8_t *code, size_t len, uint64_t at_addr, uint64_t target, size_t from);

#endif
