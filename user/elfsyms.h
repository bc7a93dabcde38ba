/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The symbols of an ELF symbol table section whose names begin with a prefix, and where a function is in the file. */
#ifndef VPATH_RECORD_ELFSYMS_H
#define VPATH_RECORD_ELFSYMS_H

#include <gelf.h>
#include <libelf.h>

typedef void (*elf_sym_fn)(void *arg, const char *name, const GElf_Sym *sym);

/* fn for each symbol of scn (a SHT_SYMTAB or SHT_DYNSYM, header sh) named prefix... */
void elf_syms__each(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *prefix, elf_sym_fn fn,
		    void *arg);

/*
 * The file offset of the function at addr, size bytes long (a uprobe is set
 * at a file offset), in section shndx: 0 when all of it lies in that
 * section's bytes and the section holds code, else -1.  Where the size is
 * not known (0), addr alone must lie there.
 */
int elf_func_offset(Elf *elf, uint64_t addr, uint64_t size, uint32_t shndx, uint64_t *off);

#endif
