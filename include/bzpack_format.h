/*
 * bzpack_format.h - the single source of truth for every layout bzpack
 * shares between the host packer, the boot stub and the test kernels:
 * the Linux x86 boot protocol's setup_header and boot_params (the parts we
 * touch), our own bzpack_header, and the memory plan constants.
 *
 * NASM never retypes any of this: tools/gen/gen_consts.c prints these
 * offsets and constants as %define lines (build/gen/bzpack_format.inc), as
 * a linker script fragment (build/gen/bzpack_format.ld) and as shell
 * variables for the test scripts (build/gen/bzpack_format.sh).  The codec
 * list itself lives in decode/codecs.def.
 *
 * References: Documentation/arch/x86/boot.rst (boot protocol 2.15),
 * Documentation/arch/x86/zero-page.rst.
 */
#ifndef BZPACK_FORMAT_H
#define BZPACK_FORMAT_H

#include <stdint.h>

#include "crc32c.h"

/* ---- Linux boot protocol constants ------------------------------------ */

#define SETUP_HEADER_OFFSET     0x1f1   /* setup_header in the file and in boot_params */
#define SETUP_BOOT_FLAG         0xaa55
#define SETUP_HDRS_MAGIC        0x53726448u /* "HdrS" */
#define SETUP_PROTOCOL_VERSION  0x020f  /* 2.15 */
#define SETUP_MAX_SECTS         63      /* keep the real-mode part < 32 KiB: QEMU puts setup_data at +0x8000 */
#define SECTOR_SIZE             512

#define LOADFLAG_LOADED_HIGH    0x01    /* protected-mode part loaded at 0x100000 */
#define LOADFLAG_KASLR          0x02    /* KASLR_FLAG: the kernel was put at a random address */
#define LOADFLAG_CAN_USE_HEAP   0x80

/* xloadflags (protocol 2.12) */
#define XLF_KERNEL_64           0x01    /* 64-bit entry at code32_start + BZPACK_ENTRY64_OFFSET */
#define XLF_CAN_BE_LOADED_ABOVE_4G 0x02
#define XLF_EFI_HANDOVER_64     0x08    /* handover_offset is a 64-bit entry */
#define XLF_EFI_KEXEC           0x10    /* the kernel takes EFI runtime services across kexec */
#define BZPACK_ENTRY64_OFFSET   0x200   /* boot.rst: "the 64-bit entry ... load address + 0x200" */

#define BOOT_CS                 0x10    /* __BOOT_CS: flat 4 GiB code */
#define BOOT_DS                 0x18    /* __BOOT_DS: flat 4 GiB data */
#define BOOT_CS32_FOR_LONG_MODE 0x08    /* 32-bit code while head_64 builds long mode */

/* Our real-mode part's own memory, as offsets in its segment: the file
 * (code, then the kernel_version string) must end before boot_params. */
#define SETUP_BOOT_PARAMS       0x2000
#define SETUP_STACK_TOP         0x4000

#define KERNEL_INFO_MAGIC       0x506f544cu /* "LToP" */

/* Where the protected-mode part prefers to run (pref_address, and where
 * 16-bit loaders put it).  The stub is position independent: 32-bit
 * loaders may put it anywhere aligned to BZPACK_LOAD_ALIGN. */
#define BZPACK_LOAD_ADDR        0x100000u
#define BZPACK_LOAD_ALIGN       0x1000u /* the scratch's page tables need 4 KiB */

/* ---- setup_header (boot protocol), offsets as in the file ------------- */

struct setup_header {
	uint8_t  setup_sects;           /* 0x1f1: real-mode part is (setup_sects + 1) sectors */
	uint16_t root_flags;            /* 0x1f2 */
	uint32_t syssize;               /* 0x1f4: protected-mode part, 16-byte units */
	uint16_t ram_size;              /* 0x1f8: obsolete */
	uint16_t vid_mode;              /* 0x1fa */
	uint16_t root_dev;              /* 0x1fc */
	uint16_t boot_flag;             /* 0x1fe: 0xaa55 */
	uint16_t jump;                  /* 0x200: short jump over the header */
	uint32_t header;                /* 0x202: "HdrS" */
	uint16_t version;               /* 0x206: protocol version */
	uint32_t realmode_swtch;        /* 0x208: loader hook */
	uint16_t start_sys_seg;         /* 0x20c: obsolete */
	uint16_t kernel_version;        /* 0x20e: version string pointer - 0x200 */
	uint8_t  type_of_loader;        /* 0x210: written by the loader */
	uint8_t  loadflags;             /* 0x211 */
	uint16_t setup_move_size;       /* 0x212 */
	uint32_t code32_start;          /* 0x214: 32-bit entry */
	uint32_t ramdisk_image;         /* 0x218: written by the loader */
	uint32_t ramdisk_size;          /* 0x21c: written by the loader */
	uint32_t bootsect_kludge;       /* 0x220 */
	uint16_t heap_end_ptr;          /* 0x224 */
	uint8_t  ext_loader_ver;        /* 0x226 */
	uint8_t  ext_loader_type;       /* 0x227 */
	uint32_t cmd_line_ptr;          /* 0x228: written by the loader */
	uint32_t initrd_addr_max;       /* 0x22c */
	uint32_t kernel_alignment;      /* 0x230 */
	uint8_t  relocatable_kernel;    /* 0x234 */
	uint8_t  min_alignment;         /* 0x235: log2 */
	uint16_t xloadflags;            /* 0x236 */
	uint32_t cmdline_size;          /* 0x238 */
	uint32_t hardware_subarch;      /* 0x23c */
	uint64_t hardware_subarch_data; /* 0x240 */
	uint32_t payload_offset;        /* 0x248: from the protected-mode part */
	uint32_t payload_length;        /* 0x24c */
	uint64_t setup_data;            /* 0x250: linked list, written by the loader */
	uint64_t pref_address;          /* 0x258 */
	uint32_t init_size;             /* 0x260: memory needed from the load address */
	uint32_t handover_offset;       /* 0x264: EFI handover entry - 0x200, from the protected-mode part */
	uint32_t kernel_info_offset;    /* 0x268: kernel_info, from the protected-mode part */
} __attribute__((packed));

#define SETUP_HEADER_END        0x26c   /* the jump at 0x200 lands here */

_Static_assert(SETUP_HEADER_OFFSET + sizeof(struct setup_header) == SETUP_HEADER_END,
	       "setup_header must end at 0x26c");
_Static_assert(__builtin_offsetof(struct setup_header, boot_flag) == 0x1fe - SETUP_HEADER_OFFSET, "boot_flag");
_Static_assert(__builtin_offsetof(struct setup_header, code32_start) == 0x214 - SETUP_HEADER_OFFSET, "code32_start");
_Static_assert(__builtin_offsetof(struct setup_header, cmd_line_ptr) == 0x228 - SETUP_HEADER_OFFSET, "cmd_line_ptr");
_Static_assert(__builtin_offsetof(struct setup_header, init_size) == 0x260 - SETUP_HEADER_OFFSET, "init_size");

/*
 * The setup_header fields only the packer writes.  Every loader copies the
 * header from the file (QEMU and our setup into boot_params; GRUB and
 * kexec with the 32-bit protocol into the boot_params they build), then
 * fills in its own fields.  The packer stores setup_header_crc() of the
 * first list in bzpack_header.setup_crc, and the stub checks it against
 * boot_params->hdr: the loader's copy is what the stub and the kernel
 * read.
 *
 * Covered: the fields Documentation/arch/x86/boot.rst marks "read" or
 * "kernel internal" (a loader rewrites setup_sects only when it is 0,
 * which the packer never writes).
 */
#define SETUP_CRC_FIELDS(X) \
	X(setup_sects) X(syssize) X(ram_size) X(jump) X(header) X(version) \
	X(start_sys_seg) X(kernel_version) X(bootsect_kludge) \
	X(initrd_addr_max) X(relocatable_kernel) X(min_alignment) \
	X(xloadflags) X(cmdline_size) X(payload_offset) X(payload_length) X(pref_address) \
	X(init_size) X(handover_offset) X(kernel_info_offset)

/*
 * Not covered: the fields a loader writes or may modify, so a conforming
 * loader may change them in its copy:
 *   root_flags, root_dev       "modify (optional)" (LILO's read-only, GRUB
 *                              sets root_dev with an initrd)
 *   vid_mode                   "modify (obligatory)": vga= (QEMU, GRUB)
 *   realmode_swtch             a loader hook ("modify"); our setup never calls it
 *   code32_start, kernel_alignment   "modify (reloc)": a bzpack image is
 *                              relocatable, and a loader that moves it
 *                              writes its load address (GRUB, kexec-tools)
 *                              and the alignment it used; our setup
 *                              refuses a code32_start other than
 *                              BZPACK_LOAD_ADDR (a hook, or damage)
 *   type_of_loader, ext_loader_ver, ext_loader_type   "write"
 *   loadflags                  "modify": QEMU and GRUB set CAN_USE_HEAP,
 *                              GRUB QUIET, kexec-tools writes 0 over the
 *                              whole byte, LOADED_HIGH included
 *   setup_move_size            "modify" (protocols 2.00-2.01)
 *   ramdisk_image, ramdisk_size, heap_end_ptr, cmd_line_ptr   "write"
 *   hardware_subarch, hardware_subarch_data   "write" (paravirt loaders)
 *   setup_data                 "write": the loader's linked list
 *   boot_flag                  "read", but GRUB (ps_mouse and padding) and
 *                              kexec-tools (aux_device_info) zero 0x1fe-0x1ff
 *                              in the boot_params they build; every loader
 *                              and our setup check it in the file instead
 */
#define SETUP_LOADER_FIELDS(X) \
	X(root_flags) X(vid_mode) X(root_dev) X(realmode_swtch) X(code32_start) X(kernel_alignment) \
	X(type_of_loader) X(loadflags) \
	X(setup_move_size) X(ramdisk_image) X(ramdisk_size) X(heap_end_ptr) X(ext_loader_ver) \
	X(ext_loader_type) X(cmd_line_ptr) X(hardware_subarch) X(hardware_subarch_data) \
	X(setup_data) X(boot_flag)

#define SETUP_FIELD_SIZE(f) sizeof(((struct setup_header *)0)->f) +
/* Every field in one list or the other: a new field must be classified.
 * (gen_consts checks byte by byte that the two lists do not overlap.) */
_Static_assert(SETUP_CRC_FIELDS(SETUP_FIELD_SIZE) SETUP_LOADER_FIELDS(SETUP_FIELD_SIZE) 0 ==
	       sizeof(struct setup_header), "every setup_header field is covered or loader-written");

/* CRC32C of the covered fields' bytes, in header order: what the packer
 * stores in setup_crc and the stub compares it with. */
static inline uint32_t setup_header_crc(const struct crc32c_table *tab, const struct setup_header *h)
{
#define SETUP_SPAN(f) { __builtin_offsetof(struct setup_header, f), SETUP_FIELD_SIZE(f) 0 },
	static const uint8_t spans[][2] = { SETUP_CRC_FIELDS(SETUP_SPAN) };
#undef SETUP_SPAN
	uint32_t crc = 0;

	for (unsigned i = 0; i < sizeof(spans) / sizeof(spans[0]); i++)
		crc = crc32c_update(tab, crc, (const uint8_t *)h + spans[i][0], spans[i][1]);
	return crc;
}

/* kernel_info (protocol 2.15), pointed to by kernel_info_offset */
struct kernel_info {
	uint32_t header;                /* 0x00: "LToP" */
	uint32_t size;                  /* 0x04: size of this structure */
	uint32_t size_total;            /* 0x08: with variable-length data */
	uint32_t setup_type_max;        /* 0x0c */
} __attribute__((packed));
_Static_assert(sizeof(struct kernel_info) == 16, "kernel_info");

/* setup_data: a list the loader hangs off setup_header.setup_data */
struct setup_data {
	uint64_t next;                  /* 0x00: physical address of the next node, 0 ends */
	uint32_t type;                  /* 0x08: SETUP_* */
	uint32_t len;                   /* 0x0c: bytes of data after this header */
} __attribute__((packed));
_Static_assert(sizeof(struct setup_data) == 16, "setup_data header");

/* ---- boot_params ("zero page"), the parts bzpack reads or fills ------- */

#define E820_MAX_ENTRIES        128
#define E820_TYPE_RAM           1

struct e820_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
} __attribute__((packed));
_Static_assert(sizeof(struct e820_entry) == 20, "e820_entry");

/* E820 types besides RAM, for the map the EFI entry builds. */
#define E820_TYPE_RESERVED      2
#define E820_TYPE_ACPI          3
#define E820_TYPE_NVS           4
#define E820_TYPE_UNUSABLE      5
#define E820_TYPE_PMEM          7

/* screen_info's linear framebuffer fields (Linux's uapi screen_info). */
#define VIDEO_TYPE_EFI          0x70

struct screen_info {
	uint8_t  _pad0[0x0f];
	uint8_t  orig_video_isVGA;      /* 0x0f: VIDEO_TYPE_EFI */
	uint8_t  _pad1[0x12 - 0x10];
	uint16_t lfb_width;             /* 0x12 */
	uint16_t lfb_height;            /* 0x14 */
	uint16_t lfb_depth;             /* 0x16 */
	uint32_t lfb_base;              /* 0x18 */
	uint32_t lfb_size;              /* 0x1c */
	uint8_t  _pad2[0x24 - 0x20];
	uint16_t lfb_linelength;        /* 0x24 */
	uint8_t  red_size, red_pos, green_size, green_pos; /* 0x26 */
	uint8_t  blue_size, blue_pos, rsvd_size, rsvd_pos; /* 0x2a */
	uint8_t  _pad3[0x34 - 0x2e];
	uint16_t capabilities;          /* 0x34 */
	uint32_t ext_lfb_base;          /* 0x36: high 32 bits */
	uint8_t  _pad4[0x40 - 0x3a];
} __attribute__((packed));
_Static_assert(sizeof(struct screen_info) == 0x40, "screen_info");
#define VIDEO_CAPABILITY_64BIT_BASE 0x2

/* efi_info: how a kernel booted from UEFI finds the firmware again. */
#define EFI_LOADER_SIGNATURE_64 0x34364c45u /* "EL64" */
struct efi_info {
	uint32_t efi_loader_signature;  /* 0x1c0 */
	uint32_t efi_systab;            /* 0x1c4 */
	uint32_t efi_memdesc_size;      /* 0x1c8 */
	uint32_t efi_memdesc_version;   /* 0x1cc */
	uint32_t efi_memmap;            /* 0x1d0 */
	uint32_t efi_memmap_size;       /* 0x1d4 */
	uint32_t efi_systab_hi;         /* 0x1d8 */
	uint32_t efi_memmap_hi;         /* 0x1dc */
} __attribute__((packed));
_Static_assert(sizeof(struct efi_info) == 0x20, "efi_info");

struct boot_params {
	struct screen_info screen_info; /* 0x000 */
	uint8_t  _pad0[0x070 - 0x040];
	uint64_t acpi_rsdp_addr;        /* 0x070 */
	uint8_t  _pad0b[0x0c0 - 0x078];
	uint32_t ext_ramdisk_image;     /* 0x0c0: high 32 bits */
	uint32_t ext_ramdisk_size;      /* 0x0c4 */
	uint32_t ext_cmd_line_ptr;      /* 0x0c8 */
	uint8_t  _pad1[0x1c0 - 0x0cc];
	struct efi_info efi_info;       /* 0x1c0 */
	uint8_t  _pad1b[0x1e4 - 0x1e0];
	uint32_t scratch;               /* 0x1e4: the kernel's own scratch word: the heads' first
					   stack, then which entry ran (BZPACK_ENTRY_*) */
	uint8_t  e820_entries;          /* 0x1e8 */
	uint8_t  _pad2[0x1ec - 0x1e9];
	uint8_t  secure_boot;           /* 0x1ec: the EFI entry's finding, BOOT_PARAMS_SECURE_BOOT_* */
	uint8_t  _pad2b[SETUP_HEADER_OFFSET - 0x1ed];
	struct setup_header hdr;        /* 0x1f1 */
	uint8_t  _pad3[0x2d0 - SETUP_HEADER_END];
	struct e820_entry e820_table[E820_MAX_ENTRIES]; /* 0x2d0 */
	uint8_t  _pad4[0x1000 - 0x2d0 - E820_MAX_ENTRIES * 20];
} __attribute__((packed));

#define BOOT_PARAMS_SIZE        0x1000
/* boot_params.secure_boot, as Linux's efi_secureboot_mode counts */
#define BOOT_PARAMS_SECURE_BOOT_UNKNOWN  1
#define BOOT_PARAMS_SECURE_BOOT_DISABLED 2
#define BOOT_PARAMS_SECURE_BOOT_ENABLED  3
_Static_assert(sizeof(struct boot_params) == BOOT_PARAMS_SIZE, "boot_params is one page");
_Static_assert(__builtin_offsetof(struct boot_params, scratch) == 0x1e4, "scratch");
_Static_assert(__builtin_offsetof(struct boot_params, e820_entries) == 0x1e8, "e820_entries");
_Static_assert(__builtin_offsetof(struct boot_params, secure_boot) == 0x1ec, "secure_boot");
_Static_assert(__builtin_offsetof(struct boot_params, acpi_rsdp_addr) == 0x070, "acpi_rsdp_addr");
_Static_assert(__builtin_offsetof(struct boot_params, efi_info) == 0x1c0, "efi_info");
_Static_assert(__builtin_offsetof(struct boot_params, hdr) == SETUP_HEADER_OFFSET, "hdr");
_Static_assert(__builtin_offsetof(struct boot_params, e820_table) == 0x2d0, "e820_table");

/* ---- bzpack's own header ---------------------------------------------- */

/*
 * The protected-mode part of a bzpack image:
 *
 *   load address L:   stub (code, rodata; no bss, no data; position
 *                     independent, so L is wherever the loader put it:
 *                     BZPACK_LOAD_ADDR is where 16-bit loaders put it)
 *                     struct bzpack_header   (at the stub's _stub_end)
 *                     payload                (payload_size bytes)
 *                     ELF record             (elf_size bytes, bzpack_elf.h: for
 *                                            --extract only, the stub never reads it)
 *   image end         = L + syssize * 16
 *
 * The payload decompresses to out_size bytes where the kernel runs,
 * followed by zero_size bytes the stub clears (the kernel's bss).  When
 * relocs_size is not 0, the last relocs_size of those bytes are the
 * kernel's relocation table (Linux's vmlinux.relocs format, see
 * bzpack_relocs.h), read before the bss is cleared, and the kernel is
 * relocatable.
 *
 * Everything else is planned from the run base R, where the kernel runs
 * unless KASLR moves it: out_addr for a kernel without a table; with one,
 * the boot protocol's runtime start, max(L, out_addr) aligned up to
 * out_align (bzpack_run_base()).  init_size counts from R, as boot.rst
 * defines it:
 *
 *   R                          the kernel (out_size, then its bss)
 *   R + inplace_offset         the payload, when it must move (the image
 *                              overlaps the kernel): decompressed in
 *                              place, the packer having simulated the
 *                              decode to find how far behind the output
 *                              it may start (ends <= R + scratch_offset)
 *   R + scratch_offset         the stub's scratch: page tables, then the
 *                              stack (BZPACK_SCRATCH_SIZE), 4 KiB aligned
 *                              the decoder's workspace (workspace_size)
 *                              room for a copy of the stub and its header,
 *                              which runs from there when the image lies
 *                              where the kernel goes
 *   R + init_size
 */
#define BZPACK_MAGIC            0x4b505a42u /* "BZPK" */
#define BZPACK_FORMAT_VERSION   7       /* 2: header_crc covers the whole header, setup_crc added;
					   3: scratch_offset from the load address (was an address);
					   4: the relocation table: relocs_*, virt_addr, out_align;
					   5: in place: offsets from the run base, inplace_offset;
					   6: payload_xxh64, relocs_xxh64 (the stub's checks without
					      SSE4.2); the ELF record after the payload: elf_size,
					      elf_crc; flags (the x86 filter);
					      embedded initrd, osrel, uname, cmdline sections;
					   7: payload_xxh3, relocs_xxh3 (XXH3-64 in place of
					      XXH64: SSE2 lanes, cheap in 32-bit mode too) */

/* Codec ids, from decode/codecs.def: BZPACK_CODEC_<ident>. */
enum bzpack_codec {
#define CODEC(ident, name, id, workspace) BZPACK_CODEC_##ident = id,
#include "codecs.def"
#undef CODEC
};

/* The name of a codec id, NULL if there is none: what -c takes and the
 * report line prints. */
static inline const char *bzpack_codec_name(unsigned codec)
{
	switch (codec) {
#define CODEC(ident, name, id, workspace) case id: return name;
#include "codecs.def"
#undef CODEC
	}
	return 0;
}

/*
 * What the image carries besides the kernel, each a Unified Kernel Image
 * section of the same name (systemd's UKI specification) in the PE of a
 * 64-bit image: bytes of the protected-mode part after the payload, each
 * at a BZPACK_EMBED_ALIGN offset from its start, so that under UEFI the
 * section lies at .text's RVA plus the same offset and every entry finds
 * it from its own load address.  BIOS loaders and kexec load them with the
 * rest (syssize counts them).  size 0: not embedded.
 */
struct bzpack_embed {
	uint32_t offset;                /* from the protected-mode part's start */
	uint32_t size;                  /* bytes, the padding to the section's end not counted */
	uint32_t crc;                   /* CRC32C of those bytes */
} __attribute__((packed));
#define BZPACK_EMBED_ALIGN      0x1000  /* the PE SectionAlignment */
/* Linux reads concatenated cpio archives (compressed or not) at 4-byte
 * boundaries: each --initrd file, and the embedded initrd before the
 * loader's, starts at one. */
#define BZPACK_INITRD_ALIGN     4

struct bzpack_header {
	uint32_t magic;                 /* 0x00: BZPACK_MAGIC */
	uint16_t version;               /* 0x04: BZPACK_FORMAT_VERSION */
	uint8_t  codec;                 /* 0x06: enum bzpack_codec */
	uint8_t  bits;                  /* 0x07: 32 or 64: the mode the kernel is entered in */
	uint32_t header_size;           /* 0x08: sizeof(struct bzpack_header) */
	uint32_t payload_size;          /* 0x0c: compressed bytes after this header */
	uint32_t payload_crc;           /* 0x10: CRC32C of those bytes (checked with SSE4.2) */
	uint32_t out_addr;              /* 0x14: physical address of the first output byte, the
					   image at BZPACK_LOAD_ADDR (the kernel's link address) */
	uint32_t out_size;              /* 0x18: decompressed bytes, relocs_size included */
	uint32_t zero_size;             /* 0x1c: bytes cleared after the output */
	uint64_t entry;                 /* 0x20: kernel entry point (physical) */
	uint32_t scratch_offset;        /* 0x28: from the run base; BZPACK_SCRATCH_SIZE bytes, 4 KiB aligned */
	uint32_t scratch_offset_check;  /* 0x2c: ~scratch_offset; asm checks it before using the stack */
	uint32_t init_size;             /* 0x30: copy of setup_header.init_size, from the run base */
	uint32_t workspace_size;        /* 0x34: the decoder's workspace, right after the scratch */
	struct kernel_info kernel_info; /* 0x38: boot protocol 2.15 */
	uint32_t relocs_size;           /* 0x48: the relocation table at the end of the output; 0: none */
	uint32_t relocs_crc;            /* 0x4c: CRC32C of the decompressed table (checked with SSE4.2) */
	uint64_t virt_addr;             /* 0x50: the kernel's virtual address of out_addr, which
					   the table's entries are relative to */
	uint32_t out_align;             /* 0x58: with a table, where the kernel runs is aligned to
					   this (a power of two, >= 4 KiB); 0 without one */
	uint32_t inplace_offset;        /* 0x5c: from the run base: where a payload that must move
					   goes, its end at most scratch_offset */
	uint32_t setup_crc;             /* 0x60: setup_header_crc() of the setup_header as packed */
	uint64_t payload_xxh3;          /* 0x64: XXH3-64 (seed 0, default secret) of the payload:
					   checked instead of payload_crc on a CPU without
					   SSE4.2 (README, "Integrity") */
	uint64_t relocs_xxh3;           /* 0x6c: XXH3-64 of the decompressed table, checked
					   instead of relocs_crc without SSE4.2; 0 without a table */
	uint32_t elf_size;              /* 0x74: the ELF record right after the payload (bzpack_elf.h) */
	uint32_t elf_crc;               /* 0x78: CRC32C of its bytes */
	uint32_t flags;                 /* 0x7c: BZPACK_FLAG_*: how the payload was prepared; a
					   stub refuses any it does not carry the code for */
	struct bzpack_embed initrd;     /* 0x80: .initrd: handed to the kernel, before the loader's */
	struct bzpack_embed osrel;      /* 0x8c: .osrel: os-release text, for boot menus */
	struct bzpack_embed uname;      /* 0x98: .uname: the kernel's release */
	struct bzpack_embed cmdline;    /* 0xa4: .cmdline: the default command line (NUL excluded) */
	uint32_t header_crc;            /* 0xb0: CRC32C of bytes 0x00..0xaf: every byte above */
} __attribute__((packed));

/* bzpack_header.flags.  X86: the kernel's bytes (out_size - relocs_size;
 * not the relocation table) went through the x86 branch converter
 * (decode/bcj_x86.h, start offset 0) before compression; the stub
 * un-filters them after decoding, before the relocation table is read.
 * Only the -bcj stubs carry that code (stub/bcj.c), and only they accept
 * the flag; they accept no payload without it. */
#define BZPACK_FLAG_X86         0x1u
/* INITRD: the stub walks the initrd the kernel gets, as Linux's initramfs
 * does, and hands over one uncompressed cpio in its place when every
 * compressed piece decodes and checks (stub/initrd_unpack.c), if memory
 * is plentiful (the rule there).  INITRD_ALWAYS (with INITRD) drops that
 * rule: whenever the result fits in free RAM.  Only the -initrd stubs
 * carry that code and the initrd decoders (gzip, xz, zstd); they accept
 * no payload without INITRD. */
#define BZPACK_FLAG_INITRD      0x2u
#define BZPACK_FLAG_INITRD_ALWAYS 0x4u
/* FRAMES: the payload is a frame table (struct bzpack_frames) followed by
 * the frames it lists, each a complete stream of the codec that decodes
 * on its own to its range of the output; payload_crc and payload_xxh3
 * then cover the table only, and each frame carries its own checksums,
 * which the CPU that decodes it verifies.  Without it the payload is one
 * stream, exactly as before frames existed.  Only the -frames stubs carry
 * the frame queue (stub/frames.c); they accept no payload without it. */
#define BZPACK_FLAG_FRAMES      0x8u
/* Every flag a format-6 header may carry; any other bit is damage. */
#define BZPACK_FLAGS_KNOWN      (BZPACK_FLAG_X86 | BZPACK_FLAG_INITRD | BZPACK_FLAG_INITRD_ALWAYS | BZPACK_FLAG_FRAMES)

/* header_crc comes last so that it covers every other byte of the
 * header, and the header has no byte that no check covers.  (The payload
 * right after it needs no alignment: the decoders read bytes.) */
#define BZPACK_HEADER_SIZE      0xb4
_Static_assert(sizeof(struct bzpack_header) == BZPACK_HEADER_SIZE, "bzpack_header size");
_Static_assert(__builtin_offsetof(struct bzpack_header, scratch_offset) == 0x28, "scratch_offset");
_Static_assert(__builtin_offsetof(struct bzpack_header, kernel_info) == 0x38, "kernel_info");
_Static_assert(__builtin_offsetof(struct bzpack_header, setup_crc) == 0x60, "setup_crc");
_Static_assert(__builtin_offsetof(struct bzpack_header, payload_xxh3) == 0x64, "payload_xxh3");
_Static_assert(__builtin_offsetof(struct bzpack_header, relocs_xxh3) == 0x6c, "relocs_xxh3");
_Static_assert(__builtin_offsetof(struct bzpack_header, elf_size) == 0x74, "elf_size");
_Static_assert(__builtin_offsetof(struct bzpack_header, flags) == 0x7c, "flags");
_Static_assert(__builtin_offsetof(struct bzpack_header, initrd) == 0x80, "initrd");
_Static_assert(__builtin_offsetof(struct bzpack_header, header_crc) == 0xb0, "header_crc");
_Static_assert(__builtin_offsetof(struct bzpack_header, header_crc) + 4 == BZPACK_HEADER_SIZE,
	       "header_crc must be the header's last field: it covers all the bytes before it");

/* ---- the frame table (BZPACK_FLAG_FRAMES) ------------------------------
 *
 * At the payload's start.  The frames tile the payload after the table
 * and the output, in order, without gaps or overlaps, so that frames
 * decoded at once by several CPUs never write where another one reads or
 * writes (bzpack_frames_check() holds both sides to it).  In place (the
 * payload moved behind the output's end, main.c step 3) the stub decodes
 * them one after the other in table order, the order the packer's
 * in-place simulation ran: a frame's output may grow over the input of
 * later frames only once those are read. */
#define BZPACK_FRAMES_MAGIC     0x534d5246u /* "FRMS" */
#define BZPACK_FRAMES_MAX       64      /* frames a table may list */
#define BZPACK_MAX_CPUS         8       /* decoder workspaces the packer plans at most */

struct bzpack_frame {
	uint32_t in_offset;             /* 0x00: from the payload's start */
	uint32_t in_size;               /* 0x04: compressed bytes */
	uint32_t out_offset;            /* 0x08: from the output's start */
	uint32_t out_size;              /* 0x0c: decompressed bytes */
	uint32_t crc;                   /* 0x10: CRC32C of the compressed bytes */
	uint32_t reserved;              /* 0x14: 0 */
	uint64_t xxh3;                  /* 0x18: their XXH3-64, checked instead without SSE4.2 */
} __attribute__((packed));

struct bzpack_frames {
	uint32_t magic;                 /* 0x00: BZPACK_FRAMES_MAGIC */
	uint32_t count;                 /* 0x04: 2..BZPACK_FRAMES_MAX */
	struct bzpack_frame frame[];    /* 0x08 */
} __attribute__((packed));
_Static_assert(sizeof(struct bzpack_frame) == 32, "bzpack_frame");
_Static_assert(sizeof(struct bzpack_frames) == 8, "bzpack_frames");

/* The table's size as its count says, 0 if the count cannot be right:
 * what payload_crc covers (its bytes are not trusted before that). */
static inline uint32_t bzpack_frames_size(const uint8_t *payload, uint32_t payload_size)
{
	const struct bzpack_frames *t = (const void *)payload;

	if (payload_size < sizeof(*t) || t->count < 2 || t->count > BZPACK_FRAMES_MAX)
		return 0;
	uint32_t size = sizeof(*t) + t->count * (uint32_t)sizeof(t->frame[0]);
	return size <= payload_size ? size : 0;
}

/* The table, once its checksum held: why it is no tiling of the payload
 * after it and of out_size output bytes, or NULL. */
static inline const char *bzpack_frames_check(const uint8_t *payload, uint32_t payload_size, uint32_t out_size)
{
	const struct bzpack_frames *t = (const void *)payload;
	uint32_t size = bzpack_frames_size(payload, payload_size);
	uint64_t in = size, out = 0;

	if (!size || t->magic != BZPACK_FRAMES_MAGIC)
		return "frame table: bad magic or frame count";
	for (uint32_t i = 0; i < t->count; i++) {
		const struct bzpack_frame *f = &t->frame[i];
		if (f->in_offset != in || f->out_offset != out || !f->in_size || !f->out_size || f->reserved)
			return "frame table: frames overlap or leave gaps";
		in += f->in_size;
		out += f->out_size;
	}
	if (in != payload_size || out != out_size)
		return "frame table: frames do not cover the payload and the kernel";
	return 0;
}

/* The run base R: where the kernel runs unless KASLR moves it, and what
 * scratch_offset, inplace_offset and init_size count from.  A kernel
 * without a relocation table runs at its link address; one with a table
 * where boot.rst's relocating loader would expect it: at max(load,
 * pref_address) aligned up to kernel_alignment (pref_address = out_addr,
 * kernel_alignment = out_align).  head_common.inc's RUN_BASE computes the
 * same in asm. */
static inline uint64_t bzpack_run_base(const struct bzpack_header *h, uint64_t load)
{
	if (!h->relocs_size)
		return h->out_addr;
	uint64_t from = load > h->out_addr ? load : h->out_addr;
	return (from + h->out_align - 1) & ~(uint64_t)(h->out_align - 1);
}

/* The stub's scratch: 4 KiB-aligned, page tables first (64-bit stubs
 * identity-map 4 GiB with 2 MiB pages: PML4, PDPT, 4 page directories;
 * and, loaded above 4 GiB, the GiB its init_size spans and the one
 * boot_params is in there, with up to three more), the stack above them. */
#define BZPACK_SCRATCH_PML4     0x0000
#define BZPACK_SCRATCH_PDPT     0x1000
#define BZPACK_SCRATCH_PD       0x2000  /* 4 x 4 KiB: 0-4 GiB */
#define BZPACK_SCRATCH_PD_HIGH  0x6000  /* 3 x 4 KiB: GiB above 4 GiB (image, boot_params) */
#define BZPACK_SCRATCH_TABLES_END 0x9000
#define BZPACK_SCRATCH_STACK_TOP 0x10000
#define BZPACK_SCRATCH_SIZE     0x10000
#define BZPACK_WORKSPACE_ALIGN  0x1000

/* The other CPUs (stub/smp.c, stub/smp_trampoline.asm), in -frames
 * stubs: at most BZPACK_MAX_CPUS (one per decoder workspace) decode
 * frames, the boot CPU included.  The BIOS path wakes them in one
 * free page below 1 MiB, the trampoline page: the trampoline's code
 * from offset 0, then at BZPACK_SMP_PARAMS what the
 * boot CPU tells them; the page stays theirs (the E820 map handed to the
 * kernel calls it reserved), and they park in it.  Their stacks,
 * BZPACK_SMP_STACK bytes each, follow it. */
#define BZPACK_SMP_PARAMS       0x800
#define BZPACK_SMP_STACK        0x2000
#define BZPACK_SMP_WAITING      0       /* smp_params.state[]: not started yet */
#define BZPACK_SMP_STARTED      1       /* claimed by the CPU: it runs the work */
#define BZPACK_SMP_ABANDONED    2       /* claimed by the boot CPU: too late, park */
#define BZPACK_SMP_PARKED       3       /* done, halted in the trampoline page */
/* The segments of the trampoline's GDT (smp_params.gdt) */
#define SMP_CS32                0x08
#define SMP_CS64                0x10
#define SMP_DS                  0x18
#define SMP_CS16                0x20    /* base: the trampoline page */
struct smp_params {
	uint16_t pad;
	uint16_t gdt_limit;             /* 0x02: lgdt's operand */
	uint32_t gdt_base;              /* 0x04 */
	uint64_t gdt[5];                /* 0x08: null, SMP_CS32, SMP_CS64, SMP_DS, SMP_CS16 */
	uint32_t cr0, cr3, cr4;         /* 0x30: the boot CPU's */
	uint32_t x2apic;                /* 0x3c: 1: APIC IDs from CPUID leaf 0xb */
	uint32_t count;                 /* 0x40: slots in apic_id[] (0 is the boot CPU) */
	uint32_t pad1;
	uint64_t entry;                 /* 0x48: smp_ap_main(params, cpu), absolute */
	uint64_t work, arg;             /* 0x50: what smp_ap_main calls */
	uint32_t apic_id[BZPACK_MAX_CPUS]; /* 0x60 */
	uint32_t state[BZPACK_MAX_CPUS];   /* 0x80: BZPACK_SMP_* */
	uint64_t stack[BZPACK_MAX_CPUS];   /* 0xa0: each CPU's stack top */
	uint32_t pm32_eip;              /* 0xe0: far pointer to the 32-bit code */
	uint16_t pm32_cs;               /* 0xe4: SMP_CS32 */
	uint16_t rm_ip, rm_cs;          /* 0xe6: far pointer to the real-mode halt */
	uint16_t pad2[3];
};
_Static_assert(sizeof(struct smp_params) == 0xf0, "smp_params");

/* The last 16 bytes of every stub, right before _stub_end (linker/stub.ld
 * writes them): where its UEFI entries are, as offsets from the start of
 * the protected-mode part, 0 for none (32-bit stubs have none).  The
 * packer reads them to fill the PE header and handover_offset. */
struct stub_info {
	uint32_t magic;                 /* BZPACK_STUB_INFO_MAGIC */
	uint32_t efi_entry;             /* PE AddressOfEntryPoint: ms_abi (handle, system table) */
	uint32_t efi_handover;          /* EFI handover: SysV (handle, system table, boot_params) */
	uint32_t self_crc;              /* the stub's self-check CRC: see below */
} __attribute__((packed));
#define BZPACK_STUB_INFO_MAGIC  0x4f464e49u /* "INFO" */
#define BZPACK_STUB_INFO_SIZE   16
_Static_assert(sizeof(struct stub_info) == BZPACK_STUB_INFO_SIZE, "stub_info");

/* ---- the stub's self-check --------------------------------------------
 *
 * Every entry (our real-mode setup, startup_32, startup_64, the PE entry
 * and the EFI handover entry) begins with a prologue that computes the
 * CRC32C (decode/crc32c.h, bit by bit: stub/selfcheck.inc) of the code
 * and read-only data it belongs to and compares it with a word the packer
 * stores at pack time, before any other of those bytes runs:
 *
 *   protected-mode stub   bytes [0, stub size - 4): all of it, prologues,
 *                         marker, GDTs and stub_info included; the CRC is
 *                         its last 4 bytes, stub_info.self_crc
 *   real-mode setup       bytes [SETUP_HEADER_END, setup.bin size - 4) of
 *                         the file: its code and messages (the setup_header
 *                         before them is setup_crc's); the CRC is the last
 *                         4 bytes of setup.bin, before the version string
 *
 * The setup also checks the protected-mode stub at BZPACK_LOAD_ADDR with
 * the same rule before jumping there; startup_32 then trusts that check
 * (ebp = BZPACK_SETUP_TSC_MAGIC) instead of repeating it.  A mismatch
 * prints "bzpack: error: ..." on COM1 and halts; under UEFI the entry
 * returns EFI_CRC_ERROR to its caller.  No byte is left out of its CRC,
 * but a prologue cannot vouch for itself: a flipped bit in the prologue
 * of the entry taken may defeat the check. */
#define BZPACK_SELF_CRC_SIZE    4
#define BZPACK_SETUP_CRC_START  SETUP_HEADER_END
#define BZPACK_SELF_CRC_EFI_STATUS 0x800000000000001bull /* EFI_CRC_ERROR (UEFI spec, appendix D) */
_Static_assert(__builtin_offsetof(struct stub_info, self_crc) + BZPACK_SELF_CRC_SIZE == BZPACK_STUB_INFO_SIZE,
	       "self_crc must be the stub's last word");

/* The stub's first instruction jumps over this 8-byte marker, which our
 * real-mode setup looks for at BZPACK_LOAD_ADDR + 2 before it switches
 * modes: a truncated file, a damaged setup_sects or a loader that put the
 * protected-mode part elsewhere stops with a message instead of running
 * whatever lies there. */
#define BZPACK_STUB_MARKER_LO   0x4b505a42u /* "BZPK" */
#define BZPACK_STUB_MARKER_HI   0x42555453u /* "STUB" */
#define BZPACK_STUB_MARKER_OFFSET 2

/* Which entry the loader took, left in boot_params.scratch by the heads
 * for the report line's entry= field. */
#define BZPACK_ENTRY_16         16      /* our real-mode setup, then startup_32 */
#define BZPACK_ENTRY_32         32      /* startup_32 (code32_start) */
#define BZPACK_ENTRY_64         64      /* startup_64 (code32_start + 0x200) */
#define BZPACK_ENTRY_EFI        0xef1   /* the PE entry or the EFI handover (stub/efi.c) */

/* Handed from our real-mode setup to the 32-bit entry, in ebp, so that the
 * stub can count cycles from the very first instruction; edi:ebx holds the
 * setup's rdtsc.  A loader entering at code32_start directly sets ebp = 0. */
#define BZPACK_SETUP_TSC_MAGIC  0x7473637au /* "ztsc" */

#endif
