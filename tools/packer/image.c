/* image.c - lay out and assemble a bzpack image:
 *
 *   file:   [setup.bin | kernel_version string | default command line
 *            | its CRC32C | pad to a sector | .sbat sectors (64-bit)] real-mode part
 *           [stub | bzpack_header | payload | embedded data, each 4 KiB
 *            aligned from the part's start | pad to 16 (512, 64-bit)] protected-mode part
 *   memory: the protected-mode part at BZPACK_LOAD_ADDR (where 16-bit
 *           loaders put it; others may put it anywhere); from the run
 *           base (the kernel's address, bzpack_format.h): the kernel,
 *           the payload's in-place offset, and above both the stub's
 *           scratch, the decoder's workspace and room for a copy of the
 *           stub.  init_size counts from the run base.
 *
 * A stub with an EFI entry (the 64-bit ones) makes the file a PE32+ EFI
 * application too: pe.c writes its headers into sector 0.  32-bit kernels
 * get no PE header: 64-bit UEFI cannot enter them without leaving long
 * mode, which no loader expects of an EFI application.
 */
#include "image.h"

#include <stdlib.h>
#include <string.h>

#include "bzpack_format.h"
#include "codecs.h"
#include "crc32c.h"
#include "decode.h"
#include "xxh3.h"
#include "inplace.h"
#include "pe.h"
#include "sbat.h"
#include "stubs.h"
#include "x86_filter.h"

#define BZPACK_VERSION_STRING "bzpack 0.1"
#define CMDLINE_SIZE          2048  /* Linux x86 COMMAND_LINE_SIZE */
#define INITRD_ADDR_MAX       0x7fffffffu
#define ADDR_LIMIT            (1ull << 32)
#define LOADER_DATA_GAP       (1u << 20)   /* room for a loader's -dtb after the image */

/* The ELF record's size (bzpack_elf.h) for k. */
static uint64_t elf_record_size(const struct kernel *k)
{
	return BZPACK_ELF_RECORD_SIZE + (uint64_t)k->elf.phnum * sizeof(struct bzpack_elf_phdr);
}

/* The record, into dst (elf_record_size(k) bytes). */
static void write_elf_record(uint8_t *dst, const struct kernel *k, int level)
{
	struct bzpack_elf_record r = {
		.magic = BZPACK_ELF_MAGIC, .elf_class = k->elf.elf_class, .osabi = k->elf.osabi,
		.machine = k->elf.machine, .elf_flags = k->elf.flags, .phnum = (uint8_t)k->elf.phnum,
		.level = (uint8_t)level,
	};
	memcpy(dst, &r, sizeof(r));
	memcpy(dst + sizeof(r), k->elf.ph, (size_t)k->elf.phnum * sizeof(k->elf.ph[0]));
}

/* What the initrd's decoders need (stub/initrd_unpack.c, stub/stub.mk's
 * INITRD_CODECS). */
static const uint64_t initrd_workspaces[] = { DECODE_WORKSPACE_gzip, DECODE_WORKSPACE_xz, DECODE_WORKSPACE_zstd };

static int plan(const struct kernel *k, const struct codec *codec, const struct buffer *stub,
		uint64_t setup_size, const struct buffer *payload, uint64_t prot_size, unsigned frames,
		int progress, struct image_layout *l, struct error *err)
{
	memset(l, 0, sizeof(*l));
	l->frames = frames > 1 ? frames : 1;
	/* A workspace for each CPU that may decode a frame at the same time:
	 * no more than there are frames, nor than BZPACK_MAX_CPUS. */
	unsigned workspaces = l->frames < BZPACK_MAX_CPUS ? l->frames : BZPACK_MAX_CPUS;
	uint64_t workspace = align_up(codec->workspace_size, BZPACK_WORKSPACE_ALIGN) * workspaces;
	/* An -initrd stub runs the initrd's decoders in the same workspace
	 * after the kernel's, on one CPU (stub/initrd_unpack.c). */
	if (k->flags & BZPACK_FLAG_INITRD)
		for (size_t i = 0; i < sizeof(initrd_workspaces) / sizeof(initrd_workspaces[0]); i++)
			if (align_up(initrd_workspaces[i], BZPACK_WORKSPACE_ALIGN) > workspace)
				workspace = align_up(initrd_workspaces[i], BZPACK_WORKSPACE_ALIGN);
	l->workspace_size = workspace;
	l->setup_size = setup_size;
	l->stub_size = stub->size;
	l->payload_size = payload->size;
	l->prot_size = prot_size;
	l->image_end = BZPACK_LOAD_ADDR + l->prot_size;
	if (k->addr < BZPACK_LOAD_ADDR)
		return fail_with(err, "kernel at 0x%llx would overwrite low memory (below 1 MiB)",
				 (unsigned long long)k->addr);
	if (k->relocs_size && k->addr % k->align)
		return fail_with(err, "kernel at 0x%llx is not aligned to its alignment 0x%llx",
				 (unsigned long long)k->addr, (unsigned long long)k->align);
	/* The run base for the image at BZPACK_LOAD_ADDR: the kernel's own
	 * address (bzpack_run_base(): max(load, link address), aligned). */
	l->base = k->addr;
	/* The table is decompressed after the kernel's bytes, into its bss. */
	uint64_t bss_end = kernel_size(k) + k->zero_size;
	l->kernel_mem = k->blob.size > bss_end ? k->blob.size : bss_end;
	if (inplace_offset(codec, l->frames > 1, payload, &k->blob, progress, &l->inplace_offset, err) < 0)
		return -1;

	/* Above the kernel and the payload in place, the scratch.  When a
	 * loader puts the image at the run base (GRUB and kexec take
	 * pref_address), the whole image must lie below the scratch too; at
	 * BZPACK_LOAD_ADDR (QEMU), below it with a gap, because QEMU appends
	 * setup_data (a -dtb) right after the image, init_size or not, and
	 * the heads use the scratch before C can move it. */
	uint64_t top = l->kernel_mem;
	if (l->inplace_offset + payload->size > top)
		top = l->inplace_offset + payload->size;
	if (l->prot_size > top)
		top = l->prot_size;
	if (l->image_end + LOADER_DATA_GAP > l->base + top)
		top = l->image_end + LOADER_DATA_GAP - l->base;
	l->scratch = align_up(l->base + top, 4096);
	/* Then the decoders' workspaces, then room for a copy of the stub. */
	l->stub_copy = l->scratch + BZPACK_SCRATCH_SIZE + l->workspace_size;
	uint64_t end = l->stub_copy + align_up(stub->size + BZPACK_HEADER_SIZE, 4096);
	if (end > ADDR_LIMIT)
		return fail_with(err, "image needs memory up to 0x%llx, above 4 GiB", (unsigned long long)end);
	l->init_size = end - l->base;
	return 0;
}

/* What Linux's arch/x86/boot/header.S puts in the fields an ELF input
 * cannot tell us, so that packing a vmlinux gives what Linux's own build
 * of it would (root_flags ROOT_RDONLY: without "ro" or "rw" on the command
 * line the root is mounted read-only first). */
static const struct carried_setup linux_defaults = {
	.set = 1,
	.root_flags = 1,                /* ROOT_RDONLY */
	.vid_mode = 0xffff,             /* NORMAL_VGA */
	.start_sys_seg = 0x1000,        /* SYSSEG: obsolete, kept as Linux keeps it */
	.setup_move_size = 0x8000,      /* for protocol 2.00-2.01 loaders */
	.initrd_addr_max = INITRD_ADDR_MAX,
	.cmdline_size = CMDLINE_SIZE - 1,
};

/* vid_mode, root_flags, root_dev, setup_move_size and loadflags are
 * defaults that loaders change (they are in SETUP_LOADER_FIELDS); every
 * other field set here is in SETUP_CRC_FIELDS, which the stub checks
 * against the loader's copy.  The fields the kernel's own bzImage set and
 * we do not own come from k->carried (a smaller limit of ours wins). */
static void fill_setup_header(struct setup_header *h, const struct image_layout *l,
			      uint64_t version_offset, const struct kernel *k)
{
	const struct carried_setup *c = k->carried.set ? &k->carried : &linux_defaults;

	memset(h, 0, sizeof(*h));
	h->setup_sects = (uint8_t)(l->setup_size / SECTOR_SIZE - 1);
	h->syssize = (uint32_t)(l->prot_size / 16);
#define CARRY(field) h->field = c->field;
	CARRIED_AS_IS(CARRY)
#undef CARRY
	h->boot_flag = SETUP_BOOT_FLAG;
	h->jump = (uint16_t)(0xeb | (SETUP_HEADER_END - 0x202) << 8); /* jmp short setup_entry */
	h->header = SETUP_HDRS_MAGIC;
	h->version = SETUP_PROTOCOL_VERSION;
	h->kernel_version = (uint16_t)(version_offset - 0x200);
	h->loadflags = LOADFLAG_LOADED_HIGH;
	h->code32_start = BZPACK_LOAD_ADDR;
	h->initrd_addr_max = c->initrd_addr_max < INITRD_ADDR_MAX ? c->initrd_addr_max : INITRD_ADDR_MAX;
	/* The stub runs wherever a 32-bit or 64-bit loader puts it (it is
	 * position independent), 4 KiB aligned; the kernel moves with it
	 * when it has a relocation table, and then prefers its own
	 * alignment (the stub aligns it up in any case). */
	h->kernel_alignment = (uint32_t)(k->relocs_size ? k->align : BZPACK_LOAD_ALIGN);
	h->relocatable_kernel = 1;
	h->min_alignment = (uint8_t)__builtin_ctz(BZPACK_LOAD_ALIGN);
	/* A 64-bit stub also has the 64-bit entry (head_64.asm's startup_64),
	 * which maps the image wherever it is, above 4 GiB too. */
	h->xloadflags = (uint16_t)((k->bits == 64 ? XLF_KERNEL_64 | XLF_CAN_BE_LOADED_ABOVE_4G : 0) |
				   (c->xloadflags & XLF_EFI_KEXEC));
	h->cmdline_size = c->cmdline_size < CMDLINE_SIZE - 1 ? c->cmdline_size : CMDLINE_SIZE - 1;
	h->payload_offset = (uint32_t)(l->stub_size + BZPACK_HEADER_SIZE);
	h->payload_length = (uint32_t)l->payload_size;
	/* Where the kernel runs: a loader that puts the image there lets the
	 * stub decompress in place, and init_size counts from there. */
	h->pref_address = l->base;
	h->init_size = (uint32_t)l->init_size;
	h->kernel_info_offset = (uint32_t)(l->stub_size + offsetof(struct bzpack_header, kernel_info));
	if (l->efi_handover) {
		/* The 64-bit handover entry is at handover_offset + 0x200 (boot.rst). */
		h->handover_offset = l->efi_handover - 0x200;
		h->xloadflags |= XLF_EFI_HANDOVER_64;
	}
}

/* sh: the setup_header as it goes into the file, for setup_crc; embeds:
 * the embedded data's places, their CRCs filled in here. */
static void fill_bzpack_header(struct bzpack_header *h, const struct kernel *k, const struct codec *codec,
			       const struct buffer *payload, const struct image_layout *l,
			       const struct setup_header *sh, const struct embedded *embeds, const uint8_t *record)
{
	static struct crc32c_table crc;
	crc32c_init(&crc, 0);

	memset(h, 0, sizeof(*h));
	h->magic = BZPACK_MAGIC;
	h->version = BZPACK_FORMAT_VERSION;
	h->codec = codec->id;
	h->bits = (uint8_t)k->bits;
	h->header_size = BZPACK_HEADER_SIZE;
	h->payload_size = (uint32_t)payload->size;
	/* A framed payload's checksums cover its table, which holds each
	 * frame's own. */
	size_t checked = l->frames > 1 ? bzpack_frames_size(payload->data, (uint32_t)payload->size) : payload->size;
	h->payload_crc = crc32c_update(&crc, 0, payload->data, checked);
	h->payload_xxh3 = xxh3_64(payload->data, checked);
	h->out_addr = (uint32_t)k->addr;
	h->relocs_size = (uint32_t)k->relocs_size;
	h->relocs_crc = crc32c_update(&crc, 0, k->blob.data + kernel_size(k), k->relocs_size);
	h->relocs_xxh3 = k->relocs_size ? xxh3_64(k->blob.data + kernel_size(k), k->relocs_size) : 0;
	h->virt_addr = k->virt_addr;
	h->out_align = (uint32_t)(k->relocs_size ? k->align : 0);
	h->out_size = (uint32_t)k->blob.size;
	h->zero_size = (uint32_t)k->zero_size;
	h->entry = k->entry;
	h->scratch_offset = (uint32_t)(l->scratch - l->base);
	h->inplace_offset = (uint32_t)l->inplace_offset;
	h->scratch_offset_check = ~h->scratch_offset;
	h->init_size = (uint32_t)l->init_size;
	h->workspace_size = (uint32_t)l->workspace_size;
	h->kernel_info = (struct kernel_info){ KERNEL_INFO_MAGIC, sizeof(struct kernel_info),
					       sizeof(struct kernel_info), 0 };
	struct bzpack_embed *slot[EMBED_KINDS] = { &h->initrd, &h->osrel, &h->uname, &h->cmdline };
	for (int i = 0; i < EMBED_KINDS; i++)
		if (embeds[i].size)
			*slot[i] = (struct bzpack_embed){ (uint32_t)embeds[i].offset, (uint32_t)embeds[i].size,
							  crc32c_update(&crc, 0, embeds[i].data, embeds[i].size) };
	h->setup_crc = setup_header_crc(&crc, sh);
	h->elf_size = (uint32_t)elf_record_size(k);
	h->elf_crc = crc32c_update(&crc, 0, record, h->elf_size);
	h->flags = k->flags | (l->frames > 1 ? BZPACK_FLAG_FRAMES : 0);
	h->header_crc = crc32c_update(&crc, 0, h, offsetof(struct bzpack_header, header_crc));
}

/* The self-check words (bzpack_format.h, "the stub's self-check"): the
 * CRC32C of the setup's code and messages in its last word, and of all
 * the protected-mode stub but its last word in that word. */
static void write_self_crcs(uint8_t *setup, size_t setup_size, uint8_t *stub, size_t stub_size,
			    const struct crc32c_table *crc)
{
	size_t setup_end = setup_size - BZPACK_SELF_CRC_SIZE, stub_end = stub_size - BZPACK_SELF_CRC_SIZE;
	uint32_t setup_crc = crc32c_update(crc, 0, setup + BZPACK_SETUP_CRC_START,
					   setup_end - BZPACK_SETUP_CRC_START);
	uint32_t stub_crc = crc32c_update(crc, 0, stub, stub_end);

	memcpy(setup + setup_end, &setup_crc, sizeof(setup_crc)); /* little-endian host */
	memcpy(stub + stub_end, &stub_crc, sizeof(stub_crc));
}

/* Where the stub's UEFI entries are (struct stub_info, its last bytes). */
static int read_stub_info(const struct buffer *stub, struct stub_info *si, struct error *err)
{
	if (stub->size < BZPACK_STUB_INFO_SIZE)
		return fail_with(err, "internal error: stub too small");
	memcpy(si, stub->data + stub->size - BZPACK_STUB_INFO_SIZE, sizeof(*si));
	if (si->magic != BZPACK_STUB_INFO_MAGIC || si->efi_entry >= stub->size ||
	    si->efi_handover >= stub->size || (si->efi_handover && si->efi_handover < 0x200))
		return fail_with(err, "internal error: stub has no valid stub_info");
	return 0;
}

/* Where each embedded piece goes in the protected-mode part, from text
 * (stub, header, payload) on; returns the part's size.  Offsets stay
 * below 4 GiB: the header holds them in 32 bits. */
static int place_embedded(struct embedded *e, uint64_t text, uint64_t *prot_size, struct error *err)
{
	uint64_t at = text;

	for (int i = 0; i < EMBED_KINDS; i++) {
		if (!e[i].size)
			continue;
		e[i].offset = align_up(at, BZPACK_EMBED_ALIGN);
		at = e[i].offset + e[i].size;
		if (at > UINT32_MAX)
			return fail_with(err, "the embedded %s takes the image past 4 GiB", e[i].name);
	}
	*prot_size = align_up(at, 16);
	return 0;
}

static int assemble(const struct kernel *k, const struct codec *codec, int level, const struct buffer *payload,
		    const struct image_extras *x, const struct buffer *sbat, int progress, struct buffer *image,
		    struct image_layout *l, struct error *err)
{
	const char *cmdline = x->cmdline ? x->cmdline : "";
	uint32_t flags = (k->flags & ~BZPACK_FLAG_INITRD_ALWAYS) | (x->frames > 1 ? BZPACK_FLAG_FRAMES : 0);
	struct buffer setup = stub_setup_blob(), stub = stub_blob(codec->id, k->bits, flags);
	char version[KERNEL_VERSION_MAX + 64];
	struct stub_info si;

	if (!stub.size)
		return fail_with(err, "no %d-bit stub for codec %s%s%s", k->bits, codec->name,
				 x86_filter_suffix(k->flags), x->frames > 1 ? " in frames" : "");
	if (read_stub_info(&stub, &si, err) < 0)
		return -1;
	if (k->elf.phnum < 1 || k->elf.phnum > BZPACK_ELF_PHDRS_MAX)
		return fail_with(err, "internal error: no program headers for the ELF record");
	if (strlen(cmdline) >= CMDLINE_SIZE)
		return fail_with(err, "--cmdline is longer than %d bytes", CMDLINE_SIZE - 1);
	if (cmdline[0] && !si.efi_entry)
		return fail_with(err, "--cmdline is for the EFI entry, and %d-bit images have none", k->bits);
	if ((x->osrel.size || (x->uname && x->uname[0])) && !si.efi_entry)
		return fail_with(err, "--%s is a section of the PE of a 64-bit image, and %d-bit images have none",
				 x->osrel.size ? "osrel" : "uname", k->bits);
	/* In bzpack_header's order: .initrd, .osrel, .uname, .cmdline. */
	struct embedded *e = l->embedded;
	e[EMBED_INITRD] = (struct embedded){ ".initrd", x->initrd.data, x->initrd.size, 0 };
	e[EMBED_OSREL] = (struct embedded){ ".osrel", x->osrel.data, x->osrel.size, 0 };
	e[EMBED_UNAME] = (struct embedded){ ".uname", (const uint8_t *)x->uname, x->uname ? strlen(x->uname) : 0, 0 };
	e[EMBED_CMDLINE] = (struct embedded){ ".cmdline", (const uint8_t *)cmdline, strlen(cmdline), 0 };
	/* The ELF record follows the payload; the embedded pieces come after it. */
	uint64_t text_size = stub.size + BZPACK_HEADER_SIZE + payload->size + elf_record_size(k), prot_size = 0;
	if (place_embedded(e, text_size, &prot_size, err) < 0)
		return -1;
	snprintf(version, sizeof(version), "%s%s" BZPACK_VERSION_STRING ", %s%s, %d-bit%s",
		 k->version, k->version[0] ? " [" : "", codec->name, x86_filter_suffix(k->flags), k->bits,
		 k->version[0] ? "]" : "");
	uint64_t version_offset = setup.size, version_len = strlen(version) + 1;
	/* The EFI entry's default command line, then the CRC32C of its bytes. */
	uint64_t cmdline_offset = version_offset + version_len, cmdline_len = strlen(cmdline) + 1;
	uint64_t cmdline_crc_offset = cmdline_offset + cmdline_len;
	/* Then the PE header, with a section for each piece embedded. */
	unsigned extras = 0;
	for (int i = 0; i < EMBED_KINDS; i++)
		extras += e[i].size != 0;
	uint64_t pe_offset = align_up(cmdline_crc_offset + sizeof(uint32_t), PE_HEADER_ALIGN);
	uint64_t rm_end = si.efi_entry ? pe_offset + pe_header_size(extras) : cmdline_crc_offset + sizeof(uint32_t);
	uint64_t headers_size = align_up(rm_end, SECTOR_SIZE);
	uint64_t sbat_size = si.efi_entry ? align_up(sbat->size, SECTOR_SIZE) : 0;
	uint64_t setup_size = headers_size + sbat_size;
	if (rm_end > SETUP_BOOT_PARAMS || setup_size / SECTOR_SIZE - 1 > SETUP_MAX_SECTS)
		return fail_with(err, "real-mode part too large (a shorter --cmdline or --sbat?)");
	if (payload->size > UINT32_MAX || k->blob.size > UINT32_MAX || k->zero_size > UINT32_MAX ||
	    k->align > UINT32_MAX)
		return fail_with(err, "kernel too large");
	struct embedded placed[EMBED_KINDS];
	memcpy(placed, e, sizeof(placed));      /* plan() starts the layout afresh */
	if (plan(k, codec, &stub, setup_size, payload, prot_size, x->frames, progress, l, err) < 0)
		return -1;
	memcpy(l->embedded, placed, sizeof(placed));
	e = l->embedded;
	l->efi_entry = si.efi_entry;
	l->efi_handover = si.efi_handover;

	/* A PE section's file data comes in whole FileAlignment units. */
	image->size = l->setup_size + (si.efi_entry ? align_up(l->prot_size, SECTOR_SIZE) : l->prot_size);
	image->data = calloc(1, image->size);
	if (!image->data)
		return fail_with(err, "out of memory");
	uint8_t *rm = image->data, *pm = image->data + l->setup_size;

	memcpy(rm, setup.data, setup.size);
	memcpy(rm + version_offset, version, version_len);
	memcpy(rm + cmdline_offset, cmdline, cmdline_len);
	static struct crc32c_table crc;
	crc32c_init(&crc, 0);
	uint32_t cmdline_crc = crc32c_update(&crc, 0, cmdline, cmdline_len);
	memcpy(rm + cmdline_crc_offset, &cmdline_crc, sizeof(cmdline_crc)); /* little-endian host */
	struct setup_header sh;
	fill_setup_header(&sh, l, version_offset, k);
	memcpy(rm + SETUP_HEADER_OFFSET, &sh, sizeof(sh));
	if (si.efi_entry) {
		memcpy(rm + headers_size, sbat->data, sbat->size);
		struct pe_layout pl = { .pe_offset = pe_offset, .headers_size = headers_size, .sbat_size = sbat_size,
					.text_offset = l->setup_size, .text_size = text_size, .entry = si.efi_entry };
		for (int i = 0; i < EMBED_KINDS; i++)
			if (e[i].size)
				pl.extra[pl.extras++] = (struct pe_extra){ e[i].name, l->setup_size + e[i].offset,
									   e[i].size };
		pe_write(image->data, &pl);
	}
	for (int i = 0; i < EMBED_KINDS; i++)
		if (e[i].size)
			memcpy(pm + e[i].offset, e[i].data, e[i].size);

	memcpy(pm, stub.data, stub.size);
	write_self_crcs(rm, setup.size, pm, stub.size, &crc);
	uint8_t *record = pm + stub.size + BZPACK_HEADER_SIZE + payload->size;
	write_elf_record(record, k, level);
	struct bzpack_header bh;
	fill_bzpack_header(&bh, k, codec, payload, l, &sh, e, record);
	memcpy(pm + stub.size, &bh, sizeof(bh));
	memcpy(pm + stub.size + sizeof(bh), payload->data, payload->size);
	return 0;
}

int image_build(const struct kernel *k, const struct codec *codec, int level, const struct buffer *payload,
		const struct image_extras *extras, const struct buffer *sbat, int progress, struct buffer *image,
		struct image_layout *l, struct error *err)
{
	static const struct image_extras none;
	const struct image_extras *x = extras ? extras : &none;
	struct buffer own_sbat;
	const char *culprit;

	if (level == LEVEL_DEFAULT)
		level = codec->compressor->default_level;
	if (sbat)
		return assemble(k, codec, level, payload, x, sbat, progress, image, l, err);
	if (sbat_build(&(struct buffer){ 0, 0 }, NULL, &own_sbat, &culprit, err) < 0)
		return -1;
	int r = assemble(k, codec, level, payload, x, &own_sbat, progress, image, l, err);
	free(own_sbat.data);
	return r;
}

void image_print_layout(FILE *out, const struct kernel *k, const struct codec *codec,
			const struct image_layout *l)
{
	uint64_t overhead = l->setup_size + l->stub_size + BZPACK_HEADER_SIZE;

	kernel_print(out, "kernel:", 10, k);
	fprintf(out, "codec:     %s%s, %zu -> %llu bytes (%.2f%%)\n", codec->name, x86_filter_suffix(k->flags),
		k->blob.size, (unsigned long long)l->payload_size,
		k->blob.size ? 100.0 * (double)l->payload_size / (double)k->blob.size : 0.0);
	fprintf(out, "setup:     %llu bytes (%llu sectors)\n", (unsigned long long)l->setup_size,
		(unsigned long long)(l->setup_size / SECTOR_SIZE));
	fprintf(out, "stub:      %llu bytes at 0x%x (preferred: it runs anywhere), header %d bytes\n",
		(unsigned long long)l->stub_size, BZPACK_LOAD_ADDR, BZPACK_HEADER_SIZE);
	fprintf(out, "overhead:  %llu bytes (setup + stub + header)\n", (unsigned long long)overhead);
	fprintf(out, "image:     %llu bytes, protected-mode part ends at 0x%llx\n",
		(unsigned long long)(l->setup_size + l->prot_size), (unsigned long long)l->image_end);
	fprintf(out, "in place:  the payload %llu bytes after the kernel's start when it must move "
		"(margin %lld bytes past the output's end)\n", (unsigned long long)l->inplace_offset,
		(long long)(l->inplace_offset + l->payload_size) - (long long)k->blob.size);
	fprintf(out, "scratch:   0x%llx-0x%llx, decoder workspace %llu bytes after it, then room for the stub\n",
		(unsigned long long)l->scratch, (unsigned long long)(l->scratch + BZPACK_SCRATCH_SIZE),
		(unsigned long long)l->workspace_size);
	if (l->frames > 1)
		fprintf(out, "frames:    %u, each verified and decoded on its own, by up to %llu CPUs at once; "
			"in place: one after the other\n", l->frames,
			(unsigned long long)(codec->workspace_size ? l->workspace_size /
				align_up(codec->workspace_size, BZPACK_WORKSPACE_ALIGN) :
				l->frames < BZPACK_MAX_CPUS ? l->frames : BZPACK_MAX_CPUS));
	if (k->relocs_size)
		fprintf(out, "relocs:    %llu bytes: the kernel moves with the image, aligned to 0x%llx\n",
			(unsigned long long)k->relocs_size, (unsigned long long)k->align);
	else
		fprintf(out, "relocs:    none: the kernel runs at its link address wherever the image is\n");
	for (int i = 0; i < EMBED_KINDS; i++)
		if (l->embedded[i].size)
			fprintf(out, "embedded:  %-8s %llu bytes at +0x%llx in the protected-mode part\n",
				l->embedded[i].name, (unsigned long long)l->embedded[i].size,
				(unsigned long long)l->embedded[i].offset);
	fprintf(out, "init_size: 0x%llx (%llu bytes) from 0x%llx, where the kernel runs\n",
		(unsigned long long)l->init_size, (unsigned long long)l->init_size, (unsigned long long)l->base);
}
