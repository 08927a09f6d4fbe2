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
 *   0      DOS header; setup_header,     0       headers: SizeOfHeaders
 *          setup code, kernel_version,           covers the real-mode part,
 *          default command line, then            so the EFI entry finds the
 *          the PE header and sections            setup_header and the
 *                                                command line in memory
 *   sbat   .sbat: SBAT CSV (sbat.c),     A       (4 KiB aligned)
 *          NUL-padded to a sector
 *   text   .text: stub, bzpack_header,   T       the EFI entry is in the stub
 *          payload (padded to 512)
 *   text+X .initrd, .osrel, .uname,      T+X     what the image embeds
 *          .cmdline, each where                  (bzpack_format.h, struct
 *          bzpack_embed says                     bzpack_embed): X is 4 KiB
 *                                                aligned in both
 * The PE header follows the default command line rather than the DOS
 * header: between 0x40 and the setup_header at 0x1f1 there is room for
 * four section headers only, and a UKI has six.
 *
 * What today's loaders read from it, and so what it says:
 *   - MajorImageVersion 1: the EFI entry takes its initrd from the
 *     LINUX_EFI_INITRD_MEDIA_GUID LoadFile2 protocol (stub/efi.c), which
 *     GRUB 2.12 and systemd-stub read as "use the PE entry";
 *   - no base relocations: the EFI entry is position independent (it only
 *     addresses itself RIP-relative), so ImageBase 0 with an empty
 *     relocation directory loads anywhere; IMAGE_FILE_RELOCS_STRIPPED
 *     stays clear, since it would tie the image to ImageBase;
 *   - NX_COMPAT: the sections ask for W^X (.text read+execute, .sbat
 *     read-only), so a loader that honours it maps .text read-only and
 *     the EFI entry must never write into its loaded image;
 *   - every section page aligned in memory and sector aligned in the file,
 *     its raw size within its virtual size, SizeOfImage the end of the
 *     last section, as the strictest loaders (systemd-stub, shim) check.
 * A loader that copies the sections only, as systemd-stub (v256+) does
 * for a UKI's kernel, leaves the headers out of memory: there the EFI
 * entry cannot find the setup_header or the default command line in its
 * loaded image.
 */
#include "pe.h"

#include <stddef.h>
#include <string.h>

#include "bzpack_format.h"

#define DOS_E_LFANEW           0x3c
#define PE_SIGNATURE           0x00004550u  /* "PE\0\0" */
#define COFF_HEADER_SIZE       20
#define OPT_HEADER_FIXED_SIZE  112          /* PE32+, before the data directories */
#define DATA_DIRECTORIES       16
#define OPT_HEADER_SIZE        (OPT_HEADER_FIXED_SIZE + 8 * DATA_DIRECTORIES)
#define SECTION_HEADER_SIZE    40
#define SECTION_TABLE_OFFSET   (4 + COFF_HEADER_SIZE + OPT_HEADER_SIZE) /* from the PE header */

#define FILE_RELOCS_STRIPPED   0x0001
#define FILE_EXECUTABLE_IMAGE  0x0002
#define FILE_LINE_NUMS_STRIPPED 0x0004
#define FILE_DEBUG_STRIPPED    0x0200
#define PE32_PLUS_MAGIC        0x020b
#define SUBSYSTEM_EFI_APPLICATION 10
#define SECTION_ALIGNMENT      0x1000
#define FILE_ALIGNMENT         0x200
#define IMAGE_MAJOR_VERSION    1            /* initrd through LoadFile2 */
#define DIR_SECURITY           4
#define DIR_BASE_RELOC         5
#define SCN_CNT_CODE           0x00000020u
#define SCN_CNT_INITIALIZED_DATA 0x00000040u
#define SCN_MEM_DISCARDABLE    0x02000000u
#define SCN_MEM_EXECUTE        0x20000000u
#define SCN_MEM_READ           0x40000000u
#define SCN_MEM_WRITE          0x80000000u

_Static_assert(PE_HEADER_ALIGN % 8 == 0, "the PE header is 8-byte aligned");

uint64_t pe_header_size(unsigned extras)
{
	return SECTION_TABLE_OFFSET + (2 + (uint64_t)extras) * SECTION_HEADER_SIZE;
}

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
	/* Raw and virtual sizes are equal: the loader zero-fills nothing. */
	uint32_t sbat_rva = (uint32_t)align_up(l->headers_size, SECTION_ALIGNMENT);
	uint32_t sbat_raw = (uint32_t)align_up(l->sbat_size, FILE_ALIGNMENT);
	uint32_t text_rva = sbat_rva + (uint32_t)align_up(sbat_raw, SECTION_ALIGNMENT);
	uint32_t text_raw = (uint32_t)align_up(l->text_size, FILE_ALIGNMENT);
	uint32_t image_size = text_rva + (uint32_t)align_up(text_raw, SECTION_ALIGNMENT);
	uint32_t data_raw = sbat_raw;
	for (unsigned i = 0; i < l->extras; i++) {
		uint32_t rva = text_rva + (uint32_t)(l->extra[i].offset - l->text_offset);
		image_size = rva + (uint32_t)align_up(align_up(l->extra[i].size, FILE_ALIGNMENT), SECTION_ALIGNMENT);
		data_raw += (uint32_t)align_up(l->extra[i].size, FILE_ALIGNMENT);
	}

	f[0] = 'M';
	f[1] = 'Z';
	put32(f + DOS_E_LFANEW, (uint32_t)l->pe_offset);

	uint8_t *coff = f + l->pe_offset;
	put32(coff, PE_SIGNATURE);
	coff += 4;
	put16(coff + 0, PE_MACHINE_AMD64);
	put16(coff + 2, (uint16_t)(2 + l->extras));
	/* TimeDateStamp, symbol table: 0 (the same input makes the same file) */
	put16(coff + 16, OPT_HEADER_SIZE);
	put16(coff + 18, FILE_EXECUTABLE_IMAGE | FILE_LINE_NUMS_STRIPPED | FILE_DEBUG_STRIPPED);

	uint8_t *opt = coff + COFF_HEADER_SIZE;
	put16(opt + 0, PE32_PLUS_MAGIC);
	put32(opt + 4, text_raw);               /* SizeOfCode */
	put32(opt + 8, data_raw);               /* SizeOfInitializedData */
	put32(opt + 16, text_rva + l->entry);   /* AddressOfEntryPoint */
	put32(opt + 20, text_rva);              /* BaseOfCode */
	put64(opt + 24, 0);                     /* ImageBase: anywhere (the entry is position independent) */
	put32(opt + 32, SECTION_ALIGNMENT);
	put32(opt + 36, FILE_ALIGNMENT);
	put16(opt + 44, IMAGE_MAJOR_VERSION);   /* MajorImageVersion */
	put32(opt + 56, image_size);            /* SizeOfImage */
	put32(opt + 60, (uint32_t)l->headers_size); /* SizeOfHeaders */
	put16(opt + 68, SUBSYSTEM_EFI_APPLICATION);
	put16(opt + 70, PE_DLL_NX_COMPAT);         /* DllCharacteristics */
	put32(opt + 108, DATA_DIRECTORIES);     /* NumberOfRvaAndSizes; all empty, relocations too */

	/* .sbat: shim reads it (sbat.c); the text is NUL-padded to its sectors. */
	uint8_t *sec = f + l->pe_offset + SECTION_TABLE_OFFSET;
	put_section(sec, ".sbat", sbat_raw, sbat_rva, sbat_raw, (uint32_t)l->headers_size,
		    SCN_CNT_INITIALIZED_DATA | SCN_MEM_READ | SCN_MEM_DISCARDABLE);
	put_section(sec + SECTION_HEADER_SIZE, ".text", text_raw, text_rva, text_raw, (uint32_t)l->text_offset,
		    SCN_CNT_CODE | SCN_MEM_EXECUTE | SCN_MEM_READ);
	/* The embedded data: read-only, and kept in memory (the EFI entry
	 * reads the initrd from its loaded image). */
	for (unsigned i = 0; i < l->extras; i++) {
		uint32_t raw = (uint32_t)align_up(l->extra[i].size, FILE_ALIGNMENT);
		put_section(sec + (2 + i) * SECTION_HEADER_SIZE, l->extra[i].name, raw,
			    text_rva + (uint32_t)(l->extra[i].offset - l->text_offset), raw,
			    (uint32_t)l->extra[i].offset, SCN_CNT_INITIALIZED_DATA | SCN_MEM_READ);
	}
}

/* ---- reading one ------------------------------------------------------- */

int pe_parse(const struct buffer *file, struct pe_info *pe)
{
	const uint8_t *f = file->data;
	size_t size = file->size;

	memset(pe, 0, sizeof(*pe));
	if (size < DOS_E_LFANEW + 4 || f[0] != 'M' || f[1] != 'Z') {
		pe->problem = "none (not an EFI application)";
		return -1;
	}
	pe->offset = le32(f + DOS_E_LFANEW);
	if (pe->offset > size || size - pe->offset < 4 + COFF_HEADER_SIZE || le32(f + pe->offset) != PE_SIGNATURE) {
		pe->problem = "\"MZ\" but no PE header at e_lfanew";
		return -1;
	}
	const uint8_t *coff = f + pe->offset + 4;
	pe->machine = le16(coff);
	pe->sections = le16(coff + 2);
	pe->characteristics = le16(coff + 18);
	uint16_t opt_size = le16(coff + 16);
	pe->opt_offset = pe->offset + 4 + COFF_HEADER_SIZE;
	pe->section_table = pe->opt_offset + opt_size;
	if (opt_size < OPT_HEADER_FIXED_SIZE || pe->section_table > size ||
	    (size - pe->section_table) / SECTION_HEADER_SIZE < pe->sections) {
		pe->problem = "truncated PE header";
		return -1;
	}
	const uint8_t *opt = f + pe->opt_offset;
	pe->magic = le16(opt);
	if (pe->magic != PE32_PLUS_MAGIC) {
		pe->problem = "not PE32+ (a 32-bit PE)";
		return -1;
	}
	pe->entry = le32(opt + 16);
	pe->image_base = le64(opt + 24);
	pe->section_alignment = le32(opt + 32);
	pe->file_alignment = le32(opt + 36);
	pe->major_image_version = le16(opt + 44);
	pe->minor_image_version = le16(opt + 46);
	pe->size_of_image = le32(opt + 56);
	pe->size_of_headers = le32(opt + 60);
	pe->checksum_offset = pe->opt_offset + 64;
	pe->subsystem = le16(opt + 68);
	pe->dll_characteristics = le16(opt + 70);
	pe->directories = le32(opt + 108);
	uint32_t room = (opt_size - OPT_HEADER_FIXED_SIZE) / 8;
	if (pe->directories > room)
		pe->directories = room;
	const uint8_t *dirs = opt + OPT_HEADER_FIXED_SIZE;
	pe->cert_dir_offset = pe->opt_offset + OPT_HEADER_FIXED_SIZE + 8 * DIR_SECURITY;
	if (pe->directories > DIR_SECURITY) {
		pe->cert_offset = le32(dirs + 8 * DIR_SECURITY);
		pe->cert_size = le32(dirs + 8 * DIR_SECURITY + 4);
	}
	if (pe->directories > DIR_BASE_RELOC) {
		pe->reloc_rva = le32(dirs + 8 * DIR_BASE_RELOC);
		pe->reloc_size = le32(dirs + 8 * DIR_BASE_RELOC + 4);
	}
	return 0;
}

struct pe_section pe_section(const struct buffer *file, const struct pe_info *pe, unsigned i)
{
	const uint8_t *s = file->data + pe->section_table + (uint64_t)i * SECTION_HEADER_SIZE;
	struct pe_section r;

	memset(&r, 0, sizeof(r));
	memcpy(r.name, s, 8);
	for (int c = 0; c < 8; c++)
		if (r.name[c] && (r.name[c] < 0x20 || r.name[c] > 0x7e))
			r.name[c] = '?';
	r.virtual_size = le32(s + 8);
	r.rva = le32(s + 12);
	r.raw_size = le32(s + 16);
	r.raw_offset = le32(s + 20);
	r.coff_relocs = le32(s + 24) != 0 || le16(s + 32) != 0;
	r.flags = le32(s + 36);
	return r;
}

int pe_find_section(const struct buffer *file, const struct pe_info *pe, const char *name,
		    struct pe_section *out)
{
	for (unsigned i = 0; i < pe->sections; i++) {
		struct pe_section s = pe_section(file, pe, i);
		if (strcmp(s.name, name) == 0) {
			*out = s;
			return 1;
		}
	}
	return 0;
}

/* Where the layout breaks what a strict loader checks (EDK2's PE loader,
 * shim's read_header, systemd-stub's section copy): NULL if nowhere.
 * why has room for the reason. */
const char *pe_layout_problem(const struct buffer *file, const struct pe_info *pe, char *why, size_t why_size)
{
	uint32_t fa = pe->file_alignment, sa = pe->section_alignment;

	if (fa < 512 || fa > 65536 || (fa & (fa - 1)))
		snprintf(why, why_size, "FileAlignment 0x%x is not a power of two from 512 to 64 KiB", fa);
	else if (sa < fa || (sa & (sa - 1)))
		snprintf(why, why_size, "SectionAlignment 0x%x is not a power of two >= FileAlignment", sa);
	else if (pe->size_of_headers % fa || pe->size_of_headers > file->size)
		snprintf(why, why_size, "SizeOfHeaders 0x%x is not whole FileAlignment units within the file",
			 pe->size_of_headers);
	else if (pe->size_of_image % sa)
		snprintf(why, why_size, "SizeOfImage 0x%x is not a multiple of SectionAlignment", pe->size_of_image);
	else if (pe->sections == 0)
		snprintf(why, why_size, "no sections");
	else
		why[0] = 0;
	if (why[0])
		return why;
	uint64_t next_rva = align_up(pe->size_of_headers, sa), file_end = pe->size_of_headers;
	for (unsigned i = 0; i < pe->sections; i++) {
		struct pe_section s = pe_section(file, pe, i);
		if (s.rva != next_rva)
			snprintf(why, why_size, "section %s at RVA 0x%x, not 0x%llx (sections follow each "
				 "other, SectionAlignment apart)", s.name, s.rva, (unsigned long long)next_rva);
		else if (s.raw_size > s.virtual_size)
			snprintf(why, why_size, "section %s: raw size 0x%x above its virtual size 0x%x", s.name,
				 s.raw_size, s.virtual_size);
		else if (s.raw_offset % fa || s.raw_size % fa)
			snprintf(why, why_size, "section %s: file offset 0x%x or raw size 0x%x not in "
				 "FileAlignment units", s.name, s.raw_offset, s.raw_size);
		else if (s.raw_size && (s.raw_offset < file_end || s.raw_offset > file->size ||
					file->size - s.raw_offset < s.raw_size))
			snprintf(why, why_size, "section %s: file data 0x%x+0x%x overlaps the headers or an "
				 "earlier section, or runs past the file", s.name, s.raw_offset, s.raw_size);
		else if (s.coff_relocs)
			snprintf(why, why_size, "section %s has COFF relocations", s.name);
		if (why[0])
			return why;
		if (s.raw_size)
			file_end = (uint64_t)s.raw_offset + s.raw_size;
		next_rva = align_up((uint64_t)s.rva + s.virtual_size, sa);
	}
	if (next_rva != pe->size_of_image)
		snprintf(why, why_size, "SizeOfImage 0x%x, but the sections end at 0x%llx", pe->size_of_image,
			 (unsigned long long)next_rva);
	return why[0] ? why : NULL;
}

/* ---- --info ------------------------------------------------------------ */

static const char *machine_name(uint16_t m)
{
	switch (m) {
	case PE_MACHINE_AMD64: return "x86-64";
	case 0x014c: return "i386";
	case 0xaa64: return "arm64";
	}
	return "other";
}

#define ROW "%-15s "

void pe_print(FILE *o, const struct buffer *file)
{
	struct pe_info pe;
	char why[200];

	if (pe_parse(file, &pe) < 0) {
		fprintf(o, ROW "%s\n", "PE header:", pe.problem);
		return;
	}
	fprintf(o, ROW "at 0x%llx, machine %s (0x%04x), PE32+, subsystem %u\n", "PE header:",
		(unsigned long long)pe.offset, machine_name(pe.machine), pe.machine, pe.subsystem);
	fprintf(o, ROW "entry RVA 0x%x, ImageBase 0x%llx, SizeOfImage 0x%x, SizeOfHeaders 0x%x\n", "PE image:",
		pe.entry, (unsigned long long)pe.image_base, pe.size_of_image, pe.size_of_headers);
	fprintf(o, ROW "MajorImageVersion %u.%u (%s)\n", "PE version:", pe.major_image_version,
		pe.minor_image_version, pe.major_image_version >= 1 ?
		"1+: the EFI entry takes its initrd through LoadFile2" : "0: a legacy EFI stub");
	fprintf(o, ROW "DllCharacteristics 0x%04x (%s), Characteristics 0x%04x%s\n", "PE flags:",
		pe.dll_characteristics, pe.dll_characteristics & PE_DLL_NX_COMPAT ? "NX_COMPAT" : "not NX_COMPAT",
		pe.characteristics, pe.characteristics & FILE_RELOCS_STRIPPED ? " (RELOCS_STRIPPED)" : "");
	if (pe.reloc_size)
		fprintf(o, ROW "base relocations: %u bytes at RVA 0x%x\n", "PE relocations:", pe.reloc_size,
			pe.reloc_rva);
	else
		fprintf(o, ROW "none (empty base relocation directory)\n", "PE relocations:");
	const char *bad = pe_layout_problem(file, &pe, why, sizeof(why));
	fprintf(o, ROW "SectionAlignment 0x%x, FileAlignment 0x%x: %s%s\n", "PE layout:", pe.section_alignment,
		pe.file_alignment, bad ? "BAD: " : "ok (aligned, raw within virtual sizes, SizeOfImage exact)",
		bad ? bad : "");
	for (unsigned i = 0; i < pe.sections; i++) {
		struct pe_section s = pe_section(file, &pe, i);
		fprintf(o, ROW "%-8s RVA 0x%x size 0x%x, file 0x%x size 0x%x, flags 0x%08x%s%s%s\n",
			i ? "" : "PE sections:", s.name, s.rva, s.virtual_size, s.raw_offset, s.raw_size,
			s.flags, s.flags & SCN_MEM_READ ? " R" : " -", s.flags & SCN_MEM_WRITE ? "W" : "-",
			s.flags & SCN_MEM_EXECUTE ? "X" : "-");
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
