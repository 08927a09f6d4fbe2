/*
 * testloader.c - a boot loader for the tests, entering a bzImage the way a
 * 64-bit loader (kexec_file_load, EFI loaders) does and no BIOS loader at
 * hand does: at the protocol's 64-bit entry, code32_start + 0x200, in long
 * mode, with page tables that map only what boot.rst promises:
 * [load address, + init_size), boot_params and the command line (and, as
 * its own business, this loader).  Anything else the image touches before
 * building its own tables faults, and QEMU (-no-reboot) stops.
 *
 * QEMU boots it as a multiboot kernel (-kernel testloader.elf) with the
 * image as the first module and its command line after the file name:
 *   -initrd "image.bzimage console=ttyS0 ...[,initrd]"
 * A second module, if any, is handed over as the initrd.
 * Two options on that command line, taken out before the kernel sees them:
 * testloader.load=ADDR puts the protected-mode part at ADDR instead of
 * code32_start (a relocatable image only), and testloader.entry=32 enters
 * at the 32-bit entry instead (protected mode, paging off), as GRUB's and
 * kexec-tools' 32-bit paths do.
 *
 * Prints "testloader: ..." lines on COM1; on an error a "testloader: error:"
 * line and QEMU exits with isa-debug-exit status 0x12 (QEMU status 37).
 */
#include <stddef.h>
#include <stdint.h>

#include "bzpack_format.h"
#include "portio.h"

#define COM1                    0x3f8
#define UART_LSR                5
#define UART_LSR_THRE           0x20
#define DEBUG_EXIT_PORT         0xf4
#define DEBUG_EXIT_LOADER_ERROR 0x12    /* QEMU exits with 37 */
#define MULTIBOOT_LOADER_MAGIC  0x2badb002u
#define MB_INFO_MODS            (1u << 3)
#define MB_INFO_MMAP            (1u << 6)
#define LOADER_TYPE_UNKNOWN     0xff
#define PAGE_2M                 (2u << 20)
#define PTE_PRESENT_WRITABLE    0x003
#define PDE_2MIB_PAGE           0x083
#define CMDLINE_MAX             2048
#define LOAD_OPTION             "testloader.load="
#define ENTRY_OPTION            "testloader.entry=32"

struct multiboot_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
} __attribute__((packed));

struct multiboot_module {
	uint32_t start, end, string, reserved;
} __attribute__((packed));

struct multiboot_mmap {
	uint32_t size;                  /* of the rest of this entry */
	uint64_t addr, len;
	uint32_t type;
} __attribute__((packed));

void testloader_main(uint32_t magic, const struct multiboot_info *mbi);
/* What enter_64 does in long mode: copy the protected-mode part (it may go
 * above 4 GiB, out of this 32-bit C's reach), then jump.  Offsets are
 * fixed: images/testloader_entry.asm reads them. */
struct handoff {
	uint64_t entry;                 /* 0x00 */
	uint64_t copy_dst;              /* 0x08 */
	uint32_t copy_src, copy_len;    /* 0x10, 0x14 */
	uint32_t boot_params, pml4;     /* 0x18, 0x1c */
} __attribute__((packed));
_Static_assert(sizeof(struct handoff) == 0x20, "handoff layout");
__attribute__((noreturn)) void enter_64(const struct handoff *h);
__attribute__((noreturn)) void enter_32(uint32_t entry, uint32_t boot_params);

extern char _loader_start[], _loader_end[];

/* This loader's data, in its own memory (mapped for the image too). */
static struct boot_params bp __attribute__((aligned(4096)));
static char cmdline[CMDLINE_MAX];
static uint64_t pml4[512] __attribute__((aligned(4096)));
static uint64_t pdpt[512] __attribute__((aligned(4096)));
static uint64_t pd[4][512] __attribute__((aligned(4096)));          /* 0-4 GiB */
static uint64_t pd_high[3][512] __attribute__((aligned(4096)));     /* GiB above */
static struct handoff handoff;

static void putc_serial(char c)
{
	while (!(inb(COM1 + UART_LSR) & UART_LSR_THRE))
		;
	outb(COM1, (uint8_t)c);
}

static void puts_serial(const char *s)
{
	while (*s)
		putc_serial(*s++);
}

static void put_hex(uint64_t v)
{
	puts_serial("0x");
	for (int shift = 60; shift >= 0; shift -= 4)
		if (v >> shift || shift == 0)
			putc_serial("0123456789abcdef"[(v >> shift) & 15]);
}

__attribute__((noreturn)) static void error(const char *why)
{
	puts_serial("testloader: error: ");
	puts_serial(why);
	puts_serial("\n");
	outb(DEBUG_EXIT_PORT, DEBUG_EXIT_LOADER_ERROR);
	for (;;)
		__asm__ volatile("cli; hlt");
}

static void copy(void *dst, const void *src, uint32_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (d < s)
		for (uint32_t i = 0; i < n; i++)
			d[i] = s[i];
	else
		for (uint32_t i = n; i-- > 0;)
			d[i] = s[i];
}

static int starts_with(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

static uint64_t parse_hex(const char *s)
{
	uint64_t v = 0;

	if (s[0] == '0' && s[1] == 'x')
		s += 2;
	for (;; s++) {
		unsigned d = *s >= '0' && *s <= '9' ? (unsigned)(*s - '0') :
			     *s >= 'a' && *s <= 'f' ? (unsigned)(*s - 'a' + 10) : 16;
		if (d == 16)
			return v;
		v = v << 4 | d;
	}
}

/* The module's string is "<file> <kernel command line>": the command line
 * without the file name and without our own options, which set *load and
 * *entry32. */
static void take_cmdline(const char *s, uint64_t *load, int *entry32)
{
	uint32_t n = 0;

	while (*s && *s != ' ')
		s++;
	while (*s) {
		while (*s == ' ')
			s++;
		if (starts_with(s, LOAD_OPTION))
			*load = parse_hex(s + sizeof(LOAD_OPTION) - 1);
		else if (starts_with(s, ENTRY_OPTION))
			*entry32 = 1;
		else
			for (; *s && *s != ' ' && n + 2 < CMDLINE_MAX; s++)
				cmdline[n++] = *s;
		while (*s && *s != ' ')
			s++;
		if (n && cmdline[n - 1] != ' ' && *s)
			cmdline[n++] = ' ';
	}
	while (n && cmdline[n - 1] == ' ')
		n--;
	cmdline[n] = 0;
}

/* Identity-map [start, end) with 2 MiB pages: below 4 GiB through pd[],
 * above through the next free pd_high[] (up to 512 GiB). */
static void map(uint64_t start, uint64_t end)
{
	static unsigned high_used;

	for (uint64_t a = start & ~(uint64_t)(PAGE_2M - 1); a < end; a += PAGE_2M) {
		uint32_t gib = (uint32_t)(a >> 30);
		if (gib >= 512)
			error("cannot map above 512 GiB");
		if (!pdpt[gib]) {
			if (high_used == 3)
				error("too many GiB above 4 GiB to map");
			pdpt[gib] = (uint32_t)(uintptr_t)pd_high[high_used++] | PTE_PRESENT_WRITABLE;
		}
		uint64_t *dir = (uint64_t *)(uintptr_t)(uint32_t)(pdpt[gib] & ~(uint64_t)0xfff);
		dir[(a >> 21) & 511] = a | PDE_2MIB_PAGE;
	}
}

void testloader_main(uint32_t magic, const struct multiboot_info *mbi)
{
	if (magic != MULTIBOOT_LOADER_MAGIC)
		error("not started by a multiboot loader");
	if (!(mbi->flags & MB_INFO_MODS) || mbi->mods_count < 1)
		error("no module: give the image with -initrd");
	if (!(mbi->flags & MB_INFO_MMAP))
		error("no memory map from the multiboot loader");
	const struct multiboot_module *mod = (const void *)(uintptr_t)mbi->mods_addr;
	const uint8_t *file = (const void *)(uintptr_t)mod[0].start;
	uint32_t file_size = mod[0].end - mod[0].start;

	/* The setup header, as boot.rst has a loader read it. */
	if (file_size < 0x1000)
		error("image too small");
	const struct setup_header *hdr = (const void *)(file + SETUP_HEADER_OFFSET);
	if (hdr->boot_flag != SETUP_BOOT_FLAG || hdr->header != SETUP_HDRS_MAGIC || hdr->version < 0x20c)
		error("not a bzImage of boot protocol 2.12 or later");

	uint32_t setup_size = ((hdr->setup_sects ? hdr->setup_sects : 4) + 1) * SECTOR_SIZE;
	if (setup_size >= file_size)
		error("setup_sects runs past the file");
	uint32_t prot_size = file_size - setup_size;

	uint64_t load = hdr->code32_start;
	int entry32 = 0;
	take_cmdline((const char *)(uintptr_t)mod[0].string, &load, &entry32);
	if (!entry32 && !(hdr->xloadflags & XLF_KERNEL_64))
		error("image has no 64-bit entry (XLF_KERNEL_64)");
	if (load != hdr->code32_start &&
	    (!hdr->relocatable_kernel || !hdr->kernel_alignment || (uint32_t)load % hdr->kernel_alignment))
		error("image is not relocatable, or not to this alignment");
	uint64_t load_end = load + (hdr->init_size > prot_size ? hdr->init_size : prot_size);
	if (load < 0x100000 || (load < 1ull << 32 && load_end > (uint64_t)(uintptr_t)_loader_start))
		error("image would not fit between 1 MiB and this loader, or above 4 GiB");
	if (load_end > 1ull << 32 &&
	    (entry32 || load < 1ull << 32 || !(hdr->xloadflags & XLF_CAN_BE_LOADED_ABOVE_4G)))
		error("image cannot run above 4 GiB (XLF_CAN_BE_LOADED_ABOVE_4G, the 64-bit entry)");

	/* boot_params: zeroes, the setup header from the file, ours. */
	uint32_t hdr_end = 0x202 + file[0x201];
	copy(&bp.hdr, hdr, hdr_end - SETUP_HEADER_OFFSET);
	bp.hdr.type_of_loader = LOADER_TYPE_UNKNOWN;
	bp.hdr.loadflags |= LOADFLAG_LOADED_HIGH;
	bp.hdr.cmd_line_ptr = (uint32_t)(uintptr_t)cmdline;
	bp.hdr.code32_start = (uint32_t)load;
	if (mbi->mods_count >= 2) {
		bp.hdr.ramdisk_image = mod[1].start;
		bp.hdr.ramdisk_size = mod[1].end - mod[1].start;
	}
	const uint8_t *m = (const void *)(uintptr_t)mbi->mmap_addr;
	for (uint32_t off = 0; off < mbi->mmap_length && bp.e820_entries < E820_MAX_ENTRIES;) {
		const struct multiboot_mmap *e = (const void *)(m + off);
		bp.e820_table[bp.e820_entries++] = (struct e820_entry){ e->addr, e->len, e->type };
		off += e->size + sizeof(e->size);
	}

	if (entry32) {
		copy((void *)(uintptr_t)load, file + setup_size, prot_size);
		puts_serial("testloader: 32-bit entry at ");
		put_hex(load);
		puts_serial(", boot_params at ");
		put_hex((uintptr_t)&bp);
		puts_serial("\n");
		enter_32((uint32_t)load, (uint32_t)(uintptr_t)&bp);
	}
	/* What boot.rst promises the 64-bit entry, and ourselves (this
	 * loader, boot_params and the command line in it, the module we copy
	 * from in long mode). */
	pml4[0] = (uint32_t)(uintptr_t)pdpt | PTE_PRESENT_WRITABLE;
	for (int i = 0; i < 4; i++)
		pdpt[i] = (uint32_t)(uintptr_t)pd[i] | PTE_PRESENT_WRITABLE;
	map(load, load_end);
	map((uintptr_t)_loader_start, (uintptr_t)_loader_end);
	map(mod[0].start, mod[0].end);

	uint64_t entry = load + BZPACK_ENTRY64_OFFSET;
	puts_serial("testloader: 64-bit entry at ");
	put_hex(entry);
	puts_serial(", boot_params at ");
	put_hex((uintptr_t)&bp);
	puts_serial(", mapped ");
	put_hex(load);
	puts_serial("-");
	put_hex(load_end);
	puts_serial(" and the loader\n");
	handoff = (struct handoff){ entry, load, (uint32_t)(uintptr_t)(file + setup_size), prot_size,
				    (uint32_t)(uintptr_t)&bp, (uint32_t)(uintptr_t)pml4 };
	enter_64(&handoff);
}
