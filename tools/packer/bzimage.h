/* bzimage.h - read an existing x86 bzImage: Linux's own (whatever codec its
 * payload uses) or one bzpack wrote, so that it can be described
 * (bzpack --info) or unpacked and packed again. */
#ifndef BZIMAGE_H
#define BZIMAGE_H

#include <stdio.h>

#include "bzpack_format.h"
#include "kernel.h"
#include "util.h"

#define BZIMAGE_VERSION_MAX 256
#define BZIMAGE_CHECKS_MAX  16

struct info_out;

/* The pieces an image embeds, in bzpack_header's order: .initrd, .osrel,
 * .uname, .cmdline. */
#define BZIMAGE_EMBEDS 4
#define BZIMAGE_EMBED_INITRD 0

struct bzimage_info {
	int ours;                       /* a bzpack image: bzpack_header found before the payload */
	size_t file_size;
	uint16_t protocol;              /* setup_header.version, e.g. 0x020f */
	char kernel_version[BZIMAGE_VERSION_MAX]; /* "" if none */
	unsigned setup_sects;           /* as a loader uses it: 0 read as 4 */
	uint64_t setup_size;            /* real-mode part: (setup_sects + 1) * 512 */
	uint64_t prot_size;             /* protected-mode part, as present in the file */
	uint32_t syssize;               /* what the header claims, 16-byte units */
	uint8_t loadflags;
	uint16_t xloadflags;            /* 0 before protocol 2.12 */
	uint32_t code32_start;
	uint64_t pref_address;          /* 0 before protocol 2.10 */
	int relocatable;                /* relocatable_kernel (2.05+) */
	uint32_t kernel_alignment;      /* 2.05+ */
	uint8_t min_alignment;          /* 2.10+, log2 */
	uint32_t init_size;             /* 0 before protocol 2.10 */
	uint32_t payload_offset;        /* from the start of the protected-mode part */
	uint32_t payload_length;

	const char *codec;              /* "gzip", "xz", ..., "lz4" (ours: bzpack_codec_name) */
	uint64_t compressed_size;       /* Linux: the payload less its size trailer */
	uint64_t decompressed_size;     /* Linux: the size trailer; ours: out_size */

	/* ours only */
	struct bzpack_header header;
	uint64_t stub_size;             /* protected-mode stub before the header */
	int elf_read;                   /* the ELF record below was read and checked */
	struct kernel_elf elf;          /* the ELF record (bzpack_elf.h) */
	int level;                      /* the level the payload was packed at */
	int embed_ok[BZIMAGE_EMBEDS];   /* each embedded piece in place and its CRC held */
	char embed_text[BZIMAGE_EMBEDS][BZIMAGE_VERSION_MAX]; /* .uname; os-release's PRETTY_NAME */
	unsigned frames;                /* BZPACK_FLAG_FRAMES: the table's count, once it checked; else 1 */
	struct bzpack_frame frame[BZPACK_FRAMES_MAX]; /* its entries */

	/* Linux only, once decompressed */
	int decompressed;
	int elf_bits;                   /* 32 or 64 if the payload is an x86 ELF, else 0 */
	uint64_t elf_entry;

	/* How far reading got, for --info on a damaged image: every field
	 * up to there is printed, then every check that failed. */
	int header_read;                /* the setup_header fields above */
	int payload_found;              /* payload_offset/length lie in the file */
	int ours_readable;              /* ours, and its header in the format we read */
	unsigned nfailed;
	char failed[BZIMAGE_CHECKS_MAX][ERR_MAX];
	struct setup_header setup;      /* the file's setup_header, as is */
};

/* 1 if the file carries the boot protocol's signature (0xAA55 at 0x1FE,
 * "HdrS" at 0x202) and is not an ELF file, else 0. */
int bzimage_detect(const struct buffer *file);

/* Read the headers into info and find the payload.  With out != NULL also
 * decompress the payload into a new buffer: for a Linux bzImage the
 * vmlinux (an ELF file, possibly followed by relocation data), for a bzpack
 * image the kernel's memory image starting at header.out_addr.  On -1, err
 * holds the first check that failed and info every one (info->failed),
 * with every field read before. */
int bzimage_extract(const struct buffer *file, struct buffer *out, struct bzimage_info *info,
		    struct error *err);

/* The kernel inside a bzImage, ready to be packed again.  want_bits as for
 * kernel_from_elf. */
int bzimage_kernel(const struct buffer *file, int want_bits, struct kernel *k,
		   struct bzimage_info *info, struct error *err);

/* Our header's record of embedded piece `which` (BZIMAGE_EMBEDS), and its
 * PE section's name. */
const struct bzpack_embed *bzimage_embed(const struct bzimage_info *info, int which);
const char *bzimage_embed_name(int which);

/* --info's rows for what info holds (as far as it was read). */
void bzimage_print_info(struct info_out *out, const struct bzimage_info *info);

#endif
