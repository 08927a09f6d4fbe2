/* memory.c - may the stub write to a range?  Only if it is RAM in the
 * E820 map and holds nothing the loader handed over that the kernel still
 * needs: boot_params, the command line, the initrd, setup_data.  Loaders
 * and kernels have clobbered each other exactly here. */
#include "mem.h"
#include "stub.h"

#define SETUP_DATA_MAX_NODES 64 /* a loop guard: real lists hold a handful */
#define ADDR_LIMIT (1ull << 32) /* the stub reads loader data only below 4 GiB */

extern const uint8_t startup_32[];      /* the heads: the load address */
extern const uint8_t _stub_end[];       /* our header */

/* May the stub write r, as far as its page tables go?  The heads map
 * 0-4 GiB and, wherever a 64-bit loader put the image, the image and
 * [run base, + init_size), the memory the loader reserved for it. */
static int reachable(struct mem_range r)
{
	const struct bzpack_header *hdr = (const void *)_stub_end;
	uint64_t load = (uintptr_t)startup_32, base = bzpack_run_base(hdr, load);

	return r.end <= ADDR_LIMIT || (r.start >= base && r.end <= base + hdr->init_size);
}

/* Is all of r covered by RAM entries?  Adjacent or overlapping entries
 * may together cover it. */
static int is_ram(const struct boot_params *bp, struct mem_range r)
{
	uint64_t pos = r.start;

	while (pos < r.end) {
		uint64_t next = pos;
		for (unsigned i = 0; i < bp->e820_entries && i < E820_MAX_ENTRIES; i++) {
			const struct e820_entry *e = &bp->e820_table[i];
			if (e->type == E820_TYPE_RAM && e->addr <= pos && e->addr + e->size > next)
				next = e->addr + e->size;
		}
		if (next == pos)
			return 0;
		pos = next;
	}
	return 1;
}

static uint64_t cmdline_addr(const struct boot_params *bp)
{
	return bp->hdr.cmd_line_ptr | (uint64_t)bp->ext_cmd_line_ptr << 32;
}

static uint64_t cmdline_length(const struct boot_params *bp)
{
	uint64_t addr = cmdline_addr(bp), n = 0;

	if (!addr || addr >= ADDR_LIMIT)
		return 0;
	const char *s = (const char *)(uintptr_t)addr;
	while (s[n] && n < bp->hdr.cmdline_size)
		n++;
	return n + 1;
}

const char *memory_cmdline(const struct boot_params *bp, uint64_t *len)
{
	uint64_t n = cmdline_length(bp);

	*len = n ? n - 1 : 0;
	return n ? (const char *)(uintptr_t)cmdline_addr(bp) : "";
}

/* What the loader handed over that the kernel still needs.  Returns the
 * count; names go with them for messages. */
#define LOADER_REGIONS_MAX (3 + SETUP_DATA_MAX_NODES)

static int loader_regions(const struct boot_params *bp, struct mem_range *r, const char **what)
{
	int n = 0;

	r[n] = (struct mem_range){ (uintptr_t)bp, (uintptr_t)bp + BOOT_PARAMS_SIZE };
	what[n++] = "collides with boot_params";

	r[n] = (struct mem_range){ cmdline_addr(bp), cmdline_addr(bp) + cmdline_length(bp) };
	what[n++] = "collides with the command line";

	uint64_t initrd_addr = bp->hdr.ramdisk_image | (uint64_t)bp->ext_ramdisk_image << 32;
	uint64_t initrd_size = bp->hdr.ramdisk_size | (uint64_t)bp->ext_ramdisk_size << 32;
	r[n] = (struct mem_range){ initrd_addr, initrd_addr + initrd_size };
	what[n++] = "collides with the initrd";

	uint64_t node = bp->hdr.setup_data;
	for (int i = 0; node && node < ADDR_LIMIT && i < SETUP_DATA_MAX_NODES; i++) {
		const struct setup_data *sd = (const void *)(uintptr_t)node;
		r[n] = (struct mem_range){ node, node + sizeof(*sd) + sd->len };
		what[n++] = "collides with setup_data";
		node = sd->next;
	}
	return n;
}

/* Why r may not be written, given the loader's regions; NULL if it may.
 * Not inlined: two callers, once per boot, and the stub is kept small. */
__attribute__((noinline)) static const char *unwritable(const struct boot_params *bp, struct mem_range r,
			      const struct mem_range *regions, const char *const *what, int n)
{
	if (bp->e820_entries == 0)
		return "has no E820 memory map to be checked against";
	if (!reachable(r))
		return "lies above 4 GiB, outside the image's init_size";
	if (!is_ram(bp, r))
		return "is not RAM in the E820 map";
	for (int i = 0; i < n; i++)
		if (ranges_overlap(r, regions[i]))
			return what[i];
	return 0;
}

const char *memory_check_writable(const struct boot_params *bp, struct mem_range r)
{
	struct mem_range regions[LOADER_REGIONS_MAX];
	const char *what[LOADER_REGIONS_MAX];
	int n = loader_regions(bp, regions, what);

	return unwritable(bp, r, regions, what, n);
}

uint64_t memory_find_free(const struct boot_params *bp, uint64_t from, uint64_t size, uint64_t align,
			  const struct mem_range *avoid, int n_avoid)
{
	struct mem_range regions[LOADER_REGIONS_MAX];
	const char *what[LOADER_REGIONS_MAX];
	int n = loader_regions(bp, regions, what);
	uint64_t best = 0;

	/* The lowest fit starts at `from` or right after something in the way. */
	for (int i = -1; i < n + n_avoid; i++) {
		uint64_t c = i < 0 ? from : i < n ? regions[i].end : avoid[i - n].end;
		c = (c + align - 1) & ~(align - 1);
		if (c < from || (best && c >= best))
			continue;
		struct mem_range r = { c, c + size };
		int clear = !unwritable(bp, r, regions, what, n);
		for (int j = 0; clear && j < n_avoid; j++)
			clear = !ranges_overlap(r, avoid[j]);
		if (clear)
			best = c;
	}
	return best;
}

const char *memory_check_setup_data(const struct boot_params *bp)
{
	uint64_t node = bp->hdr.setup_data;

	for (int i = 0; node; i++) {
		if (i == SETUP_DATA_MAX_NODES)
			return "setup_data list too long (a loop?)";
		if (!is_ram(bp, (struct mem_range){ node, node + sizeof(struct setup_data) }))
			return "setup_data points outside RAM";
		if (node >= ADDR_LIMIT)         /* out of our reach, and of our writes */
			break;
		const struct setup_data *sd = (const void *)(uintptr_t)node;
		if (!is_ram(bp, (struct mem_range){ node, node + sizeof(*sd) + sd->len }))
			return "setup_data node runs outside RAM";
		node = sd->next;
	}
	return 0;
}

const char *memory_rescue_setup_data(struct boot_params *bp, const struct mem_range *in_use, int n)
{
	/* The list's links may sit at any alignment inside packed structs. */
	uint8_t *link = (uint8_t *)bp + offsetof(struct boot_params, hdr) +
			offsetof(struct setup_header, setup_data);
	uint64_t node;

	__builtin_memcpy(&node, link, sizeof(node));
	for (int i = 0; node && node < ADDR_LIMIT && i < SETUP_DATA_MAX_NODES; i++) {
		struct setup_data *sd = (void *)(uintptr_t)node;
		uint64_t size = sizeof(*sd) + sd->len;
		struct mem_range extent = { node, node + size };
		int in_the_way = 0;
		for (int j = 0; j < n; j++)
			in_the_way |= ranges_overlap(extent, in_use[j]);
		if (in_the_way) {
			uint64_t to = memory_find_free(bp, BZPACK_LOAD_ADDR, size, MOVE_ALIGN, in_use, n);
			if (!to)
				return "setup_data lies where the kernel goes, and there is no room to move it";
			sd = memmove((void *)(uintptr_t)to, sd, (size_t)size);
			__builtin_memcpy(link, &to, sizeof(to));
		}
		link = (uint8_t *)&sd->next;
		node = sd->next;
	}
	return 0;
}
