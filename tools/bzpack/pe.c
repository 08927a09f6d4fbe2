/* pe.c - the PE32+ header of a 64-bit bzpack image.
 *
 * Linux's bzImage showed that one file can be both a boot-protocol
 * kernel and a PE/COFF EFI application (arch/x86/boot/header.S): the boot
 * sector's first bytes are "MZ", the DOS header's e_lfanew (0x3c) points
 * at a PE header that fits before the setup_header at 0x1f1, and BIOS
 * loaders never look at either.  Ours, written from the PE/COFF
 * specification:
 *
 *   file offset                          image (RVA)
 *   0      DOS header, PE header,        0       headers: SizeOfHeaders
 *          sections; setup_header,               covers the real-mode part up
 *          setup code, kernel_version,           to .reloc, so the EFI entry
 *          default command line                  finds the setup_header and
 *                                                the command line in memory
 *   reloc  .reloc: one empty block       A       (4 KiB aligned)
 *   text   .text: stub, bzpack_header,   A+4K    the EFI entry is in the stub
 *          payload (padded to 512)
 *
 * The stub's EFI entry is position independent and copies the stub to
 * the address it was linked at, so the image needs no relocations; the
 * .reloc section is there because older loaders refuse an image without
 * one (Linux carried one for the same reason).  SizeOfImage is just the
 * file's sections: the entry allocates the kernel's memory itself.
 */
#include "pe.h"

#include <stddef.h>
#include <string.h>

#include "bzpack_format.h"

#define DOS_E_LFANEW           0x3c
#define PE_HEADER_OFFSET       0x40
#define PE_SIGNATURE           0x00004550u  /* "PE\0\0" */
#define COFF_HEADER_SIZE       20
#define OPT_HEADER_FIXED_SIZE  112          /* PE32+, before the data directories */
#define DATA_DIRECTORIES       16
#define OPT_HEADER_SIZE        (OPT_HEADER_FIXED_SIZE + 8 * DATA_DIRECTORIES)
#define SECTION_HEADER_SIZE    40
#define SECTIONS               2
#define SECTION_TABLE_OFFSET   (PE_HEADER_OFFSET + 4 + COFF_HEADER_SIZE + OPT_HEADER_SIZE)
#define PE_HEADERS_END         (SECTION_TABLE_OFFSET + SECTIONS * SECTION_HEADER_SIZE)

#define MACHINE_AMD64          0x8664
#define FILE_EXECUTABLE_IMAGE  0x0002
#define FILE_LINE_NUMS_STRIPPED 0x0004
#define FILE_DEBUG_STRIPPED    0x0200
#define PE32_PLUS_MAGIC        0x020b
#define SUBSYSTEM_EFI_APPLICATION 10
#define SECTION_ALIGNMENT      0x1000
#define FILE_ALIGNMENT         0x200
#define DIR_BASE_RELOC         5
#define SCN_CNT_CODE           0x00000020u
#define SCN_CNT_INITIALIZED_DATA 0x00000040u
#define SCN_MEM_DISCARDABLE    0x02000000u
#define SCN_MEM_EXECUTE        0x20000000u
#define SCN_MEM_READ           0x40000000u
/* One base relocation block: page RVA 0, block size 12, two
 * IMAGE_REL_BASED_ABSOLUTE (padding) entries: nothing to relocate. */
#define RELOC_BLOCK_SIZE       12

_Static_assert(PE_HEADERS_END <= SETUP_HEADER_OFFSET, "the PE header must end before the setup_header");

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void put_section(uint8_t *s, const char *name, uint32_t vsize, uint32_t rva, uint32_t raw_size,
			uint32_t raw_offset, uint32_t flags)
{
	memcpy(s, name, strlen(name));          /* 8 bytes, NUL-padded */
	put32(s + 8, vsize);
	put32(s + 12, rva);
	put32(s + 16, raw_size);
	put32(s + 20, raw_offset);
	put32(s + 36, flags);                   /* no COFF relocations or line numbers */
}

void pe_write(uint8_t *f, const struct pe_layout *l)
{
	uint32_t reloc_rva = (uint32_t)align_up(l->headers_size, SECTION_ALIGNMENT);
	uint32_t text_rva = reloc_rva + SECTION_ALIGNMENT;
	uint32_t text_raw = (uint32_t)align_up(l->text_size, FILE_ALIGNMENT);
	uint32_t image_size = text_rva + (uint32_t)align_up(l->text_size, SECTION_ALIGNMENT);

	f[0] = 'M';
	f[1] = 'Z';
	put32(f + DOS_E_LFANEW, PE_HEADER_OFFSET);

	uint8_t *coff = f + PE_HEADER_OFFSET;
	put32(coff, PE_SIGNATURE);
	coff += 4;
	put16(coff + 0, MACHINE_AMD64);
	put16(coff + 2, SECTIONS);
	/* TimeDateStamp, symbol table: 0 (the same input makes the same file) */
	put16(coff + 16, OPT_HEADER_SIZE);
	put16(coff + 18, FILE_EXECUTABLE_IMAGE | FILE_LINE_NUMS_STRIPPED | FILE_DEBUG_STRIPPED);

	uint8_t *opt = coff + COFF_HEADER_SIZE;
	put16(opt + 0, PE32_PLUS_MAGIC);
	put32(opt + 4, text_raw);               /* SizeOfCode */
	put32(opt + 8, FILE_ALIGNMENT);         /* SizeOfInitializedData: .reloc */
	put32(opt + 16, text_rva + l->entry);   /* AddressOfEntryPoint */
	put32(opt + 20, text_rva);              /* BaseOfCode */
	put64(opt + 24, 0);                     /* ImageBase: anywhere (the entry is position independent) */
	put32(opt + 32, SECTION_ALIGNMENT);
	put32(opt + 36, FILE_ALIGNMENT);
	put32(opt + 56, image_size);            /* SizeOfImage */
	put32(opt + 60, (uint32_t)l->headers_size); /* SizeOfHeaders */
	put16(opt + 68, SUBSYSTEM_EFI_APPLICATION);
	put32(opt + 108, DATA_DIRECTORIES);     /* NumberOfRvaAndSizes */
	uint8_t *dirs = opt + OPT_HEADER_FIXED_SIZE;
	put32(dirs + 8 * DIR_BASE_RELOC, reloc_rva);
	put32(dirs + 8 * DIR_BASE_RELOC + 4, RELOC_BLOCK_SIZE);

	uint8_t *sec = f + SECTION_TABLE_OFFSET;
	put_section(sec, ".reloc", RELOC_BLOCK_SIZE, reloc_rva, PE_RELOC_SECTOR, (uint32_t)l->reloc_offset,
		    SCN_CNT_INITIALIZED_DATA | SCN_MEM_DISCARDABLE | SCN_MEM_READ);
	put_section(sec + SECTION_HEADER_SIZE, ".text", (uint32_t)l->text_size, text_rva, text_raw,
		    (uint32_t)l->text_offset, SCN_CNT_CODE | SCN_MEM_EXECUTE | SCN_MEM_READ);

	put32(f + l->reloc_offset + 4, RELOC_BLOCK_SIZE); /* page RVA 0, entries 0 */
}

/* ---- --info ------------------------------------------------------------ */

static const char *machine_name(uint16_t m)
{
	switch (m) {
	case MACHINE_AMD64: return "x86-64";
	case 0x014c: return "i386";
	case 0xaa64: return "arm64";
	}
	return "other";
}

#define ROW "%-15s "

void pe_print(FILE *o, const struct buffer *file)
{
	const uint8_t *f = file->data;
	size_t size = file->size;

	if (size < DOS_E_LFANEW + 4 || f[0] != 'M' || f[1] != 'Z') {
		fprintf(o, ROW "none (not an EFI application)\n", "PE header:");
		return;
	}
	uint64_t pe = le32(f + DOS_E_LFANEW);
	if (pe > size || size - pe < 4 + COFF_HEADER_SIZE || le32(f + pe) != PE_SIGNATURE) {
		fprintf(o, ROW "\"MZ\" but no PE header at e_lfanew 0x%llx\n", "PE header:",
			(unsigned long long)pe);
		return;
	}
	const uint8_t *coff = f + pe + 4;
	uint16_t sections = le16(coff + 2), opt_size = le16(coff + 16);
	uint64_t opt_off = pe + 4 + COFF_HEADER_SIZE, sec_off = opt_off + opt_size;
	if (opt_size < OPT_HEADER_FIXED_SIZE || sec_off > size ||
	    (size - sec_off) / SECTION_HEADER_SIZE < sections) {
		fprintf(o, ROW "truncated PE header\n", "PE header:");
		return;
	}
	const uint8_t *opt = f + opt_off;
	fprintf(o, ROW "at 0x%llx, machine %s (0x%04x), %s, subsystem %u\n", "PE header:",
		(unsigned long long)pe, machine_name(le16(coff)), le16(coff),
		le16(opt) == PE32_PLUS_MAGIC ? "PE32+" : "not PE32+", le16(opt + 68));
	fprintf(o, ROW "entry RVA 0x%x, SizeOfImage 0x%x, SizeOfHeaders 0x%x\n", "PE image:",
		le32(opt + 16), le32(opt + 56), le32(opt + 60));
	for (unsigned i = 0; i < sections; i++) {
		const uint8_t *s = f + sec_off + (uint64_t)i * SECTION_HEADER_SIZE;
		char name[9] = { 0 };
		memcpy(name, s, 8);
		for (int c = 0; c < 8; c++)
			if (name[c] && (name[c] < 0x20 || name[c] > 0x7e))
				name[c] = '?';
		fprintf(o, ROW "%-8s RVA 0x%x size 0x%x, file 0x%x size 0x%x, flags 0x%08x\n",
			i ? "" : "PE sections:", name, le32(s + 12), le32(s + 8), le32(s + 20), le32(s + 16),
			le32(s + 36));
	}
}

void pe_print_cmdline(FILE *o, const struct buffer *file)
{
	const uint8_t *f = file->data;

	if (file->size < SETUP_HEADER_END)
		return;
	/* The default command line follows the kernel_version string. */
	uint64_t at = 0x200 + (uint64_t)le16(f + SETUP_HEADER_OFFSET + offsetof(struct setup_header, kernel_version));
	while (at < file->size && at < SETUP_BOOT_PARAMS && f[at])
		at++;
	at++;
	uint64_t end = at;
	while (end < file->size && end < SETUP_BOOT_PARAMS && f[end] >= 0x20 && f[end] < 0x7f)
		end++;
	if (end >= file->size || f[end] || end == at)
		fprintf(o, ROW "(none)\n", "EFI cmdline:");
	else
		fprintf(o, ROW "\"%.*s\" (used when the EFI loader passes none)\n", "EFI cmdline:",
			(int)(end - at), (const char *)f + at);
}
