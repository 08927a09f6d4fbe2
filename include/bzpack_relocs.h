/*
 * bzpack_relocs.h - a kernel's relocation table in Linux's vmlinux.relocs
 * format, checked and applied: one walker, used by the stub
 * (stub/main.c) and by the packer (tools/packer/relocs.c), so that the
 * packer refuses exactly the tables the stub would.
 *
 * The format (read from arch/x86/tools/relocs.c and
 * arch/x86/boot/compressed/misc.c handle_relocations, not copied): 32-bit
 * words holding the virtual address of a place to fix, in zero-terminated
 * lists read from the END of the table backwards.  i386: one list, 32-bit
 * places that get the delta added.  x86_64: the addresses are
 * sign-extended to 64 bits, and three lists: 32-bit places (+= delta),
 * then inverse 32-bit places (-= delta), then 64-bit places (+= delta).
 * Every word of the table belongs to a list: anything else is damage.
 *
 * Which delta: i386's kernel runs at its link-time virtual address minus
 * PAGE_OFFSET, so a physical move is a delta; x86_64's kernel finds its
 * physical address itself (phys_base, from where it runs) and the table
 * only moves its virtual address (KASLR's virtual offset).
 */
#ifndef BZPACK_RELOCS_H
#define BZPACK_RELOCS_H

#include <stdint.h>

enum relocs_status {
	RELOCS_OK,
	RELOCS_BAD_SIZE,        /* not whole 32-bit words */
	RELOCS_UNTERMINATED,    /* a list runs off the start of the table */
	RELOCS_OUTSIDE,         /* an entry points outside the kernel's bytes */
	RELOCS_EXTRA_WORDS,     /* words before the first list */
};

static inline const char *relocs_status_name(enum relocs_status s)
{
	switch (s) {
	case RELOCS_OK: return "ok";
	case RELOCS_BAD_SIZE: return "its size is not whole 32-bit words";
	case RELOCS_UNTERMINATED: return "a list has no zero terminator";
	case RELOCS_OUTSIDE: return "an entry points outside the kernel";
	case RELOCS_EXTRA_WORDS: return "words that belong to no list";
	}
	return "unknown";
}

/*
 * Walks the table: with apply 0, checks every entry against the kernel's
 * kernel_size bytes (virtual address virt_addr at kernel[0]) and writes
 * nothing; with apply 1, also adds delta at each place (subtracts, for
 * the inverse list).  Callers check the whole table first, then apply:
 * a kernel is never left half-relocated.
 */
static inline enum relocs_status relocs_walk(uint8_t *kernel, uint64_t kernel_size, const uint8_t *table,
					     uint64_t table_size, int bits, uint64_t virt_addr, uint64_t delta,
					     int apply)
{
	if (table_size % 4)
		return RELOCS_BAD_SIZE;
	uint64_t pos = table_size / 4;
	int lists = bits == 64 ? 3 : 1;

	for (int list = 0; list < lists; list++) {
		unsigned width = list == 2 ? 8 : 4;
		for (;;) {
			uint32_t e;
			if (pos == 0)
				return RELOCS_UNTERMINATED;
			pos--;
			__builtin_memcpy(&e, table + pos * 4, 4);
			if (e == 0)
				break;
			uint64_t va = bits == 64 ? (uint64_t)(int64_t)(int32_t)e : e;
			uint64_t off = va - virt_addr;  /* wraps to huge below the kernel */
			if (off > kernel_size || kernel_size - off < width)
				return RELOCS_OUTSIDE;
			if (!apply)
				continue;
			uint8_t *p = kernel + off;
			if (width == 8) {
				uint64_t v;
				__builtin_memcpy(&v, p, 8);
				v += delta;
				__builtin_memcpy(p, &v, 8);
			} else {
				uint32_t v;
				__builtin_memcpy(&v, p, 4);
				v = list == 1 ? v - (uint32_t)delta : v + (uint32_t)delta;
				__builtin_memcpy(p, &v, 4);
			}
		}
	}
	return pos ? RELOCS_EXTRA_WORDS : RELOCS_OK;
}

#endif
