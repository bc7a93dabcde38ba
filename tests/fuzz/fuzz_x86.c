// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the recorder's x86-64 walk of a Go binary's functions
 * (user/x86_ret.c, user/go_entry.c), which places uprobes in code read from
 * any executable that runs on the host.  A wrong answer puts a breakpoint
 * inside an instruction, so the answers are checked, not only memory:
 *   - every instruction length stays inside the bytes given;
 *   - each RET found lies on the walk's boundaries and is a RET (after its
 *     prefixes), in increasing order;
 *   - a CALL found is a CALL rel32 to the target asked, at or after the
 *     offset asked, on the walk's boundaries;
 *   - past the stack check is 0 or 4, and 4 only after its CMP and before a JBE.
 *
 * Input: 4 bytes of the target's distance from the code's start (signed),
 * 1 byte of the offset to search from, then the code.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../user/go_entry.h"
#include "../../user/x86_ret.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RETS_MAX 64
#define AT 0x400000ull /* where the function is said to start */

static void check(bool ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_x86: %s\n", what);
		abort();
	}
}

/* Marks the walk's instruction starts; false when it fails, as the finders must. */
static bool walk(const uint8_t *code, size_t len, bool *start)
{
	size_t at = 0;

	while (at < len) {
		size_t l = x86_insn_len(code + at, len - at);

		if (!l)
			return false;
		check(l <= len - at && l <= 15,
		      "an instruction runs past the bytes or over 15 bytes");
		start[at] = true;
		at += l;
	}
	return true;
}

static void check_rets(const uint8_t *code, size_t len, const bool *start, bool walked)
{
	uint32_t rets[RETS_MAX];
	int n = x86_find_rets(code, len, rets, RETS_MAX);

	if (!walked) {
		check(n == -1, "RETs found on a walk that fails");
		return;
	}
	for (int i = 0; i < n; i++) {
		size_t p = rets[i];

		check(p < len && start[p], "a RET off the instruction boundaries");
		check(i == 0 || rets[i] > rets[i - 1], "RETs out of order");
		while (p < len - 1 && (code[p] == 0xf3 || code[p] == 0xf2 || code[p] == 0x66))
			p++;
		check(code[p] == 0xc3 || code[p] == 0xc2, "a RET that is no RET");
	}
}

static void check_call(const uint8_t *code, size_t len, const bool *start, bool walked,
		       uint64_t target, size_t from)
{
	long at = x86_find_call(code, len, AT, target, from);
	int32_t rel;

	if (at < 0)
		return;
	check(walked, "a CALL found on a walk that fails");
	check((size_t)at >= from && (size_t)at + 5 <= len && start[at], "a CALL off the walk");
	check(code[at] == 0xe8, "a CALL that is no CALL rel32");
	memcpy(&rel, code + at + 1, sizeof(rel));
	check(AT + (uint64_t)at + 5 + (uint64_t)(int64_t)rel == target, "a CALL to elsewhere");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int32_t dist;
	size_t from, len, past;
	const uint8_t *code;
	bool *start;
	bool walked;

	if (size < 5)
		return 0;
	memcpy(&dist, data, sizeof(dist));
	from = data[4];
	code = data + 5;
	len = size - 5;
	start = calloc(len + 1, sizeof(*start));
	check(start != NULL, "out of memory");
	walked = walk(code, len, start);
	check_rets(code, len, start, walked);
	check_call(code, len, start, walked, AT + (uint64_t)(int64_t)dist, from);
	past = go_entry__past_stack_check(code, len);
	check(past == 0 || past == 4, "past the stack check: neither 0 nor 4");
	if (past)
		check(code[0] == 0x49 && code[1] == 0x3b && code[2] == 0x66 && code[3] == 0x10 &&
			      (code[4] == 0x76 || (code[4] == 0x0f && code[5] == 0x86)),
		      "past a stack check that is not there");
	free(start);
	return 0;
}
