/* pe.h - the PE32+ header that makes a 64-bit bzpack image an EFI
 * application too (Microsoft PE/COFF specification; UEFI specification
 * 2.10, section 2.1.1).  See pe.c for the layout. */
#ifndef PE_H
#define PE_H

#include <stdio.h>

#include "util.h"

/* Where the parts the PE header describes lie in the file. */
struct pe_layout {
	uint64_t headers_size;  /* loaded as the image's headers: sector 0 up to the .reloc sector */
	uint64_t reloc_offset;  /* the .reloc sector, the real-mode part's last */
	uint64_t text_offset;   /* the protected-mode part: .text */
	uint64_t text_size;     /* its bytes (stub, bzpack_header, payload) */
	uint32_t entry;         /* the EFI entry, as an offset in .text */
};

/* The file has room for the DOS header, PE header and section table
 * before the setup_header (0x1f1), and the .reloc sector is zero. */
#define PE_RELOC_SECTOR 512
void pe_write(uint8_t *file, const struct pe_layout *l);

/* What a file's PE header says, for bzpack --info; nothing for a file
 * without one.  Every field read is bounds-checked against the file. */
void pe_print(FILE *out, const struct buffer *file);

/* The default command line the EFI entry uses when its loader gives none:
 * a NUL-terminated string right after the kernel_version string. */
void pe_print_cmdline(FILE *out, const struct buffer *file);

#endif
