/* pe.h - the PE32+ header that makes a 64-bit bzpack image an EFI
 * application too (Microsoft PE/COFF specification; UEFI specification
 * 2.10, section 2.1.1).  See pe.c for the layout. */
#ifndef PE_H
#define PE_H

#include <stdio.h>

#include "util.h"

/* A section of embedded data after .text (bzpack_format.h, struct
 * bzpack_embed): its file offset lies .text's RVA's distance after
 * text_offset, a multiple of 4 KiB. */
#define PE_EXTRA_MAX 4
struct pe_extra {
	const char *name;       /* ".initrd", ... */
	uint64_t offset, size;  /* in the file; the raw size is size padded to 512 */
};

/* Where the parts the PE header describes lie in the file. */
struct pe_layout {
	uint64_t pe_offset;     /* the PE header, PE_HEADER_ALIGN aligned, pe_header_size() bytes */
	uint64_t headers_size;  /* loaded as the image's headers: the real-mode part up to .sbat */
	uint64_t sbat_size;     /* .sbat, right after them (whole sectors, the real-mode part's last) */
	uint64_t text_offset;   /* the protected-mode part: .text */
	uint64_t text_size;     /* its bytes (stub, bzpack_header, payload) */
	uint32_t entry;         /* the EFI entry, as an offset in .text */
	unsigned extras;
	struct pe_extra extra[PE_EXTRA_MAX];
};

#define PE_HEADER_ALIGN 8
/* The PE header's bytes with .sbat, .text and extras more sections. */
uint64_t pe_header_size(unsigned extras);
/* The file has room at pe_offset for the PE header and section table. */
void pe_write(uint8_t *file, const struct pe_layout *l);

#define PE_MACHINE_AMD64  0x8664
#define PE_DLL_NX_COMPAT  0x0100    /* DllCharacteristics: W^X-safe */

/* A PE32+ header as read from a file; offsets are file offsets. */
struct pe_info {
	const char *problem;            /* why pe_parse failed */
	uint64_t offset;                /* "PE\0\0" */
	uint64_t opt_offset, section_table, checksum_offset, cert_dir_offset;
	uint16_t machine, sections, characteristics, magic, subsystem, dll_characteristics;
	uint16_t major_image_version, minor_image_version;
	uint32_t entry, section_alignment, file_alignment, size_of_image, size_of_headers, directories;
	uint64_t image_base;
	uint32_t cert_offset, cert_size;  /* the certificate table (a file offset) */
	uint32_t reloc_rva, reloc_size;
};

struct pe_section {
	char name[9];
	uint32_t virtual_size, rva, raw_size, raw_offset, flags;
	int coff_relocs;
};

/* 0 and pe filled, or -1 with pe->problem; every field read is
 * bounds-checked against the file, the section table included. */
int pe_parse(const struct buffer *file, struct pe_info *pe);
struct pe_section pe_section(const struct buffer *file, const struct pe_info *pe, unsigned i);
int pe_find_section(const struct buffer *file, const struct pe_info *pe, const char *name,
		    struct pe_section *out);
/* NULL if the alignments, section placement and SizeOfImage are as a
 * strict loader checks them, else the first problem (written into why). */
const char *pe_layout_problem(const struct buffer *file, const struct pe_info *pe, char *why, size_t why_size);

/* What a file's PE header says, for bzpack --info. */
void pe_print(FILE *out, const struct buffer *file);

/* The default command line the EFI entry uses when its loader gives none:
 * a NUL-terminated string right after the kernel_version string. */
void pe_print_cmdline(FILE *out, const struct buffer *file);

#endif
