/* memory.c - may the stub write to a range?  Only if it is RAM in the
 * E820 map and holds nothing the loader handed over that the kernel still
 * needs: boot_params, the command line, the initrd, setup_data.  Loaders
 * and kernels have clobbered each other exactly here. */
#include "stub.h"

#define SETUP_DATA_MAX_NODES 64 /* a loop guard: real lists hold a handful */
#define ADDR_LIMIT (1ull << 32) /* the stub reaches only the low 4 GiB */

struct setup_data_node {
	uint64_t next;
	uint32_t type;
	uint32_t len;
} __attribute__((packed));

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

const char *memory_check_writable(const struct boot_params *bp, struct mem_range r)
{
	if (bp->e820_entries == 0)
		return "has no E820 memory map to be checked against";
	if (r.end > ADDR_LIMIT)
		return "lies above 4 GiB";
	if (!is_ram(bp, r))
		return "is not RAM in the E820 map";

	struct mem_range zero_page = { (uintptr_t)bp, (uintptr_t)bp + BOOT_PARAMS_SIZE };
	if (ranges_overlap(r, zero_page))
		return "collides with boot_params";

	struct mem_range cmdline = { cmdline_addr(bp), cmdline_addr(bp) + cmdline_length(bp) };
	if (ranges_overlap(r, cmdline))
		return "collides with the command line";

	uint64_t initrd_addr = bp->hdr.ramdisk_image | (uint64_t)bp->ext_ramdisk_image << 32;
	uint64_t initrd_size = bp->hdr.ramdisk_size | (uint64_t)bp->ext_ramdisk_size << 32;
	struct mem_range initrd = { initrd_addr, initrd_addr + initrd_size };
	if (initrd_size && ranges_overlap(r, initrd))
		return "collides with the initrd";

	uint64_t node = bp->hdr.setup_data;
	for (int i = 0; node && node < ADDR_LIMIT && i < SETUP_DATA_MAX_NODES; i++) {
		const struct setup_data_node *sd = (const void *)(uintptr_t)node;
		struct mem_range extent = { node, node + sizeof(*sd) + sd->len };
		if (ranges_overlap(r, extent))
			return "collides with setup_data";
		node = sd->next;
	}
	return 0;
}
