/* image.h - lay out and assemble a bzpack image. */
#ifndef IMAGE_H
#define IMAGE_H

#include <stdio.h>

#include "codecs.h"
#include "kernel.h"
#include "util.h"

/* A piece the image embeds (bzpack_format.h, struct bzpack_embed), in
 * bzpack_header's order. */
enum { EMBED_INITRD, EMBED_OSREL, EMBED_UNAME, EMBED_CMDLINE, EMBED_KINDS };
struct embedded {
	const char *name;          /* its PE section: ".initrd", ... */
	const uint8_t *data;
	uint64_t size;             /* 0: not embedded */
	uint64_t offset;           /* from the protected-mode part's start */
};

/* What the image carries besides the kernel. */
struct image_extras {
	const char *cmdline;       /* the EFI entry's default command line; NULL or "" for none */
	struct buffer initrd;      /* the --initrd files, concatenated; size 0: none */
	struct buffer osrel;       /* os-release text; size 0: none */
	const char *uname;         /* the kernel's release; NULL or "" for none */
	unsigned frames;           /* the payload is a frame table and this many frames (frames_pack.h);
				      0 or 1: one stream */
};

/* Where everything goes, in the file and in memory. */
struct image_layout {
	uint64_t setup_size;       /* real-mode part: boot sector + setup, whole sectors */
	uint64_t stub_size;        /* protected-mode stub, up to _stub_end */
	uint64_t payload_size;     /* compressed */
	uint64_t prot_size;        /* stub + header + payload, 16-byte units */
	uint64_t image_end;        /* BZPACK_LOAD_ADDR + prot_size */
	uint64_t base;             /* the run base with the image at BZPACK_LOAD_ADDR: the kernel's address */
	uint64_t kernel_mem;       /* the kernel's memory from there, bss (and table) included */
	uint64_t inplace_offset;   /* from base: where a payload that must move goes (inplace.c) */
	uint64_t scratch;          /* page tables + stack */
	uint64_t workspace_size;   /* the decoders', right after the scratch: one per CPU that may
				      decode a frame at once (up to BZPACK_MAX_CPUS) */
	unsigned frames;           /* in the payload; 1: one stream */
	uint64_t stub_copy;        /* room for the stub, right after the workspace */
	uint64_t init_size;        /* from base to the last byte we touch */
	uint32_t efi_entry;        /* the stub's PE entry, from the protected-mode part; 0: none */
	uint32_t efi_handover;     /* its EFI handover entry, likewise */
	struct embedded embedded[EMBED_KINDS];
};

/* level: what the payload was compressed at (LEVEL_DEFAULT: the codec's
 *   default), recorded in the image for --info and --extract;
 * extras: the default command line of the EFI entry and the embedded
 *   data (NULL for none);
 * sbat: the .sbat text of a 64-bit image (sbat_build), NULL for bzpack's own
 *   lines only;
 * progress: say on stderr what takes a while (the in-place simulation). */
int image_build(const struct kernel *k, const struct codec *codec, int level, const struct buffer *payload,
		const struct image_extras *extras, const struct buffer *sbat, int progress, struct buffer *image,
		struct image_layout *layout, struct error *err);

void image_print_layout(FILE *out, const struct kernel *k, const struct codec *codec,
			const struct image_layout *l);

#endif
