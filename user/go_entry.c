// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include <unistd.h>

#include "go_entry.h"

size_t go_entry__past_stack_check(const uint8_t *code, size_t n)
{
	/* CMPQ 0x10(R14), SP: REX.WB 3B /r with ModRM [r14 + disp8], reg rsp. */
	static const uint8_t cmp[] = {0x49, 0x3b, 0x66, 0x10};

	if (n < sizeof(cmp) + 2 || memcmp(code, cmp, sizeof(cmp)))
		return 0;
	/* JBE rel8 (0x76), or JBE rel32 (0x0f 0x86): conditional branches the kernel emulates. */
	if (code[4] == 0x76 || (code[4] == 0x0f && code[5] == 0x86))
		return sizeof(cmp);
	return 0;
}

uint64_t go_entry__probe_offset(int fd, uint64_t off)
{
	uint8_t code[8];

	if (pread(fd, code, sizeof(code), (off_t)off) != (ssize_t)sizeof(code))
		return off;
	return off + go_entry__past_stack_check(code, sizeof(code));
}
