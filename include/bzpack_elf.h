/*
 * bzpack_elf.h - what a bzpack image keeps of the ELF its kernel came
 * from, so that --extract gives an ELF back and packing that ELF again
 * gives the same image byte for byte.
 *
 * The ELF record follows the payload in the protected-mode part
 * (bzpack_header.elf_size bytes, CRC32C bzpack_header.elf_crc; the stub
 * never reads it).  It holds what the memory image cannot tell: the ELF
 * header's identity, and the program headers in the file's order.  The
 * segments' bytes are the decompressed kernel; e_entry is
 * bzpack_header.entry.  Section headers, symbols and the file's own
 * offsets are not kept: an extracted ELF is laid out afresh.
 *
 * The packer keeps every PT_LOAD and every other program header whose
 * bytes lie inside a PT_LOAD's (a vmlinux's PT_NOTE), or that has none
 * (PT_GNU_STACK): --extract can place those again.  Others are dropped.
 *
 * The extracted ELF also carries a note (BZPACK_NOTE_NAME, type
 * BZPACK_NOTE_PACKED; readelf -n shows it) with what the image's headers
 * held that an ELF cannot: the setup_header fields carried from the
 * kernel's own bzImage, its short version string, the relocation table's
 * alignment and the codec and level it was packed with.  The packer reads
 * the note back when it packs that ELF, so that the image is the same.
 * Its relocation table, in Linux's vmlinux.relocs format (what --relocs
 * takes), is the section BZPACK_RELOCS_SECTION.
 */
#ifndef BZPACK_ELF_H
#define BZPACK_ELF_H

#include <stdint.h>

#define BZPACK_ELF_MAGIC        0x4c45505au /* "ZPEL" */
#define BZPACK_ELF_PHDRS_MAX    64

struct bzpack_elf_phdr {
	uint32_t type;                  /* p_type */
	uint32_t flags;                 /* p_flags */
	uint64_t vaddr, paddr, filesz, memsz, align;
} __attribute__((packed));
_Static_assert(sizeof(struct bzpack_elf_phdr) == 48, "bzpack_elf_phdr");

struct bzpack_elf_record {
	uint32_t magic;                 /* 0x00: BZPACK_ELF_MAGIC */
	uint8_t  elf_class;             /* 0x04: ELFCLASS32 or ELFCLASS64 */
	uint8_t  osabi;                 /* 0x05: e_ident[EI_OSABI] */
	uint16_t machine;               /* 0x06: EM_386 or EM_X86_64 */
	uint32_t elf_flags;             /* 0x08: e_flags */
	uint8_t  phnum;                 /* 0x0c: program headers that follow */
	uint8_t  level;                 /* 0x0d: the compression level the payload was packed at */
	uint16_t reserved;              /* 0x0e: 0 */
	/* 0x10: struct bzpack_elf_phdr[phnum] */
} __attribute__((packed));
#define BZPACK_ELF_RECORD_SIZE  16
_Static_assert(sizeof(struct bzpack_elf_record) == BZPACK_ELF_RECORD_SIZE, "bzpack_elf_record");

/* The note in an extracted ELF: name BZPACK_NOTE_NAME, then this
 * descriptor, then the version string and its NUL. */
#define BZPACK_NOTE_NAME        "bzpack"
#define BZPACK_NOTE_PACKED      0x4b505a42u /* "BZPK": no generic note type (readelf shows it by number) */
#define BZPACK_RELOCS_SECTION   ".vmlinux.relocs"

struct bzpack_note_packed {
	uint32_t crc;                   /* CRC32C of the rest of the descriptor, the string included */
	uint32_t out_align;             /* bzpack_header.out_align: the table's alignment, 0: none */
	uint16_t root_flags, ram_size, vid_mode, root_dev, start_sys_seg, setup_move_size;
	uint32_t initrd_addr_max, cmdline_size;
	uint16_t xloadflags;            /* the bits carried from the kernel's own bzImage */
	uint8_t  codec;                 /* bzpack_header.codec: what -c to give again */
	uint8_t  level;                 /* and what -l */
	/* the kernel's version, NUL-terminated (may be "") */
} __attribute__((packed));
#define BZPACK_NOTE_PACKED_SIZE 32
_Static_assert(sizeof(struct bzpack_note_packed) == BZPACK_NOTE_PACKED_SIZE, "bzpack_note_packed");

#endif
