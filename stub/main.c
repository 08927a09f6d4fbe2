/*
 * main.c - the boot story.  head_32.asm or head_64.asm has given us a
 * stack in our scratch memory (and, for a 64-bit kernel, long mode); then:
 *
 *   1. check our header: version, CRC32C, codec, word size; then the
 *      setup_header fields only the packer writes, as the loader copied
 *      them into boot_params, against the CRC32C the header carries;
 *   2. check the memory plan against what the loader told us: the kernel's
 *      range and our scratch must be RAM and must not hold boot_params, the
 *      command line, the initrd or setup_data; a kernel with a relocation
 *      table goes to a random slot that passes the same checks (kaslr.c),
 *      or with nokaslr to the run base (bzpack_run_base());
 *   3. if the image lies where the kernel goes, get out of its way: the
 *      stub copies itself high in init_size and runs on from the copy,
 *      and the payload moves to the in-place offset the packer found by
 *      simulating this very decode, close behind the output's end;
 *   4. verify the payload: its CRC32C with the crc32 instruction (SSE4.2),
 *      else its XXH3-64, whichever checksum this CPU computes cheaper;
 *   5. decompress straight to where the kernel runs, exactly out_size, the
 *      decoder's tables and state in the workspace the packer reserved
 *      right after our scratch;
 *   6. check the relocation table (its checksum as in 4, then every entry) and only
 *      then apply it; clear the kernel's bss;
 *   7. print the report line and enter the kernel through the head's
 *      enter_kernel, as the boot protocol says.
 *
 * Any failure prints "bzpack: error: <reason>" and halts: we never jump
 * into a kernel we could not fully decompress and verify.
 */
#include "bzpack_relocs.h"
#include "crc32c.h"
#include "mem.h"
#include "stub.h"
#include "xxh3.h"

#define LOW_MEMORY_END 0x100000u /* the kernel may not live below 1 MiB */

extern const uint8_t startup_32[];      /* the heads: our first byte, the load address */
extern const uint8_t _stub_end[];       /* linker/stub.ld: our header is here */

/* The end of an error line, then a halt for good. */
__attribute__((noreturn)) static void end_line_and_halt(const char *tail)
{
	serial_puts(tail);
	serial_puts("\n");
	for (;;)
		__asm__ volatile("cli; hlt");
}

void fail(const char *reason, const char *detail)
{
	serial_puts("bzpack: error: ");
	serial_puts(reason);
	end_line_and_halt(detail);
}

#define STRINGIFY(x) #x
#define STRING(x) STRINGIFY(x)

const char *stub_check_header(const struct bzpack_header *hdr, const struct boot_params *bp,
			      const struct crc32c_table *crc)
{
	/* The version says where the CRC is, so it comes first. */
	if (hdr->version != BZPACK_FORMAT_VERSION || hdr->header_size != sizeof(*hdr))
		return "bzpack header is not format " STRING(BZPACK_FORMAT_VERSION);
	if (crc32c_update(crc, 0, hdr, offsetof(struct bzpack_header, header_crc)) != hdr->header_crc)
		return "bzpack header checksum mismatch (CRC32C)";
	/* init_size, payload_length, pref_address, ...: the loader took them
	 * from the file and the kernel may read them from boot_params. */
	if (setup_header_crc(crc, &bp->hdr) != hdr->setup_crc)
		return "setup header fields changed since packing (CRC32C)";
	if (hdr->codec != stub_codec.id)
		return "payload codec does not match this stub's decoder";
	/* Exactly this stub's: a flag it has no code for (the x86 filter,
	 * frames or the initrd unpacker in a plain stub, one no stub knows),
	 * or a -bcj, -frames or -initrd stub's without it. */
	if ((hdr->flags & ~STUB_FLAGS_OPTIONAL) != STUB_FLAGS)
		return "payload flags do not match this stub";
	if (hdr->bits != 8 * sizeof(void *))
		return "payload word size does not match this stub";
	if (hdr->workspace_size < stub_codec.workspace_size ||
	    hdr->workspace_size % BZPACK_WORKSPACE_ALIGN)
		return "decoder workspace in the header is too small or misaligned";
	if (hdr->relocs_size > hdr->out_size ||
	    (hdr->relocs_size && (hdr->out_align < BZPACK_LOAD_ALIGN || (hdr->out_align & (hdr->out_align - 1)))))
		return "relocation table size or kernel alignment in the header is bad";
	if (hdr->entry < hdr->out_addr || hdr->entry - hdr->out_addr >= hdr->out_size - hdr->relocs_size)
		return "kernel entry point lies outside the kernel";
	return 0;
}

/* The packer stores two checksums of the payload and of the relocation
 * table, all covered by header_crc, and one that matches is enough: the
 * one this CPU computes cheaper, decided here alone, from crc->hw
 * (crc32c_init's CPUID probe).  With SSE4.2 the CRC32C, with the crc32
 * instruction (0.15 instructions a byte in 64-bit mode, 0.27 in 32-bit
 * mode); without it XXH3-64 in SSE2 lanes (README, "Integrity", has the
 * measured costs).  Returns 0 when the checksum holds, else the
 * mismatch's "(NAME)" for the error line; *check names it for the
 * report line. */
const char *stub_checksum_bad(const struct crc32c_table *crc, const uint8_t *p, uint32_t len,
			      uint32_t want_crc, uint64_t want_xxh3, const char **check)
{
	*check = crc->hw ? "crc32c-hw" : "xxh3";
	if (crc->hw)
		return crc32c_update(crc, 0, p, len) == want_crc ? 0 : "(CRC32C)";
	return xxh3_64(p, len) == want_xxh3 ? 0 : "(XXH3)";
}

/* The table at the end of the output: its checksum, then every entry, and
 * only then the writes (none when delta is 0: an x86_64 kernel without a
 * virtual offset, or a kernel where it was linked).  Returns why not. */
static const char *relocate(const struct bzpack_header *hdr, uint8_t *kernel, uint64_t delta,
			    const struct crc32c_table *crc, const char **detail)
{
	uint64_t size = hdr->out_size - hdr->relocs_size;
	const uint8_t *table = kernel + size;

	if (!hdr->relocs_size)
		return 0;
	const char *check, *bad = stub_checksum_bad(crc, table, hdr->relocs_size, hdr->relocs_crc, hdr->relocs_xxh3, &check);
	if (bad) {
		*detail = bad;
		return "relocation table checksum mismatch ";
	}
	enum relocs_status s = relocs_walk(kernel, size, table, hdr->relocs_size, hdr->bits, hdr->virt_addr, delta, 0);
	if (s != RELOCS_OK) {
		*detail = relocs_status_name(s);
		return "relocation table: ";
	}
	if (delta)
		relocs_walk(kernel, size, table, hdr->relocs_size, hdr->bits, hdr->virt_addr, delta, 1);
	return 0;
}

static void check_range(const struct boot_params *bp, const char *what, struct mem_range r)
{
	const char *why = memory_check_writable(bp, r);

	if (!why)
		return;
	serial_puts("bzpack: error: ");
	serial_puts(what);
	serial_puts(" ");
	serial_put_hex(r.start);
	serial_puts("-");
	serial_put_hex(r.end);
	serial_puts(" ");
	end_line_and_halt(why);
}

/* The one line CI and people read.  cycles= is the decompression alone;
 * the phases follow, total= from the first instruction we know of. */
/* How the report line names the entry the loader took (boot_params.scratch,
 * BZPACK_ENTRY_*, left there by the heads or the EFI entry). */
static const char *entry_name(uint32_t entry)
{
	switch (entry) {
	case BZPACK_ENTRY_16: return "16";
	case BZPACK_ENTRY_32: return "32";
	case BZPACK_ENTRY_64: return "64";
	case BZPACK_ENTRY_EFI: return "efi";
	}
	return "unknown";
}

/* One " key=value" of the report line, the value in decimal. */
static void report_u64(const char *key, uint64_t value)
{
	serial_puts(key);
	serial_put_u64(value);
}

void stub_report(const struct bzpack_header *hdr, const struct boot_params *bp, const struct kaslr *where,
		 const struct stub_times *t, unsigned initrds)
{
	serial_puts("bzpack: codec=");
	serial_puts(bzpack_codec_name(stub_codec.id));
	report_u64(" in=", hdr->payload_size);
	report_u64(" out=", hdr->out_size);
	report_u64(" cycles=", t->decompress);
	report_u64(" move=", t->move);
	report_u64(" verify=", t->verify);
	report_u64(" decompress=", t->decompress);
	report_u64(" total=", read_tsc() - t->start);
	report_u64(" bits=", hdr->bits);
	serial_puts(" entry=");         /* 16, 32, 64 or efi: which entry the loader took */
	serial_puts(entry_name(bp->scratch));
	serial_puts(" kernel=");        /* where it runs; "fixed" without a relocation table */
	if (hdr->relocs_size)
		serial_put_hex(where->phys);
	else
		serial_puts("fixed");
	serial_puts(" kaslr=");         /* the physical and (the kernel's own) virtual address */
	if (where->off) {
		serial_puts("off(");
		serial_puts(where->off);
		serial_puts(")");
	} else {
		serial_puts("phys:");
		serial_put_hex(where->phys);
		serial_puts(",virt:");
		serial_put_hex(hdr->virt_addr + (hdr->bits == 32 ? where->phys - hdr->out_addr : where->virt_delta));
	}
	serial_puts(" check=");         /* the payload checksum verify= ran */
	serial_puts(t->check);
	serial_puts(" frames=");        /* frames in the payload (1: one stream), and the CPUs that decoded them */
	serial_put_u64(t->frames);
	serial_puts(" cpus=");
	serial_put_u64(t->cpus);
	if ((STUB_FLAGS & BZPACK_FLAG_FRAMES) && t->cpus_why) {        /* 1(why not more) */
		serial_puts("(");
		serial_puts(t->cpus_why);
		serial_puts(")");
	}
	serial_puts(" initrd=");        /* none, or which (embedded, loader, both) and where: 0xADDR+SIZE */
	if (!initrds) {
		serial_puts("none");
	} else {
		serial_puts(initrds == INITRD_LOADER ? "loader" : initrds == INITRD_EMBEDDED ? "embedded"
											  : "embedded+loader");
		serial_puts(":");
		serial_put_hex(bp->hdr.ramdisk_image | (uint64_t)bp->ext_ramdisk_image << 32);
		report_u64("+", bp->hdr.ramdisk_size | (uint64_t)bp->ext_ramdisk_size << 32);
	}
	if (STUB_FLAGS & BZPACK_FLAG_INITRD)
		initrd_unpack_report(t->unpack);        /* unpacked=FORMAT:IN->OUT or no(why) */
	if (STUB_FLAGS & BZPACK_FLAG_X86) {
		report_u64(" unfilter=", t->unfilter);  /* the x86 un-filter's cycles, after decompress= */
	}
	serial_puts("\n");
}

/* 4 and 5 for a framed payload: the table's checksum (payload_crc covers
 * it alone) and tiling here, then each frame's checksum and decode by the
 * CPU that takes it (frames.c).  verify= and decompress= are the frames'
 * cycles summed. */
static const char *unpack_frames(const struct bzpack_header *hdr, const struct crc32c_table *crc,
				 const uint8_t *payload, uint8_t *out, void *workspace, int in_place,
				 struct stub_times *t, const char **detail)
{
	struct frames_job job = { .payload = payload, .out = out, .crc = crc, .workspace = workspace,
				  .parallel = !in_place };
	uint32_t table_size = bzpack_frames_size(payload, hdr->payload_size);

	if (!table_size)
		return "frame table checksum mismatch ";
	const char *bad = stub_checksum_bad(crc, payload, table_size, hdr->payload_crc, hdr->payload_xxh3, &t->check);
	if (bad) {
		*detail = bad;
		return "frame table checksum mismatch ";
	}
	const char *why = bzpack_frames_check(payload, hdr->payload_size, hdr->out_size);
	if (why)
		return why;
	const struct bzpack_frames *table = (const void *)payload;
	job.count = table->count;
	memcpy(job.frame, table->frame, job.count * sizeof(job.frame[0]));
	/* The packer plans workspaces in whole aligned strides. */
	job.workspace_stride = (stub_codec.workspace_size + BZPACK_WORKSPACE_ALIGN - 1) &
			       ~(uint32_t)(BZPACK_WORKSPACE_ALIGN - 1);
	job.workspaces = job.workspace_stride ? hdr->workspace_size / job.workspace_stride : BZPACK_MAX_CPUS;
	why = frames_run(&job, t->bp, t->bs, detail);
	if (why)
		return why;
	for (unsigned i = 0; i < job.count; i++) {
		t->verify += job.verify_cycles[i];
		t->decompress += job.decode_cycles[i];
	}
	t->frames = job.count;
	t->cpus = job.cpus;
	t->cpus_why = job.cpus_why;
	return 0;
}

const char *stub_unpack(const struct bzpack_header *hdr, const struct crc32c_table *crc,
			const uint8_t *payload, uint8_t *out, uint64_t delta, void *workspace,
			int in_place, struct stub_times *t, const char **detail)
{
	*detail = "";
	if (STUB_FLAGS & BZPACK_FLAG_FRAMES) {
		const char *why = unpack_frames(hdr, crc, payload, out, workspace, in_place, t, detail);
		if (why)
			return why;
	} else {
		/* 4. */
		uint64_t t1 = read_tsc();
		const char *bad = stub_checksum_bad(crc, payload, hdr->payload_size, hdr->payload_crc,
						    hdr->payload_xxh3, &t->check);
		if (bad) {
			*detail = bad;
			return "payload checksum mismatch ";
		}
		uint64_t t2 = read_tsc();
		enum decode_status status = stub_decode(payload, hdr->payload_size, out, hdr->out_size, workspace);
		uint64_t t3 = read_tsc();
		if (status != DECODE_OK) {
			*detail = decode_status_name(status);
			return "decompression failed: ";
		}
		t->verify = t2 - t1;
		t->decompress = t3 - t2;
		t->frames = t->cpus = 1;
	}
	uint64_t t3 = read_tsc();
	if (STUB_FLAGS & BZPACK_FLAG_X86) {
		stub_unfilter_x86(out, hdr->out_size - hdr->relocs_size);
		t->unfilter = read_tsc() - t3;
	}
	const char *why = relocate(hdr, out, delta, crc, detail);
	if (why)
		return why;
	/* The bss, over the relocation table decompressed into it. */
	memset(out + (hdr->out_size - hdr->relocs_size), 0, hdr->zero_size);
	return 0;
}

/* What the rest of the boot needs, handed to stub_finish: in the stub
 * as loaded or in its copy (then every pointer into the stub is the
 * copy's). */
struct finish {
	const struct bzpack_header *hdr;
	const struct crc32c_table *crc;
	struct boot_params *bp;
	const uint8_t *payload;         /* where it is now */
	uint8_t *moved;                 /* where it must go first; NULL: stays */
	uint8_t *kernel;
	uint64_t delta;                 /* the relocation table's shift */
	void *workspace;
	struct kaslr where;
	struct stub_times t;
	unsigned initrds;               /* INITRD_*: what the kernel got */
	struct initrd_unpack unpack;    /* -initrd stubs: the initrd decompressed */
};

/* 3 (the move), 4, 5, 6, 7.  Runs from wherever the stub is by now, so it
 * calls only code that needs no load address (not memory.c, which reads
 * it): the copy's own. */
__attribute__((noreturn, noinline)) static void stub_finish(struct finish *f)
{
	uint64_t t0 = read_tsc();
	if (f->moved)
		f->payload = memmove(f->moved, f->payload, f->hdr->payload_size);
	f->t.move = read_tsc() - t0;
	if (STUB_FLAGS & BZPACK_FLAG_FRAMES)
		f->t.bp = f->bp;

	const char *detail;
	const char *why = stub_unpack(f->hdr, f->crc, f->payload, f->kernel, f->delta, f->workspace, f->moved != 0,
				      &f->t, &detail);
	if (why)
		fail(why, detail);
	if (STUB_FLAGS & BZPACK_FLAG_INITRD) {
		initrd_unpack_run(f->bp, &f->unpack, f->workspace);
		f->t.unpack = &f->unpack;
	}
	stub_report(f->hdr, f->bp, &f->where, &f->t, f->initrds);
	enter_kernel((uintptr_t)(f->kernel + (f->hdr->entry - f->hdr->out_addr)), f->bp);
}

void stub_main(struct boot_params *bp, uint64_t t_start)
{
	const struct bzpack_header *hdr = (const void *)_stub_end;
	const uint8_t *payload = _stub_end + sizeof(*hdr);
	struct crc32c_table crc;

	serial_init();
	crc32c_init(&crc, 0);
	const char *why = stub_check_header(hdr, bp, &crc);
	if (why)
		fail(why, "");

	/* 2. The plan the packer wrote, against what the loader did.  We run
	 * wherever the loader put us (load); the plan counts from the run
	 * base; the kernel runs there or at a random slot (kaslr.c). */
	uint64_t load = (uintptr_t)startup_32;
	uint64_t base = bzpack_run_base(hdr, load);
	uint64_t image_end = load + (uint64_t)bp->hdr.syssize * 16;
	uint64_t kernel_size = hdr->out_size - hdr->relocs_size;
	/* The table is decompressed after the kernel's bytes, into its bss. */
	uint64_t kernel_mem = hdr->out_size > kernel_size + hdr->zero_size ? hdr->out_size
									  : kernel_size + hdr->zero_size;
	uint64_t stub_bytes = (uintptr_t)payload - load; /* the stub and its header */
	struct mem_range stub = { load, (uintptr_t)payload };
	struct mem_range src = { (uintptr_t)payload, (uintptr_t)payload + hdr->payload_size };
	/* Our scratch: the heads' page tables and stack, the decoder's
	 * workspace, room for a copy of the stub; planned, checked and
	 * avoided as one. */
	uint64_t scratch_start = base + hdr->scratch_offset;
	uint64_t copy_at = scratch_start + BZPACK_SCRATCH_SIZE + hdr->workspace_size;
	struct mem_range scratch = { scratch_start, base + hdr->init_size };
	struct mem_range in_place = { base + hdr->inplace_offset, base + hdr->inplace_offset + hdr->payload_size };
	void *workspace = (void *)(uintptr_t)(scratch_start + BZPACK_SCRATCH_SIZE);
	if (src.end > image_end)
		fail("payload runs past the image the loader loaded (truncated file?)", "");
	why = initrd_check_embedded(hdr, startup_32, image_end - load, &crc);
	if (why)
		fail(why, "");
	if (copy_at + stub_bytes > scratch.end || in_place.end > scratch.start || in_place.start < base ||
	    kernel_mem > hdr->scratch_offset)
		fail("memory plan in the header is inconsistent", "");
	struct mem_range image = { load, src.end };
	why = memory_check_setup_data(bp);
	if (why)
		fail(why, "");
	check_range(bp, "stub scratch and decoder workspace", scratch);

	/* A random slot also avoids the embedded initrd, which then need not move. */
	struct mem_range embedded = { 0, 0 };
	if (hdr->initrd.size)
		embedded = (struct mem_range){ load + hdr->initrd.offset, load + hdr->initrd.offset + hdr->initrd.size };
	const struct mem_range ours[] = { image, scratch, embedded };
	struct finish f = { .hdr = hdr, .crc = &crc, .bp = bp, .payload = payload, .workspace = workspace,
			    .t = { .start = t_start } };
	kaslr_choose(bp, hdr, base, kernel_mem, ours, 3, &f.where);
	uint64_t kernel = f.where.phys;
	struct mem_range out = { kernel, kernel + kernel_mem };
	if (out.start < LOW_MEMORY_END)
		fail("kernel would overwrite low memory", "");
	if ((uintptr_t)(out.end - 1) != out.end - 1)   /* a 32-bit stub moving its kernel past 4 GiB */
		fail("kernel would run above the addresses this stub reaches", "");
	if (ranges_overlap(scratch, image) || ranges_overlap(scratch, out))
		fail("scratch memory overlaps the image or the kernel", "");

	/* 3. The image must not be overwritten before it has been read.  A
	 * random slot avoids it; at the run base, a payload in the kernel's
	 * way moves to its in-place offset (and if the stub itself is in the
	 * way, the stub to the room at the top of init_size first). */
	int move_stub = ranges_overlap(stub, out);
	struct mem_range moved = { 0, 0 };
	if (move_stub || ranges_overlap(src, out)) {
		if (kernel != base)
			fail("image lies where the randomised kernel goes", "");
		moved = in_place;
		f.moved = (uint8_t *)(uintptr_t)in_place.start;
	}
	/* The initrd the kernel gets, clear of what the boot still needs. */
	struct initrd_plan initrd;
	const struct mem_range needed[] = { image, out, scratch, moved };
	why = initrd_plan(bp, hdr, load, (struct mem_range){ load, image_end }, needed, 4, &initrd);
	if (why)
		fail(why, "");
	/* setup_data in the way (QEMU appends a -dtb right after the image,
	 * init_size or not) is copied clear of everything and relinked. */
	const struct mem_range in_use[] = { image, out, scratch, moved, { initrd.to, initrd.to + initrd.total } };
	why = memory_rescue_setup_data(bp, in_use, 5);
	if (why)
		fail(why, "");
	check_range(bp, "kernel range", out);
	if (moved.end)
		check_range(bp, "payload move", moved);
	initrd_hand_over(bp, &initrd);
	f.initrds = initrd.used;
	/* The decompressed initrd, clear of all that and of the initrd (a
	 * loader region now: memory.c avoids it). */
	if (STUB_FLAGS & BZPACK_FLAG_INITRD)
		initrd_unpack_plan(bp, hdr, in_use, 5, &f.unpack);

	/* i386 kernels move by the physical distance; x86_64 kernels find
	 * their physical address themselves, and their table moves their
	 * virtual addresses. */
	f.kernel = (uint8_t *)(uintptr_t)kernel;
	f.delta = hdr->bits == 32 ? kernel - hdr->out_addr : f.where.virt_delta;
	if (!move_stub)
		stub_finish(&f);

	/* The stub and its header to the top of init_size, then on from
	 * there: stub_finish as copied, with the header, the report's strings
	 * and the code all the copy's (the stub is position independent; its
	 * stack is in the scratch, which stays put). */
	uintptr_t shift = (uintptr_t)(copy_at - load);
	memcpy((void *)(uintptr_t)copy_at, startup_32, stub_bytes);
	f.hdr = (const void *)((uintptr_t)hdr + shift);
	if (f.where.off)
		f.where.off += shift;
	void (*finish_in_copy)(struct finish *) = (void (*)(struct finish *))((uintptr_t)stub_finish + shift);
	finish_in_copy(&f);
	__builtin_unreachable();
}
