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
