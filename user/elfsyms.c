// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "elfsyms.h"

void elf_syms__each(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *prefix, elf_sym_fn fn,
		    void *arg)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	size_t plen = strlen(prefix);

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && strncmp(name, prefix, plen) == 0)
			fn(arg, name, &sym);
	}
}

int elf_func_offset(Elf *elf, uint64_t addr, uint64_t size, uint32_t shndx, uint64_t *off)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
	    !(sh.sh_flags & SHF_EXECINSTR) || addr < sh.sh_addr ||
	    addr - sh.sh_addr >= sh.sh_size || size > sh.sh_size - (addr - sh.sh_addr))
		return -1;
	*off = addr - sh.sh_addr + sh.sh_offset;
	return 0;
}
