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
 * The codecs go through the Debian libraries: gzip (zlib), bzip2 (libbz2),
 * .lzma and .xz (liblzma), lzop files (the container is parsed here, as
 * lzop writes it; its blocks go to liblzo2), the LZ4 "legacy frame"
 * (blocks of at most 8 MiB, each after its le32 compressed size; liblz4
 * decodes the blocks) and Zstandard (libzstd).  Every offset and length
 * taken from the file is checked against what is really there before use.
 */
#define ZLIB_CONST
#include "bzimage.h"

#include <bzlib.h>
#include <elf.h>
#include <lz4.h>
#include <lzma.h>
#include <lzo/lzo1x.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "crc32c.h"
#include "decode.h"

#define PROTOCOL_RELOCATABLE  0x0205  /* kernel_alignment, relocatable_kernel */
#define PROTOCOL_PAYLOAD      0x0208  /* payload_offset, payload_length */
#define PROTOCOL_PREF_ADDRESS 0x020a  /* pref_address, init_size */
#define PROTOCOL_XLOADFLAGS   0x020c

#define SIZE_TRAILER          4              /* Linux: le32 decompressed size */
#define MAX_DECOMPRESSED      (2ull << 30)   /* no vmlinux is this large */
#define MAX_BZPACK_OUT        (1ull << 30)   /* kernel_from_elf's span limit */
#define DEFAULT_SETUP_SECTS   4              /* setup_sects 0 means 4 */

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* ---- the codecs ------------------------------------------------------ */

/* Each decoder reads [in, in + in_len) up to the end of its stream (what
 * follows is trailing data and is ignored), writes at most cap bytes, and
 * reports how many it wrote.  A stream that would write more than cap
 * bytes is an error. */
typedef int (*unpack_fn)(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
			 size_t *produced, struct error *err);

static int too_long(struct error *err, const char *codec, size_t cap)
{
	return fail_with(err, "bzImage payload: %s data decompresses to more than the %zu bytes "
			 "its size trailer says", codec, cap);
}

static int truncated(struct error *err, const char *codec)
{
	return fail_with(err, "bzImage payload: %s data truncated", codec);
}

static int unpack_gzip(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		       size_t *produced, struct error *err)
{
	z_stream s;

	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, 16 + MAX_WBITS) != Z_OK)  /* 16: a gzip header, not zlib's */
		return fail_with(err, "bzImage payload: cannot start zlib");
	s.next_in = in;
	s.avail_in = (uInt)in_len;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	int r = inflate(&s, Z_FINISH);
	char msg[64];
	snprintf(msg, sizeof(msg), "%s", s.msg ? s.msg : "bad data");
	*produced = cap - s.avail_out;
	int full = s.avail_out == 0;
	inflateEnd(&s);

	switch (r) {
	case Z_STREAM_END:
		return 0;
	case Z_BUF_ERROR:
		return full ? too_long(err, "gzip", cap) : truncated(err, "gzip");
	case Z_MEM_ERROR:
		return fail_with(err, "bzImage payload: out of memory in zlib");
	default:
		return fail_with(err, "bzImage payload: gzip data corrupt (%s)", msg);
	}
}

static int unpack_bzip2(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
			size_t *produced, struct error *err)
{
	bz_stream s;
	int r;

	memset(&s, 0, sizeof(s));
	if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK)
		return fail_with(err, "bzImage payload: cannot start libbz2");
	s.next_in = (char *)in;     /* libbz2 never writes through it */
	s.avail_in = (unsigned)in_len;
	s.next_out = (char *)out;
	s.avail_out = (unsigned)cap;
	do {
		unsigned in_before = s.avail_in, out_before = s.avail_out;
		r = BZ2_bzDecompress(&s);
		if (r == BZ_OK && s.avail_in == in_before && s.avail_out == out_before)
			break;  /* stuck: out of input or out of room */
	} while (r == BZ_OK);
	*produced = cap - s.avail_out;
	int full = s.avail_out == 0;
	BZ2_bzDecompressEnd(&s);

	switch (r) {
	case BZ_STREAM_END:
		return 0;
	case BZ_OK:
		return full ? too_long(err, "bzip2", cap) : truncated(err, "bzip2");
	case BZ_MEM_ERROR:
		return fail_with(err, "bzImage payload: out of memory in libbz2");
	default:
		return fail_with(err, "bzImage payload: bzip2 data corrupt (libbz2 error %d)", r);
	}
}

static int unpack_liblzma(const char *codec, int alone, const uint8_t *in, size_t in_len,
			  uint8_t *out, size_t cap, size_t *produced, struct error *err)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r = alone ? lzma_alone_decoder(&s, UINT64_MAX) : lzma_stream_decoder(&s, UINT64_MAX, 0);

	if (r != LZMA_OK)
		return fail_with(err, "bzImage payload: cannot start liblzma (error %d)", (int)r);
	s.next_in = in;
	s.avail_in = in_len;
	s.next_out = out;
	s.avail_out = cap;
	do
		r = lzma_code(&s, LZMA_FINISH);  /* LZMA_BUF_ERROR once nothing moves */
	while (r == LZMA_OK);
	*produced = cap - s.avail_out;
	int full = s.avail_out == 0;
	lzma_end(&s);

	switch (r) {
	case LZMA_STREAM_END:
		return 0;
	case LZMA_BUF_ERROR:
		return full ? too_long(err, codec, cap) : truncated(err, codec);
	case LZMA_MEM_ERROR:
	case LZMA_MEMLIMIT_ERROR:
		return fail_with(err, "bzImage payload: out of memory in liblzma");
	case LZMA_OPTIONS_ERROR:
		return fail_with(err, "bzImage payload: %s data uses options liblzma does not support", codec);
	case LZMA_UNSUPPORTED_CHECK:
		return fail_with(err, "bzImage payload: %s data uses an unsupported integrity check", codec);
	default:
		return fail_with(err, "bzImage payload: %s data corrupt (liblzma error %d)", codec, (int)r);
	}
}

static int unpack_xz(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		     size_t *produced, struct error *err)
{
	return unpack_liblzma("xz", 0, in, in_len, out, cap, produced, err);
}

static int unpack_lzma(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		       size_t *produced, struct error *err)
{
	return unpack_liblzma("lzma", 1, in, in_len, out, cap, produced, err);
}

/* Zstandard: one or more frames (skippable ones included) back to back;
 * whatever follows the last of them is trailing data. */
static int unpack_zstd(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		       size_t *produced, struct error *err)
{
	size_t frames = 0;

	while (in_len - frames >= 4) {
		uint32_t magic = le32(in + frames);
		if (magic != ZSTD_MAGICNUMBER &&
		    (magic & ZSTD_MAGIC_SKIPPABLE_MASK) != ZSTD_MAGIC_SKIPPABLE_START)
			break;
		size_t n = ZSTD_findFrameCompressedSize(in + frames, in_len - frames);
		if (ZSTD_isError(n)) {
			if (ZSTD_getErrorCode(n) == ZSTD_error_srcSize_wrong)
				return truncated(err, "zstd");
			return fail_with(err, "bzImage payload: zstd data corrupt (%s)", ZSTD_getErrorName(n));
		}
		frames += n;
	}

	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	if (!dctx)
		return fail_with(err, "bzImage payload: out of memory in libzstd");
	/* Linux compresses with --ultra -22: allow any window the format allows */
	ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, sizeof(size_t) == 4 ? 30 : 31);
	size_t r = ZSTD_decompressDCtx(dctx, out, cap, in, frames);
	ZSTD_freeDCtx(dctx);
	if (ZSTD_isError(r)) {
		switch (ZSTD_getErrorCode(r)) {
		case ZSTD_error_dstSize_tooSmall:
			return too_long(err, "zstd", cap);
		case ZSTD_error_srcSize_wrong:
			return truncated(err, "zstd");
		case ZSTD_error_memory_allocation:
			return fail_with(err, "bzImage payload: out of memory in libzstd");
		default:
			return fail_with(err, "bzImage payload: zstd data corrupt (%s)", ZSTD_getErrorName(r));
		}
	}
	*produced = r;
	return 0;
}

/* LZ4 legacy frame: le32 magic 0x184C2102, then blocks, each a le32
 * compressed size and an LZ4 block of at most 8 MiB decompressed; no end
 * mark.  The magic may appear again where a size is due (streams glued
 * together).  Decoding stops when the output is complete. */
#define LZ4_LEGACY_MAGIC 0x184c2102u
#define LZ4_LEGACY_BLOCK (8u << 20)

static int unpack_lz4(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		      size_t *produced, struct error *err)
{
	size_t pos = 4, done = 0;

	while (done < cap) {
		if (in_len - pos < 4)
			return truncated(err, "lz4");
		uint32_t n = le32(in + pos);
		pos += 4;
		if (n == LZ4_LEGACY_MAGIC)
			continue;
		if (n == 0 || n > LZ4_COMPRESSBOUND(LZ4_LEGACY_BLOCK))
			return fail_with(err, "bzImage payload: lz4 data corrupt (block of %u bytes)", n);
		if (n > in_len - pos)
			return truncated(err, "lz4");
		size_t room = cap - done < LZ4_LEGACY_BLOCK ? cap - done : LZ4_LEGACY_BLOCK;
		int r = LZ4_decompress_safe((const char *)in + pos, (char *)out + done, (int)n, (int)room);
		if (r < 0) {
			/* Too long for what is left, or corrupt?  Decode it again
			 * with the room a block may have, to say which. */
			int longer = 0;
			if (room < LZ4_LEGACY_BLOCK) {
				char *scratch = malloc(LZ4_LEGACY_BLOCK);
				if (scratch)
					longer = LZ4_decompress_safe((const char *)in + pos, scratch, (int)n,
								     LZ4_LEGACY_BLOCK) >= 0;
				free(scratch);
			}
			if (longer)
				return too_long(err, "lz4", cap);
			return fail_with(err, "bzImage payload: lz4 data corrupt (block at payload offset %zu)",
					 pos - 4);
		}
		pos += n;
		done += (size_t)r;
	}
	*produced = done;
	return 0;
}

/* lzop's file format: a header (magic, versions, method, flags, mode,
 * times, name, checksum, optional extra field), then blocks, each with its
 * decompressed and compressed sizes (big-endian), optional checksums of
 * both, and the LZO1X data - stored as is when it did not shrink - until
 * a decompressed size of 0. */
static const uint8_t lzop_magic[9] = { 0x89, 'L', 'Z', 'O', 0x00, 0x0d, 0x0a, 0x1a, 0x0a };

#define LZOP_ADLER32_D     0x00000001u
#define LZOP_ADLER32_C     0x00000002u
#define LZOP_EXTRA_FIELD   0x00000040u
#define LZOP_CRC32_D       0x00000100u
#define LZOP_CRC32_C       0x00000200u
#define LZOP_FILTER        0x00000800u
#define LZOP_HEADER_CRC32  0x00001000u
#define LZOP_NEW_HEADER    0x0940          /* level, mtime_high, version_needed */
#define LZOP_MIN_VERSION   0x0900
#define LZOP_MAX_BLOCK     (64u << 20)
#define LZOP_SPLIT_MARK    0xffffffffu

struct reader {
	const uint8_t *data;
	size_t size, pos;
	int short_read;
};

static uint32_t get_be(struct reader *r, unsigned bytes)
{
	uint32_t v = 0;
	if (r->size - r->pos < bytes) {
		r->short_read = 1;
		r->pos = r->size;
		return 0;
	}
	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | r->data[r->pos++];
	return v;
}

static void skip(struct reader *r, size_t n)
{
	if (r->size - r->pos < n) {
		r->short_read = 1;
		r->pos = r->size;
	} else {
		r->pos += n;
	}
}

static uint32_t lzop_checksum(int crc, const uint8_t *p, size_t n)
{
	return crc ? lzo_crc32(0, p, (lzo_uint)n) : lzo_adler32(1, p, (lzo_uint)n);
}

static int unpack_lzo(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
		      size_t *produced, struct error *err)
{
	static int lzo_ready;
	struct reader r = { in, in_len, sizeof(lzop_magic), 0 };

	if (!lzo_ready) {
		if (lzo_init() != LZO_E_OK)
			return fail_with(err, "bzImage payload: cannot start liblzo2");
		lzo_ready = 1;
	}

	uint32_t version = get_be(&r, 2);
	get_be(&r, 2);                                  /* library version */
	if (version >= LZOP_NEW_HEADER)
		get_be(&r, 2);                          /* version needed to extract */
	uint32_t method = get_be(&r, 1);
	if (version >= LZOP_NEW_HEADER)
		get_be(&r, 1);                          /* level */
	uint32_t flags = get_be(&r, 4);
	uint32_t filter = flags & LZOP_FILTER ? get_be(&r, 4) : 0;
	get_be(&r, 4);                                  /* mode */
	get_be(&r, 4);                                  /* mtime */
	if (version >= LZOP_NEW_HEADER)
		get_be(&r, 4);                          /* mtime, high half */
	skip(&r, get_be(&r, 1));                        /* file name */
	size_t checked_end = r.pos;
	uint32_t sum = get_be(&r, 4);
	if (r.short_read)
		return truncated(err, "lzo");
	if (sum != lzop_checksum(flags & LZOP_HEADER_CRC32, in + sizeof(lzop_magic),
				 checked_end - sizeof(lzop_magic)))
		return fail_with(err, "bzImage payload: lzo data corrupt (lzop header checksum)");
	if (flags & LZOP_EXTRA_FIELD) {
		size_t start = r.pos;
		skip(&r, get_be(&r, 4));
		size_t end = r.pos;
		sum = get_be(&r, 4);
		if (r.short_read)
			return truncated(err, "lzo");
		if (sum != lzop_checksum(flags & LZOP_HEADER_CRC32, in + start, end - start))
			return fail_with(err, "bzImage payload: lzo data corrupt (lzop extra field checksum)");
	}
	if (version < LZOP_MIN_VERSION)
		return fail_with(err, "bzImage payload: lzop version 0x%x is not supported", version);
	if (method < 1 || method > 3)   /* LZO1X-1, LZO1X-1(15), LZO1X-999: one decoder */
		return fail_with(err, "bzImage payload: lzop method %u is not supported", method);
	if (filter)
		return fail_with(err, "bzImage payload: lzop filter %u is not supported", filter);

	size_t done = 0;
	for (;;) {
		uint32_t dst_len = get_be(&r, 4);
		if (r.short_read)
			return truncated(err, "lzo");
		if (dst_len == 0)
			break;
		if (dst_len == LZOP_SPLIT_MARK)
			return fail_with(err, "bzImage payload: multi-part lzop data is not supported");
		if (dst_len > LZOP_MAX_BLOCK)
			return fail_with(err, "bzImage payload: lzo data corrupt (block of %u bytes)", dst_len);
		uint32_t src_len = get_be(&r, 4);
		uint32_t d_adler = flags & LZOP_ADLER32_D ? get_be(&r, 4) : 0;
		uint32_t d_crc = flags & LZOP_CRC32_D ? get_be(&r, 4) : 0;
		uint32_t c_adler = 0, c_crc = 0;
		if (src_len < dst_len) {
			c_adler = flags & LZOP_ADLER32_C ? get_be(&r, 4) : 0;
			c_crc = flags & LZOP_CRC32_C ? get_be(&r, 4) : 0;
		}
		if (r.short_read || src_len > r.size - r.pos)
			return truncated(err, "lzo");
		if (src_len == 0 || src_len > dst_len)
			return fail_with(err, "bzImage payload: lzo data corrupt (block sizes %u/%u)",
					 src_len, dst_len);
		if (dst_len > cap - done)
			return too_long(err, "lzo", cap);

		const uint8_t *src = in + r.pos;
		if (src_len < dst_len &&
		    (((flags & LZOP_ADLER32_C) && c_adler != lzop_checksum(0, src, src_len)) ||
		     ((flags & LZOP_CRC32_C) && c_crc != lzop_checksum(1, src, src_len))))
			return fail_with(err, "bzImage payload: lzo data corrupt (compressed block checksum)");
		if (src_len == dst_len) {
			memcpy(out + done, src, dst_len);
		} else {
			lzo_uint n = dst_len;
			int e = lzo1x_decompress_safe(src, src_len, out + done, &n, NULL);
			if (e != LZO_E_OK || n != dst_len)
				return fail_with(err, "bzImage payload: lzo data corrupt (liblzo2 error %d)", e);
		}
		if (((flags & LZOP_ADLER32_D) && d_adler != lzop_checksum(0, out + done, dst_len)) ||
		    ((flags & LZOP_CRC32_D) && d_crc != lzop_checksum(1, out + done, dst_len)))
			return fail_with(err, "bzImage payload: lzo data corrupt (block checksum)");
		r.pos += src_len;
		done += dst_len;
	}
	*produced = done;
	return 0;
}

/* .lzma ("LZMA_Alone") has no magic: a properties byte (lc/lp/pb, below
 * 9 * 5 * 5), a le32 dictionary size and a le64 decompressed size, all
 * ones when unknown.  Accept it only when that size is unknown or right. */
static int looks_like_lzma(const uint8_t *p, size_t n, uint64_t expected)
{
	if (n < 13 || p[0] >= 9 * 5 * 5)
		return 0;
	uint64_t size = le64(p + 5);
	return size == UINT64_MAX || size == expected;
}

struct codec {
	const char *name;
	uint8_t magic[9];
	size_t magic_len;
	unpack_fn unpack;
};

static const struct codec codecs[] = {
	{ "gzip",  { 0x1f, 0x8b, 0x08 }, 3, unpack_gzip },
	{ "bzip2", { 'B', 'Z', 'h' }, 3, unpack_bzip2 },
	{ "xz",    { 0xfd, '7', 'z', 'X', 'Z', 0x00 }, 6, unpack_xz },
	{ "lzo",   { 0x89, 'L', 'Z', 'O', 0x00, 0x0d, 0x0a, 0x1a, 0x0a }, 9, unpack_lzo },
	{ "lz4",   { 0x02, 0x21, 0x4c, 0x18 }, 4, unpack_lz4 },
	{ "zstd",  { 0x28, 0xb5, 0x2f, 0xfd }, 4, unpack_zstd },
	{ "lzma",  { 0 }, 0, unpack_lzma },  /* no magic: looks_like_lzma */
};

static const struct codec *find_codec(const uint8_t *p, size_t n, uint64_t expected)
{
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
		const struct codec *c = &codecs[i];
		if (c->magic_len && n >= c->magic_len && memcmp(p, c->magic, c->magic_len) == 0)
			return c;
	}
	if (looks_like_lzma(p, n, expected))
		return &codecs[sizeof(codecs) / sizeof(codecs[0]) - 1];
	return NULL;
}

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

static int read_ours(const uint8_t *raw, const uint8_t *payload, struct buffer *out,
		     struct bzimage_info *info, struct error *err)
{
	static struct crc32c_table crc;
	struct bzpack_header *h = &info->header;

	crc32c_init(&crc, 0);
	memcpy(h, raw, sizeof(*h));
	info->ours = 1;
	info->stub_size = info->payload_offset - BZPACK_HEADER_SIZE;
	if (h->header_crc != crc32c_update(&crc, 0, h, offsetof(struct bzpack_header, header_crc)))
		return fail_with(err, "bzpack header: checksum mismatch");
	if (h->version != BZPACK_FORMAT_VERSION || h->header_size != BZPACK_HEADER_SIZE)
		return fail_with(err, "bzpack header: format %u (%u bytes) is not ours (format %u)",
				 h->version, h->header_size, BZPACK_FORMAT_VERSION);
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
	if (h->entry < h->out_addr || h->entry >= (uint64_t)h->out_addr + h->out_size)
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
	enum decode_status s = DECODE_CORRUPT;
	switch (h->codec) {
	case BZPACK_CODEC_NONE:
		s = h->payload_size == h->out_size ? DECODE_OK : DECODE_SHORT_OUTPUT;
		if (s == DECODE_OK)
			memcpy(out->data, payload, out->size);
		break;
	case BZPACK_CODEC_LZ4:
		s = lz4_decode(payload, h->payload_size, out->data, out->size);
		break;
	default:
		free(out->data);
		out->data = NULL;
		return fail_with(err, "bzpack payload: no host decoder for codec %s", info->codec);
	}
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
	const struct codec *c = find_codec(payload, len - SIZE_TRAILER, expected);
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
		return read_ours(ours, payload, out, info, err);
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
		int r = kernel_from_elf(&out, want_bits, k, &e);
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
		fprintf(o, ", xloadflags 0x%x%s", i->xloadflags, i->xloadflags & 1 ? " (KERNEL_64)" : "");
	fputc('\n', o);
	if (i->protocol >= PROTOCOL_PREF_ADDRESS)
		fprintf(o, ROW "0x%x (%u bytes)\n", "init_size:", i->init_size, i->init_size);
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
		fprintf(o, ROW "0x%x-0x%llx (%u bytes + %u zeroed)\n", "kernel:", h->out_addr,
			(unsigned long long)h->out_addr + h->out_size + h->zero_size, h->out_size, h->zero_size);
		fprintf(o, ROW "%llu bytes (setup %llu + stub %llu + header %d)\n", "overhead:",
			(unsigned long long)(i->setup_size + i->stub_size + BZPACK_HEADER_SIZE),
			(unsigned long long)i->setup_size, (unsigned long long)i->stub_size, BZPACK_HEADER_SIZE);
	} else if (i->decompressed && i->elf_bits) {
		fprintf(o, ROW "0x%llx (vmlinux ELF%d e_entry)\n", "entry:", (unsigned long long)i->elf_entry,
			i->elf_bits);
	} else if (i->decompressed) {
		fprintf(o, ROW "unknown: the payload is not an x86 ELF file\n", "entry:");
	}
}
