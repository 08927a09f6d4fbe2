/* stub.h - what the stub's C files share. */
#ifndef STUB_H
#define STUB_H

#include <stddef.h>
#include <stdint.h>

#include "bzpack_format.h"
#include "decode.h"

/* The header flags this stub carries the code for, and so accepts, and
 * requires: 0, or BZPACK_FLAG_X86 in the -bcj stubs, which link
 * stub/bcj.c, BZPACK_FLAG_FRAMES in the -frames stubs, which link
 * stub/frames.c, or both (stub/stub.mk builds main.c with
 * -DSTUB_FLAGS=...).  The other stubs have not a byte of either. */
#ifndef STUB_FLAGS
#define STUB_FLAGS 0
#endif
/* Flags this stub accepts besides STUB_FLAGS: the -initrd stubs take
 * INITRD with or without INITRD_ALWAYS. */
#define STUB_FLAGS_OPTIONAL (STUB_FLAGS & BZPACK_FLAG_INITRD ? BZPACK_FLAG_INITRD_ALWAYS : 0u)
/* The x86 un-filter over the decoded kernel (stub/bcj.c, -bcj stubs only). */
void stub_unfilter_x86(uint8_t *kernel, size_t size);

/* The one codec this stub was built with (stub/codec.c). */
struct stub_codec {
	uint8_t id;             /* enum bzpack_codec */
	uint32_t workspace_size; /* what its decoder needs (decode/codecs.def) */
};
extern const struct stub_codec stub_codec;
/* Its decoder, called directly: a function pointer in data would be an
 * absolute address, which the position-independent stub may not hold. */
enum decode_status stub_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
			       void *workspace);

/* main.c: the payload's, a frame's or the relocation table's checksum:
 * the CRC32C with the crc32 instruction, else the XXH3 (whichever this
 * CPU computes cheaper); 0 if it matches, else "(CRC32C)" or "(XXH3)" for
 * the error line.  *check names the one it ran, for the report line. */
const char *stub_checksum_bad(const struct crc32c_table *crc, const uint8_t *p, uint32_t len,
			      uint32_t want_crc, uint64_t want_xxh3, const char **check);

/* frames.c: a framed payload (BZPACK_FLAG_FRAMES), decoded by as many
 * CPUs as call frames_work().  The boot CPU fills a job, then calls
 * frames_run(), which wakes the other CPUs (stub/smp.h) when parallel is
 * set; each calls frames_work(job, its cpu number, 1 .. workspaces - 1)
 * and the boot CPU frames_work(job, 0), and it waits for every frame.  In
 * place (parallel 0) the boot CPU decodes alone: frames must be decoded
 * one after the other in table order (bzpack_format.h, "the frame
 * table"). */
#define FRAME_PENDING        0  /* status[]: not decoded (yet) */
#define FRAME_OK             1
#define FRAME_BAD_CHECKSUM   2
#define FRAME_DECODE_FAILED  3  /* + enum decode_status */
struct frames_job {
	/* The table's entries, checked (checksum, tiling) and copied out of
	 * the payload: in place, the first frames' output overwrites it. */
	struct bzpack_frame frame[BZPACK_FRAMES_MAX];
	unsigned count;
	const uint8_t *payload;
	uint8_t *out;
	const struct crc32c_table *crc; /* read only: shared by every CPU */
	uint8_t *workspace;             /* CPU n's decoder workspace: workspace + n * workspace_stride */
	uint32_t workspace_stride;      /* 0: the decoder needs none, any CPU may decode */
	unsigned workspaces;            /* how many the memory plan holds */
	int parallel;                   /* other CPUs may join; 0 in place */
	unsigned next;                  /* the queue: the next frame to take (atomic) */
	unsigned cpus;                  /* frames_run(): how many CPUs ran frames_work() */
	const char *cpus_why;           /* when 1: why no more (nosmp, in-place, ...) */
	uint8_t status[BZPACK_FRAMES_MAX];      /* FRAME_*, written last by the CPU that took it */
	uint64_t verify_cycles[BZPACK_FRAMES_MAX], decode_cycles[BZPACK_FRAMES_MAX];
};
void frames_work(struct frames_job *job, unsigned cpu);
/* NULL when every frame verified and decoded, else why not (and *detail).
 * bp: the loader's (the command line's CPU options; the BIOS path's
 * trampoline page becomes reserved in its E820 map); bs: the UEFI path's
 * boot services, whose MP services run the other CPUs, NULL on the BIOS
 * path (which wakes them itself). */
struct efi_boot_services;
const char *frames_run(struct frames_job *job, struct boot_params *bp, struct efi_boot_services *bs,
		       const char **detail);

/* main.c: called by head_32.asm / head_64.asm; ends in enter_kernel. */
__attribute__((noreturn)) void stub_main(struct boot_params *bp, uint64_t t_start);
/* head_32.asm / head_64.asm: the boot protocol's hand-off to the kernel. */
__attribute__((noreturn)) void enter_kernel(uintptr_t entry, struct boot_params *bp);

/* What main.c's boot story shares with the EFI entry (efi.c).  Failures
 * come back as a reason (and a detail), for each path to report its way. */
struct crc32c_table;
struct stub_times {
	uint64_t start;         /* rdtsc at the first instruction we know of */
	uint64_t move, verify, decompress; /* cycles of each phase */
	const char *check;      /* the payload checksum the verify ran: crc32c-hw or xxh3 */
	uint64_t unfilter;      /* the x86 un-filter's, in -bcj stubs */
	const struct initrd_unpack *unpack; /* -initrd stubs: what became of the initrd; NULL: not tried */
	unsigned frames, cpus;  /* frames in the payload (1: one stream), CPUs that decoded them */
	const char *cpus_why;   /* -frames stubs, cpus 1: why no more */
	/* -frames stubs: for the other CPUs frames_run() wakes.  bp: the
	 * loader's; bs: the UEFI path's boot services, NULL but there. */
	struct boot_params *bp;
	struct efi_boot_services *bs;
};
/* The header's own checks, and the packer's setup_header fields in bp. */
const char *stub_check_header(const struct bzpack_header *hdr, const struct boot_params *bp,
			      const struct crc32c_table *crc);
/* Verify the payload's checksum, decompress it to out (where the kernel
 * runs, or where the EFI entry stages it; in_place: the payload was moved
 * behind the output's end, and its frames decode in order), check its relocation table and
 * apply it moved by delta (nothing when 0), clear the bss after it; fills
 * t->verify, t->check and t->decompress; a framed payload's frames_run()
 * wakes the other CPUs through t->bp and t->bs. */
const char *stub_unpack(const struct bzpack_header *hdr, const struct crc32c_table *crc,
			const uint8_t *payload, uint8_t *out, uint64_t delta, void *workspace,
			int in_place, struct stub_times *t, const char **detail);
struct kaslr;
/* "bzpack: codec=... cycles=..." on COM1; where: where the kernel went;
 * initrds: INITRD_EMBEDDED | INITRD_LOADER, which the kernel got (at
 * bp's ramdisk_image). */
void stub_report(const struct bzpack_header *hdr, const struct boot_params *bp, const struct kaslr *where,
		 const struct stub_times *t, unsigned initrds);

/* Prints "bzpack: error: <reason><detail>" on COM1 and halts. */
__attribute__((noreturn)) void fail(const char *reason, const char *detail);

/* serial.c: COM1. */
void serial_init(void);
void serial_puts(const char *s);
void serial_put_u64(uint64_t v);
void serial_put_hex(uint64_t v);

/* memory.c: where the stub may write, judged from boot_params. */
struct mem_range {
	uint64_t start, end;    /* [start, end) */
};
const char *memory_check_writable(const struct boot_params *bp, struct mem_range r);
/* Lowest address >= from, a multiple of align (a power of two), with size
 * writable bytes clear of avoid[]; 0 if none.  Tried: from, and the end of
 * each loader region and of each avoid[] range. */
#define MOVE_ALIGN 4096
uint64_t memory_find_free(const struct boot_params *bp, uint64_t from, uint64_t size, uint64_t align,
			  const struct mem_range *avoid, int n_avoid);
/* The loader's command line and its length (up to cmdline_size, its NUL
 * not counted); length 0 if there is none or it is out of reach. */
const char *memory_cmdline(const struct boot_params *bp, uint64_t *len);

/* kaslr.c: where a kernel with a relocation table runs, randomised. */
struct kaslr {
	uint64_t phys;          /* where the kernel runs */
	uint64_t virt_delta;    /* x86_64: added to its virtual addresses; 0 on i386 */
	const char *off;        /* NULL when randomised, else why not */
};
void kaslr_choose(struct boot_params *bp, const struct bzpack_header *hdr, uint64_t planned,
		  uint64_t size, const struct mem_range *avoid, int n_avoid, struct kaslr *k);
/* The pieces kaslr_choose is made of, which the EFI entry uses on the
 * firmware's memory map: why randomising is off (NULL: it is on); the
 * entropy (a SETUP_RNG_SEED node in bp's setup_data is mixed in); the
 * slots of an E820-style table (counted with pick UINT32_MAX, else the
 * address of slot pick with *found set); the x86_64 virtual offset. */
#define SETUP_RNG_SEED          9               /* setup_data type: a seed from the loader */
#define PHYS_LIMIT_32           (512ull << 20)  /* i386: KERNEL_IMAGE_SIZE */
#define KASLR_PHYS_LIMIT_64     (1ull << 32)    /* what the 64-bit heads map for sure */
static inline uint64_t kaslr_phys_limit(const struct bzpack_header *hdr)
{
	return hdr->bits == 64 ? KASLR_PHYS_LIMIT_64 : PHYS_LIMIT_32;
}
const char *kaslr_off_reason(const struct boot_params *bp, const struct bzpack_header *hdr, uint64_t size);
uint64_t kaslr_entropy(const struct boot_params *bp);
uint64_t kaslr_ram_slots(const struct e820_entry *table, unsigned entries, uint64_t min, uint64_t limit,
			 uint64_t size, int shift, uint32_t pick, int *found);
uint64_t kaslr_virt_delta(const struct bzpack_header *hdr, uint64_t size, uint64_t r);
/* The loader's setup_data list lies in RAM; returns why not, or NULL. */
const char *memory_check_setup_data(const struct boot_params *bp);
/* Copies setup_data nodes that overlap in_use[] to free memory and
 * relinks them; returns why it could not, or NULL. */
const char *memory_rescue_setup_data(struct boot_params *bp, const struct mem_range *in_use, int n);

/* initrd.c: the embedded initrd and the loader's, handed on as one. */
#define INITRD_EMBEDDED 1
#define INITRD_LOADER   2
#define INITRD_AVOID_MAX 4
struct initrd_plan {
	unsigned used;          /* INITRD_EMBEDDED | INITRD_LOADER */
	uint64_t to, total;     /* the region the kernel gets */
	uint64_t from, size;    /* the embedded initrd as loaded */
	uint64_t loader_from, loader_size; /* the loader's, to copy after it (from 0: stays) */
};
struct crc32c_table;
/* Where the embedded initrd is (image: the protected-mode part as loaded,
 * image_size bytes of it) and whether its CRC32C holds; NULL if it does or
 * there is none. */
const char *initrd_check_embedded(const struct bzpack_header *hdr, const uint8_t *image, uint64_t image_size,
				  const struct crc32c_table *crc);
/* Where the kernel's initrd goes (initrd.c says how it chooses), clear of
 * avoid[] (at most INITRD_AVOID_MAX); image: all the image as loaded;
 * NULL or why not. */
const char *initrd_plan(const struct boot_params *bp, const struct bzpack_header *hdr, uint64_t load,
			struct mem_range image, const struct mem_range *avoid, int n_avoid, struct initrd_plan *p);
/* Carry the plan out and point bp's ramdisk fields at the result. */
void initrd_hand_over(struct boot_params *bp, const struct initrd_plan *p);

/* initrd_unpack.c (-initrd stubs only): the initrd the kernel gets,
 * decompressed before it runs. */
struct initrd_unpack {
	const char *why;        /* NULL: unpacked (or to be); else why not */
	const char *format;     /* the format of the piece why is about; NULL: none */
	unsigned formats;       /* the compressed formats unpacked, a bit each (the report's names) */
	uint64_t in_at, in_size; /* the initrd as handed over; in_size 0: there is none */
	uint64_t need;          /* the result's bytes as far as sizing could tell */
	int known;              /* need is exact (else the rest is sized by decoding it) */
	int rule_bound;         /* room is what auto's memory rule allows */
	uint64_t out_at, room;  /* where the result goes, and the bytes kept for it */
	uint64_t out_size;      /* the result's bytes, once unpacked */
	uint64_t cycles;        /* the unpacking's */
};
#define INITRD_UNPACK_AUTO_WHY "auto: RAM below init_size + initrd + 4 x unpacked"
/* The decoders' workspace: the largest of the initrd formats' decoders
 * (stub/stub.mk's INITRD_CODECS). */
#define INITRD_UNPACK_MAX2(a, b) ((a) > (b) ? (a) : (b))
#define INITRD_UNPACK_WORKSPACE                                                                        \
	INITRD_UNPACK_MAX2(INITRD_UNPACK_MAX2(DECODE_WORKSPACE_gzip, DECODE_WORKSPACE_xz), DECODE_WORKSPACE_zstd)
/* Walks the initrd bp points at, sizes the result and applies the
 * memory rule against ram, the RAM the kernel will have; u->why says why
 * not.  What is left to plan is u->out_at: free RAM for u->room bytes,
 * below initrd_unpack_limit(); where there is none, and the size is not
 * known exactly, initrd_unpack_shrink() halves the room while it still
 * holds what is known (0: it cannot). */
void initrd_unpack_size(const struct boot_params *bp, const struct bzpack_header *hdr, uint64_t ram,
			struct initrd_unpack *u);
uint64_t initrd_unpack_limit(const struct boot_params *bp);
int initrd_unpack_shrink(struct initrd_unpack *u);
/* The BIOS path's: initrd_unpack_size() against E820's RAM, the result
 * in free RAM clear of avoid[].  Reads memory.c: before any move. */
void initrd_unpack_plan(const struct boot_params *bp, const struct bzpack_header *hdr, const struct mem_range *avoid,
			int n_avoid, struct initrd_unpack *u);
/* Carries the plan out with the workspace (the kernel's decoder is done
 * with it) and points bp at the result, or leaves bp alone and says why. */
void initrd_unpack_run(struct boot_params *bp, struct initrd_unpack *u, void *workspace);
/* " unpacked=..." on the report line. */
void initrd_unpack_report(const struct initrd_unpack *u);

static inline int ranges_overlap(struct mem_range a, struct mem_range b)
{
	return a.start < b.end && b.start < a.end;
}

static inline uint64_t read_tsc(void)
{
	return __builtin_ia32_rdtsc();
}

#endif
