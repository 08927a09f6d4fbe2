/* relocs_elf.h - an ELF vmlinux's relocation table derived from the
 * relocation sections that ld --emit-relocs keeps in it, for when no
 * --relocs FILE is given. */
#ifndef RELOCS_ELF_H
#define RELOCS_ELF_H

#include "kernel.h"
#include "util.h"

/* f: the ELF file k was read from (kernel_from_elf).  With no SHT_REL or
 * SHT_RELA section applying to a loaded section, returns 0 and leaves k
 * fixed; otherwise builds the vmlinux.relocs table and attaches it with
 * relocs_attach.  A relocation this cannot turn into a table entry
 * exactly (a type other than the absolute and PC-relative ones, a
 * per-CPU symbol) is an error naming it. */
int relocs_from_elf(struct kernel *k, const struct buffer *f, struct error *err);

#endif
