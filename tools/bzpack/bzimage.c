/* bzimage.c - read an existing x86 bzImage; see bzimage.h.
 *
 *   file: [real-mode part: (setup_sects + 1) sectors, setup_header at 0x1f1]
 *         [protected-mode part ... payload at payload_offset ...]
 *
 * Linux (boot protocol 2.08+): the payload is the compressed vmlinux
 * followed by its decompressed size as a little-endian u32; the codec is
 * told apart by the payload's first bytes.  bzpack: a struct bzpack_header
 * sits right before the payload and says everything.
 *
 * Every offset and length taken from the file is checked against what is
 * really there before use; the Linux codecs are in linux_codecs.c.
 */
#include "bzimage.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "codecs.h"
#include "crc32c.h"
#include "decode.h"
#include "linux_codecs.h"
#include "relocs.h"

#define PROTOCOL_RELOCATABLE  0x0205  /* kernel_alignment, relocatable_kernel */
#define PROTOCOL_PAYLOAD      0x0208  /* payload_offset, payload_length */
#define PROTOCOL_PREF_ADDRESS 0x020a  /* pref_address, init_size, min_alignment */
#define PROTOCOL_MIN_ALIGNMENT PROTOCOL_PREF_ADDRESS
#define PROTOCOL_XLOADFLAGS   0x020c

#define SIZE_TRAILER          4              /* Linux: le32 decompressed size */
#define MAX_DECOMPRESSED      (2ull << 30)   /* no vmlinux is this large */
#define MAX_BZPACK_OUT        (1ull << 30)   /* kernel_from_elf's span limit */
#define DEFAULT_SETUP_SECTS   4              /* setup_sects 0 means 4 */

/* ---- the headers ----------------------------------------------------- */

int bzimage_detect(const struct buffer *f)
{
	return f->size >= SETUP_HEADER_END && memcmp(f->data, ELFMAG, SELFMAG) != 0 &&
	       le16(f->data + 0x1fe) == SETUP_BOOT_FLAG && le32(f->data + 0x202) == SETUP_HDRS_MAGIC;
}

static void copy_printable(char *dst, size_t dst_size, const uint8_t *src, size_t src_size)
{
	size_t n = 0;
	while (n < src_size && n < dst_size - 1 && src[n] >= 0x20 && src[n] < 0x7f) {
		dst[n] = (char)src[n];
		n++;
	}
	dst[n] = 0;
}

static int read_setup_header(const struct buffer *f, struct bzimage_info *info, struct error *err)
{
	struct setup_header h;

	memset(info, 0, sizeof(*info));
	if (!bzimage_detect(f))
		return fail_with(err, "not a bzImage (no 0xAA55 at 0x1FE and \"HdrS\" at 0x202)");
	memcpy(&h, f->data + SETUP_HEADER_OFFSET, sizeof(h));
	info->file_size = f->size;
	info->protocol = h.version;
	info->setup_sects = h.setup_sects ? h.setup_sects : DEFAULT_SETUP_SECTS;
	info->setup_size = (uint64_t)(info->setup_sects + 1) * SECTOR_SIZE;
	info->syssize = h.syssize;
	info->loadflags = h.loadflags;
	info->code32_start = h.code32_start;
	if (h.version < PROTOCOL_PAYLOAD)
		return fail_with(err, "bzImage boot protocol %u.%02u has no payload fields (2.08 or later needed)",
				 h.version >> 8, h.version & 0xff);
	if (f->size <= info->setup_size)
		return fail_with(err, "truncated bzImage: %zu bytes, nothing after the %llu-byte real-mode part",
				 f->size, (unsigned long long)info->setup_size);
	info->prot_size = f->size - info->setup_size;
	info->relocatable = h.relocatable_kernel;
	info->kernel_alignment = h.kernel_alignment;
	info->min_alignment = h.version >= PROTOCOL_MIN_ALIGNMENT ? h.min_alignment : 0;
	if (h.version >= PROTOCOL_XLOADFLAGS)
		info->xloadflags = h.xloadflags;
	if (h.version >= PROTOCOL_PREF_ADDRESS) {
		info->pref_address = h.pref_address;
		info->init_size = h.init_size;
	}
	if (h.kernel_version && h.kernel_version + 0x200u < info->setup_size)
		copy_printable(info->kernel_version, sizeof(info->kernel_version),
			       f->data + h.kernel_version + 0x200, info->setup_size - (h.kernel_version + 0x200u));
	info->payload_offset = h.payload_offset;
	info->payload_length = h.payload_length;
	if (h.payload_length == 0)
		return fail_with(err, "bzImage payload: payload_length is 0");
	if (h.payload_offset > info->prot_size || h.payload_length > info->prot_size - h.payload_offset)
		return fail_with(err, "bzImage payload: %u bytes at offset %u run past the end of the file "
				 "(protected-mode part: %llu bytes)", h.payload_length, h.payload_offset,
				 (unsigned long long)info->prot_size);
	return 0;
}

/* ---- bzpack's own images --------------------------------------------- */

static const uint8_t *our_header(const struct buffer *f, const struct bzimage_info *info)
{
	if (info->payload_offset < BZPACK_HEADER_SIZE)
		return NULL;
	const uint8_t *h = f->data + info->setup_size + info->payload_offset - BZPACK_HEADER_SIZE;
	return le32(h) == BZPACK_MAGIC ? h : NULL;
}

/* The same checks as the stub's, in the same order, and then some: an
 * image the stub would refuse is neither described nor repacked. */
static int read_ours(const struct buffer *f, const uint8_t *raw, const uint8_t *payload,
		     struct buffer *out, struct bzimage_info *info, struct error *err)
{
	static struct crc32c_table crc;
	struct bzpack_header *h = &info->header;
	struct setup_header sh;

	crc32c_init(&crc, 0);
	memcpy(h, raw, sizeof(*h));
	memcpy(&sh, f->data + SETUP_HEADER_OFFSET, sizeof(sh));
	info->ours = 1;
	info->stub_size = info->payload_offset - BZPACK_HEADER_SIZE;
	/* The version says where the CRCs are, so it comes first. */
	if (h->version != BZPACK_FORMAT_VERSION || h->header_size != BZPACK_HEADER_SIZE)
		return fail_with(err, "bzpack header: format %u (%u bytes), but this bzpack reads format %u "
				 "(%u bytes) only%s", h->version, h->header_size, BZPACK_FORMAT_VERSION,
				 BZPACK_HEADER_SIZE, h->version < BZPACK_FORMAT_VERSION ?
				 ": pack the original kernel again" : "");
	if (h->header_crc != crc32c_update(&crc, 0, h, offsetof(struct bzpack_header, header_crc)))
		return fail_with(err, "bzpack header: checksum mismatch");
	if (h->setup_crc != setup_header_crc(&crc, &sh))
		return fail_with(err, "setup header fields changed since packing (CRC32C)");
	info->codec = bzpack_codec_name(h->codec);
	if (!info->codec)
		return fail_with(err, "bzpack header: unknown codec %u", h->codec);
	if (h->bits != 32 && h->bits != 64)
		return fail_with(err, "bzpack header: bits is %u", h->bits);
	if (h->payload_size != info->payload_length)
		return fail_with(err, "bzpack header: payload of %u bytes, setup header says %u",
				 h->payload_size, info->payload_length);
	if (h->out_size > MAX_BZPACK_OUT)
		return fail_with(err, "bzpack header: absurd kernel size %u", h->out_size);
	if (h->relocs_size > h->out_size ||
	    (h->relocs_size && (h->out_align < BZPACK_LOAD_ALIGN || (h->out_align & (h->out_align - 1)))))
		return fail_with(err, "bzpack header: relocation table of %u bytes, kernel alignment 0x%x",
				 h->relocs_size, h->out_align);
	if (h->entry < h->out_addr || h->entry >= (uint64_t)h->out_addr + h->out_size - h->relocs_size)
		return fail_with(err, "bzpack header: entry 0x%llx outside the kernel at 0x%x-0x%llx",
				 (unsigned long long)h->entry, h->out_addr,
				 (unsigned long long)h->out_addr + h->out_size);
	info->compressed_size = h->payload_size;
	info->decompressed_size = h->out_size;
	if (!out)
		return 0;

	if (h->payload_crc != crc32c_update(&crc, 0, payload, h->payload_size))
		return fail_with(err, "bzpack payload: checksum mismatch");
	out->size = h->out_size;
	out->data = malloc(out->size ? out->size : 1);
	if (!out->data)
		return fail_with(err, "out of memory for a %zu-byte kernel", out->size);
	const struct codec *codec = codec_by_id(h->codec);
	if (!codec) {
		free(out->data);
		out->data = NULL;
		return fail_with(err, "bzpack payload: no host decoder for codec %s", info->codec);
	}
	enum decode_status s = codec_decode(codec, payload, h->payload_size, out->data, out->size);
	if (s != DECODE_OK) {
		free(out->data);
		out->data = NULL;
		return fail_with(err, "bzpack payload: %s data corrupt (%s)", info->codec, decode_status_name(s));
	}
	info->decompressed = 1;
	return 0;
}

/* ---- Linux's ---------------------------------------------------------- */

static void peek_elf(const struct buffer *b, struct bzimage_info *info)
{
	const uint8_t *d = b->data;

	if (b->size < EI_NIDENT || memcmp(d, ELFMAG, SELFMAG) != 0 || d[EI_DATA] != ELFDATA2LSB)
		return;
	if (d[EI_CLASS] == ELFCLASS64 && b->size >= sizeof(Elf64_Ehdr)) {
		Elf64_Ehdr eh;
		memcpy(&eh, d, sizeof(eh));
		if (eh.e_machine == EM_X86_64)
			info->elf_bits = 64, info->elf_entry = eh.e_entry;
	} else if (d[EI_CLASS] == ELFCLASS32 && b->size >= sizeof(Elf32_Ehdr)) {
		Elf32_Ehdr eh;
		memcpy(&eh, d, sizeof(eh));
		if (eh.e_machine == EM_386)
			info->elf_bits = 32, info->elf_entry = eh.e_entry;
	}
}

static int read_linux(const uint8_t *payload, struct buffer *out, struct bzimage_info *info,
		      struct error *err)
{
	size_t len = info->payload_length;

	if (len <= SIZE_TRAILER)
		return fail_with(err, "bzImage payload: only %zu bytes", len);
	uint64_t expected = le32(payload + len - SIZE_TRAILER);
	const struct linux_codec *c = linux_codec_find(payload, len - SIZE_TRAILER, expected);
	if (!c)
		return fail_with(err, "bzImage payload: unknown compression (magic 0x%02x%02x%02x%02x)",
				 payload[0], payload[1], payload[2], payload[3]);
	info->codec = c->name;
	info->compressed_size = len - SIZE_TRAILER;
	info->decompressed_size = expected;
	if (expected == 0 || expected > MAX_DECOMPRESSED)
		return fail_with(err, "bzImage payload: implausible decompressed size %llu (its last 4 bytes)",
				 (unsigned long long)expected);
	if (!out)
		return 0;

	out->size = (size_t)expected;
	out->data = malloc(out->size);
	if (!out->data)
		return fail_with(err, "out of memory for %zu decompressed bytes", out->size);
	size_t produced = 0;
	int r = c->unpack(payload, len - SIZE_TRAILER, out->data, out->size, &produced, err);
	if (r == 0 && produced != out->size)
		r = fail_with(err, "bzImage payload: %s data decompressed to %zu bytes, but its size trailer says %zu",
			      c->name, produced, out->size);
	if (r < 0) {
		free(out->data);
		out->data = NULL;
		return -1;
	}
	info->decompressed = 1;
	peek_elf(out, info);
	return 0;
}

int bzimage_extract(const struct buffer *f, struct buffer *out, struct bzimage_info *info,
		    struct error *err)
{
	if (out)
		*out = (struct buffer){ 0, 0 };
	if (read_setup_header(f, info, err) < 0)
		return -1;
	const uint8_t *payload = f->data + info->setup_size + info->payload_offset;
	const uint8_t *ours = our_header(f, info);
	if (ours)
		return read_ours(f, ours, payload, out, info, err);
	return read_linux(payload, out, info, err);
}

/* "6.1.0 [bzpack 0.1, lz4, 64-bit]" -> "6.1.0"; "bzpack 0.1, ..." -> "". */
static void our_kernel_version(const char *s, char *dst, size_t dst_size)
{
	const char *tag = strstr(s, " [bzpack ");
	size_t n = tag ? (size_t)(tag - s) : strncmp(s, "bzpack ", 7) == 0 ? 0 : strlen(s);
	if (n > dst_size - 1)
		n = dst_size - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
}

int bzimage_kernel(const struct buffer *f, int want_bits, struct kernel *k,
		   struct bzimage_info *info, struct error *err)
{
	struct buffer out;

	memset(k, 0, sizeof(*k));
	if (bzimage_extract(f, &out, info, err) < 0)
		return -1;
	if (!info->ours) {
		struct error e;
		if (out.size < SELFMAG || memcmp(out.data, ELFMAG, SELFMAG) != 0) {
			free(out.data);
			return fail_with(err, "bzImage payload: the decompressed %s data is not an ELF vmlinux",
					 info->codec);
		}
		/* A relocatable Linux carries its relocation table after the
		 * ELF (arch/x86/boot/compressed/Makefile: vmlinux.bin.all);
		 * the kernel runs aligned to min_alignment at least. */
		int r = kernel_from_elf(&out, want_bits, k, &e);
		if (r == 0 && info->relocatable)
			r = relocs_from_payload(k, &out, (uint64_t)1 << info->min_alignment, &e);
		free(out.data);
		if (r < 0)
			return fail_with(err, "vmlinux in the bzImage: %s", e.msg);
		/* Linux's own short form beats the banner found in the vmlinux. */
		if (info->kernel_version[0])
			snprintf(k->version, sizeof(k->version), "%s", info->kernel_version);
		return 0;
	}

	const struct bzpack_header *h = &info->header;
	if (want_bits && want_bits != h->bits) {
		free(out.data);
		return fail_with(err, "bzpack image of a %u-bit kernel, but a %d-bit kernel was asked for",
				 h->bits, want_bits);
	}
	k->bits = h->bits;
	k->entry = h->entry;
	k->addr = h->out_addr;
	k->blob = out;
	k->relocs_size = h->relocs_size;
	k->virt_addr = h->virt_addr;
	k->align = h->out_align;
	k->zero_size = h->zero_size;
	k->segments = 1;        /* the segments were merged into one span when packed */
	our_kernel_version(info->kernel_version, k->version, sizeof(k->version));
	return 0;
}

/* ---- --info ------------------------------------------------------------ */

#define ROW "%-15s "

void bzimage_print_info(FILE *o, const struct bzimage_info *i)
{
	if (i->ours)
		fprintf(o, ROW "bzpack image (header format %u)\n", "format:", i->header.version);
	else
		fprintf(o, ROW "Linux bzImage\n", "format:");
	fprintf(o, ROW "%u.%02u\n", "boot protocol:", i->protocol >> 8, i->protocol & 0xff);
	fprintf(o, ROW "%s\n", "kernel_version:", i->kernel_version[0] ? i->kernel_version : "(none)");
	fprintf(o, ROW "%llu bytes (setup_sects %u)\n", "real-mode:", (unsigned long long)i->setup_size,
		i->setup_sects);
	fprintf(o, ROW "%llu bytes (syssize %u x 16 = %llu)\n", "protected-mode:",
		(unsigned long long)i->prot_size, i->syssize, (unsigned long long)i->syssize * 16);
	fprintf(o, ROW "code32_start 0x%x", "load address:", i->code32_start);
	if (i->protocol >= PROTOCOL_PREF_ADDRESS)
		fprintf(o, ", pref_address 0x%llx", (unsigned long long)i->pref_address);
	if (i->relocatable)
		fprintf(o, ", relocatable (alignment 0x%x)\n", i->kernel_alignment);
	else
		fprintf(o, ", not relocatable\n");
	fprintf(o, ROW "0x%02x%s", "loadflags:", i->loadflags, i->loadflags & LOADFLAG_LOADED_HIGH ?
		" (LOADED_HIGH)" : "");
	if (i->protocol >= PROTOCOL_XLOADFLAGS)
		fprintf(o, ", xloadflags 0x%x%s%s", i->xloadflags,
			i->xloadflags & XLF_KERNEL_64 ? " KERNEL_64" : "",
			i->xloadflags & XLF_CAN_BE_LOADED_ABOVE_4G ? " CAN_BE_LOADED_ABOVE_4G" : "");
	fputc('\n', o);
	if (i->protocol >= PROTOCOL_PREF_ADDRESS)
		fprintf(o, ROW "0x%x (%u bytes)\n", "init_size:", i->init_size, i->init_size);
	/* (counted from where the kernel runs: boot.rst's runtime start) */
	fprintf(o, ROW "offset 0x%x in the protected-mode part, %u bytes\n", "payload:",
		i->payload_offset, i->payload_length);
	fprintf(o, ROW "%s\n", "codec:", i->codec ? i->codec : "unknown");
	fprintf(o, ROW "%llu bytes\n", "compressed:", (unsigned long long)i->compressed_size);
	fprintf(o, ROW "%llu bytes (ratio %.2f%%)\n", "decompressed:",
		(unsigned long long)i->decompressed_size,
		i->decompressed_size ? 100.0 * (double)i->compressed_size / (double)i->decompressed_size : 0.0);

	if (i->ours) {
		const struct bzpack_header *h = &i->header;
		fprintf(o, ROW "0x%llx (%u-bit, from the bzpack header)\n", "entry:",
			(unsigned long long)h->entry, h->bits);
		/* The image (stub) is relocatable; the kernel it carries moves
		 * with it only when the image has its relocation table. */
		uint32_t size = h->out_size - h->relocs_size;
		fprintf(o, ROW "0x%x-0x%llx (%u bytes + %u zeroed), ", "kernel:", h->out_addr,
			(unsigned long long)h->out_addr + size + h->zero_size, size, h->zero_size);
		if (h->relocs_size)
			fprintf(o, "relocatable: runs at max(load address, 0x%x) aligned to 0x%x, "
				"or randomised\n", h->out_addr, h->out_align);
		else
			fprintf(o, "fixed: runs at its link address\n");
		fprintf(o, ROW "from where the kernel runs: payload moved to +0x%x when the image is "
			"in the way (margin %lld bytes), scratch at +0x%x, workspace %u bytes\n", "in place:",
			h->inplace_offset, (long long)h->inplace_offset + h->payload_size - h->out_size,
			h->scratch_offset, h->workspace_size);
		fprintf(o, ROW, "relocations:");
		if (h->relocs_size)
			fprintf(o, "%u bytes, CRC32C 0x%08x, virtual address 0x%llx\n", h->relocs_size,
				h->relocs_crc, (unsigned long long)h->virt_addr);
		else
			fprintf(o, "none: the kernel cannot move\n");
		fprintf(o, ROW "%llu bytes (setup %llu + stub %llu + header %d)\n", "overhead:",
			(unsigned long long)(i->setup_size + i->stub_size + BZPACK_HEADER_SIZE),
			(unsigned long long)i->setup_size, (unsigned long long)i->stub_size, BZPACK_HEADER_SIZE);
		/* read_ours refused the image unless the two header CRCs hold;
		 * the payload's is checked when it is decompressed. */
		fprintf(o, ROW "CRC32C bzpack header 0x%08x ok, setup header fields 0x%08x ok, "
			"payload 0x%08x %s\n", "checksums:", h->header_crc, h->setup_crc, h->payload_crc,
			i->decompressed ? "ok" : "not checked");
	} else if (i->decompressed && i->elf_bits) {
		fprintf(o, ROW "0x%llx (vmlinux ELF%d e_entry)\n", "entry:", (unsigned long long)i->elf_entry,
			i->elf_bits);
	} else if (i->decompressed) {
		fprintf(o, ROW "unknown: the payload is not an x86 ELF file\n", "entry:");
	}
}
