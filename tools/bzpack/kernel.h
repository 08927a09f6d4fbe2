/* kernel.h - a kernel as the packer sees it: one contiguous span of
 * memory, built from an ELF's PT_LOAD segments laid out by physical
 * address, its bss tail, its entry point and its word size. */
#ifndef KERNEL_H
#define KERNEL_H

#include <stdint.h>
#include <stdio.h>

#include "util.h"

#define KERNEL_VERSION_MAX 256

struct kernel {
	int bits;                  /* 32 or 64: the mode it is entered in */
	uint64_t entry;            /* physical */
	uint64_t addr;             /* physical address of blob[0] */
	struct buffer blob;        /* file bytes of every segment, gaps zeroed */
	uint64_t zero_size;        /* memory after the blob that must read as zero */
	int segments;              /* PT_LOAD count */
	char version[KERNEL_VERSION_MAX]; /* "6.1.0-28-amd64 (...)" if found, else "" */
};

/* Parse an ELF32/ELF64 x86 executable.  want_bits: 0 for any, or 32/64. */
int kernel_from_elf(const struct buffer *file, int want_bits, struct kernel *k, struct error *err);

/* "<label> ELF64, 4 PT_LOAD, 0x...-0x... (N bytes + N zeroed), entry 0x..."
 * and a "version:" line if there is one; labels padded to width. */
void kernel_print(FILE *out, const char *label, int width, const struct kernel *k);

#endif
