/* initrd_unpack.c - the initrd decompressed before the kernel runs
 * (bzpack --initrd-decompress; only the -initrd stubs link this file and
 * the decoders of stub/stub.mk's INITRD_CODECS), on the BIOS path
 * (main.c) and the UEFI path (efi.c) alike.
 *
 * The initrd the kernel is about to get (embedded, the loader's, or both
 * joined by initrd.c) is walked the way Linux's initramfs unpacker walks
 * it (init/initramfs.c, unpack_to_rootfs): zero bytes are skipped one by
 * one, an uncompressed newc cpio archive starts with "0707" at a 4-byte
 * offset and runs to its TRAILER!!! record, and anything else must start
 * with the magic of a compressed format (lib/decompress.c), decompresses
 * to cpio, and ends where its decoder says it ends.  What we hand over
 * instead is one uncompressed stream: each cpio archive as it is and each
 * compressed piece decompressed, one after the other, each from a 4-byte
 * offset with zeros between, which Linux unpacks into the same files.
 *
 * The formats and where a piece ends:
 *   - gzip: one member, which the decoder ends (gzip_decode_stream);
 *   - zstd: frames and skippable frames back to back, each frame ended by
 *     the decoder (zstd_decode_stream), with or without its content size;
 *   - xz: one stream, which must be the initrd's last piece (only zeros
 *     after it): its size comes from its Index, read from the end.
 * bzip2, lzma, lzo and lz4 pieces go to the kernel as they are, with the
 * reason on the report line: their decoders would take the largest
 * -initrd stubs past the 64 KiB that the real-mode setup's check of the
 * stub reaches (stub/setup.asm, check_stub).
 * Every piece must decode completely and pass every check its format has
 * (gzip's CRC-32 and ISIZE, xz's block checks and Index, zstd's content
 * checksum when the frame has one), or the kernel gets the original
 * initrd unchanged, with the reason on the report line.  It never gets
 * half a result.
 *
 * Sizes: the decoders write at most the room they are given.  A walk
 * before anything is decoded sums what it can know: cpio archives, zstd
 * frames with their Frame_Content_Size, xz's Index.  When every piece is known the
 * room is exactly the result; a gzip piece, or a zstd frame without its
 * size, is known only once decoded, and then the room is as much as the
 * memory rule allows (auto) or as the free RAM below initrd_addr_max
 * holds (always), and the result is what it turns out to be.
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
#define ROOM_ALIGN       0x1000u        /* a page: what the room is halved to */

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
 * (lib/decompress.c).  Names in place, not pointers: the stub holds no
 * absolute addresses in data. */
enum piece_kind { PIECE_GZIP, PIECE_XZ, PIECE_ZSTD, PIECE_NONE };
static const struct {
	uint8_t len, magic[6];
	uint8_t kind;
	char name[6];
} formats[] = {
	{ 2, { 0x1f, 0x8b }, PIECE_GZIP, "gzip" },
	/* "old gzip": Linux's table has it, its gunzip refuses it. */
	{ 2, { 0x1f, 0x9e }, PIECE_NONE, "gzip" },
	/* bzip2, lzma, lzo, lz4: their decoders would take the -initrd stubs
	 * past the 64 KiB our real-mode setup checks (stub/setup.asm). */
	{ 3, { 'B', 'Z', 'h' }, PIECE_NONE, "bzip2" },
	{ 3, { 0x5d, 0, 0 }, PIECE_NONE, "lzma" },
	{ 6, { 0xfd, '7', 'z', 'X', 'Z', 0 }, PIECE_XZ, "xz" },
	{ 4, { 0x89, 'L', 'Z', 'O' }, PIECE_NONE, "lzo" },
	{ 4, { 0x02, 0x21, 0x4c, 0x18 }, PIECE_NONE, "lz4" },
	{ 4, { 0x28, 0xb5, 0x2f, 0xfd }, PIECE_ZSTD, "zstd" },
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

/* One piece's work: where it is, where its output goes (dst NULL: the
 * walk that only sizes), and what it came to. */
struct piece {
	const uint8_t *p;       /* the piece, to the initrd's end */
	uint64_t len;
	uint8_t *dst;           /* NULL: size only, decode nothing */
	uint64_t room;          /* bytes at dst */
	void *ws;
	const char *full;       /* the reason when the output outgrows room */
	uint64_t in, out;       /* bytes it took and gave */
	int known;              /* sizing: out is exact (else known only by decoding) */
};

static const char *status_why(const struct piece *c, enum decode_status st)
{
	return st == DECODE_OUTPUT_OVERRUN ? c->full : decode_status_name(st);
}

/* ---- xz: its Index, read from the initrd's end ------------------------- */

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

/* One stream, then Stream Padding (zeros) to the initrd's end; the
 * decompressed size is the sum of the Index's records (2.1.2, 4). */
static const char *xz_piece(struct piece *c)
{
	uint64_t len = c->len, total = 0;
	const uint8_t *p = c->p;

	/* The Stream Footer ends in "YZ": the zeros after it are padding. */
	while (len && !p[len - 1])
		len--;
	if (len < 24 || p[len - 2] != 'Y' || p[len - 1] != 'Z')
		return "xz piece truncated, or not the initrd's last";
	const uint8_t *footer = p + len - 12;
	uint64_t index_size = ((uint64_t)load_le32(footer + 4) + 1) * 4;
	if (index_size > len - 24)
		return "xz index out of range";
	const uint8_t *q = footer - index_size + 1, *end = footer - 4;
	uint64_t count, unpadded, size;
	if (q[-1] != 0 || read_vli(&q, end, &count))
		return "xz index broken";
	while (count--) {
		if (read_vli(&q, end, &unpadded) || read_vli(&q, end, &size) || size > ~total)
			return "xz index broken";
		total += size;
	}
	c->in = c->len;
	c->out = total;
	if (!c->dst)
		return 0;
	if (total > c->room)
		return c->full;
	enum decode_status st = xz_decode(p, (size_t)len, c->dst, (size_t)total, c->ws);
	return st == DECODE_OK ? 0 : status_why(c, st);
}

/* ---- zstd: frames and skippable frames back to back --------------------- */

#define ZSTD_MAGIC      0xfd2fb528u
#define ZSTD_SKIP_MASK  0xfffffff0u
#define ZSTD_SKIP_MAGIC 0x184d2a50u

/* Sizing one frame (RFC 8878 3.1.1): walked block by block to its end;
 * its Frame_Content_Size if it has one (*has 0: it has not). */
static const char *zstd_frame(const uint8_t *p, uint64_t len, uint64_t *in, uint64_t *size, int *has)
{
	static const uint8_t dict_bytes[4] = { 0, 1, 2, 4 }, fcs_bytes[4] = { 0, 2, 4, 8 };
	/* Guards the frame header descriptor read. */
	if (len < 6)
		return "zstd piece truncated";
	unsigned fhd = p[4], single = fhd >> 5 & 1, dict = fhd & 3;
	unsigned fcs = fhd >> 6 ? fcs_bytes[fhd >> 6] : single;
	uint64_t at = 5 + !single + dict_bytes[dict];
	/* Guards the content size and first block header reads. */
	if (len < at + fcs + 3)
		return "zstd piece truncated";
	*size = 0;
	for (unsigned i = 0; i < fcs; i++)
		*size |= (uint64_t)p[at + i] << (8 * i);
	if (fcs == 2)
		*size += 256;
	*has = fcs != 0;
	at += fcs;
	for (;;) {
		/* Guards the block header read. */
		if (len - at < 3)
			return "zstd piece truncated";
		uint32_t bh = load_le24(p + at);
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
	*in = at;
	return 0;
}

static const char *zstd_piece(struct piece *c)
{
	uint64_t at = 0, out = 0;

	while (c->len - at >= 8) {
		uint32_t magic = load_le32(c->p + at);
		if ((magic & ZSTD_SKIP_MASK) == ZSTD_SKIP_MAGIC) {
			uint64_t size = load_le32(c->p + at + 4);
			if (size > c->len - at - 8)
				return "zstd piece truncated";
			at += 8 + size;
			continue;
		}
		if (magic != ZSTD_MAGIC)
			break;
		uint64_t in, size;
		if (!c->dst) {
			int has;
			const char *why = zstd_frame(c->p + at, c->len - at, &in, &size, &has);
			if (why)
				return why;
			if (!has || size > ~out) {
				c->known = 0;   /* the rest is sized by decoding it */
				return 0;
			}
		} else {
			size_t used, made;
			enum decode_status st = zstd_decode_stream(c->p + at, (size_t)(c->len - at), &used, c->dst + out,
								   (size_t)(c->room - out), &made, c->ws);
			if (st != DECODE_OK)
				return status_why(c, st);
			in = used;
			size = made;
		}
		at += in;
		out += size;
	}
	c->in = at;
	c->out = out;
	return 0;
}

/* ---- gzip: one member, its end and size found by decoding --------------- */

static const char *gzip_piece(struct piece *c)
{
	if (!c->dst) {
		c->known = 0;
		return 0;
	}
	size_t used, made, n = (size_t)c->len, room = (size_t)c->room;
	enum decode_status st = gzip_decode_stream(c->p, n, &used, c->dst, room, &made, c->ws);
	if (st != DECODE_OK)
		return status_why(c, st);
	c->in = used;
	c->out = made;
	return 0;
}

/* ---- the walk ------------------------------------------------------------ */

static const char *run_piece(struct piece *c, unsigned kind)
{
	switch (kind) {
	case PIECE_XZ:
		return xz_piece(c);
	case PIECE_ZSTD:
		return zstd_piece(c);
	default:
		return gzip_piece(c);
	}
}

/* Walks the initrd p[0, len).  dst NULL: sizes the result (u->need, and
 * u->known if it is exact).  Else builds the result in dst's u->room
 * bytes and sets u->out_size and u->formats.  u->why says why not. */
static void walk(const uint8_t *p, uint64_t len, uint8_t *dst, void *ws, struct initrd_unpack *u)
{
	uint64_t at = 0, pos = 0;
	const char *full = u->rule_bound ? INITRD_UNPACK_AUTO_WHY : "no free RAM for the decompressed initrd";
	int compressed = 0;

	u->known = 1;
	u->format = 0;
	for (;;) {
		while (at < len && !p[at])
			at++;
		if (at == len)
			break;
		uint64_t start = align4(pos);
		if (dst) {
			if (start > u->room) {
				u->why = full;
				return;
			}
			memset(dst + pos, 0, (size_t)(start - pos));
		}
		pos = start;
		if (at % 4 == 0 && len - at >= 4 && !memcmp(p + at, "0707", 4)) {
			uint64_t n = cpio_end(p + at, len - at);
			if (!n) {
				u->why = "a cpio archive in it breaks off";
				return;
			}
			if (dst) {
				if (n > u->room - pos) {
					u->why = full;
					return;
				}
				memcpy(dst + pos, p + at, (size_t)n);
			}
			at += n;
			pos += n;
			continue;
		}
		unsigned f = 0;
		while (f < N_FORMATS && (len - at < formats[f].len || memcmp(p + at, formats[f].magic, formats[f].len)))
			f++;
		if (f == N_FORMATS) {
			u->why = "a piece in it is neither cpio nor compressed";
			return;
		}
		u->format = formats[f].name;
		if (formats[f].kind == PIECE_NONE) {
			u->why = "no decoder for it in this image";
			return;
		}
		struct piece c = { .p = p + at, .len = len - at, .dst = dst ? dst + pos : 0,
				   .room = dst ? u->room - pos : 0, .ws = ws, .full = full, .known = 1 };
		u->why = run_piece(&c, formats[f].kind);
		if (u->why)
			return;
		if (!c.known) {         /* sizing: the rest only decoding tells */
			u->known = 0;
			u->need = pos;
			return;
		}
		compressed = 1;
		if (dst)
			u->formats |= 1u << f;
		at += c.in;
		pos += c.out;
		if (pos > BELOW_4G) {
			u->why = "decompressed size beyond 4 GiB";
			return;
		}
	}
	if (!compressed) {
		u->why = "nothing compressed in it";
		return;
	}
	if (dst)
		u->out_size = pos;
	else
		u->need = pos;
}

static uint64_t e820_ram(const struct boot_params *bp)
{
	uint64_t ram = 0;

	for (unsigned i = 0; i < bp->e820_entries && i < E820_MAX_ENTRIES; i++)
		if (bp->e820_table[i].type == E820_TYPE_RAM)
			ram += bp->e820_table[i].size;
	return ram;
}

uint64_t initrd_unpack_limit(const struct boot_params *bp)
{
	return bp->hdr.initrd_addr_max < BELOW_4G - 1 ? bp->hdr.initrd_addr_max : BELOW_4G - 1;
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
	walk((const uint8_t *)(uintptr_t)u->in_at, u->in_size, 0, 0, u);
	if (u->why)
		return;
	if (hdr->workspace_size < INITRD_UNPACK_WORKSPACE) {
		u->why = "decoder workspace too small";
		return;
	}
	/* No more than fits below the limit, whatever the rule says. */
	uint64_t most = initrd_unpack_limit(bp) + 1 - LOW_MEMORY_END;
	if (!(hdr->flags & BZPACK_FLAG_INITRD_ALWAYS)) {
		uint64_t fixed = (uint64_t)hdr->init_size + u->in_size;
		uint64_t allowed = ram > fixed ? (ram - fixed) / 4 : 0;
		if (u->need > allowed) {
			u->why = INITRD_UNPACK_AUTO_WHY;
			return;
		}
		if (allowed < most) {
			most = allowed;
			u->rule_bound = 1;
		}
	}
	u->room = u->known ? u->need : most & ~(uint64_t)(ROOM_ALIGN - 1);
	if (u->room < u->need)
		u->room = u->need;
	if (!u->room)
		u->room = ROOM_ALIGN;   /* an empty result still needs an address */
}

int initrd_unpack_shrink(struct initrd_unpack *u)
{
	uint64_t half = u->room / 2 & ~(uint64_t)(ROOM_ALIGN - 1);

	if (u->known || half < u->need || half < ROOM_ALIGN)
		return 0;
	u->room = half;
	u->rule_bound = 0;      /* smaller now for want of RAM, not by the rule */
	return 1;
}

void initrd_unpack_plan(const struct boot_params *bp, const struct bzpack_header *hdr, const struct mem_range *avoid,
			int n_avoid, struct initrd_unpack *u)
{
	initrd_unpack_size(bp, hdr, e820_ram(bp), u);
	if (!u->in_size || u->why)
		return;
	do {
		u->out_at = memory_find_free(bp, LOW_MEMORY_END, u->room, MOVE_ALIGN, avoid, n_avoid);
		if (u->out_at && u->out_at + u->room - 1 <= initrd_unpack_limit(bp))
			return;
	} while (initrd_unpack_shrink(u));
	u->why = "no free RAM for the decompressed initrd";
}

void initrd_unpack_run(struct boot_params *bp, struct initrd_unpack *u, void *workspace)
{
	if (!u->in_size || u->why)
		return;
	uint64_t t0 = read_tsc();
	walk((const uint8_t *)(uintptr_t)u->in_at, u->in_size, (uint8_t *)(uintptr_t)u->out_at, workspace, u);
	u->cycles = read_tsc() - t0;
	if (u->why)
		return;
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
	/* The formats unpacked, each once, joined by "+". */
	const char *sep = "";
	for (unsigned f = 0; f < N_FORMATS; f++)
		if (u->formats & 1u << f) {
			serial_puts(sep);
			serial_puts(formats[f].name);
			sep = "+";
		}
	serial_puts(":");
	serial_put_u64(u->in_size);
	serial_puts("->");
	serial_put_u64(u->out_size);
	serial_puts(",cycles=");
	serial_put_u64(u->cycles);
}
