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
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "codecs.h"
#include "crc32c.h"
#include "xxh3.h"
#include "decode.h"
#include "frames.h"
#include "info_out.h"
#include "linux_codecs.h"
#include "relocs.h"
#include "x86_filter.h"

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

/* A check that failed: kept in info (the first also in err); -1. */
static int __attribute__((format(printf, 3, 4))) failed(struct bzimage_info *info, struct error *err,
							const char *fmt, ...)
{
	va_list ap;
	char msg[ERR_MAX];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!info->nfailed)
		snprintf(err->msg, sizeof(err->msg), "%s", msg);
	if (info->nfailed < BZIMAGE_CHECKS_MAX)
		memcpy(info->failed[info->nfailed++], msg, sizeof(msg));
	return -1;
}

/* Every field first, then the checks: a damaged header is still described. */
static int read_setup_header(const struct buffer *f, struct bzimage_info *info, struct error *err)
{
	struct setup_header h;

	memset(info, 0, sizeof(*info));
	if (!bzimage_detect(f))
		return failed(info, err, "not a bzImage (no 0xAA55 at 0x1FE and \"HdrS\" at 0x202)");
	memcpy(&h, f->data + SETUP_HEADER_OFFSET, sizeof(h));
	info->setup = h;
	info->header_read = 1;
	info->file_size = f->size;
	info->protocol = h.version;
	info->setup_sects = h.setup_sects ? h.setup_sects : DEFAULT_SETUP_SECTS;
	info->setup_size = (uint64_t)(info->setup_sects + 1) * SECTOR_SIZE;
	info->syssize = h.syssize;
	info->loadflags = h.loadflags;
	info->code32_start = h.code32_start;
	info->prot_size = f->size > info->setup_size ? f->size - info->setup_size : 0;
	if (h.version >= PROTOCOL_RELOCATABLE) {
		info->relocatable = h.relocatable_kernel;
		info->kernel_alignment = h.kernel_alignment;
	}
	info->min_alignment = h.version >= PROTOCOL_MIN_ALIGNMENT ? h.min_alignment : 0;
	if (h.version >= PROTOCOL_XLOADFLAGS)
		info->xloadflags = h.xloadflags;
	if (h.version >= PROTOCOL_PREF_ADDRESS) {
		info->pref_address = h.pref_address;
		info->init_size = h.init_size;
	}
	if (h.kernel_version && h.kernel_version + 0x200u < info->setup_size &&
	    h.kernel_version + 0x200u < f->size)
		copy_printable(info->kernel_version, sizeof(info->kernel_version),
			       f->data + h.kernel_version + 0x200, f->size - (h.kernel_version + 0x200u));
	if (h.version < PROTOCOL_PAYLOAD)
		return failed(info, err, "bzImage boot protocol %u.%02u has no payload fields (2.08 or later needed)",
			      h.version >> 8, h.version & 0xff);
	info->payload_offset = h.payload_offset;
	info->payload_length = h.payload_length;
	if (f->size <= info->setup_size)
		return failed(info, err, "truncated bzImage: %zu bytes, nothing after the %llu-byte real-mode part",
			      f->size, (unsigned long long)info->setup_size);
	if (h.payload_length == 0)
		return failed(info, err, "bzImage payload: payload_length is 0");
	if (h.payload_offset > info->prot_size || h.payload_length > info->prot_size - h.payload_offset)
		return failed(info, err, "bzImage payload: %u bytes at offset %u run past the end of the file "
			      "(protected-mode part: %llu bytes)", h.payload_length, h.payload_offset,
			      (unsigned long long)info->prot_size);
	info->payload_found = 1;
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

/* A second line, not the CRC32C one: --info tells which check failed. */
#define XXH3_MISMATCH "bzpack payload: checksum mismatch (XXH3)"

/* The ELF record after the payload (bzpack_elf.h), which the stub never
 * reads: its CRC and that it describes this kernel's header. */
static void read_elf_record(const uint8_t *raw, uint64_t room, struct bzimage_info *info, struct error *err,
			    const struct crc32c_table *crc)
{
	const struct bzpack_header *h = &info->header;
	struct bzpack_elf_record r;

	if (h->elf_size < BZPACK_ELF_RECORD_SIZE || h->elf_size > room ||
	    (h->elf_size - BZPACK_ELF_RECORD_SIZE) % sizeof(struct bzpack_elf_phdr)) {
		failed(info, err, "ELF record: %u bytes after the payload, %llu there", h->elf_size,
		       (unsigned long long)room);
		return;
	}
	if (crc32c_update(crc, 0, raw, h->elf_size) != h->elf_crc) {
		failed(info, err, "ELF record: checksum mismatch");
		return;
	}
	memcpy(&r, raw, sizeof(r));
	uint64_t phnum = (h->elf_size - BZPACK_ELF_RECORD_SIZE) / sizeof(struct bzpack_elf_phdr);
	int bits = r.elf_class == ELFCLASS64 ? 64 : r.elf_class == ELFCLASS32 ? 32 : 0;
	if (r.magic != BZPACK_ELF_MAGIC || r.phnum != phnum || phnum < 1 || phnum > BZPACK_ELF_PHDRS_MAX ||
	    bits != h->bits || r.machine != (bits == 64 ? EM_X86_64 : EM_386)) {
		failed(info, err, "ELF record: not one for this %u-bit kernel", h->bits);
		return;
	}
	info->elf = (struct kernel_elf){ r.elf_class, r.osabi, r.machine, r.elf_flags, r.phnum, { { 0 } } };
	memcpy(info->elf.ph, raw + sizeof(r), phnum * sizeof(struct bzpack_elf_phdr));
	info->level = r.level;
	info->elf_read = 1;
}

static const char *const embed_names[BZIMAGE_EMBEDS] = { ".initrd", ".osrel", ".uname", ".cmdline" };

const struct bzpack_embed *bzimage_embed(const struct bzimage_info *info, int which)
{
	const struct bzpack_header *h = &info->header;
	const struct bzpack_embed *e[BZIMAGE_EMBEDS] = { &h->initrd, &h->osrel, &h->uname, &h->cmdline };
	return e[which];
}

const char *bzimage_embed_name(int which)
{
	return embed_names[which];
}

/* The embedded pieces lie after the payload, 4 KiB aligned, within the
 * file's protected-mode part and what syssize loads, and their CRCs hold
 * (as the stub checks the initrd before it hands it on). */
static void check_embedded(const uint8_t *prot, struct bzimage_info *info, struct error *err,
			   const struct crc32c_table *crc)
{
	uint64_t loaded = (uint64_t)info->syssize * 16, end = info->payload_offset + (uint64_t)info->payload_length;

	for (int i = 0; i < BZIMAGE_EMBEDS; i++) {
		const struct bzpack_embed *e = bzimage_embed(info, i);
		if (!e->size)
			continue;
		uint64_t stop = (uint64_t)e->offset + e->size;
		if (e->offset < end || e->offset % BZPACK_EMBED_ALIGN || stop > loaded || stop > info->prot_size) {
			failed(info, err, "bzpack %s: %u bytes at +0x%x lie outside the image after the payload",
			       embed_names[i], e->size, e->offset);
			continue;
		}
		end = stop;
		if (crc32c_update(crc, 0, prot + e->offset, e->size) != e->crc)
			failed(info, err, "bzpack %s: checksum mismatch", embed_names[i]);
		else
			info->embed_ok[i] = 1;
		const uint8_t *text = prot + e->offset;
		size_t len = e->size;
		if (i == 1) {   /* os-release: its PRETTY_NAME line, quotes dropped */
			const uint8_t *line = text;
			while (line && (size_t)(line - text) + 12 < len && memcmp(line, "PRETTY_NAME=", 12) != 0) {
				line = memchr(line, '\n', len - (size_t)(line - text));
				line = line ? line + 1 : NULL;
			}
			if (!line || (size_t)(line - text) + 12 >= len)
				continue;
			len -= (size_t)(line - text) + 12;
			text = line + 12;
			if (len && (*text == '"' || *text == '\'')) {
				text++;
				len--;
				const uint8_t *q = memchr(text, text[-1], len);
				if (q)
					len = (size_t)(q - text);
			}
		}
		if (i == 1 || i == 2)
			copy_printable(info->embed_text[i], sizeof(info->embed_text[i]), text, len);
	}
}

/* A framed payload's table, its checksum held: that it tiles the payload
 * and the kernel, and every frame's own checksums, as the stub checks
 * them (each frame's CRC32C or XXH3, by its CPU: here both). */
static int check_frames(const uint8_t *payload, const struct bzpack_header *h, struct bzimage_info *info,
			struct error *err, const struct crc32c_table *crc)
{
	const char *why = bzpack_frames_check(payload, h->payload_size, h->out_size);
	if (why)
		return failed(info, err, "bzpack payload: %s", why);
	const struct bzpack_frames *t = (const void *)payload;
	info->frames = t->count;
	memcpy(info->frame, t->frame, t->count * sizeof(info->frame[0]));
	for (unsigned i = 0; i < info->frames; i++) {
		const struct bzpack_frame *f = &info->frame[i];
		if (f->crc != crc32c_update(crc, 0, payload + f->in_offset, f->in_size) ||
		    f->xxh3 != xxh3_64(payload + f->in_offset, f->in_size))
			failed(info, err, "bzpack payload: frame %u: checksum mismatch", i);
	}
	return info->nfailed ? -1 : 0;
}

/* The same checks as the stub's, in the same order, and then some: an
 * image the stub would refuse is neither described as sound nor
 * repacked.  Past the format check every check runs, so that --info lists
 * each one that fails; the payload is decoded only when all held. */
static int read_ours(const uint8_t *raw, const uint8_t *payload, uint64_t after_payload,
		     struct buffer *out, struct bzimage_info *info, struct error *err)
{
	static struct crc32c_table crc;
	struct bzpack_header *h = &info->header;

	crc32c_init(&crc, 0);
	memcpy(h, raw, sizeof(*h));
	info->ours = 1;
	info->stub_size = info->payload_offset - BZPACK_HEADER_SIZE;
	/* The version says where the CRCs are, so it comes first. */
	if (h->version != BZPACK_FORMAT_VERSION || h->header_size != BZPACK_HEADER_SIZE)
		return failed(info, err, "bzpack header: format %u (%u bytes), but this bzpack reads format %u "
			      "(%u bytes) only%s", h->version, h->header_size, BZPACK_FORMAT_VERSION,
			      BZPACK_HEADER_SIZE, h->version < BZPACK_FORMAT_VERSION ?
			      ": pack the original kernel again" : "");
	info->ours_readable = 1;
	info->codec = bzpack_codec_name(h->codec);
	info->compressed_size = h->payload_size;
	info->decompressed_size = h->out_size;
	if (h->header_crc != crc32c_update(&crc, 0, h, offsetof(struct bzpack_header, header_crc)))
		failed(info, err, "bzpack header: checksum mismatch");
	if (h->setup_crc != setup_header_crc(&crc, &info->setup))
		failed(info, err, "setup header fields changed since packing (CRC32C)");
	if (!info->codec)
		failed(info, err, "bzpack header: unknown codec %u", h->codec);
	if (h->bits != 32 && h->bits != 64)
		failed(info, err, "bzpack header: bits is %u", h->bits);
	if (h->flags & ~BZPACK_FLAGS_KNOWN ||
	    (h->flags & (BZPACK_FLAG_INITRD | BZPACK_FLAG_INITRD_ALWAYS)) == BZPACK_FLAG_INITRD_ALWAYS)
		failed(info, err, "bzpack header: unknown flags 0x%x", h->flags);
	if (h->payload_size != info->payload_length)
		failed(info, err, "bzpack header: payload of %u bytes, setup header says %u",
		       h->payload_size, info->payload_length);
	if (h->out_size > MAX_BZPACK_OUT)
		failed(info, err, "bzpack header: absurd kernel size %u", h->out_size);
	if (h->relocs_size > h->out_size ||
	    (h->relocs_size && (h->out_align < BZPACK_LOAD_ALIGN || (h->out_align & (h->out_align - 1)))))
		failed(info, err, "bzpack header: relocation table of %u bytes, kernel alignment 0x%x",
		       h->relocs_size, h->out_align);
	if (h->entry < h->out_addr || h->entry >= (uint64_t)h->out_addr + h->out_size - h->relocs_size)
		failed(info, err, "bzpack header: entry 0x%llx outside the kernel at 0x%x-0x%llx",
		       (unsigned long long)h->entry, h->out_addr,
		       (unsigned long long)h->out_addr + h->out_size);
	check_embedded(raw - info->stub_size, info, err, &crc);
	if (h->payload_size <= info->payload_length && !info->nfailed)
		read_elf_record(payload + h->payload_size, after_payload, info, err, &crc);
	if (!out)
		return info->nfailed ? -1 : 0;

	/* A framed payload's checksums cover its table (its count read
	 * before they can vouch for it, as the stub reads it). */
	int framed = (h->flags & BZPACK_FLAG_FRAMES) != 0;
	uint32_t checked = framed && h->payload_size <= info->payload_length ?
				   bzpack_frames_size(payload, h->payload_size) : h->payload_size;
	if (framed && !checked)
		failed(info, err, "bzpack payload: frame table: bad frame count");
	if (h->payload_size <= info->payload_length && h->payload_crc != crc32c_update(&crc, 0, payload, checked))
		failed(info, err, "bzpack payload: checksum mismatch");
	/* Both checksums: the stub checks one or the other, by its CPU. */
	if (h->payload_size <= info->payload_length && h->payload_xxh3 != xxh3_64(payload, checked))
		failed(info, err, XXH3_MISMATCH);
	if (info->nfailed)
		return -1;
	if (framed && check_frames(payload, h, info, err, &crc) < 0)
		return -1;
	out->size = h->out_size;
	out->data = malloc(out->size ? out->size : 1);
	if (!out->data)
		return failed(info, err, "out of memory for a %zu-byte kernel", out->size);
	const struct codec *codec = codec_by_id(h->codec);
	if (!codec) {
		free(out->data);
		out->data = NULL;
		return failed(info, err, "bzpack payload: no host decoder for codec %s", info->codec);
	}
	enum decode_status s = payload_decode(codec, framed, payload, h->payload_size, out->data, out->size);
	if (s != DECODE_OK) {
		free(out->data);
		out->data = NULL;
		return failed(info, err, "bzpack payload: %s data corrupt (%s)", info->codec, decode_status_name(s));
	}
	/* As the -bcj stub does, the kernel's bytes only (entry check above:
	 * relocs_size < out_size). */
	if (h->flags & BZPACK_FLAG_X86)
		x86_unfilter(out->data, out->size - h->relocs_size);
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
		return failed(info, err, "bzImage payload: only %zu bytes", len);
	uint64_t expected = le32(payload + len - SIZE_TRAILER);
	const struct linux_codec *c = linux_codec_find(payload, len - SIZE_TRAILER, expected);
	if (!c)
		return failed(info, err, "bzImage payload: unknown compression (magic 0x%02x%02x%02x%02x)",
				 payload[0], payload[1], payload[2], payload[3]);
	info->codec = c->name;
	info->compressed_size = len - SIZE_TRAILER;
	info->decompressed_size = expected;
	if (expected == 0 || expected > MAX_DECOMPRESSED)
		return failed(info, err, "bzImage payload: implausible decompressed size %llu (its last 4 bytes)",
				 (unsigned long long)expected);
	if (!out)
		return 0;

	out->size = (size_t)expected;
	out->data = malloc(out->size);
	if (!out->data)
		return failed(info, err, "out of memory for %zu decompressed bytes", out->size);
	size_t produced = 0;
	int r = c->unpack(payload, len - SIZE_TRAILER, out->data, out->size, &produced, err);
	if (r < 0)
		r = failed(info, err, "%s", err->msg);
	if (r == 0 && produced != out->size)
		r = failed(info, err, "bzImage payload: %s data decompressed to %zu bytes, but its size trailer says %zu",
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
		return read_ours(ours, payload, info->prot_size - info->payload_offset - info->payload_length,
				 out, info, err);
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

#define PROTOCOL_INITRD_MAX   0x0203  /* initrd_addr_max; before it 0x37ffffff */
#define PROTOCOL_CMDLINE_SIZE 0x0206  /* cmdline_size; before it 255 */

/* The fields the file's kernel set that are not ours to choose, as
 * boot.rst gives them for its protocol. */
static void carry_setup(const struct bzimage_info *info, struct carried_setup *c)
{
	const struct setup_header *h = &info->setup;

	c->set = 1;
#define CARRY(field) c->field = h->field;
	CARRIED_AS_IS(CARRY)
#undef CARRY
	c->initrd_addr_max = info->protocol >= PROTOCOL_INITRD_MAX ? h->initrd_addr_max : 0x37ffffff;
	c->cmdline_size = info->protocol >= PROTOCOL_CMDLINE_SIZE ? h->cmdline_size : 255;
	c->xloadflags = info->protocol >= PROTOCOL_XLOADFLAGS ? h->xloadflags & XLF_EFI_KEXEC : 0;
}

int bzimage_kernel(const struct buffer *f, int want_bits, struct kernel *k,
		   struct bzimage_info *info, struct error *err)
{
	struct buffer out;

	memset(k, 0, sizeof(*k));
	k->packed_level = -1;
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
		carry_setup(info, &k->carried);
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
	k->segments = 0;
	for (int i = 0; i < info->elf.phnum; i++)
		k->segments += info->elf.ph[i].type == PT_LOAD;
	k->elf = info->elf;
	k->packed_level = info->level;
	our_kernel_version(info->kernel_version, k->version, sizeof(k->version));
	carry_setup(info, &k->carried);
	return 0;
}

/* ---- --info ------------------------------------------------------------ */

/* Documentation/arch/x86/boot.rst's names for the bits. */
static const char *const loadflag_names[8] = {
	"LOADED_HIGH", "KASLR_FLAG", NULL, NULL, NULL, "QUIET_FLAG", "KEEP_SEGMENTS", "CAN_USE_HEAP",
};
static const char *const xloadflag_names[16] = {
	"XLF_KERNEL_64", "XLF_CAN_BE_LOADED_ABOVE_4G", "XLF_EFI_HANDOVER_32", "XLF_EFI_HANDOVER_64",
	"XLF_EFI_KEXEC", "XLF_5LEVEL", "XLF_5LEVEL_ENABLED", "XLF_MEM_ENCRYPTION",
};

/* " (NAME NAME bit9)": every bit set named, an unnamed one by number. */
static void flag_names(struct info_out *o, const char *key, unsigned value, const char *const *names,
		       unsigned bits)
{
	char list[256] = "";
	size_t n = 0;

	for (unsigned b = 0; b < bits; b++) {
		if (!(value & (1u << b)))
			continue;
		if (names[b])
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? " " : "", names[b]);
		else
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%sbit%u", n ? " " : "", b);
	}
	if (n)
		info_str(o, key, " (%s)", list);
	else
		info_field_str(o, key, "");
}

/* One row per embedded piece: where, how big, its CRC; the short text
 * ones (.uname, os-release's PRETTY_NAME) shown as well. */
/* A framed payload's table, once it checked: one line for it, one per frame. */
static void print_frames(struct info_out *o, const struct bzimage_info *i)
{
	if (!(i->header.flags & BZPACK_FLAG_FRAMES))
		return;
	info_begin(o, "frames");
	if (!i->frames) {
		info_text(o, "a frame table, not checked");
		info_end(o);
		return;
	}
	info_num(o, "frames", "%llu, each a stream of its own with its own CRC32C and XXH3 (verified and "
		 "decoded by the CPU that takes it; in place one after the other)", (unsigned long long)i->frames);
	info_end(o);
	for (unsigned n = 0; n < i->frames; n++) {
		const struct bzpack_frame *f = &i->frame[n];
		char label[32];
		snprintf(label, sizeof(label), "frame %u", n);
		info_begin(o, label);
		info_text(o, "in +0x%x %u bytes, out +0x%x %u bytes (%.2f%%), CRC32C 0x%08x", f->in_offset,
			  f->in_size, f->out_offset, f->out_size, f->out_size ? 100.0 * f->in_size / f->out_size : 0.0,
			  f->crc);
		info_end(o);
	}
}

static void print_embedded(struct info_out *o, const struct bzimage_info *i)
{
	static const char *const keys[BZIMAGE_EMBEDS] = { "initrd", "osrel", "uname", "cmdline_section" };
	char key[32], label[16];

	for (int n = 0; n < BZIMAGE_EMBEDS; n++) {
		const struct bzpack_embed *e = bzimage_embed(i, n);
		snprintf(label, sizeof(label), "%s", embed_names[n]);
		info_begin(o, label);
		snprintf(key, sizeof(key), "%s_size", keys[n]);
		if (!e->size) {
			info_text(o, "none");
			info_field_num(o, key, 0);
			info_end(o);
			continue;
		}
		info_num(o, key, "%llu bytes", (unsigned long long)e->size);
		snprintf(key, sizeof(key), "%s_offset", keys[n]);
		info_num(o, key, " at +0x%llx in the protected-mode part", (unsigned long long)e->offset);
		snprintf(key, sizeof(key), "%s_crc", keys[n]);
		info_num(o, key, ", CRC32C 0x%08llx", (unsigned long long)e->crc);
		snprintf(key, sizeof(key), "%s_crc_check", keys[n]);
		info_str(o, key, " %s", i->embed_ok[n] ? "ok" : "MISMATCH or not checked");
		if (i->embed_text[n][0]) {
			snprintf(key, sizeof(key), "%s_text", keys[n]);
			info_str(o, key, ": \"%s\"", i->embed_text[n]);
		}
		info_end(o);
	}
}

void bzimage_print_info(struct info_out *o, const struct bzimage_info *i)
{
	if (!i->header_read)
		return;
	info_begin(o, "format");
	if (i->ours)
		info_num(o, "bzpack_format", "bzpack image (header format %llu)", (unsigned long long)i->header.version);
	else
		info_text(o, "Linux bzImage");
	info_bool(o, "bzpack_image", i->ours);
	info_end(o);
	info_begin(o, "boot protocol");
	info_num(o, "protocol_major", "%llu", (unsigned long long)(i->protocol >> 8));
	info_num(o, "protocol_minor", ".%02llu", (unsigned long long)(i->protocol & 0xff));
	info_end(o);
	info_begin(o, "kernel_version");
	if (i->kernel_version[0])
		info_str(o, "kernel_version", "%s", i->kernel_version);
	else
		info_text(o, "(none)"), info_field_str(o, "kernel_version", "");
	info_end(o);
	info_begin(o, "real-mode");
	info_num(o, "setup_size", "%llu bytes", (unsigned long long)i->setup_size);
	info_num(o, "setup_sects", " (setup_sects %llu)", (unsigned long long)i->setup_sects);
	info_end(o);
	info_begin(o, "protected-mode");
	info_num(o, "prot_size", "%llu bytes", (unsigned long long)i->prot_size);
	info_num(o, "syssize", " (syssize %llu", (unsigned long long)i->syssize);
	info_text(o, " x 16 = %llu)", (unsigned long long)i->syssize * 16);
	info_end(o);
	info_begin(o, "load address");
	info_num(o, "code32_start", "code32_start 0x%llx", (unsigned long long)i->code32_start);
	if (i->protocol >= PROTOCOL_PREF_ADDRESS)
		info_num(o, "pref_address", ", pref_address 0x%llx", (unsigned long long)i->pref_address);
	info_bool(o, "relocatable", i->relocatable);
	if (i->relocatable)
		info_num(o, "kernel_alignment", ", relocatable (alignment 0x%llx)",
			 (unsigned long long)i->kernel_alignment);
	else
		info_text(o, ", not relocatable");
	info_end(o);
	info_begin(o, "loadflags");
	info_num(o, "loadflags", "0x%02llx", (unsigned long long)i->loadflags);
	flag_names(o, "loadflags_names", i->loadflags, loadflag_names, 8);
	if (i->protocol >= PROTOCOL_XLOADFLAGS) {
		info_num(o, "xloadflags", ", xloadflags 0x%llx", (unsigned long long)i->xloadflags);
		flag_names(o, "xloadflags_names", i->xloadflags, xloadflag_names, 16);
	}
	info_end(o);
	if (i->protocol >= PROTOCOL_PREF_ADDRESS) {
		/* (counted from where the kernel runs: boot.rst's runtime start) */
		info_begin(o, "init_size");
		info_num(o, "init_size", "0x%llx", (unsigned long long)i->init_size);
		info_text(o, " (%u bytes)", i->init_size);
		info_end(o);
	}
	if (i->protocol < PROTOCOL_PAYLOAD)
		return;
	info_begin(o, "payload");
	info_num(o, "payload_offset", "offset 0x%llx in the protected-mode part", (unsigned long long)i->payload_offset);
	info_num(o, "payload_length", ", %llu bytes", (unsigned long long)i->payload_length);
	info_end(o);
	if (!i->payload_found || (i->ours && !i->ours_readable))
		return;
	info_begin(o, "codec");
	info_str(o, "codec", "%s", i->codec ? i->codec : "unknown");
	info_end(o);
	if (!i->codec && !i->ours)
		return;
	info_begin(o, "compressed");
	info_num(o, "compressed_size", "%llu bytes", (unsigned long long)i->compressed_size);
	info_end(o);
	info_begin(o, "decompressed");
	info_num(o, "decompressed_size", "%llu bytes", (unsigned long long)i->decompressed_size);
	info_real(o, "ratio_percent", " (ratio %.2f%%)", i->decompressed_size ?
		  100.0 * (double)i->compressed_size / (double)i->decompressed_size : 0.0);
	info_end(o);

	if (i->ours) {
		const struct bzpack_header *h = &i->header;
		info_begin(o, "filter");
		info_str(o, "filter", "%s", h->flags & BZPACK_FLAG_X86 ? "x86" : "none");
		info_num(o, "flags", " (flags 0x%llx", (unsigned long long)h->flags);
		info_text(o, "%s)", h->flags & BZPACK_FLAG_X86 ? ": the stub un-filters the kernel after decoding" : "");
		info_end(o);

		info_begin(o, "entry");
		info_num(o, "entry", "0x%llx", (unsigned long long)h->entry);
		info_num(o, "bits", " (%llu-bit, from the bzpack header)", (unsigned long long)h->bits);
		info_end(o);
		/* The image (stub) is relocatable; the kernel it carries moves
		 * with it only when the image has its relocation table. */
		uint32_t size = h->out_size >= h->relocs_size ? h->out_size - h->relocs_size : 0;
		info_begin(o, "kernel");
		info_num(o, "out_addr", "0x%llx", (unsigned long long)h->out_addr);
		info_text(o, "-0x%llx", (unsigned long long)h->out_addr + size + h->zero_size);
		info_num(o, "kernel_size", " (%llu bytes", (unsigned long long)size);
		info_num(o, "zero_size", " + %llu zeroed), ", (unsigned long long)h->zero_size);
		info_bool(o, "kernel_relocatable", h->relocs_size != 0);
		if (h->relocs_size) {
			info_text(o, "relocatable: runs at max(load address, 0x%x) aligned to ", h->out_addr);
			info_num(o, "out_align", "0x%llx, or randomised", (unsigned long long)h->out_align);
		} else {
			info_text(o, "fixed: runs at its link address");
		}
		info_end(o);
		info_begin(o, "in place");
		info_num(o, "inplace_offset", "from where the kernel runs: payload moved to +0x%llx when the image is "
			 "in the way", (unsigned long long)h->inplace_offset);
		info_snum(o, "inplace_margin", " (margin %lld bytes)",
			  (long long)h->inplace_offset + h->payload_size - h->out_size);
		info_num(o, "scratch_offset", ", scratch at +0x%llx", (unsigned long long)h->scratch_offset);
		info_num(o, "workspace_size", ", workspace %llu bytes", (unsigned long long)h->workspace_size);
		info_end(o);
		info_begin(o, "relocations");
		if (h->relocs_size) {
			info_num(o, "relocs_size", "%llu bytes", (unsigned long long)h->relocs_size);
			info_num(o, "relocs_crc", ", CRC32C 0x%08llx", (unsigned long long)h->relocs_crc);
			info_num(o, "virt_addr", ", virtual address 0x%llx", (unsigned long long)h->virt_addr);
			info_num(o, "relocs_xxh3", ", XXH3 0x%016llx", (unsigned long long)h->relocs_xxh3);
		} else {
			info_text(o, "none: the kernel cannot move");
			info_field_num(o, "relocs_size", 0);
		}
		info_end(o);
		if (i->elf_read) {
			/* What --extract gives back, and the flags that pack it again. */
			info_begin(o, "elf record");
			info_num(o, "elf_bits", "ELF%llu", (unsigned long long)h->bits);
			info_num(o, "elf_phnum", ", %llu program headers", (unsigned long long)i->elf.phnum);
			info_str(o, "pack_codec", "; packed with -c %s", i->codec);
			info_num(o, "pack_level", " -l %llu", (unsigned long long)i->level);
			info_end(o);
		}
		info_begin(o, "overhead");
		info_num(o, "overhead", "%llu bytes", (unsigned long long)(i->setup_size + i->stub_size + BZPACK_HEADER_SIZE));
		info_text(o, " (setup %llu", (unsigned long long)i->setup_size);
		info_num(o, "stub_size", " + stub %llu", (unsigned long long)i->stub_size);
		info_text(o, " + header %d)", BZPACK_HEADER_SIZE);
		info_end(o);
		/* Each CRC is "ok" only when its check ran and held. */
		int header_ok = 1, setup_ok = 1, payload_bad = 0, xxh3_bad = 0;
		for (unsigned n = 0; n < i->nfailed; n++) {
			header_ok &= strcmp(i->failed[n], "bzpack header: checksum mismatch") != 0;
			setup_ok &= strncmp(i->failed[n], "setup header fields changed", 27) != 0;
			payload_bad |= strcmp(i->failed[n], "bzpack payload: checksum mismatch") == 0;
			xxh3_bad |= strcmp(i->failed[n], XXH3_MISMATCH) == 0;
		}
		info_begin(o, "checksums");
		info_num(o, "header_crc", "CRC32C bzpack header 0x%08llx", (unsigned long long)h->header_crc);
		info_str(o, "header_crc_check", " %s", header_ok ? "ok" : "MISMATCH");
		info_num(o, "setup_crc", ", setup header fields 0x%08llx", (unsigned long long)h->setup_crc);
		info_str(o, "setup_crc_check", " %s", setup_ok ? "ok" : "MISMATCH");
		info_num(o, "payload_crc", ", payload 0x%08llx", (unsigned long long)h->payload_crc);
		info_str(o, "payload_crc_check", " %s", i->decompressed ? "ok" : payload_bad ? "MISMATCH" : "not checked");
		info_num(o, "payload_xxh3", ", XXH3 payload 0x%016llx", (unsigned long long)h->payload_xxh3);
		info_str(o, "payload_xxh3_check", " %s", i->decompressed ? "ok" : xxh3_bad ? "MISMATCH" : "not checked");
		if (h->flags & BZPACK_FLAG_FRAMES)
			info_text(o, " (of the frame table)");
		info_end(o);
		print_frames(o, i);
		print_embedded(o, i);
	} else if (i->decompressed && i->elf_bits) {
		info_begin(o, "entry");
		info_num(o, "entry", "0x%llx", (unsigned long long)i->elf_entry);
		info_num(o, "bits", " (vmlinux ELF%llu e_entry)", (unsigned long long)i->elf_bits);
		info_end(o);
	} else if (i->decompressed) {
		info_begin(o, "entry");
		info_text(o, "unknown: the payload is not an x86 ELF file");
		info_end(o);
	}
}
