/* rules.c - what four loaders check before they take a bzImage, from
 * their sources (read, not copied):
 *
 *   systemd-stub, v256 and later (src/boot/linux.c, pe.c), loading the
 *     kernel of a UKI as a PE: MajorImageVersion >= 1 (else the
 *     deprecated EFI handover), PE32+ for this machine, no base
 *     relocations, and sections it can copy: no COFF relocations, raw
 *     size within virtual size, everything within SizeOfImage and the
 *     file.  It copies the sections only, not the headers, and makes
 *     code sections read-only+executable when the image is NX_COMPAT.
 *   GRUB 2.12 (loader/efi/linux.c): its EFI `linux` command takes the PE
 *     entry (LoadImage/StartImage, initrd through LoadFile2) only for a
 *     PE32+ image of this machine with MajorImageVersion >= 1; otherwise
 *     its legacy x86 loader.
 *   kexec_file_load (arch/x86/kernel/kexec-bzimage64.c, bzImage64_probe
 *     and bzImage64_load): "HdrS", 0xAA55, protocol >= 2.12, LOADED_HIGH,
 *     XLF_KERNEL_64, XLF_CAN_BE_LOADED_ABOVE_4G, the command line plus 30
 *     bytes (an elfcorehdr= it may add) within cmdline_size; where
 *     KEXEC_SIG is enforced, a PE signature the kernel's keys trust.
 *   shim 15.3 and later (sbat.c): a .sbat section whose every line has
 *     six non-empty fields.
 */
#include "rules.h"

#include <stddef.h>
#include <string.h>

#include "bzimage.h"
#include "bzpack_format.h"
#include "pe.h"
#include "sbat.h"
#include "sign.h"

#define KEXEC_PROTOCOL_MIN    0x020c
#define KEXEC_CMDLINE_EXTRA   30       /* MAX_ELFCOREHDR_STR_LEN */
#define PROTOCOL_CMDLINE_SIZE 0x0206
#define WHY_MAX               200

#define ROW "%-15s "

static int first_line = 1;

/* One rule's line: "met (detail)" or "NOT MET: why; detail". */
static int verdict(FILE *o, const char *loader, const char *why, const char *detail)
{
	const char *label = first_line ? "loader rules:" : "";

	first_line = 0;
	if (why)
		fprintf(o, ROW "%sNOT MET: %s%s%s\n", label, loader, why, detail[0] ? "; " : "", detail);
	else
		fprintf(o, ROW "%smet%s%s%s\n", label, loader, detail[0] ? " (" : "", detail,
			detail[0] ? ")" : "");
	return why != NULL;
}

/* systemd-stub's copy of the sections (linux.c), in its order. */
static const char *systemd_sections(const struct buffer *f, const struct pe_info *pe, char *why)
{
	for (unsigned i = 0; i < pe->sections; i++) {
		struct pe_section s = pe_section(f, pe, i);
		if (s.coff_relocs)
			snprintf(why, WHY_MAX, "section %s has COFF relocations", s.name);
		else if (!s.raw_size)
			continue;
		else if ((uint64_t)s.rva + s.raw_size > pe->size_of_image)
			snprintf(why, WHY_MAX, "section %s would be written past SizeOfImage", s.name);
		else if (s.raw_size > s.virtual_size)
			snprintf(why, WHY_MAX, "section %s: raw size 0x%x above its virtual size 0x%x", s.name,
				 s.raw_size, s.virtual_size);
		else if ((uint64_t)s.rva + s.virtual_size > pe->size_of_image)
			snprintf(why, WHY_MAX, "section %s ends past SizeOfImage", s.name);
		else if ((uint64_t)s.raw_offset + s.raw_size > f->size)
			snprintf(why, WHY_MAX, "section %s runs past the end of the file", s.name);
		else
			continue;
		return why;
	}
	return NULL;
}

static int systemd_stub(FILE *o, const struct buffer *f, const struct pe_info *pe, int has_pe, uint16_t xlf)
{
	const char *loader = "systemd-stub (v256+) kernel of a UKI: ";
	char why[WHY_MAX], detail[WHY_MAX];

	if (!has_pe)
		return verdict(o, loader, "no PE header", "");
	if (pe->machine != PE_MACHINE_AMD64)
		return verdict(o, loader, "not an x86-64 PE", "");
	if (pe->major_image_version < 1)
		return verdict(o, loader, "MajorImageVersion 0", xlf & XLF_EFI_HANDOVER_64 ?
			       "it would use the deprecated EFI handover entry" : "and no EFI handover entry either");
	if (pe->reloc_size)
		return verdict(o, loader, "the image has base relocations, which it refuses", "");
	if (systemd_sections(f, pe, why))
		return verdict(o, loader, why, "");
	snprintf(detail, sizeof(detail), "MajorImageVersion %u, no base relocations, sections it can copy%s",
		 pe->major_image_version, pe->dll_characteristics & PE_DLL_NX_COMPAT ?
		 ", NX_COMPAT: code sections read-only+executable" : "");
	return verdict(o, loader, NULL, detail);
}

static int grub(FILE *o, const struct pe_info *pe, int has_pe)
{
	const char *loader = "GRUB 2.12 EFI `linux` PE entry: ";
	char detail[WHY_MAX];

	if (!has_pe)
		return verdict(o, loader, "no PE header", "it uses its legacy x86 loader");
	if (pe->machine != PE_MACHINE_AMD64)
		return verdict(o, loader, "not an x86-64 PE", "");
	if (pe->major_image_version < 1)
		return verdict(o, loader, "MajorImageVersion 0", "it uses its legacy x86 loader");
	snprintf(detail, sizeof(detail), "PE32+ x86-64, MajorImageVersion %u: LoadImage, initrd through LoadFile2",
		 pe->major_image_version);
	return verdict(o, loader, NULL, detail);
}

static int kexec_file(FILE *o, const struct buffer *f, int has_pe)
{
	const char *loader = "kexec_file_load (kexec -s) bzImage64 probe: ";
	struct setup_header h;
	char why[WHY_MAX], detail[WHY_MAX];

	if (f->size < 1024 || f->size < SETUP_HEADER_END)
		return verdict(o, loader, "shorter than 1024 bytes", "");
	memcpy(&h, f->data + SETUP_HEADER_OFFSET, sizeof(h));
	uint32_t cmdline_size = h.version >= PROTOCOL_CMDLINE_SIZE ? h.cmdline_size : 255;
	why[0] = 0;
	if (h.header != SETUP_HDRS_MAGIC || h.boot_flag != SETUP_BOOT_FLAG)
		snprintf(why, sizeof(why), "no \"HdrS\" and 0xAA55");
	else if (h.version < KEXEC_PROTOCOL_MIN)
		snprintf(why, sizeof(why), "boot protocol %u.%02u, below 2.12", h.version >> 8, h.version & 0xff);
	else if (!(h.loadflags & LOADFLAG_LOADED_HIGH))
		snprintf(why, sizeof(why), "LOADED_HIGH is not set (a zImage)");
	else if (!(h.xloadflags & XLF_KERNEL_64))
		snprintf(why, sizeof(why), "XLF_KERNEL_64 is not set (no 64-bit entry: a 32-bit image)");
	else if (!(h.xloadflags & XLF_CAN_BE_LOADED_ABOVE_4G))
		snprintf(why, sizeof(why), "XLF_CAN_BE_LOADED_ABOVE_4G is not set");
	else if (cmdline_size <= KEXEC_CMDLINE_EXTRA)
		snprintf(why, sizeof(why), "cmdline_size %u leaves no room for a command line", cmdline_size);
	unsigned sigs = has_pe ? sign_count(f) : 0;
	snprintf(detail, sizeof(detail), "%scommand line up to %u bytes (cmdline_size %u - 30); %s",
		 why[0] ? "" : "protocol >= 2.12, LOADED_HIGH, XLF_KERNEL_64, XLF_CAN_BE_LOADED_ABOVE_4G, ",
		 cmdline_size > KEXEC_CMDLINE_EXTRA ? cmdline_size - KEXEC_CMDLINE_EXTRA : 0, cmdline_size,
		 !sigs ? "unsigned: refused where KEXEC_SIG is enforced (Secure Boot lockdown)" :
		 sign_any_valid(f) ? "signed: accepted under KEXEC_SIG if the kernel trusts the signer" :
				     "its signature does not hold: refused under KEXEC_SIG");
	return verdict(o, loader, why[0] ? why : NULL, detail);
}

static int shim(FILE *o, const struct buffer *f, int has_pe)
{
	const char *loader = "shim 15.3+ SBAT: ";
	const char *text;
	size_t size;
	char why[WHY_MAX];

	if (!has_pe)
		return verdict(o, loader, "no PE header, so no .sbat section", "");
	if (!sbat_find(f, &text, &size))
		return verdict(o, loader, "no .sbat section: shim refuses it as a binary it loads itself (shim 16: any PE through its LoadImage)", "");
	if (sbat_problem(text, size, why, sizeof(why)))
		return verdict(o, loader, why, "");
	return verdict(o, loader, NULL, ".sbat parses as six-field CSV after the sbat version line");
}

int rules_print(FILE *o, const struct buffer *f)
{
	struct pe_info pe;
	int has_pe = pe_parse(f, &pe) == 0;
	uint16_t xlf = 0;

	if (!bzimage_detect(f))
		return 0;
	if (f->size >= SETUP_HEADER_END)
		xlf = le16(f->data + SETUP_HEADER_OFFSET + offsetof(struct setup_header, xloadflags));
	first_line = 1;
	int failed = systemd_stub(o, f, &pe, has_pe, xlf);
	failed += grub(o, &pe, has_pe);
	failed += kexec_file(o, f, has_pe);
	failed += shim(o, f, has_pe);
	return failed;
}
