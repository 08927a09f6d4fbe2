/*
 * efi.c - the boot story when UEFI starts us (64-bit stubs only).
 * stub/efi_entry.asm calls us where the firmware (or the handover loader)
 * put the image: the stub is position independent and never moves; the
 * payload is read from there too.  With boot services only, and in the
 * order Linux's EFI stub (drivers/firmware/efi/libstub) taught us:
 *
 *   1. boot_params: our own page with the setup_header copied from the
 *      loaded image, or the one the handover loader (GRUB) gives us;
 *      main.c's header checks run against it;
 *   2. the command line: the loaded image's load options (UTF-16), else
 *      the default the packer stored after the kernel_version string
 *      (with its own CRC32C);
 *   3. the initrd: the LINUX_EFI_INITRD_MEDIA_GUID LoadFile2 protocol,
 *      else the first initrd=\path, read from the image's own volume
 *      (or the handover loader's); an embedded initrd (.initrd, checked
 *      against its CRC32C) goes before it, both copied into one region
 *      below initrd_addr_max, as systemd-stub joins them.  The -initrd
 *      stubs then walk it and, where initrd_unpack.c's rules allow
 *      (the RAM counted from the memory map), take pages for it
 *      decompressed; they decode it after the kernel, with the kernel
 *      decoder's workspace, and hand the kernel the result;
 *   4. the kernel's memory.  A kernel with a relocation table goes where
 *      the memory map has room: a random slot of the free memory (KASLR,
 *      kaslr.c's rules, EFI_RNG_PROTOCOL's seed in the entropy and handed
 *      on as SETUP_RNG_SEED), or with nokaslr the lowest from its link
 *      address; claimed with AllocatePages, made writable and executable
 *      through EFI_MEMORY_ATTRIBUTE_PROTOCOL where the firmware has it,
 *      and decompressed straight there.  A kernel without one runs at its
 *      link address: the free parts of that range are claimed now
 *      (AllocateAddress) and boot services memory there is accepted, as
 *      it is free after ExitBootServices; main.c's CRC check and decode go
 *      to a staging buffer meanwhile.  Either way the stub's own code must
 *      lie clear of the kernel;
 *   5. the ACPI RSDP, GOP's framebuffer, Secure Boot's state, efi_info;
 *   6. ExitBootServices (fetching the map again while its key is stale),
 *      E820 from the final map; our own identity map of the low 4 GiB
 *      and of wherever the stub and its stack are (firmware may map its
 *      old boot services pages non-executable), a staged kernel moved into
 *      place, the report line, and the kernel's 64-bit entry.
 *
 * Before ExitBootServices every failure prints "bzpack: error: <reason>"
 * on COM1 and on ConOut, frees what we allocated and returns an EFI error
 * to the firmware, which may try its next boot option.
 */
#include "crc32c.h"
#include "efi.h"
#include "mem.h"
#include "stub.h"

#define EFI_MAX_ALLOCATIONS   32
#define CMDLINE_BYTES         2048      /* Linux x86 COMMAND_LINE_SIZE */
#define BELOW_4G              0xffffffffull
#define MAP_SLACK_DESCRIPTORS 32        /* our own allocation adds a few */
#define EXIT_BOOT_TRIES       8
#define TYPE_OF_LOADER_OTHER  0xff      /* boot.rst: "undefined" loader */
#define CONOUT_CHUNK          64
#define LOW_DIRECTORIES       4         /* page directories for 0-4 GiB */
#define HIGH_DIRECTORIES      4         /* for the GiBs the stub and its stack may be in */
#define PAGE_TABLE_PAGES      (2 + LOW_DIRECTORIES + HIGH_DIRECTORIES) /* PML4, PDPT, directories */
#define PDPT_ENTRIES          512       /* one PDPT: the first 512 GiB */
#define RNG_SEED_BYTES        32        /* what Linux's EFI stub asks EFI_RNG_PROTOCOL for */
#define PTE_PRESENT_WRITABLE  0x003
#define PDE_2MIB_PAGE         0x083     /* present, writable, 2 MiB */
#define STACK_GUARD           0x10000   /* what we may use of the firmware's stack */

extern const uint8_t startup_32[], _stub_end[];

__attribute__((noreturn)) void efi_enter_kernel(uint64_t entry, struct boot_params *bp);
efi_status efi_main(efi_handle image, struct efi_system_table *st, struct boot_params *given_bp,
		    const uint8_t *loaded_stub);

static const struct efi_guid loaded_image_guid = {
	0x5b1b31a1, 0x9562, 0x11d2, { 0x8e, 0x3f, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b } };
static const struct efi_guid load_file2_guid = {
	0x4006c0c1, 0xfcb3, 0x403e, { 0x99, 0x6d, 0x4a, 0x6c, 0x87, 0x24, 0xe0, 0x6d } };
static const struct efi_guid simple_file_system_guid = {
	0x964e5b22, 0x6459, 0x11d2, { 0x8e, 0x39, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b } };
static const struct efi_guid gop_guid = {
	0x9042a9de, 0x23dc, 0x4a38, { 0x96, 0xfb, 0x7a, 0xde, 0xd0, 0x80, 0x51, 0x6a } };
static const struct efi_guid acpi20_guid = {
	0x8868e871, 0xe4f1, 0x11d3, { 0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81 } };
static const struct efi_guid acpi10_guid = {
	0xeb9d2d30, 0x2d88, 0x11d3, { 0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d } };
static const struct efi_guid rng_guid = {
	0x3152bca5, 0xeade, 0x433d, { 0x86, 0x2e, 0xc0, 0x1c, 0xdc, 0x29, 0x1f, 0x44 } };
static const struct efi_guid memory_attribute_guid = {
	0xf4560cf6, 0x40ec, 0x4b4a, { 0xa1, 0x92, 0xbf, 0x1d, 0x57, 0xd0, 0xb1, 0x89 } };
static const struct efi_guid global_variable_guid = {
	0x8be4df61, 0x93ca, 0x11d2, { 0xaa, 0x0d, 0x00, 0xe0, 0x98, 0x03, 0x2b, 0x8c } };

/* The device path Linux's loaders install the initrd's LoadFile2 on: a
 * vendor media node with LINUX_EFI_INITRD_MEDIA_GUID, then the end node. */
static const struct {
	struct efi_device_path vendor;
	struct efi_guid guid;
	struct efi_device_path end;
} __attribute__((packed)) initrd_media_path = {
	{ 4, 3, sizeof(struct efi_device_path) + sizeof(struct efi_guid) }, /* media, vendor */
	{ 0x5568e427, 0x68fc, 0x4f3d, { 0xac, 0x74, 0xca, 0x55, 0x52, 0x31, 0xcc, 0x68 } },
	{ 0x7f, 0xff, sizeof(struct efi_device_path) },                     /* end of path */
};

struct efi_allocation {
	uint64_t addr, pages;
};

struct efi_boot {
	efi_handle image;
	struct efi_system_table *st;
	struct efi_boot_services *bs;
	struct efi_loaded_image *li;
	struct efi_allocation alloc[EFI_MAX_ALLOCATIONS];
	int n_alloc;
};

static int guid_equal(const struct efi_guid *a, const struct efi_guid *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* ---- output and failure ---------------------------------------------- */

static void conout_puts(struct efi_boot *eb, const char *s)
{
	char16 buf[CONOUT_CHUNK + 2];

	while (*s) {
		int n = 0;
		while (*s && n < CONOUT_CHUNK) {
			if (*s == '\n')
				buf[n++] = '\r';
			buf[n++] = (char16)(uint8_t)*s++;
		}
		buf[n] = 0;
		eb->st->con_out->output_string(eb->st->con_out, buf);
	}
}

static void free_all(struct efi_boot *eb)
{
	while (eb->n_alloc > 0) {
		eb->n_alloc--;
		eb->bs->free_pages(eb->alloc[eb->n_alloc].addr, eb->alloc[eb->n_alloc].pages);
	}
}

/* "bzpack: error: <reason><detail>" on COM1 and ConOut; returns status
 * for the firmware after giving back our pages. */
static efi_status efi_fail(struct efi_boot *eb, efi_status status, const char *reason, const char *detail)
{
	const char *parts[] = { "bzpack: error: ", reason, detail, "\n" };

	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		serial_puts(parts[i]);
	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		conout_puts(eb, parts[i]);
	free_all(eb);
	return status;
}

/* AllocatePages, remembered so that a failure can give them back.
 * type: EFI_ALLOCATE_*; *addr is the address or limit it needs. */
static efi_status allocate(struct efi_boot *eb, int type, int memory_type, uint64_t size, uint64_t *addr)
{
	uint64_t pages = (size + EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE;

	if (eb->n_alloc == EFI_MAX_ALLOCATIONS)
		return EFI_OUT_OF_RESOURCES;
	efi_status s = eb->bs->allocate_pages(type, memory_type, pages, addr);
	if (s == EFI_SUCCESS)
		eb->alloc[eb->n_alloc++] = (struct efi_allocation){ *addr, pages };
	return s;
}

/* ---- 2. the command line ----------------------------------------------- */

/* Load options are used only when they are UTF-16 text: firmware boot
 * entries often carry binary data there (edk2 puts a GUID in the ones it
 * creates for removable media). */
static int load_options_are_text(const char16 *s, uint64_t chars)
{
	uint64_t n = 0;

	for (; n < chars && s[n]; n++)
		if (s[n] < 0x20 || s[n] > 0x7e)
			return 0;
	return n > 0;
}

/* The packer's default: a NUL-terminated string right after the
 * kernel_version string, inside the image's headers, followed by the
 * CRC32C of its bytes (NUL included).  NULL when it is damaged. */
static const char *default_cmdline(const struct efi_loaded_image *li, const struct boot_params *bp,
				   const struct crc32c_table *crc)
{
	const char *base = li->image_base;
	uint64_t limit = li->image_size < SETUP_BOOT_PARAMS ? li->image_size : SETUP_BOOT_PARAMS;
	uint64_t at = 0x200 + (uint64_t)bp->hdr.kernel_version;

	while (at < limit && base[at])
		at++;
	uint64_t start = ++at;
	while (at < limit && base[at])
		at++;
	if (at + 1 + sizeof(uint32_t) > limit)
		return 0;
	uint32_t want;
	memcpy(&want, base + at + 1, sizeof(want));
	if (crc32c_update(crc, 0, base + start, at + 1 - start) != want)
		return 0;
	return base + start;
}

static const char *set_cmdline(struct efi_boot *eb, struct boot_params *bp, const struct crc32c_table *crc)
{
	uint64_t addr = BELOW_4G;
	if (allocate(eb, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, CMDLINE_BYTES, &addr) != EFI_SUCCESS)
		return "EFI: no memory for the command line";
	char *cmdline = (char *)(uintptr_t)addr;
	const char16 *opt = eb->li->load_options;
	uint64_t chars = eb->li->load_options_size / sizeof(char16), n = 0;

	if (opt && load_options_are_text(opt, chars)) {
		for (; n < chars && opt[n] && n < CMDLINE_BYTES - 1; n++)
			cmdline[n] = (char)opt[n];
	} else {
		const char *def = default_cmdline(eb->li, bp, crc);
		if (!def)
			return "the embedded default command line is damaged (CRC32C)";
		for (; def[n] && n < CMDLINE_BYTES - 1; n++)
			cmdline[n] = def[n];
	}
	cmdline[n] = 0;
	bp->hdr.cmd_line_ptr = (uint32_t)addr;
	bp->ext_cmd_line_ptr = 0;
	return 0;
}

/* ---- 3. the initrd ------------------------------------------------------ */

static void set_initrd(struct boot_params *bp, uint64_t addr, uint64_t size)
{
	bp->hdr.ramdisk_image = (uint32_t)addr;
	bp->ext_ramdisk_image = (uint32_t)(addr >> 32);
	bp->hdr.ramdisk_size = (uint32_t)size;
	bp->ext_ramdisk_size = (uint32_t)(size >> 32);
}

/* The LoadFile2 way (OVMF's -initrd, systemd-boot, GRUB 2.12): 1 if it
 * was there and loaded, 0 if there is none, < 0 (with *why) on failure. */
static int initrd_from_load_file2(struct efi_boot *eb, struct boot_params *bp, const char **why)
{
	struct efi_device_path *path = (struct efi_device_path *)&initrd_media_path;
	efi_handle handle;
	struct efi_load_file2 *lf2;
	uint64_t size = 0, addr = bp->hdr.initrd_addr_max;

	if (eb->bs->locate_device_path(&load_file2_guid, &path, &handle) != EFI_SUCCESS)
		return 0;
	if (eb->bs->handle_protocol(handle, &load_file2_guid, (void **)&lf2) != EFI_SUCCESS) {
		*why = "initrd: LoadFile2 protocol missing on its device path";
		return -1;
	}
	if (lf2->load_file(lf2, path, 0, &size, 0) != EFI_BUFFER_TOO_SMALL || size == 0) {
		*why = "initrd: LoadFile2 gave no size";
		return -1;
	}
	if (allocate(eb, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, size, &addr) != EFI_SUCCESS) {
		*why = "initrd: no memory below initrd_addr_max";
		return -1;
	}
	if (lf2->load_file(lf2, path, 0, &size, (void *)(uintptr_t)addr) != EFI_SUCCESS) {
		*why = "initrd: LoadFile2 failed to load it";
		return -1;
	}
	set_initrd(bp, addr, size);
	return 1;
}

/* The initrd=\path way, read from the volume the image came from; only
 * the first initrd= is used.  0 when the command line names none. */
static int initrd_from_file(struct efi_boot *eb, struct boot_params *bp, const char **why)
{
	const char *cmdline = (const char *)(uintptr_t)bp->hdr.cmd_line_ptr, *p = cmdline;
	char16 name[256];
	unsigned n = 0;

	while (*p && !(( p == cmdline || p[-1] == ' ') && memcmp(p, "initrd=", 7) == 0))
		p++;
	if (!*p)
		return 0;
	for (p += 7; *p && *p != ' '; p++) {
		if (n == sizeof(name) / sizeof(name[0]) - 1) {
			*why = "initrd=: path too long";
			return -1;
		}
		name[n++] = *p == '/' ? '\\' : (char16)(uint8_t)*p;
	}
	name[n] = 0;

	struct efi_simple_file_system *fs;
	struct efi_file *root, *file;
	uint64_t size, addr = bp->hdr.initrd_addr_max;
	*why = "initrd=: the image's volume has no file system";
	if (eb->bs->handle_protocol(eb->li->device, &simple_file_system_guid, (void **)&fs) != EFI_SUCCESS ||
	    fs->open_volume(fs, &root) != EFI_SUCCESS)
		return -1;
	*why = "initrd=: cannot open the file";
	if (root->open(root, &file, name, EFI_FILE_MODE_READ, 0) != EFI_SUCCESS)
		return -1;
	*why = "initrd=: cannot read the file's size";
	if (file->set_position(file, EFI_FILE_END_OF_FILE) != EFI_SUCCESS ||
	    file->get_position(file, &size) != EFI_SUCCESS || file->set_position(file, 0) != EFI_SUCCESS)
		return -1;
	*why = "initrd=: no memory below initrd_addr_max";
	if (size == 0 || allocate(eb, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, size, &addr) != EFI_SUCCESS)
		return -1;
	uint64_t got = size;
	*why = "initrd=: read failed or came short";
	if (file->read(file, &got, (void *)(uintptr_t)addr) != EFI_SUCCESS || got != size)
		return -1;
	file->close(file);
	root->close(root);
	set_initrd(bp, addr, size);
	return 1;
}

/* The embedded initrd, then from a BZPACK_INITRD_ALIGN boundary the
 * loader's (if any), in one allocation below initrd_addr_max.  The
 * loader's stays allocated: LOADER_DATA, RAM to the kernel once boot
 * services are gone. */
static const char *join_embedded_initrd(struct efi_boot *eb, struct boot_params *bp, const uint8_t *embedded,
					uint64_t size, unsigned *initrds)
{
	uint64_t loader_at = bp->hdr.ramdisk_image | (uint64_t)bp->ext_ramdisk_image << 32;
	uint64_t loader = bp->hdr.ramdisk_size | (uint64_t)bp->ext_ramdisk_size << 32;
	uint64_t gap = loader ? (size + BZPACK_INITRD_ALIGN - 1) & ~(uint64_t)(BZPACK_INITRD_ALIGN - 1) : size;
	uint64_t addr = bp->hdr.initrd_addr_max;

	*initrds = INITRD_EMBEDDED | (loader ? INITRD_LOADER : 0);
	if (allocate(eb, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, gap + loader, &addr) != EFI_SUCCESS)
		return "initrd: no memory below initrd_addr_max for the embedded and the loader's";
	uint8_t *to = (uint8_t *)(uintptr_t)addr;
	memcpy(to, embedded, size);
	memset(to + size, 0, gap - size);
	if (loader)
		memcpy(to + gap, (const void *)(uintptr_t)loader_at, loader);
	set_initrd(bp, addr, gap + loader);
	return 0;
}

/* ---- 4. the kernel's memory ---------------------------------------------- */

/* A copy of the firmware's memory map in pages of our own (given back
 * with free_memory_map, never handed to the kernel). */
struct efi_map {
	uint8_t *buf;
	uint64_t pages, size, desc_size;
};

static const char *read_memory_map(struct efi_boot *eb, struct efi_map *m)
{
	uint64_t key, addr = 0;
	uint32_t version;

	m->size = 0;
	if (eb->bs->get_memory_map(&m->size, 0, &key, &m->desc_size, &version) != EFI_BUFFER_TOO_SMALL)
		return "GetMemoryMap gave no size";
	m->pages = (m->size + MAP_SLACK_DESCRIPTORS * m->desc_size + EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE;
	if (eb->bs->allocate_pages(EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, m->pages, &addr) != EFI_SUCCESS)
		return "no memory for the memory map";
	m->buf = (uint8_t *)(uintptr_t)addr;
	m->size = m->pages * EFI_PAGE_SIZE;
	if (eb->bs->get_memory_map(&m->size, (void *)m->buf, &key, &m->desc_size, &version) != EFI_SUCCESS ||
	    m->desc_size < sizeof(struct efi_memory_descriptor)) {
		eb->bs->free_pages(addr, m->pages);
		return "GetMemoryMap failed";
	}
	return 0;
}

static void free_memory_map(struct efi_boot *eb, struct efi_map *m)
{
	eb->bs->free_pages((uintptr_t)m->buf, m->pages);
}

/* Free memory in [start, end) is claimed as ours; boot services memory
 * is left to be freed by ExitBootServices; so is loader memory inside
 * given, what a handover loader allocated for us (init_size from the run
 * base: GRUB puts the protected-mode part at pref_address, the kernel's
 * own address, when it can).  Anything else (ACPI, runtime, reserved, a
 * hole, another image) stops us. */
static const char *claim_kernel_range(struct efi_boot *eb, uint64_t start, uint64_t end,
				      struct mem_range given)
{
	struct efi_map m = { 0 };
	uint64_t covered = 0;
	const char *why = read_memory_map(eb, &m);

	for (uint64_t off = 0; !why && off + m.desc_size <= m.size; off += m.desc_size) {
		const struct efi_memory_descriptor *d = (const void *)(m.buf + off);
		uint64_t lo = d->physical_start > start ? d->physical_start : start;
		uint64_t d_end = d->physical_start + d->pages * EFI_PAGE_SIZE;
		uint64_t hi = d_end < end ? d_end : end;
		if (lo >= hi)
			continue;
		covered += hi - lo;
		if (d->type == EFI_CONVENTIONAL_MEMORY) {
			if (allocate(eb, EFI_ALLOCATE_ADDRESS, EFI_LOADER_CODE, hi - lo, &lo) != EFI_SUCCESS)
				why = "could not claim the free part of the kernel's memory";
		} else if (d->type != EFI_BOOT_SERVICES_CODE && d->type != EFI_BOOT_SERVICES_DATA &&
			   !((d->type == EFI_LOADER_CODE || d->type == EFI_LOADER_DATA) &&
			     given.start <= lo && hi <= given.end)) {
			why = "the fixed-address kernel's memory holds firmware memory that stays in use";
		}
	}
	if (!m.buf)
		return why;
	free_memory_map(eb, &m);
	if (!why && covered != end - start)
		why = "the fixed-address kernel's memory is not all RAM";
	return why;
}

/* size bytes at a multiple of align (a power of two, >= 4 KiB) below
 * limit, wherever the firmware has them: a larger allocation, its
 * unaligned head and tail given back. */
static efi_status allocate_aligned(struct efi_boot *eb, uint64_t size, uint64_t align, uint64_t limit,
				   uint64_t *addr)
{
	uint64_t pages = (size + EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE, slack = align / EFI_PAGE_SIZE - 1;
	uint64_t raw = limit - 1;

	if (eb->n_alloc == EFI_MAX_ALLOCATIONS)
		return EFI_OUT_OF_RESOURCES;
	efi_status s = eb->bs->allocate_pages(EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_CODE, pages + slack, &raw);
	if (s != EFI_SUCCESS)
		return s;
	uint64_t at = (raw + align - 1) & ~(align - 1);
	uint64_t head = (at - raw) / EFI_PAGE_SIZE;
	if (head)
		eb->bs->free_pages(raw, head);
	if (slack - head)
		eb->bs->free_pages(at + pages * EFI_PAGE_SIZE, slack - head);
	eb->alloc[eb->n_alloc++] = (struct efi_allocation){ at, pages };
	*addr = at;
	return EFI_SUCCESS;
}

/* A kernel with a relocation table: where it runs, as Linux's EFI stub
 * places one (efi_random_alloc: the slots of the map's free memory, one
 * picked at random, then AllocateAddress), with kaslr.c's rules and
 * entropy.  With KASLR off (nokaslr, ...) the pick is slot 0, the lowest
 * from the link address, which is the link address when it is free.
 * The slots come from the firmware's free, ordinary (write-back, not
 * "specific purpose") memory, rewritten in place as E820 RAM entries
 * for kaslr_ram_slots.  Fills *k; returns why not, or NULL. */
static const char *place_relocatable(struct efi_boot *eb, struct boot_params *bp,
				     const struct bzpack_header *hdr, uint64_t size, struct kaslr *k)
{
	uint64_t min = hdr->out_addr, limit = kaslr_phys_limit(hdr), at = 0;
	int shift = __builtin_ctz(hdr->out_align), found = 0;
	struct efi_map m;

	*k = (struct kaslr){ 0, 0, kaslr_off_reason(bp, hdr, size) };
	uint64_t r = kaslr_entropy(bp);
	if (!read_memory_map(eb, &m)) {
		struct e820_entry *ram = (struct e820_entry *)m.buf;
		unsigned n = 0;
		/* Entry n is never past descriptor off: read it out first. */
		for (uint64_t off = 0; off + m.desc_size <= m.size; off += m.desc_size) {
			const struct efi_memory_descriptor *d = (const void *)(m.buf + off);
			uint64_t start = d->physical_start, bytes = d->pages * EFI_PAGE_SIZE;
			if (d->type == EFI_CONVENTIONAL_MEMORY && (d->attribute & EFI_MEMORY_WB) &&
			    !(d->attribute & EFI_MEMORY_SP))
				ram[n++] = (struct e820_entry){ start, bytes, E820_TYPE_RAM };
		}
		uint32_t slots = (uint32_t)kaslr_ram_slots(ram, n, min, limit, size, shift, UINT32_MAX, &found);
		if (slots)
			at = kaslr_ram_slots(ram, n, min, limit, size, shift, k->off ? 0 : (uint32_t)r % slots,
					     &found);
		free_memory_map(eb, &m);
	}
	if (!found || allocate(eb, EFI_ALLOCATE_ADDRESS, EFI_LOADER_CODE, size, &at) != EFI_SUCCESS) {
		if (!k->off)
			k->off = "no-room";
		if (allocate_aligned(eb, size, hdr->out_align, limit, &at) != EFI_SUCCESS)
			return "EFI: no memory below 4 GiB for the kernel";
	}
	k->phys = at;
	if (!k->off) {
		k->virt_delta = kaslr_virt_delta(hdr, size, r);
		bp->hdr.loadflags |= LOADFLAG_KASLR;
	}
	return 0;
}

/* NX, the firmware's side: where it has EFI_MEMORY_ATTRIBUTE_PROTOCOL,
 * the kernel's pages may have come read-only or non-executable (firmware
 * that applies W^X to NX_COMPAT images does so to their allocations), so
 * before we write there and jump there both are cleared, as Linux's EFI
 * stub clears them on the kernel it decompressed.  Without the protocol
 * EfiLoaderCode pages are writable and executable.  NULL, or why not. */
static const char *make_writable_executable(struct efi_boot *eb, uint64_t start, uint64_t size)
{
	struct efi_memory_attribute *ma;
	uint64_t attributes = 0;

	size = (size + EFI_PAGE_SIZE - 1) & ~(uint64_t)(EFI_PAGE_SIZE - 1);
	if (eb->bs->locate_protocol(&memory_attribute_guid, 0, (void **)&ma) != EFI_SUCCESS)
		return 0;
	if (ma->get(ma, start, size, &attributes) == EFI_SUCCESS && !(attributes & (EFI_MEMORY_RO | EFI_MEMORY_XP)))
		return 0;
	if (ma->clear(ma, start, size, EFI_MEMORY_RO | EFI_MEMORY_XP) != EFI_SUCCESS)
		return "EFI: the memory attribute protocol would not make the kernel's memory writable and executable";
	return 0;
}

/* EFI_RNG_PROTOCOL's bytes as a SETUP_RNG_SEED setup_data node at the
 * head of bp's list: kaslr_entropy mixes them in, and the kernel feeds
 * them to its random pool (and wipes them).  Nothing without the
 * protocol or when it fails; the other entropy remains. */
static void add_rng_seed(struct efi_boot *eb, struct boot_params *bp)
{
	struct efi_rng *rng;
	uint64_t addr = BELOW_4G;

	if (eb->bs->locate_protocol(&rng_guid, 0, (void **)&rng) != EFI_SUCCESS ||
	    allocate(eb, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, sizeof(struct setup_data) + RNG_SEED_BYTES,
		     &addr) != EFI_SUCCESS)
		return;
	struct setup_data *sd = (struct setup_data *)(uintptr_t)addr;
	if (rng->get_rng(rng, 0, RNG_SEED_BYTES, (uint8_t *)(sd + 1)) != EFI_SUCCESS)
		return;
	sd->next = bp->hdr.setup_data;
	sd->type = SETUP_RNG_SEED;
	sd->len = RNG_SEED_BYTES;
	bp->hdr.setup_data = addr;
}

/* Identity-map 0-4 GiB in 2 MiB pages, writable and executable, as
 * head_64.asm does for the BIOS paths, and the GiBs holding each of
 * high[] (where the stub and its stack are, when the firmware put them
 * above 4 GiB): the address of the PML4, or 0. */
static uint64_t build_page_tables(struct efi_boot *eb, const uint64_t *high, int n_high)
{
	uint64_t addr = BELOW_4G;

	if (allocate(eb, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, PAGE_TABLE_PAGES * EFI_PAGE_SIZE,
		     &addr) != EFI_SUCCESS)
		return 0;
	uint64_t *pml4 = (uint64_t *)(uintptr_t)addr, *pdpt = pml4 + 512, *pd = pdpt + 512;
	memset(pml4, 0, PAGE_TABLE_PAGES * EFI_PAGE_SIZE);
	pml4[0] = (uintptr_t)pdpt | PTE_PRESENT_WRITABLE;
	int directories = 0;
	for (int i = -LOW_DIRECTORIES; i < n_high; i++) {
		uint64_t gib = i < 0 ? (uint64_t)(i + LOW_DIRECTORIES) : high[i] >> 30;
		if (gib >= PDPT_ENTRIES)
			return 0;
		if (pdpt[gib])
			continue;
		uint64_t *dir = pd + 512 * directories++;
		pdpt[gib] = (uintptr_t)dir | PTE_PRESENT_WRITABLE;
		for (uint64_t j = 0; j < 512; j++)
			dir[j] = gib << 30 | j << 21 | PDE_2MIB_PAGE;
	}
	return addr;
}

/* ---- 5. what the kernel learns about the firmware ------------------------ */

static void set_acpi_rsdp(const struct efi_system_table *st, struct boot_params *bp)
{
	for (uint64_t i = 0; i < st->table_entries; i++) {
		const struct efi_configuration_table *t = &st->configuration_table[i];
		if (guid_equal(&t->guid, &acpi20_guid))
			bp->acpi_rsdp_addr = (uintptr_t)t->table;     /* 2.0 wins */
		else if (guid_equal(&t->guid, &acpi10_guid) && !bp->acpi_rsdp_addr)
			bp->acpi_rsdp_addr = (uintptr_t)t->table;
	}
}

/* One byte of a global variable (SecureBoot, SetupMode); -1 if absent
 * or unreadable, with *missing set when it does not exist. */
static int global_variable_byte(struct efi_boot *eb, const char16 *name, int *missing)
{
	uint8_t value = 0;
	uint64_t size = sizeof(value);
	efi_status s = eb->st->runtime_services->get_variable(name, &global_variable_guid, 0, &size, &value);

	*missing = s == EFI_NOT_FOUND;
	return s == EFI_SUCCESS && size == sizeof(value) ? value : -1;
}

/* boot_params.secure_boot, read as Linux's efi_get_secureboot reads it:
 * enforcing when SecureBoot is 1 and the platform is not in setup mode.
 * The kernel reports it ("Secure boot enabled") and locks itself down. */
static void set_secure_boot(struct efi_boot *eb, struct boot_params *bp)
{
	static const char16 secure_boot[] = u"SecureBoot", setup_mode[] = u"SetupMode";
	int missing, sb = global_variable_byte(eb, secure_boot, &missing);

	if (sb < 0) {
		bp->secure_boot = missing ? BOOT_PARAMS_SECURE_BOOT_DISABLED : BOOT_PARAMS_SECURE_BOOT_UNKNOWN;
		return;
	}
	int setup = global_variable_byte(eb, setup_mode, &missing);
	if (setup < 0 && !missing)
		bp->secure_boot = BOOT_PARAMS_SECURE_BOOT_UNKNOWN;
	else
		bp->secure_boot = sb == 1 && setup != 1 ? BOOT_PARAMS_SECURE_BOOT_ENABLED
							: BOOT_PARAMS_SECURE_BOOT_DISABLED;
}

/* screen_info from GOP, when it has a linear framebuffer in a format we
 * can describe (Linux's efifb reads it). */
static void set_screen_info(struct efi_boot *eb, struct boot_params *bp)
{
	struct efi_gop *gop;

	if (eb->bs->locate_protocol(&gop_guid, 0, (void **)&gop) != EFI_SUCCESS || !gop->mode ||
	    !gop->mode->info)
		return;
	const struct efi_gop_mode_info *mi = gop->mode->info;
	if (mi->pixel_format != EFI_GOP_PIXEL_RGBX && mi->pixel_format != EFI_GOP_PIXEL_BGRX)
		return;
	struct screen_info *si = &bp->screen_info;
	int rgb = mi->pixel_format == EFI_GOP_PIXEL_RGBX;
	si->orig_video_isVGA = VIDEO_TYPE_EFI;
	si->lfb_width = (uint16_t)mi->width;
	si->lfb_height = (uint16_t)mi->height;
	si->lfb_depth = 32;
	si->lfb_linelength = (uint16_t)(mi->pixels_per_scan_line * 4);
	si->lfb_base = (uint32_t)gop->mode->framebuffer_base;
	si->ext_lfb_base = (uint32_t)(gop->mode->framebuffer_base >> 32);
	if (si->ext_lfb_base)
		si->capabilities |= VIDEO_CAPABILITY_64BIT_BASE;
	si->lfb_size = (uint32_t)gop->mode->framebuffer_size;
	si->red_size = si->green_size = si->blue_size = si->rsvd_size = 8;
	si->red_pos = rgb ? 0 : 16;
	si->green_pos = 8;
	si->blue_pos = rgb ? 16 : 0;
	si->rsvd_pos = 24;
}

/* ---- 6. the memory map, E820 and the way out ---------------------------- */

static uint32_t e820_type(uint32_t efi_type)
{
	switch (efi_type) {
	case EFI_LOADER_CODE:
	case EFI_LOADER_DATA:
	case EFI_BOOT_SERVICES_CODE:
	case EFI_BOOT_SERVICES_DATA:
	case EFI_CONVENTIONAL_MEMORY:
		return E820_TYPE_RAM;
	case EFI_ACPI_RECLAIM_MEMORY:
		return E820_TYPE_ACPI;
	case EFI_ACPI_MEMORY_NVS:
		return E820_TYPE_NVS;
	case EFI_UNUSABLE_MEMORY:
		return E820_TYPE_UNUSABLE;
	case EFI_PERSISTENT_MEMORY:
		return E820_TYPE_PMEM;
	}
	return E820_TYPE_RESERVED;
}

/* After ExitBootServices: pure arithmetic on the final map.  Neighbours
 * of one type merge; past E820_MAX_ENTRIES the rest is left out (which
 * only hides memory from the kernel, never invents it). */
static void set_e820(struct boot_params *bp, const uint8_t *map, uint64_t map_size, uint64_t desc_size)
{
	unsigned n = 0;

	for (uint64_t off = 0; off + desc_size <= map_size; off += desc_size) {
		const struct efi_memory_descriptor *d = (const void *)(map + off);
		uint32_t type = e820_type(d->type);
		uint64_t size = d->pages * EFI_PAGE_SIZE;
		struct e820_entry *prev = n ? &bp->e820_table[n - 1] : 0;
		if (prev && prev->type == type && prev->addr + prev->size == d->physical_start) {
			prev->size += size;
			continue;
		}
		if (n == E820_MAX_ENTRIES)
			break;
		bp->e820_table[n++] = (struct e820_entry){ d->physical_start, size, type };
	}
	bp->e820_entries = (uint8_t)n;
}

/* NULL once boot services are gone (efi_info and E820 filled), or why
 * not while they still run.  A stale map key is retried; after the first
 * refusal boot services may be half gone, so a failure then halts. */
static const char *exit_boot_services(struct efi_boot *eb, struct boot_params *bp)
{
	uint64_t size = 0, key, desc_size, addr = 0;
	uint32_t desc_version;

	if (eb->bs->get_memory_map(&size, 0, &key, &desc_size, &desc_version) != EFI_BUFFER_TOO_SMALL)
		return "GetMemoryMap gave no size";
	uint64_t buffer_size = size + MAP_SLACK_DESCRIPTORS * desc_size;
	if (allocate(eb, EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, buffer_size, &addr) != EFI_SUCCESS)
		return "no memory for the memory map";
	struct efi_memory_descriptor *map = (void *)(uintptr_t)addr;

	for (int tries = 0;; tries++) {
		size = buffer_size;
		efi_status s = eb->bs->get_memory_map(&size, map, &key, &desc_size, &desc_version);
		if (s != EFI_SUCCESS && tries == 0)
			return "GetMemoryMap failed";
		if (s == EFI_SUCCESS && eb->bs->exit_boot_services(eb->image, key) == EFI_SUCCESS)
			break;
		/* A stale key: the map changed under us (an event's allocation).
		 * Boot services may be half gone now: only retry, never print
		 * through them. */
		if (tries == EXIT_BOOT_TRIES)
			fail("ExitBootServices kept refusing the memory map", "");
	}
	bp->efi_info = (struct efi_info){
		.efi_loader_signature = EFI_LOADER_SIGNATURE_64,
		.efi_systab = (uint32_t)(uintptr_t)eb->st,
		.efi_systab_hi = (uint32_t)((uintptr_t)eb->st >> 32),
		.efi_memdesc_size = (uint32_t)desc_size,
		.efi_memdesc_version = desc_version,
		.efi_memmap = (uint32_t)addr,
		.efi_memmap_hi = (uint32_t)(addr >> 32),
		.efi_memmap_size = (uint32_t)size,
	};
	set_e820(bp, (const uint8_t *)map, size, desc_size);
	return 0;
}

/* What a handover loader does to the setup header it copies that is no
 * damage: GRUB 2.06's linuxefi copies the header only up to its own
 * struct's end (handover_offset), so kernel_info_offset (protocol 2.15)
 * holds whatever its buffer held.  It is put back to what the packer
 * wrote, computed here; setup_crc still checks every other field.  (A
 * loader may also rewrite code32_start, "modify (reloc)": that field is
 * not covered by setup_crc, so it needs nothing here.) */
static void handover_quirks(struct boot_params *bp)
{
	bp->hdr.kernel_info_offset = (uint32_t)(_stub_end - startup_32) + offsetof(struct bzpack_header, kernel_info);
}

/* ---- the initrd decompressed (-initrd stubs, initrd_unpack.c) ------------ */

/* The plan under UEFI: the memory rule counts what set_e820() will hand
 * the kernel as RAM, and the result goes in pages of our own below
 * initrd_addr_max (LOADER_DATA: the kernel's RAM once it is done with
 * the initrd).  After the kernel's memory is allocated (the kernel
 * comes first) and before it is decompressed; u->why says why not, and
 * then nothing is allocated. */
static void plan_initrd_unpack(struct efi_boot *eb, const struct boot_params *bp, const struct bzpack_header *hdr,
			       struct initrd_unpack *u)
{
	struct efi_map m = { 0 };
	uint64_t ram = 0;
	const char *map_why = read_memory_map(eb, &m);

	for (uint64_t off = 0; !map_why && off + m.desc_size <= m.size; off += m.desc_size) {
		const struct efi_memory_descriptor *d = (const void *)(m.buf + off);
		if (e820_type(d->type) == E820_TYPE_RAM)
			ram += d->pages * EFI_PAGE_SIZE;
	}
	if (!map_why)
		free_memory_map(eb, &m);
	/* Without a map the rule is not applied (no RAM to count) but the
	 * walk's reasons still come first; then auto says why it stops. */
	initrd_unpack_size(bp, hdr, map_why ? UINT64_MAX : ram, u);
	if (!u->in_size || u->why)
		return;
	if (map_why && !(hdr->flags & BZPACK_FLAG_INITRD_ALWAYS)) {
		u->why = map_why;
		return;
	}
	do {
		uint64_t addr = initrd_unpack_limit(bp);
		if (allocate(eb, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, u->room, &addr) == EFI_SUCCESS) {
			u->out_at = addr;
			return;
		}
	} while (initrd_unpack_shrink(u));
	u->why = "no free RAM for the decompressed initrd";
}

/* The plan carried out; a failed decode gives its pages back, a
 * successful one the pages past its result. */
static void run_initrd_unpack(struct efi_boot *eb, struct boot_params *bp, struct initrd_unpack *u, void *workspace)
{
	int planned = u->in_size && !u->why;
	uint64_t pages = (u->room + EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE;

	initrd_unpack_run(bp, u, workspace);
	if (!planned)
		return;
	uint64_t kept = u->why ? 0 : (u->out_size + EFI_PAGE_SIZE - 1) / EFI_PAGE_SIZE;
	if (pages > kept)
		eb->bs->free_pages(u->out_at + kept * EFI_PAGE_SIZE, pages - kept);
}

/* ---- the story ----------------------------------------------------------- */

efi_status efi_main(efi_handle image, struct efi_system_table *st, struct boot_params *given_bp,
		    const uint8_t *loaded_stub)
{
	struct stub_times t = { .start = read_tsc() };
	struct efi_boot eb = { .image = image, .st = st, .bs = st->boot_services };
	const struct bzpack_header *hdr = (const void *)(loaded_stub + (_stub_end - startup_32));
	const uint8_t *payload = (const uint8_t *)(hdr + 1);
	struct crc32c_table crc;
	const char *why = 0, *detail = "";
	efi_status s;

	serial_init();
	serial_puts("\n");     /* the firmware's console leaves COM1 mid-line */
	if (eb.bs->handle_protocol(image, &loaded_image_guid, (void **)&eb.li) != EFI_SUCCESS)
		return efi_fail(&eb, EFI_UNSUPPORTED, "EFI: no loaded image protocol", "");

	/* 1. */
	struct boot_params *bp = given_bp;
	if (!bp) {
		uint64_t addr = BELOW_4G;
		if (eb.li->image_size < SETUP_HEADER_END)
			return efi_fail(&eb, EFI_LOAD_ERROR, "EFI: loaded image too small for a setup header", "");
		if (allocate(&eb, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, BOOT_PARAMS_SIZE, &addr) != EFI_SUCCESS)
			return efi_fail(&eb, EFI_OUT_OF_RESOURCES, "EFI: no memory for boot_params", "");
		bp = (struct boot_params *)(uintptr_t)addr;
		memset(bp, 0, BOOT_PARAMS_SIZE);
		memcpy(&bp->hdr, (const uint8_t *)eb.li->image_base + SETUP_HEADER_OFFSET,
				 sizeof(bp->hdr));
		bp->hdr.type_of_loader = TYPE_OF_LOADER_OTHER;
	} else {
		handover_quirks(bp);
	}
	crc32c_init(&crc, 0);
	why = stub_check_header(hdr, bp, &crc);
	if (why)
		return efi_fail(&eb, EFI_LOAD_ERROR, why, "");
	if (payload + hdr->payload_size > loaded_stub + (uint64_t)bp->hdr.syssize * 16)
		return efi_fail(&eb, EFI_LOAD_ERROR, "payload runs past the loaded image (truncated file?)", "");

	/* 2, 3: a handover loader has done both. */
	if (!given_bp) {
		why = set_cmdline(&eb, bp, &crc);
		if (why)
			return efi_fail(&eb, EFI_LOAD_ERROR, why, "");
		int found = initrd_from_load_file2(&eb, bp, &why);
		if (found == 0)
			found = initrd_from_file(&eb, bp, &why);
		if (found < 0)
			return efi_fail(&eb, EFI_LOAD_ERROR, why, "");
	}
	unsigned initrds = bp->hdr.ramdisk_size || bp->ext_ramdisk_size ? INITRD_LOADER : 0;
	why = initrd_check_embedded(hdr, loaded_stub, (uint64_t)bp->hdr.syssize * 16, &crc);
	if (why)
		return efi_fail(&eb, EFI_CRC_ERROR, why, "");
	if (hdr->initrd.size) {
		why = join_embedded_initrd(&eb, bp, loaded_stub + hdr->initrd.offset, hdr->initrd.size, &initrds);
		if (why)
			return efi_fail(&eb, EFI_OUT_OF_RESOURCES, why, "");
	}
	/* 4.  The stub's code, header and strings must outlive the kernel's
	 * arrival; the payload only until it is decompressed. */
	uint64_t span = (uint64_t)hdr->out_size + hdr->zero_size;
	struct mem_range stub = { (uintptr_t)loaded_stub, (uintptr_t)payload };
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	uint64_t workspace = 0, staged = 0;
	struct kaslr where;
	s = hdr->workspace_size ? allocate(&eb, EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, hdr->workspace_size,
					   &workspace) : EFI_SUCCESS;
	if (s != EFI_SUCCESS)
		return efi_fail(&eb, s, "EFI: no memory for the decoder's workspace", "");
	if (hdr->relocs_size) {
		add_rng_seed(&eb, bp);
		why = place_relocatable(&eb, bp, hdr, span, &where);
		if (!why)
			why = make_writable_executable(&eb, where.phys, span);
		if (why)
			return efi_fail(&eb, EFI_OUT_OF_RESOURCES, why, "");
	} else {
		uint64_t out_start = hdr->out_addr & ~(uint64_t)(EFI_PAGE_SIZE - 1);
		struct mem_range out = { out_start, hdr->out_addr + span };
		struct mem_range stack = { sp - STACK_GUARD, sp + EFI_PAGE_SIZE };
		where = (struct kaslr){ hdr->out_addr, 0, kaslr_off_reason(bp, hdr, span) };
		if (ranges_overlap(stub, out))
			return efi_fail(&eb, EFI_UNSUPPORTED,
					"EFI: the image lies where the fixed-address kernel goes", "");
		if (ranges_overlap(stack, out))
			return efi_fail(&eb, EFI_UNSUPPORTED, "EFI: the firmware's stack lies where the kernel goes", "");
		struct mem_range given = { 0, 0 };
		if (given_bp)
			given = (struct mem_range){ bzpack_run_base(hdr, (uintptr_t)loaded_stub),
						    bzpack_run_base(hdr, (uintptr_t)loaded_stub) + bp->hdr.init_size };
		why = claim_kernel_range(&eb, out_start, out.end, given);
		if (why)
			return efi_fail(&eb, EFI_OUT_OF_RESOURCES, "EFI: ", why);
		staged = BELOW_4G;
		s = allocate(&eb, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, span, &staged);
		if (s != EFI_SUCCESS)
			return efi_fail(&eb, s, "EFI: no memory below 4 GiB to stage the kernel in", "");
	}
	/* Both are ours now, so cannot overlap; checked all the same, as the
	 * stub's life depends on it. */
	struct mem_range kernel = { staged ? staged : where.phys, (staged ? staged : where.phys) + span };
	if (ranges_overlap(stub, kernel))
		return efi_fail(&eb, EFI_LOAD_ERROR, "EFI: the kernel's memory holds the stub", "");
	const uint64_t high[] = { stub.start, stub.end, sp - STACK_GUARD, sp };
	uint64_t page_tables = build_page_tables(&eb, high, sizeof(high) / sizeof(high[0]));
	if (!page_tables)
		return efi_fail(&eb, EFI_OUT_OF_RESOURCES,
				"EFI: no memory for page tables, or the stub runs above 512 GiB", "");
	/* The decompressed initrd's room: after the kernel's memory, which
	 * comes first (the room may be all the rule allows). */
	struct initrd_unpack unpack;
	if (STUB_FLAGS & BZPACK_FLAG_INITRD)
		plan_initrd_unpack(&eb, bp, hdr, &unpack);
	if (STUB_FLAGS & BZPACK_FLAG_FRAMES) {  /* the frames kinds': the firmware runs the other CPUs */
		t.bp = bp;
		t.bs = eb.bs;
	}
	why = stub_unpack(hdr, &crc, payload, (uint8_t *)(uintptr_t)kernel.start, where.virt_delta,
			  (void *)(uintptr_t)workspace, 0, &t, &detail);
	if (why)
		return efi_fail(&eb, EFI_CRC_ERROR, why, detail);
	if (STUB_FLAGS & BZPACK_FLAG_INITRD) {  /* the kernel's decoder is done with the workspace */
		run_initrd_unpack(&eb, bp, &unpack, (void *)(uintptr_t)workspace);
		t.unpack = &unpack;
	}

	/* 5. */
	set_acpi_rsdp(st, bp);
	set_screen_info(&eb, bp);
	set_secure_boot(&eb, bp);

	/* 6.  From here on the firmware's IDT, page tables and boot services
	 * memory are gone or going: no interrupts, our own page tables. */
	why = exit_boot_services(&eb, bp);
	if (why)
		return efi_fail(&eb, EFI_LOAD_ERROR, "EFI: ", why);
	__asm__ volatile("cli; mov %0, %%cr3" : : "r"(page_tables) : "memory");
	uint64_t t0 = read_tsc();
	if (staged)
		memmove((void *)(uintptr_t)hdr->out_addr, (const void *)(uintptr_t)staged, span);
	t.move = read_tsc() - t0;
	bp->scratch = BZPACK_ENTRY_EFI;
	stub_report(hdr, bp, &where, &t, initrds);
	efi_enter_kernel(where.phys + (hdr->entry - hdr->out_addr), bp);
}
