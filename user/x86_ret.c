// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * An x86-64 instruction length decoder, enough to walk a compiled function
 * (x86_ret.h).  Only lengths: prefixes, opcode maps, ModRM/SIB/displacement
 * and immediates.  Anything it does not know stops the walk, and the
 * caller then probes nothing: a wrong length would put a breakpoint inside
 * an instruction.
 */
#include <stdbool.h>
#include <string.h>

#include "x86_ret.h"

#define X86_MAX_INSN 15
#define BAD (-1)

/* What follows an opcode. */
struct x86_form {
	bool modrm;
	int imm; /* bytes; BAD: not an instruction of 64-bit mode */
};

/* ModRM, SIB and displacement bytes at p (n there); 0: cut short. */
static size_t modrm_len(const uint8_t *p, size_t n)
{
	unsigned mod, rm;
	size_t len = 1;

	if (n < 1)
		return 0;
	mod = p[0] >> 6;
	rm = p[0] & 7;
	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (n < 2)
			return 0;
		len++;
		if (mod == 0 && (p[1] & 7) == 5)
			return len + 4;
	}
	if (mod == 0 && rm == 5)
		return len + 4; /* RIP-relative */
	return len + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* The one-byte map's rows 0x00-0x3f: the ALU forms (prefixes and 0x0f are taken before). */
static struct x86_form alu_form(uint8_t op, int iz)
{
	switch (op & 7) {
	case 4:
		return (struct x86_form){false, 1};
	case 5:
		return (struct x86_form){false, iz};
	case 6:
	case 7:
		return (struct x86_form){false, BAD};
	default:
		return (struct x86_form){true, 0};
	}
}

/* The one-byte map; reg is the ModRM's reg field (F6, F7 take an immediate for /0 and /1). */
static struct x86_form one_byte(uint8_t op, unsigned reg, int iz, bool rexw, bool addr32)
{
	if (op < 0x40)
		return alu_form(op, iz);
	if (op >= 0x50 && op <= 0x5f)
		return (struct x86_form){false, 0};
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0xb0 && op <= 0xb7) || (op >= 0xe0 && op <= 0xe7))
		return (struct x86_form){false, 1};
	if (op >= 0xb8 && op <= 0xbf)
		return (struct x86_form){false, rexw ? 8 : iz};
	if ((op >= 0x84 && op <= 0x8f) || (op >= 0xd0 && op <= 0xd3) || (op >= 0xd8 && op <= 0xdf))
		return (struct x86_form){true, 0};
	switch (op) {
	case 0x63:
	case 0xfe:
	case 0xff:
		return (struct x86_form){true, 0};
	case 0x68:
	case 0xa9:
	case 0xe8:
	case 0xe9:
		return (struct x86_form){false, op >= 0xe8 ? 4 : iz};
	case 0x69:
	case 0x81:
	case 0xc7:
		return (struct x86_form){true, iz};
	case 0x6a:
	case 0xa8:
	case 0xcd:
	case 0xeb:
		return (struct x86_form){false, 1};
	case 0x6b:
	case 0x80:
	case 0x83:
	case 0xc0:
	case 0xc1:
	case 0xc6:
		return (struct x86_form){true, 1};
	case 0xa0:
	case 0xa1:
	case 0xa2:
	case 0xa3:
		return (struct x86_form){false, addr32 ? 4 : 8};
	case 0xc2:
	case 0xca:
		return (struct x86_form){false, 2};
	case 0xc8:
		return (struct x86_form){false, 3};
	case 0xf6:
		return (struct x86_form){true, reg < 2 ? 1 : 0};
	case 0xf7:
		return (struct x86_form){true, reg < 2 ? iz : 0};
	case 0x60:
	case 0x61:
	case 0x82:
	case 0x9a:
	case 0xce:
	case 0xd4:
	case 0xd5:
	case 0xd6:
	case 0xea:
		return (struct x86_form){false, BAD};
	default: /* 6c-6f, 90-9f, a4-a7, aa-af, c3, c9, cb, cc, cf, d7, ec-ef, f1, f4, f5, f8-fd */
		return (struct x86_form){false, 0};
	}
}

/* The 0x0f map (0x38 and 0x3a, the three-byte maps, are taken before). */
static struct x86_form two_byte(uint8_t op)
{
	if ((op >= 0x80 && op <= 0x8f))
		return (struct x86_form){false, 4};
	if ((op >= 0x70 && op <= 0x73) || op == 0xa4 || op == 0xac || op == 0xba || op == 0xc2 ||
	    (op >= 0xc4 && op <= 0xc6))
		return (struct x86_form){true, 1};
	if ((op >= 0x30 && op <= 0x37) || (op >= 0xc8 && op <= 0xcf))
		return (struct x86_form){false, 0};
	switch (op) {
	case 0x05:
	case 0x06:
	case 0x07:
	case 0x08:
	case 0x09:
	case 0x0b:
	case 0x0e:
	case 0x77:
	case 0xa0:
	case 0xa1:
	case 0xa2:
	case 0xa8:
	case 0xa9:
	case 0xaa:
		return (struct x86_form){false, 0};
	case 0x04:
	case 0x0a:
	case 0x0c:
	case 0x0f:
	case 0x24:
	case 0x25:
	case 0x26:
	case 0x27:
	case 0x39:
	case 0x3b:
	case 0x3c:
	case 0x3d:
	case 0x3e:
	case 0x3f:
		return (struct x86_form){false, BAD};
	default:
		return (struct x86_form){true, 0};
	}
}

/*
 * A VEX (c4, c5) or EVEX (62) instruction from its first byte: the prefix,
 * the opcode in the map it names, ModRM (always, but for vzeroupper and
 * vzeroall) and the immediate of the maps' forms that take one.
 */
static size_t vex_len(const uint8_t *p, size_t n)
{
	size_t pre = p[0] == 0xc5 ? 2 : p[0] == 0xc4 ? 3 : 4;
	unsigned map;
	uint8_t op;
	size_t m;
	int imm = 0;

	if (n < pre + 1)
		return 0;
	map = p[0] == 0xc5 ? 1 : p[0] == 0xc4 ? p[1] & 0x1f : p[1] & 7;
	op = p[pre];
	if (map < 1 || map > 3)
		return 0;
	if (map == 1 && op == 0x77 && p[0] != 0x62)
		return pre + 1;
	if (map == 3 ||
	    (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 || (op >= 0xc4 && op <= 0xc6))))
		imm = 1;
	m = modrm_len(p + pre + 1, n - pre - 1);
	if (!m)
		return 0;
	return pre + 1 + m + (size_t)imm;
}

size_t x86_insn_len(const uint8_t *code, size_t n)
{
	bool opsize = false, addr32 = false, rexw = false;
	struct x86_form form;
	size_t i = 0, len;
	uint8_t op;

	for (; i < n && i < X86_MAX_INSN; i++) {
		uint8_t b = code[i];

		if (b == 0x66)
			opsize = true;
		else if (b == 0x67)
			addr32 = true;
		else if (b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x36 ||
			 b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65)
			;
		else if ((b & 0xf0) == 0x40) {
			rexw = b & 8;
			continue;
		} else
			break;
		rexw = false; /* a REX counts only right before the opcode */
	}
	if (i >= n || i >= X86_MAX_INSN)
		return 0;
	op = code[i];
	if (op == 0x62 || op == 0xc4 || op == 0xc5) {
		len = vex_len(code + i, n - i);
		len = len ? i + len : 0;
		return len <= X86_MAX_INSN && len <= n ? len : 0;
	}
	i++;
	if (op == 0x0f) {
		if (i >= n)
			return 0;
		op = code[i++];
		if (op == 0x38 || op == 0x3a) {
			if (i >= n)
				return 0;
			i++;
			form = (struct x86_form){true, op == 0x3a ? 1 : 0};
		} else {
			form = two_byte(op);
		}
	} else {
		unsigned reg = i < n ? (code[i] >> 3) & 7 : 0;

		form = one_byte(op, reg, opsize ? 2 : 4, rexw, addr32);
	}
	if (form.imm == BAD)
		return 0;
	len = i;
	if (form.modrm) {
		size_t m = modrm_len(code + i, n - i);

		if (!m)
			return 0;
		len += m;
	}
	len += (size_t)form.imm;
	return len <= X86_MAX_INSN && len <= n ? len : 0;
}

int x86_find_rets(const uint8_t *code, size_t len, uint32_t *rets, int max)
{
	size_t at = 0;
	int found = 0;

	while (at < len) {
		size_t l = x86_insn_len(code + at, len - at);
		size_t p = at;

		if (!l)
			return -1;
		/* Prefixes before a RET (rep ret, an old AMD habit) are part of it. */
		while (p < at + l - 1 && (code[p] == 0xf3 || code[p] == 0xf2 || code[p] == 0x66))
			p++;
		if (code[p] == 0xc3 || code[p] == 0xc2) {
			if (found >= max)
				return -1;
			rets[found++] = (uint32_t)at;
		}
		at += l;
	}
	return found;
}

long x86_find_call(const uint8_t *code, size_t len, uint64_t at_addr, uint64_t target, size_t from)
{
	size_t at = 0;
	long found = -1;

	/* The whole function is walked: a walk that fails anywhere trusts none of its lengths. */
	while (at < len) {
		size_t l = x86_insn_len(code + at, len - at);

		if (!l)
			return -1;
		if (found < 0 && l == 5 && code[at] == 0xe8 && at >= from) {
			int32_t rel;

			memcpy(&rel, code + at + 1, sizeof(rel));
			if (at_addr + at + 5 + (uint64_t)(int64_t)rel == target)
				found = (long)at;
		}
		at += l;
	}
	return found;
}
