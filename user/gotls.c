// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * crypto/tls's functions in a Go binary (gotls.h): by their symbols, with
 * the symbols' sizes as the functions' bounds, and their RETs found by
 * decoding the code from the function's first byte (x86_ret.h).  A
 * function whose walk fails is not guessed at: the binary's TLS is then
 * not read at all.
 */
#define _GNU_SOURCE
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsyms.h"
#include "go_entry.h"
#include "gotls.h"
#include "x86_ret.h"

static const char *const go_tls_syms[GO_TLS_NFN] = {
	"crypto/tls.(*Conn).handshakeContext",
	"crypto/tls.(*Conn).Write",
	"crypto/tls.(*Conn).Read",
	"crypto/tls.(*Conn).Close",
};

static const char *const go_tls_progs[GO_TLS_NFN] = {"go_tls_handshake", "go_tls_write",
						     "go_tls_read", "go_tls_close"};

const char *go_tls__entry_prog(enum go_tls_fn fn)
{
	return fn < GO_TLS_NFN ? go_tls_progs[fn] : NULL;
}

int go_tls__register_abi(const char *version)
{
	unsigned major, minor;

	if (sscanf(version, "go%u.%u", &major, &minor) != 2)
		return 0;
	return major > 1 || (major == 1 && minor >= 17);
}

struct go_tls_sym {
	uint64_t addr, size;
	uint32_t shndx;
	int found;
};

static void tls_symbol(void *arg, const char *name, const GElf_Sym *sym)
{
	struct go_tls_sym *s = arg;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC)
		return;
	for (int f = 0; f < GO_TLS_NFN; f++)
		if (strcmp(name, go_tls_syms[f]) == 0) {
			s[f].addr = sym->st_value;
			s[f].size = sym->st_size;
			s[f].shndx = sym->st_shndx;
			s[f].found = 1;
		}
}

/* The RETs of the function at file offset off, size bytes long. */
static int find_rets(int fd, uint64_t off, uint64_t size, struct go_tls_probes *p, enum go_tls_fn f)
{
	uint32_t rets[GO_TLS_MAX_RETS];
	uint8_t *code;
	int n;

	if (!size || size > (1u << 20))
		return -1;
	code = malloc(size);
	if (!code)
		return -1;
	if (pread(fd, code, size, (off_t)off) != (ssize_t)size) {
		free(code);
		return -1;
	}
	n = x86_find_rets(code, size, rets, GO_TLS_MAX_RETS);
	free(code);
	if (n <= 0)
		return -1;
	p->nrets[f] = (uint32_t)n;
	for (int i = 0; i < n; i++)
		p->rets[f][i] = off + rets[i];
	return 0;
}

static int inspect_elf(Elf *elf, int fd, struct go_tls_probes *p, const char **why)
{
	struct go_tls_sym s[GO_TLS_NFN] = {0};
	Elf_Scn *scn = NULL;
	int nfound = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			elf_syms__each(elf, scn, &sh, "crypto/tls.(*Conn).", tls_symbol, s);
	}
	for (int f = 0; f < GO_TLS_NFN; f++)
		nfound += s[f].found;
	if (!s[GO_TLS_WRITE].found && !s[GO_TLS_READ].found)
		return 0;
	if (nfound < GO_TLS_NFN) {
		*why = "a crypto/tls function to probe is missing (inlined or renamed)";
		return -1;
	}
	for (int f = 0; f < GO_TLS_NFN; f++) {
		if (elf_func_offset(elf, s[f].addr, s[f].size, s[f].shndx, &p->entry[f])) {
			*why = "a crypto/tls function is not in the file's code";
			return -1;
		}
		if ((f == GO_TLS_WRITE || f == GO_TLS_READ) &&
		    find_rets(fd, p->entry[f], s[f].size, p, f)) {
			*why = "the returns of crypto/tls's Read or Write cannot be found";
			return -1;
		}
		p->entry[f] = go_entry__probe_offset(fd, p->entry[f]);
	}
	return 1;
}

int go_tls__inspect(int fd, const char *version, struct go_tls_probes *p, const char **why)
{
	Elf *elf;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	*why = NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return 0;
	if (elf_kind(elf) == ELF_K_ELF) {
		GElf_Ehdr eh;

		ret = inspect_elf(elf, fd, p, why);
		if (ret == 1 && (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64)) {
			*why = "not x86-64 (the RET finder decodes x86-64 only)";
			ret = -1;
		} else if (ret == 1 && !go_tls__register_abi(version)) {
			*why = "a Go before 1.17 (no register ABI) or of unknown version";
			ret = -1;
		}
	}
	elf_end(elf);
	return ret;
}
