/* elf_extract.h - the ELF vmlinux that --extract gives back from a bzpack
 * image, and its note read back when that ELF is packed again, so that
 * the round trip gives the same image (include/bzpack_elf.h). */
#ifndef ELF_EXTRACT_H
#define ELF_EXTRACT_H

#include "kernel.h"
#include "util.h"

/* k: a kernel read from a bzpack image (bzimage_kernel), codec its
 * bzpack_header.codec.  Writes a new ELF file into out: the program
 * headers of k->elf, their bytes from k's blob, a section per segment,
 * the note, and the relocation table as the BZPACK_RELOCS_SECTION
 * section.  A record that does not describe k's bytes exactly is
 * refused: its ELF would not pack back into the same image. */
int elf_extract(const struct kernel *k, unsigned codec, struct buffer *out, struct error *err);

/* f: an ELF file kernel_from_elf read into k.  With a bzpack note, takes
 * the carried setup fields, the version, the table's alignment and the
 * recorded level from it (1); without one leaves k as it is (0); -1 on a
 * damaged note. */
int elf_note_apply(struct kernel *k, const struct buffer *f, struct error *err);

#endif
