/* relocs_elf.h - an ELF vmlinux's relocation table derived from the
 * relocation sections that ld --emit-relocs keeps in it, for when no
 * --relocs FILE is given. */
#ifndef RELOCS_ELF_H
#define RELOCS_ELF_H

#include "kernel.h"
#include "util.h"

/* f: the ELF file k was read from (kernel_from_elf).  With no SHT_REL or
 * SHT_RELA section applying to a loaded section, takes the table from a
 * BZPACK_RELOCS_SECTION section (an ELF --extract gave back), or with
 * none returns 0 and leaves k fixed; otherwise builds the vmlinux.relocs table and attaches it with
 * relocs_attach.  A relocation this cannot turn into a table entry
 * exactly (a type other than the absolute and PC-relative ones, a
 * per-CPU symbol) is an error naming it. */
int relocs_from_elf(struct kernel *k, const struct buffer *f, struct error *err);

/* The first section called name of that type (SHT_*) in f, an ELF file of
 * the given word size that kernel_from_elf read: 1 and its bytes (inside
 * f) in contents, 0 if there is none, -1 on a damaged section table. */
int elf_find_section(const struct buffer *f, int bits, const char *name, uint32_t type, struct buffer *contents,
		     struct error *err);

#endif
