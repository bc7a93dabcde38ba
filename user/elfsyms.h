/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The symbols of an ELF symbol table section whose names begin with a prefix. */
#ifndef VPATH_RECORD_ELFSYMS_H
#define VPATH_RECORD_ELFSYMS_H

#include <gelf.h>
#include <libelf.h>

typedef void (*elf_sym_fn)(void *arg, const char *name, const GElf_Sym *sym);

/* fn for each symbol of scn (a SHT_SYMTAB or SHT_DYNSYM, header sh) named prefix... */
void elf_syms__each(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *prefix, elf_sym_fn fn,
		    void *arg);

#endif
