/* initrd.c - the initrd the kernel gets when the image embeds one.
 *
 * The embedded initrd (bzpack_header.initrd) is loaded with the image, so
 * it lies wherever the loader put the image: maybe where the kernel is
 * about to be decompressed.  The kernel gets one region through
 * ramdisk_image/ramdisk_size: the embedded initrd, then (from a
 * BZPACK_INITRD_ALIGN boundary) the loader's, as systemd-stub joins a
 * UKI's .initrd with the loader's.  Linux unpacks concatenated archives in
 * order, so the loader's files win over the embedded ones of the same name.
 *
 * Where that region goes, first choice first:
 *   1. the embedded initrd as loaded, when there is no loader initrd and it
 *      lies clear of the kernel, our scratch and the payload's move, below
 *      initrd_addr_max (or above 4 GiB, through ext_ramdisk_*, for a 64-bit
 *      kernel: x86_64 Linux always reads those fields): no copy;
 *   2. right before the loader's initrd, when that memory is free RAM:
 *      only the embedded initrd moves;
 *   3. the lowest free RAM from 1 MiB that holds both, clear of the whole
 *      image too, ending below initrd_addr_max: both are copied.
 * The embedded bytes are checked against their CRC32C before anything
 * moves.  The placement is planned before the setup_data rescue (which
 * must avoid it) and carried out before the payload moves.
 */
#include "mem.h"
#include "stub.h"

#define LOW_MEMORY_END 0x100000u
#define BELOW_4G       (1ull << 32)

static uint64_t loader_initrd_addr(const struct boot_params *bp)
{
	return bp->hdr.ramdisk_image | (uint64_t)bp->ext_ramdisk_image << 32;
}

static uint64_t loader_initrd_size(const struct boot_params *bp)
{
	return bp->hdr.ramdisk_size | (uint64_t)bp->ext_ramdisk_size << 32;
}

static int clear_of(struct mem_range r, const struct mem_range *avoid, int n)
{
	for (int i = 0; i < n; i++)
		if (ranges_overlap(r, avoid[i]))
			return 0;
	return 1;
}

const char *initrd_check_embedded(const struct bzpack_header *hdr, const uint8_t *image, uint64_t image_size,
				  const struct crc32c_table *crc)
{
	if (!hdr->initrd.size)
		return 0;
	if (hdr->initrd.offset % BZPACK_EMBED_ALIGN || (uint64_t)hdr->initrd.offset + hdr->initrd.size > image_size)
		return "embedded initrd lies outside the loaded image (truncated file?)";
	if (crc32c_update(crc, 0, image + hdr->initrd.offset, hdr->initrd.size) != hdr->initrd.crc)
		return "embedded initrd checksum mismatch (CRC32C)";
	return 0;
}

const char *initrd_plan(const struct boot_params *bp, const struct bzpack_header *hdr, uint64_t load,
			struct mem_range image, const struct mem_range *avoid, int n_avoid, struct initrd_plan *p)
{
	uint64_t emb = hdr->initrd.size, loader = loader_initrd_size(bp), loader_at = loader_initrd_addr(bp);
	/* The highest address the kernel takes its initrd up to, inclusive. */
	uint64_t max = bp->hdr.initrd_addr_max < BELOW_4G - 1 ? bp->hdr.initrd_addr_max : BELOW_4G - 1;

	*p = (struct initrd_plan){ .used = loader ? INITRD_LOADER : 0, .to = loader_at, .total = loader };
	if (!emb)
		return 0;
	p->used |= INITRD_EMBEDDED;
	p->from = load + hdr->initrd.offset;
	p->size = emb;
	p->loader_from = loader_at;
	p->loader_size = loader;
	struct mem_range here = { p->from, p->from + emb };

	if (!loader) {
		p->total = emb;
		p->to = p->from;
		if (clear_of(here, avoid, n_avoid) &&
		    (here.end - 1 <= max || (hdr->bits == 64 && here.start >= BELOW_4G)))
			return 0;
	} else {
		if (loader_at + loader > BELOW_4G)
			return "the loader's initrd lies above 4 GiB, out of reach to join with the embedded one";
		uint64_t gap = (emb + BZPACK_INITRD_ALIGN - 1) & ~(uint64_t)(BZPACK_INITRD_ALIGN - 1);
		p->total = gap + loader;
		struct mem_range before = { loader_at - gap, loader_at };
		if (loader_at >= LOW_MEMORY_END + gap && loader_at + loader - 1 <= max &&
		    !memory_check_writable(bp, before) && clear_of(before, avoid, n_avoid)) {
			p->to = before.start;
			p->loader_from = 0;     /* stays where it is */
			return 0;
		}
	}
	/* 3: clear of the whole image as well, so that no copy lands on a
	 * source it has not read yet. */
	struct mem_range all[INITRD_AVOID_MAX + 1];
	if (n_avoid > INITRD_AVOID_MAX)
		return "internal error: too many ranges for the initrd to avoid";
	for (int i = 0; i < n_avoid; i++)
		all[i] = avoid[i];
	all[n_avoid] = image;
	p->to = memory_find_free(bp, LOW_MEMORY_END, p->total, MOVE_ALIGN, all, n_avoid + 1);
	if (!p->to || p->to + p->total - 1 > max)
		return "no free RAM below initrd_addr_max for the initrd";
	return 0;
}

void initrd_hand_over(struct boot_params *bp, const struct initrd_plan *p)
{
	if (!(p->used & INITRD_EMBEDDED))
		return;
	uint8_t *to = (uint8_t *)(uintptr_t)p->to;
	uint64_t gap = p->total - p->loader_size;
	/* The loader's first: a move to case 3's region never lands on the
	 * embedded bytes, which it avoids with the whole image. */
	if (p->loader_size && p->loader_from)
		memmove(to + gap, (const void *)(uintptr_t)p->loader_from, (size_t)p->loader_size);
	if (p->to != p->from)
		memmove(to, (const void *)(uintptr_t)p->from, (size_t)p->size);
	memset(to + p->size, 0, (size_t)(gap - p->size));
	bp->hdr.ramdisk_image = (uint32_t)p->to;
	bp->ext_ramdisk_image = (uint32_t)(p->to >> 32);
	bp->hdr.ramdisk_size = (uint32_t)p->total;
	bp->ext_ramdisk_size = (uint32_t)(p->total >> 32);
}
