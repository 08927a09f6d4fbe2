/* initrd_unpack.c - the initrd decompressed before the kernel runs
 * (bzpack --initrd-decompress; only the -initrd stubs link this file and
 * the gzip, xz and zstd decoders, stub/stub.mk), on the BIOS path
 * (main.c) and the UEFI path (efi.c) alike.
 *
 * The initrd the kernel is about to get (embedded, the loader's, or both
 * joined by initrd.c) is walked the way Linux's initramfs unpacker walks
 * it (init/initramfs.c, unpack_to_rootfs): zero bytes are skipped one by
 * one, an uncompressed newc cpio archive starts with "0707" at a 4-byte
 * offset and runs to its TRAILER!!! record, and anything else must start
 * with the magic of a compressed format (lib/decompress.c).  What we hand
 * over instead is the same bytes up to the compressed piece (early
 * microcode and the like stay as they are), zeros to the next 4-byte
 * offset, and the piece decompressed: one uncompressed cpio stream that
 * Linux unpacks into the same files.
 *
 * Limits, each a reason on the report line and the original initrd
 * handed over unchanged:
 *   - one compressed piece, the last thing in the initrd (only zeros may
 *     follow it, and for gzip nothing: its trailer may end in zeros);
 *   - the decompressed size must be known before decoding, since our
 *     decoders write exactly the size they are given: gzip's ISIZE (its
 *     last four bytes), the sum of an xz Index's records, the
 *     Frame_Content_Size of every zstd frame (a frame without it, as
 *     zstd writes when it compresses a pipe, is not unpacked);
 *   - bzip2, lzma, lzo and lz4 pieces are handed on for the kernel.
 * The decoders check the piece completely (gzip's CRC-32 and ISIZE, xz's
 * block checks, zstd's content checksum when the frame has one) before
 * the kernel sees a byte of the result.
 *
 * Memory: the kernel frees the initrd only after unpacking it, so a
 * decompressed initrd costs its whole size until then, besides the files
 * it becomes.  The rule (flag INITRD without INITRD_ALWAYS): unpack only
 * when the RAM (E820's; under UEFI the memory map's, counted as efi.c
 * hands it on as E820) is at least init_size + the initrd + 4 x the
 * decompressed initrd: room for the kernel, the original (free again but
 * counted), the decompressed cpio, the files it becomes, and as much
 * again to spare.  With INITRD_ALWAYS, whenever the result fits in free
 * RAM below initrd_addr_max.
 */
#include "mem.h"
#include "stub.h"

#define CPIO_HEADER_SIZE 110    /* "070701", then 13 fields of 8 hex digits */
#define CPIO_FILESIZE_AT 54
#define CPIO_NAMESIZE_AT 94
#define LOW_MEMORY_END   0x100000u
#define BELOW_4G         (1ull << 32)

static uint64_t align4(uint64_t v)
{
	return (v + 3) & ~(uint64_t)3;
}

/* Eight hex digits; -1 if one is not. */
static int64_t cpio_field(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 0; i < 8; i++) {
		unsigned c = p[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	return v;
}

/* Where the newc archive at p ends: after its TRAILER!!! record and that
 * record's padding (or at len); 0 if it breaks off first. */
static uint64_t cpio_end(const uint8_t *p, uint64_t len)
{
	uint64_t at = 0;

	for (;;) {
		/* Guards the header read. */
		if (len - at < CPIO_HEADER_SIZE || memcmp(p + at, "07070", 5) || (p[at + 5] != '1' && p[at + 5] != '2'))
			return 0;
		int64_t filesize = cpio_field(p + at + CPIO_FILESIZE_AT), namesize = cpio_field(p + at + CPIO_NAMESIZE_AT);
		if (filesize < 0 || namesize <= 0)
			return 0;
		uint64_t name = at + CPIO_HEADER_SIZE, data = align4(name + (uint64_t)namesize);
		/* Guards the name read and the step over the data. */
		if (data > len || (uint64_t)filesize > len - data)
			return 0;
		uint64_t next = align4(data + (uint64_t)filesize);
		if (namesize == 11 && !memcmp(p + name, "TRAILER!!!", 11))
			return next < len ? next : len;
		if (next >= len)
			return 0;
		at = next;
	}
}

/* The compressed formats Linux's initramfs takes, by magic
 * (lib/decompress.c); codec 0 (none): not decoded here.  Names in place,
 * not pointers: the stub holds no absolute addresses in data. */
static const struct {
	uint8_t len, magic[6];
	uint8_t codec;
	char name[6];
} formats[] = {
	{ 2, { 0x1f, 0x8b }, BZPACK_CODEC_gzip, "gzip" },
	{ 2, { 0x1f, 0x9e }, 0, "gzip" },
	{ 3, { 'B', 'Z', 'h' }, 0, "bzip2" },
	{ 3, { 0x5d, 0, 0 }, 0, "lzma" },
	{ 6, { 0xfd, '7', 'z', 'X', 'Z', 0 }, BZPACK_CODEC_xz, "xz" },
	{ 4, { 0x89, 'L', 'Z', 'O' }, 0, "lzo" },
	{ 4, { 0x02, 0x21, 0x4c, 0x18 }, 0, "lz4" },
	{ 4, { 0x28, 0xb5, 0x2f, 0xfd }, BZPACK_CODEC_zstd, "zstd" },
};

/* gzip: the piece runs to the initrd's end; ISIZE is its last word. */
static const char *gzip_sizes(const uint8_t *p, uint64_t len, uint64_t *in, uint64_t *out)
{
	if (len < 18)
		return "gzip piece truncated";
	*in = len;
	*out = load_le32(p + len - 4);
	return 0;
}

/* An xz VLI (xz file format 1.4): at most 9 bytes, before end. */
static int read_vli(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;

	*v = 0;
	for (int i = 0; i < 9; i++) {
		if (p == end)
			return -1;
		*v |= (uint64_t)(*p & 0x7f) << (7 * i);
		if (!(*p++ & 0x80)) {
			*pp = p;
			return 0;
		}
	}
	return -1;
}

/* xz: one stream, then Stream Padding (zeros) to the initrd's end; the
 * decompressed size is the sum of the Index's records (2.1.2, 4). */
static const char *xz_sizes(const uint8_t *p, uint64_t len, uint64_t *in, uint64_t *out)
{
	/* The Stream Footer ends in "YZ": the zeros after it are padding. */
	while (len && !p[len - 1])
		len--;
	if (len < 24 || p[len - 2] != 'Y' || p[len - 1] != 'Z')
		return "xz piece truncated";
	const uint8_t *footer = p + len - 12;
	uint64_t index_size = ((uint64_t)load_le32(footer + 4) + 1) * 4;
	if (index_size > len - 24)
		return "xz index out of range";
	const uint8_t *q = footer - index_size + 1, *end = footer - 4;
	uint64_t count, unpadded, size, total = 0;
	if (q[-1] != 0 || read_vli(&q, end, &count))
		return "xz index broken";
	while (count--) {
		if (read_vli(&q, end, &unpadded) || read_vli(&q, end, &size) || size > ~total)
			return "xz index broken";
		total += size;
	}
	*in = len;
	*out = total;
	return 0;
}

/* zstd (RFC 8878): frames back to back, each with its Frame_Content_Size,
 * walked block by block to where the piece ends; zeros may follow. */
static const char *zstd_sizes(const uint8_t *p, uint64_t len, uint64_t *in, uint64_t *out)
{
	uint64_t at = 0, total = 0;

	while (at < len && p[at]) {
		/* Guards the magic and the frame header's reads. */
		if (len - at < 8)
			return "zstd piece truncated";
		uint32_t magic = load_le32(p + at);
		if ((magic & 0xfffffff0u) == 0x184d2a50u) {     /* a skippable frame */
			uint64_t size = load_le32(p + at + 4);
			if (size > len - at - 8)
				return "zstd piece truncated";
			at += 8 + size;
			continue;
		}
		if (magic != 0xfd2fb528u)
			return "zstd piece followed by something else";
		unsigned fhd = p[at + 4], single = fhd >> 5 & 1, dict = fhd & 3;
		static const uint8_t dict_bytes[4] = { 0, 1, 2, 4 }, fcs_bytes[4] = { 0, 2, 4, 8 };
		unsigned fcs = fhd >> 6 ? fcs_bytes[fhd >> 6] : single;
		if (!fcs)
			return "zstd frame without its content size";
		/* Guards the content size and first block header reads (the
		 * magic and descriptor took 5 of the 8 bytes checked above). */
		uint64_t header = 5 + !single + dict_bytes[dict];
		if (len - at < header + fcs + 3)
			return "zstd piece truncated";
		at += header;
		uint64_t size = 0;
		for (unsigned i = 0; i < fcs; i++)
			size |= (uint64_t)p[at + i] << (8 * i);
		if (fcs == 2)
			size += 256;
		if (size > ~total)
			return "zstd content size too large";
		total += size;
		at += fcs;
		for (;;) {
			/* Guards the block header read. */
			if (len - at < 3)
				return "zstd piece truncated";
			uint32_t bh = p[at] | (uint32_t)p[at + 1] << 8 | (uint32_t)p[at + 2] << 16;
			unsigned type = bh >> 1 & 3;
			uint64_t bytes = type == 1 ? 1 : bh >> 3;
			if (type == 3)
				return "zstd block type reserved";
			at += 3;
			if (bytes > len - at)
				return "zstd piece truncated";
			at += bytes;
			if (bh & 1)
				break;
		}
		if (fhd & 4)            /* Content_Checksum */
			at += 4;
		if (at > len)
			return "zstd piece truncated";
	}
	*in = at;
	*out = total;
	return 0;
}

static uint64_t e820_ram(const struct boot_params *bp)
{
	uint64_t ram = 0;

	for (unsigned i = 0; i < bp->e820_entries && i < E820_MAX_ENTRIES; i++)
		if (bp->e820_table[i].type == E820_TYPE_RAM)
			ram += bp->e820_table[i].size;
	return ram;
}

/* Walks the initrd; fills u's piece (or u->why). */
static void walk(const uint8_t *p, uint64_t len, struct initrd_unpack *u)
{
	uint64_t at = 0;

	for (;;) {
		while (at < len && !p[at])
			at++;
		if (at == len) {
			u->why = "nothing compressed in it";
			return;
		}
		if (at % 4 == 0 && len - at >= 4 && !memcmp(p + at, "0707", 4)) {
			uint64_t n = cpio_end(p + at, len - at);
			if (!n) {
				u->why = "a cpio archive in it breaks off";
				return;
			}
			at += n;
			continue;
		}
		break;
	}
	unsigned f = 0;
	while (f < sizeof(formats) / sizeof(formats[0]) &&
	       (len - at < formats[f].len || memcmp(p + at, formats[f].magic, formats[f].len)))
		f++;
	if (f == sizeof(formats) / sizeof(formats[0])) {
		u->why = "a piece in it is neither cpio nor compressed";
		return;
	}
	u->format = formats[f].name;
	u->codec = formats[f].codec;
	if (!u->codec) {
		u->why = "no decoder for it in this image";
		return;
	}
	uint64_t in = 0, out = 0;
	const uint8_t *piece = p + at;
	u->why = u->codec == BZPACK_CODEC_gzip ? gzip_sizes(piece, len - at, &in, &out)
		 : u->codec == BZPACK_CODEC_xz ? xz_sizes(piece, len - at, &in, &out)
					       : zstd_sizes(piece, len - at, &in, &out);
	if (u->why)
		return;
	for (uint64_t i = at + in; i < len; i++)
		if (p[i]) {
			u->why = "compressed piece is not the initrd's last";
			return;
		}
	u->head = at;
	u->piece_size = in;
	u->unpacked_at = align4(at);
	u->unpacked_size = out;
}

void initrd_unpack_size(const struct boot_params *bp, const struct bzpack_header *hdr, uint64_t ram,
			struct initrd_unpack *u)
{
	*u = (struct initrd_unpack){ .in_at = bp->hdr.ramdisk_image | (uint64_t)bp->ext_ramdisk_image << 32,
				     .in_size = bp->hdr.ramdisk_size | (uint64_t)bp->ext_ramdisk_size << 32 };
	if (!u->in_size)
		return;
	if ((uintptr_t)(u->in_at + u->in_size - 1) != u->in_at + u->in_size - 1) {
		u->why = "initrd above the addresses this stub reaches";
		return;
	}
	walk((const uint8_t *)(uintptr_t)u->in_at, u->in_size, u);
	if (u->why)
		return;
	u->out_size = u->unpacked_at + u->unpacked_size;
	if (u->unpacked_size > BELOW_4G || u->out_size > BELOW_4G) {
		u->why = "decompressed size beyond 4 GiB";
		return;
	}
	if (hdr->workspace_size < INITRD_UNPACK_WORKSPACE) {
		u->why = "decoder workspace too small";
		return;
	}
	if (!(hdr->flags & BZPACK_FLAG_INITRD_ALWAYS) && ram < (uint64_t)hdr->init_size + u->in_size + 4 * u->out_size)
		u->why = "auto: RAM below init_size + initrd + 4 x unpacked";
}

uint64_t initrd_unpack_limit(const struct boot_params *bp)
{
	return bp->hdr.initrd_addr_max < BELOW_4G - 1 ? bp->hdr.initrd_addr_max : BELOW_4G - 1;
}

void initrd_unpack_plan(const struct boot_params *bp, const struct bzpack_header *hdr, const struct mem_range *avoid,
			int n_avoid, struct initrd_unpack *u)
{
	initrd_unpack_size(bp, hdr, e820_ram(bp), u);
	if (!u->in_size || u->why)
		return;
	u->out_at = memory_find_free(bp, LOW_MEMORY_END, u->out_size, MOVE_ALIGN, avoid, n_avoid);
	if (!u->out_at || u->out_at + u->out_size - 1 > initrd_unpack_limit(bp))
		u->why = "no free RAM for the decompressed initrd";
}

void initrd_unpack_run(struct boot_params *bp, struct initrd_unpack *u, void *workspace)
{
	if (!u->in_size || u->why)
		return;
	const uint8_t *in = (const uint8_t *)(uintptr_t)u->in_at;
	uint8_t *out = (uint8_t *)(uintptr_t)u->out_at;
	uint64_t t0 = read_tsc();

	memcpy(out, in, (size_t)u->head);
	memset(out + u->head, 0, (size_t)(u->unpacked_at - u->head));
	const uint8_t *piece = in + u->head;
	uint8_t *dst = out + u->unpacked_at;
	size_t n = (size_t)u->piece_size, m = (size_t)u->unpacked_size;
	enum decode_status st = u->codec == BZPACK_CODEC_gzip ? gzip_decode(piece, n, dst, m, workspace)
				: u->codec == BZPACK_CODEC_xz ? xz_decode(piece, n, dst, m, workspace)
							      : zstd_decode(piece, n, dst, m, workspace);
	u->cycles = read_tsc() - t0;
	if (st != DECODE_OK) {
		u->why = decode_status_name(st);
		return;
	}
	bp->hdr.ramdisk_image = (uint32_t)u->out_at;
	bp->ext_ramdisk_image = (uint32_t)(u->out_at >> 32);
	bp->hdr.ramdisk_size = (uint32_t)u->out_size;
	bp->ext_ramdisk_size = (uint32_t)(u->out_size >> 32);
}

void initrd_unpack_report(const struct initrd_unpack *u)
{
	if (!u->in_size)
		return;
	serial_puts(" unpacked=");
	if (u->why) {
		serial_puts("no(");
		if (u->format) {
			serial_puts(u->format);
			serial_puts(": ");
		}
		serial_puts(u->why);
		serial_puts(")");
		return;
	}
	serial_puts(u->format);
	serial_puts(":");
	serial_put_u64(u->in_size);
	serial_puts("->");
	serial_put_u64(u->out_size);
	serial_puts(",cycles=");
	serial_put_u64(u->cycles);
}
