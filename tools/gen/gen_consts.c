/* gen_consts.c - print include/bzpack_format.h's offsets and constants,
 * and what decode/codecs.def lists, for the parts of the build that
 * cannot include a C header, so that none of them retypes a number:
 *
 *   gen_consts inc     %define lines for NASM  (build/gen/bzpack_format.inc)
 *   gen_consts ld      a linker script fragment (build/gen/bzpack_format.ld)
 *   gen_consts sh      shell variables for the test scripts
 *                      (build/gen/bzpack_format.sh), decimal
 *   gen_consts stubs   the assembly that carries every stub binary into
 *                      the packer, with its lookup table (build/gen/stubs.S)
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bzpack_format.h"

struct constant {
	const char *name;
	unsigned long long value;
};

#define C(name) { #name, (unsigned long long)(name) }
#define HDR(field) { "SETUP_HDR_" #field, SETUP_HEADER_OFFSET + offsetof(struct setup_header, field) }
#define BP(field) { "BP_" #field, offsetof(struct boot_params, field) }
#define SMP(field) { "SMP_" #field, BZPACK_SMP_PARAMS + offsetof(struct smp_params, field) }
#define BZ(field) { "BZHDR_" #field, offsetof(struct bzpack_header, field) }
/* SETUP_CRC_<field>: 1 if setup_crc covers it, 0 if a loader writes it */
#define CRC_COVERED(field) { "SETUP_CRC_" #field, 1 },
#define CRC_LOADER(field) { "SETUP_CRC_" #field, 0 },

static const struct constant constants[] = {
	C(SETUP_HEADER_OFFSET), C(SETUP_HEADER_END), C(SETUP_BOOT_FLAG), C(SECTOR_SIZE),
	C(SETUP_HDRS_MAGIC), C(SETUP_PROTOCOL_VERSION), C(LOADFLAG_LOADED_HIGH),
	C(SETUP_MAX_SECTS), C(SETUP_BOOT_PARAMS), C(SETUP_STACK_TOP),
	C(BOOT_CS), C(BOOT_DS), C(BOOT_CS32_FOR_LONG_MODE),
	C(XLF_KERNEL_64), C(XLF_CAN_BE_LOADED_ABOVE_4G), C(XLF_EFI_HANDOVER_64), C(BZPACK_ENTRY64_OFFSET),
	C(BZPACK_ENTRY_16), C(BZPACK_ENTRY_32), C(BZPACK_ENTRY_64),
	C(BZPACK_LOAD_ADDR), C(BOOT_PARAMS_SIZE), C(E820_MAX_ENTRIES), C(E820_TYPE_RAM),
	{ "E820_ENTRY_SIZE", sizeof(struct e820_entry) },
	C(BZPACK_MAGIC), C(BZPACK_HEADER_SIZE), C(BZPACK_FLAG_X86), C(BZPACK_FLAG_INITRD), C(BZPACK_FLAG_INITRD_ALWAYS),
	C(BZPACK_FLAG_FRAMES), C(BZPACK_FRAMES_MAGIC), C(BZPACK_FRAMES_MAX), C(BZPACK_MAX_CPUS),
	C(BZPACK_FORMAT_VERSION), C(BZPACK_LOAD_ALIGN),
	C(BZPACK_SCRATCH_PML4), C(BZPACK_SCRATCH_PDPT), C(BZPACK_SCRATCH_PD),
	C(BZPACK_SCRATCH_PD_HIGH), C(BZPACK_SCRATCH_TABLES_END),
	C(BZPACK_SCRATCH_STACK_TOP), C(BZPACK_SCRATCH_SIZE), C(BZPACK_SETUP_TSC_MAGIC),
	C(BZPACK_STUB_MARKER_LO), C(BZPACK_STUB_MARKER_HI), C(BZPACK_STUB_MARKER_OFFSET),
	C(BZPACK_STUB_INFO_MAGIC), C(BZPACK_STUB_INFO_SIZE), C(EFI_LOADER_SIGNATURE_64),
	/* the stub's self-check */
	C(BZPACK_SELF_CRC_SIZE), C(BZPACK_SETUP_CRC_START), C(BZPACK_SELF_CRC_EFI_STATUS), C(CRC32C_POLY_REFLECTED),
	/* every setup_header field, for NASM and for the scripts that damage
	 * or inspect images */
	HDR(setup_sects), HDR(root_flags), HDR(syssize), HDR(ram_size), HDR(vid_mode),
	HDR(root_dev), HDR(boot_flag), HDR(jump), HDR(header), HDR(version),
	HDR(realmode_swtch), HDR(start_sys_seg), HDR(kernel_version), HDR(type_of_loader),
	HDR(loadflags), HDR(setup_move_size), HDR(code32_start), HDR(ramdisk_image),
	HDR(ramdisk_size), HDR(bootsect_kludge), HDR(heap_end_ptr), HDR(ext_loader_ver),
	HDR(ext_loader_type), HDR(cmd_line_ptr), HDR(initrd_addr_max), HDR(kernel_alignment),
	HDR(relocatable_kernel), HDR(min_alignment), HDR(xloadflags), HDR(cmdline_size),
	HDR(hardware_subarch), HDR(hardware_subarch_data), HDR(payload_offset),
	HDR(payload_length), HDR(setup_data), HDR(pref_address), HDR(init_size),
	HDR(handover_offset), HDR(kernel_info_offset),
	BP(e820_entries), BP(e820_table), BP(ext_cmd_line_ptr), BP(scratch),
	/* the other CPUs' trampoline */
	C(BZPACK_SMP_PARAMS), C(BZPACK_SMP_STACK), C(BZPACK_SMP_STARTED),
	C(BZPACK_SMP_WAITING), C(BZPACK_SMP_PARKED), C(SMP_CS32), C(SMP_CS64), C(SMP_DS), C(SMP_CS16),
	SMP(gdt_limit), SMP(cr0), SMP(cr3), SMP(cr4), SMP(x2apic), SMP(count),
	SMP(entry), SMP(apic_id), SMP(state), SMP(stack), SMP(pm32_eip), SMP(rm_ip),
	/* every bzpack_header field */
	BZ(magic), BZ(version), BZ(codec), BZ(bits), BZ(header_size), BZ(payload_size),
	BZ(payload_crc), BZ(out_addr), BZ(out_size), BZ(zero_size), BZ(entry),
	BZ(scratch_offset), BZ(scratch_offset_check), BZ(init_size), BZ(workspace_size),
	BZ(kernel_info), BZ(relocs_size), BZ(relocs_crc), BZ(virt_addr), BZ(out_align),
	BZ(inplace_offset), BZ(setup_crc), BZ(payload_xxh3), BZ(relocs_xxh3), BZ(elf_size), BZ(elf_crc), BZ(flags),
	BZ(initrd), BZ(osrel), BZ(uname), BZ(cmdline), BZ(header_crc),
	/* which setup_header fields setup_crc covers, for the scripts that
	 * judge damage */
	SETUP_CRC_FIELDS(CRC_COVERED) SETUP_LOADER_FIELDS(CRC_LOADER)
};

/* bzpack_format.h asserts that the two setup_header field lists add up
 * to the whole header; here, byte by byte, that they do not overlap, so
 * that every byte is in exactly one. */
static int check_setup_lists(void)
{
#define SPAN(field) { #field, offsetof(struct setup_header, field), \
		      sizeof(((struct setup_header *)0)->field) },
	static const struct { const char *name; size_t offset, size; } fields[] = {
		SETUP_CRC_FIELDS(SPAN) SETUP_LOADER_FIELDS(SPAN)
	};
#undef SPAN
	unsigned char seen[sizeof(struct setup_header)] = { 0 };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		for (size_t b = fields[i].offset; b < fields[i].offset + fields[i].size; b++)
			if (seen[b]++) {
				fprintf(stderr, "gen_consts: setup_header field %s is in both lists "
					"(or twice) in bzpack_format.h\n", fields[i].name);
				return -1;
			}
	return 0;
}

/* The packer's stubs, one blob per codec, word size and flags, and a
 * table the packer looks them up in (tools/packer/stubs.c): id, bits,
 * flags, start, end. */
static void print_stubs(void)
{
	static const struct { const char *ident; unsigned id; } codecs[] = {
#define CODEC(ident, name, id, workspace) { #ident, id },
#include "codecs.def"
#undef CODEC
	};
	static const int bits[] = { 32, 64 };
	const size_t n = sizeof(codecs) / sizeof(codecs[0]);

	printf("/* generated by tools/gen/gen_consts.c from decode/codecs.def */\n"
	       ".macro blob name, file\n"
	       "\t.section .rodata.\\name, \"a\"\n"
	       "\t.balign 16\n"
	       "\\name:\n"
	       "\t.incbin \"\\file\"\n"
	       "\\name\\()_end:\n"
	       ".endm\n\n"
	       "\t.global stub_setup, stub_setup_end\n"
	       "\tblob stub_setup, \"stub/setup.bin\"\n");
	/* Each codec and word size once per stub kind (stub/stub.mk): every
	 * set of the optional features, the flags its payloads carry, from
	 * none (the plain stub) to all; the file's suffix names them in this
	 * order, "-bcj-frames-initrd". */
	static const struct { const char *name; unsigned flag; } features[] = {
		{ "bcj", BZPACK_FLAG_X86 }, { "frames", BZPACK_FLAG_FRAMES }, { "initrd", BZPACK_FLAG_INITRD },
	};
	enum { n_features = sizeof(features) / sizeof(features[0]), n_kinds = 1 << n_features };
	struct { char suffix[32]; unsigned flags; } kinds[n_kinds];
	for (size_t k = 0; k < (size_t)n_kinds; k++) {
		kinds[k].suffix[0] = 0;
		kinds[k].flags = 0;
		for (size_t f = 0; f < (size_t)n_features; f++)
			if (k & (1u << f)) {
				strcat(strcat(kinds[k].suffix, "-"), features[f].name);
				kinds[k].flags |= features[f].flag;
			}
	}
	for (size_t c = 0; c < n; c++)
		for (size_t w = 0; w < 2; w++)
			for (size_t k = 0; k < (size_t)n_kinds; k++)
				printf("\tblob stub_%s_%d_f%u, \"stub/%s%s-%d.bin\"\n", codecs[c].ident,
				       bits[w], kinds[k].flags, codecs[c].ident, kinds[k].suffix, bits[w]);
	printf("\n\t.section .data.rel.ro.stub_table, \"aw\"\n"
	       "\t.balign 8\n"
	       "\t.global stub_table, stub_table_count\n"
	       "stub_table:\t\t/* struct stub_entry: u32 codec, bits, flags, 0; start, end */\n");
	for (size_t c = 0; c < n; c++)
		for (size_t w = 0; w < 2; w++)
			for (size_t k = 0; k < (size_t)n_kinds; k++)
				printf("\t.long %u, %d, %u, 0\n\t.dc.a stub_%s_%d_f%u, stub_%s_%d_f%u_end\n",
				       codecs[c].id, bits[w], kinds[k].flags, codecs[c].ident, bits[w],
				       kinds[k].flags, codecs[c].ident, bits[w], kinds[k].flags);
	printf("stub_table_count:\n\t.long %zu\n\n"
	       "\t.section .note.GNU-stack, \"\", @progbits\n", n * 2 * (size_t)n_kinds);
}

int main(int argc, char **argv)
{
	static const char *const formats[][3] = {
		/* mode, comment line, one constant */
		{ "inc", "; generated by tools/gen/gen_consts.c from include/bzpack_format.h\n",
		  "%%define %s 0x%llx\n" },
		{ "ld", "/* generated by tools/gen/gen_consts.c from include/bzpack_format.h */\n",
		  "%s = 0x%llx;\n" },
		{ "sh", "# generated by tools/gen/gen_consts.c from include/bzpack_format.h\n",
		  "%s=%llu\n" },
	};
	const char *mode = argc > 1 ? argv[1] : "";

	if (check_setup_lists() < 0)
		return 1;
	if (strcmp(mode, "stubs") == 0) {
		print_stubs();
		return 0;
	}
	for (size_t f = 0; f < sizeof(formats) / sizeof(formats[0]); f++) {
		if (strcmp(mode, formats[f][0]) != 0)
			continue;
		fputs(formats[f][1], stdout);
		for (size_t i = 0; i < sizeof(constants) / sizeof(constants[0]); i++)
			printf(formats[f][2], constants[i].name, constants[i].value);
		return 0;
	}
	fprintf(stderr, "usage: gen_consts inc|ld|sh|stubs\n");
	return 2;
}
