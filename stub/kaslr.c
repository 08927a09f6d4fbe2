/*
 * kaslr.c - where a kernel with a relocation table runs: a random
 * physical slot among the RAM the stub may write and, for x86_64, a
 * random virtual offset, as Linux's decompressor does
 * (arch/x86/boot/compressed/kaslr.c, read, not copied):
 *
 *   entropy   RDTSC, the i8254's counter 0, RDRAND when CPUID has it,
 *             and the loader's setup_data RNG seed when it gave one,
 *             mixed with a multiply-xorshift step;
 *   physical  a random one of the slots (multiples of the kernel's
 *             alignment) where the kernel fits in an E820 RAM entry,
 *             between its link address and the top of what the stub
 *             reaches (4 GiB; 512 MiB for i386, whose kernel must lie in
 *             its lowmem), then the first fit from there (wrapping to the
 *             link address) that is RAM, clear of boot_params, the command
 *             line, the initrd and setup_data (memory.c) and of our image
 *             and scratch;
 *   virtual   x86_64: a random multiple of the alignment such that the
 *             kernel still ends inside its 1 GiB image area (an x86_64
 *             kernel has a relocation table only when built with
 *             CONFIG_RANDOMIZE_BASE, which makes the area 1 GiB).
 *
 * Off, and the kernel goes where it was planned, with "nokaslr" on the
 * command line, or "mem=" or "memmap=" (we do not parse the ranges they
 * take away, so we do not guess), or when no slot fits.  A randomised
 * kernel is told so with KASLR_FLAG in loadflags.
 *
 * The EFI entry (efi.c) uses the same rules, entropy, slot counting and
 * virtual offset on the firmware's memory map, where AllocatePages, not
 * memory.c, keeps the kernel clear of everything else.
 */
#include <cpuid.h>

#include "portio.h"
#include "stub.h"

#define KERNEL_IMAGE_SIZE_64    (1ull << 30)    /* x86_64 with CONFIG_RANDOMIZE_BASE */
#define PHYS_LIMIT_64           (1ull << 32)    /* the setup_data the stub reads */
#define I8254_CONTROL           0x43
#define I8254_COUNTER0          0x40
#define SETUP_DATA_MAX_NODES    64

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;    /* the golden-ratio multiplier of Fibonacci hashing */
	return h ^ (h >> 29);
}

uint64_t kaslr_entropy(const struct boot_params *bp)
{
	uint64_t h = mix(0, read_tsc());
	unsigned a, b, c, d;

	outb(I8254_CONTROL, 0x00);              /* latch counter 0, then read it low, high */
	uint64_t lo = inb(I8254_COUNTER0), hi = inb(I8254_COUNTER0);
	h = mix(h, hi << 8 | lo);
	if (__get_cpuid(1, &a, &b, &c, &d) && (c & bit_RDRND)) {
		for (int tries = 0; tries < 16; tries++) {      /* RDRAND may be briefly empty */
			uintptr_t r;
			uint8_t ok;
			__asm__ volatile("rdrand %0; setc %1" : "=r"(r), "=qm"(ok));
			if (ok) {
				h = mix(h, r);
				break;
			}
		}
	}
	uint64_t node = bp->hdr.setup_data;
	for (int i = 0; node && node < PHYS_LIMIT_64 && i < SETUP_DATA_MAX_NODES; i++) {
		const struct setup_data *sd = (const void *)(uintptr_t)node;
		if (sd->type == SETUP_RNG_SEED) {
			const uint8_t *seed = (const uint8_t *)(sd + 1);
			for (uint32_t j = 0; j < sd->len; j++)
				h = mix(h, seed[j]);
		}
		node = sd->next;
	}
	return mix(h, read_tsc());
}

/* The RAM slots for size bytes at multiples of 1 << shift in [min, limit)
 * of an E820-style table: with pick < the count, the address of slot
 * pick (and *found set); else counts them.  Returns the count, or the
 * address when pick was in range.  The EFI entry passes the free parts
 * of its memory map in the same form. */
__attribute__((noinline)) uint64_t kaslr_ram_slots(const struct e820_entry *table, unsigned entries, uint64_t min, uint64_t limit,
			 uint64_t size, int shift, uint32_t pick, int *found)
{
	uint64_t align = 1ull << shift;
	uint32_t count = 0;

	*found = 0;
	for (unsigned i = 0; i < entries; i++) {
		const struct e820_entry *e = &table[i];
		uint64_t start = e->addr > min ? e->addr : min;
		uint64_t end = e->addr + e->size < limit ? e->addr + e->size : limit;
		start = (start + align - 1) & ~(align - 1);
		if (e->type != E820_TYPE_RAM || start >= end || end - start < size)
			continue;
		uint32_t n = (uint32_t)((end - start - size) >> shift) + 1;
		if (pick < count + n) {
			*found = 1;
			return start + ((uint64_t)(pick - count) << shift);
		}
		count += n;
	}
	return count;
}

/* Is word (or, with prefix, a word starting with it) on the command line? */
static int has_option(const char *cmd, uint64_t len, const char *word, int prefix)
{
	uint64_t n = 0;

	while (word[n])
		n++;
	for (uint64_t i = 0; i < len; i++) {
		if (i > 0 && cmd[i - 1] != ' ')
			continue;
		uint64_t j = 0;
		while (j < n && i + j < len && cmd[i + j] == word[j])
			j++;
		if (j == n && (prefix || i + j == len || cmd[i + j] == ' '))
			return 1;
	}
	return 0;
}

/* Not inlined: one copy serves kaslr_choose and the EFI entry. */
__attribute__((noinline)) const char *kaslr_off_reason(const struct boot_params *bp, const struct bzpack_header *hdr, uint64_t size)
{
	uint64_t len;
	const char *cmd = memory_cmdline(bp, &len);

	if (!hdr->relocs_size)
		return "no-relocations";
	if (has_option(cmd, len, "nokaslr", 0))
		return "nokaslr";
	if (has_option(cmd, len, "mem=", 1) || has_option(cmd, len, "memmap=", 1))
		return "mem-or-memmap";
	if (hdr->out_addr + size > kaslr_phys_limit(hdr))
		return "kernel-too-large";
	return 0;
}

__attribute__((noinline)) uint64_t kaslr_virt_delta(const struct bzpack_header *hdr, uint64_t size, uint64_t r)
{
	int shift = __builtin_ctz(hdr->out_align);

	if (hdr->bits != 64 || hdr->out_addr + size > KERNEL_IMAGE_SIZE_64)
		return 0;
	uint32_t vslots = (uint32_t)((KERNEL_IMAGE_SIZE_64 - size - hdr->out_addr) >> shift) + 1;
	return (uint64_t)((uint32_t)mix(r, read_tsc()) % vslots) << shift;
}

void kaslr_choose(struct boot_params *bp, const struct bzpack_header *hdr, uint64_t planned,
		  uint64_t size, const struct mem_range *avoid, int n_avoid, struct kaslr *k)
{
	uint64_t align = hdr->out_align, min = hdr->out_addr;
	uint64_t limit = kaslr_phys_limit(hdr);

	*k = (struct kaslr){ planned, 0, kaslr_off_reason(bp, hdr, size) };
	if (k->off)
		return;

	/* Slots are counted in 32 bits (at most 4 GiB / 4 KiB of them):
	 * a 64-bit division would need libgcc in the 32-bit stub. */
	int shift = __builtin_ctz(hdr->out_align);
	unsigned entries = bp->e820_entries < E820_MAX_ENTRIES ? bp->e820_entries : E820_MAX_ENTRIES;
	uint64_t r = kaslr_entropy(bp), at = 0;
	int found;
	uint32_t slots = (uint32_t)kaslr_ram_slots(bp->e820_table, entries, min, limit, size, shift, UINT32_MAX,
						   &found);
	if (slots) {
		uint64_t from = kaslr_ram_slots(bp->e820_table, entries, min, limit, size, shift,
						(uint32_t)r % slots, &found);
		at = memory_find_free(bp, from, size, align, avoid, n_avoid);
	}
	if (!at || at + size > limit)
		at = memory_find_free(bp, min, size, align, avoid, n_avoid);
	if (!at || at + size > limit) {
		k->off = "no-room";
		return;
	}
	k->phys = at;
	k->virt_delta = kaslr_virt_delta(hdr, size, r);
	bp->hdr.loadflags |= LOADFLAG_KASLR;
}
