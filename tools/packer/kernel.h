/* kernel.h - a kernel as the packer sees it: one contiguous span of
 * memory, built from an ELF's PT_LOAD segments laid out by physical
 * address, its bss tail, its entry point, its word size and, when it has
 * one, its relocation table (relocs.h), carried at the end of the blob. */
#ifndef KERNEL_H
#define KERNEL_H

#include <stdint.h>
#include <stdio.h>

#include "bzpack_elf.h"
#include "util.h"

#define KERNEL_VERSION_MAX 256

/* The setup_header fields a Linux bzImage sets that the packer does not
 * own: a bzImage input's are carried into the image (bzimage.c), so a
 * repack is faithful; set == 0 (an ELF input) means Linux's own defaults
 * (arch/x86/boot/header.S), see image.c. */
/* The fields of struct carried_setup that go from the input's setup
 * header to the image's as they are: one list for both copies. */
#define CARRIED_AS_IS(X) X(root_flags) X(ram_size) X(vid_mode) X(root_dev) X(start_sys_seg) X(setup_move_size)

struct carried_setup {
	int set;
	uint16_t root_flags, ram_size, vid_mode, root_dev, start_sys_seg, setup_move_size;  /* as they were */
	uint32_t initrd_addr_max, cmdline_size;
	uint16_t xloadflags;            /* the bits that describe the kernel itself */
};

/* The ELF the kernel came from, as far as an image keeps it
 * (bzpack_elf.h): its identity and program headers in the file's order. */
struct kernel_elf {
	uint8_t elf_class, osabi;
	uint16_t machine;
	uint32_t flags;
	int phnum;
	struct bzpack_elf_phdr ph[BZPACK_ELF_PHDRS_MAX];
};

struct kernel {
	int bits;                  /* 32 or 64: the mode it is entered in */
	uint64_t entry;            /* physical */
	uint64_t addr;             /* physical address of blob[0] */
	uint64_t virt_addr;        /* virtual address of blob[0] (p_vaddr of the lowest segment) */
	struct buffer blob;        /* file bytes of every segment, gaps zeroed, then the table */
	uint64_t relocs_size;      /* the blob's last bytes that are the relocation table; 0: none */
	uint64_t align;            /* with a table: where the kernel may run is aligned to this */
	uint64_t zero_size;        /* memory after the kernel's file bytes that must read as zero */
	uint64_t file_end;         /* the ELF file's extent: headers, segments, section table */
	int segments;              /* PT_LOAD count */
	char version[KERNEL_VERSION_MAX]; /* "6.1.0-28-amd64 (...)" if found, else "" */
	struct carried_setup carried;   /* from a bzImage input, or an extracted ELF's note */
	struct kernel_elf elf;          /* for the image's ELF record */
	int packed_level;               /* an image's or a note's record of its level; -1: none */
	uint32_t flags;            /* bzpack_header.flags the blob is prepared for: BZPACK_FLAG_X86
				      when its kernel bytes went through the x86 filter (x86_filter.h) */
};

/* Parse an ELF32/ELF64 x86 executable.  want_bits: 0 for any, or 32/64. */
int kernel_from_elf(const struct buffer *file, int want_bits, struct kernel *k, struct error *err);

/* The kernel's own bytes, without the table. */
static inline uint64_t kernel_size(const struct kernel *k)
{
	return k->blob.size - k->relocs_size;
}

/* "<label> ELF64, 4 PT_LOAD, 0x...-0x... (N bytes + N zeroed), entry 0x..."
 * and a "version:" line if there is one; labels padded to width. */
void kernel_print(FILE *out, const char *label, int width, const struct kernel *k);

#endif
