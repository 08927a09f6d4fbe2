/* linux_codecs.c - the decompressors behind Linux bzImage payloads, all
 * through the Debian libraries: gzip (zlib), bzip2 (libbz2), .lzma and .xz
 * (liblzma), lzop files (the container is parsed here, as lzop writes it;
 * its blocks go to liblzo2), the LZ4 "legacy frame" (blocks of at most
 * 8 MiB, each after its le32 compressed size; liblz4 decodes the blocks)
 * and Zstandard (libzstd).  See linux_codecs.h. */
#define ZLIB_CONST
#include "linux_codecs.h"

#include <bzlib.h>
#include <lz4.h>
#include <lzma.h>
#include <lzo/lzo1x.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>


static int too_long(struct error *err, const char *codec, size_t cap)
{
	return fail_with(err, "bzImage payload: %s data decompresses to more than the %zu bytes "
			 "its size trailer says", codec, cap);
}

static int truncated(struct error *err, const char *codec)
{
	return fail_with(err, "bzImage payload: %s data truncated", codec);
}

/* How a library's run over the whole payload ended, in the terms every
 * codec reports: finished; stopped (out of input, or out of room when the
 * output is full); out of memory; corrupt data.  Each library's own codes
 * map to one of these, and stream_result words them the same for all. */
enum stream_end { STREAM_DONE, STREAM_STOPPED, STREAM_NO_MEMORY, STREAM_CORRUPT };

static int stream_result(struct error *err, enum stream_end e, const char *codec, const char *lib,
			 int full, size_t cap, const char *why)
{
	switch (e) {
	case STREAM_DONE:
		return 0;
	case STREAM_STOPPED:
		return full ? too_long(err, codec, cap) : truncated(err, codec);
	case STREAM_NO_MEMORY:
		return fail_with(err, "bzImage payload: out of memory in %s", lib);
	default:
		return fail_with(err, "bzImage payload: %s data corrupt (%s)", codec, why);
	}
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

	enum stream_end e = r == Z_STREAM_END ? STREAM_DONE
			    : r == Z_BUF_ERROR ? STREAM_STOPPED
			    : r == Z_MEM_ERROR ? STREAM_NO_MEMORY
					       : STREAM_CORRUPT;
	return stream_result(err, e, "gzip", "zlib", full, cap, msg);
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

	char why[32];
	snprintf(why, sizeof(why), "libbz2 error %d", r);
	enum stream_end e = r == BZ_STREAM_END ? STREAM_DONE
			    : r == BZ_OK ? STREAM_STOPPED
			    : r == BZ_MEM_ERROR ? STREAM_NO_MEMORY
						: STREAM_CORRUPT;
	return stream_result(err, e, "bzip2", "libbz2", full, cap, why);
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

	if (r == LZMA_OPTIONS_ERROR)
		return fail_with(err, "bzImage payload: %s data uses options liblzma does not support", codec);
	if (r == LZMA_UNSUPPORTED_CHECK)
		return fail_with(err, "bzImage payload: %s data uses an unsupported integrity check", codec);
	char why[32];
	snprintf(why, sizeof(why), "liblzma error %d", (int)r);
	enum stream_end e = r == LZMA_STREAM_END ? STREAM_DONE
			    : r == LZMA_BUF_ERROR ? STREAM_STOPPED
			    : r == LZMA_MEM_ERROR || r == LZMA_MEMLIMIT_ERROR ? STREAM_NO_MEMORY
									       : STREAM_CORRUPT;
	return stream_result(err, e, codec, "liblzma", full, cap, why);
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
	if (!ZSTD_isError(r)) {
		*produced = r;
		return 0;
	}
	ZSTD_ErrorCode code = ZSTD_getErrorCode(r);
	int full = code == ZSTD_error_dstSize_tooSmall;
	enum stream_end e = full || code == ZSTD_error_srcSize_wrong ? STREAM_STOPPED
			    : code == ZSTD_error_memory_allocation  ? STREAM_NO_MEMORY
								     : STREAM_CORRUPT;
	return stream_result(err, e, "zstd", "libzstd", full, cap, ZSTD_getErrorName(r));
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

static const struct linux_codec codecs[] = {
	{ "gzip",  { 0x1f, 0x8b, 0x08 }, 3, unpack_gzip },
	{ "bzip2", { 'B', 'Z', 'h' }, 3, unpack_bzip2 },
	{ "xz",    { 0xfd, '7', 'z', 'X', 'Z', 0x00 }, 6, unpack_xz },
	{ "lzo",   { 0x89, 'L', 'Z', 'O', 0x00, 0x0d, 0x0a, 0x1a, 0x0a }, 9, unpack_lzo },
	{ "lz4",   { 0x02, 0x21, 0x4c, 0x18 }, 4, unpack_lz4 },
	{ "zstd",  { 0x28, 0xb5, 0x2f, 0xfd }, 4, unpack_zstd },
	{ "lzma",  { 0 }, 0, unpack_lzma },  /* no magic: looks_like_lzma */
};

const struct linux_codec *linux_codec_find(const uint8_t *p, size_t n, uint64_t expected)
{
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
		const struct linux_codec *c = &codecs[i];
		if (c->magic_len && n >= c->magic_len && memcmp(p, c->magic, c->magic_len) == 0)
			return c;
	}
	if (looks_like_lzma(p, n, expected))
		return &codecs[sizeof(codecs) / sizeof(codecs[0]) - 1];
	return NULL;
}
