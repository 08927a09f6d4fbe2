/* test_stream.c - host test of the stream entry points gzip_decode_stream,
 * bzip2_decode_stream, lzma_decode_stream and zstd_decode_stream
 * (decode/decode.h), against the reference libraries.
 *
 * Each stream comes from a reference compressor (zlib and libdeflate for
 * gzip members, libbz2 at levels 9 and 1, liblzma's .lzma encoder with an
 * end marker and an unknown or a known size, and its raw LZMA1 encoder
 * behind a known-size header with no end marker; libzstd with and without
 * a content size and a checksum, one-shot and streamed), of a few inputs:
 * empty, small, and a MiB of mixed text, random data and zeros.  For each
 * stream of each input:
 *   - a dst_cap of exactly its size, one more, and a lot more: DECODE_OK
 *     with the input's bytes, *dst_used its size, *src_used the stream's
 *     (and that is what the reference says it took, too);
 *   - one byte less: DECODE_OUTPUT_OVERRUN;
 *   - the stream with zeros, garbage or a second stream of its kind after
 *     it: the first stream alone, as the reference reads it;
 *   - every proper prefix (a sample of them, for a long stream): never
 *     DECODE_OK;
 *   - its middle byte damaged: for a stream whose check covers all of
 *     its output (gzip's CRC-32 and ISIZE, bzip2's CRCs, zstd's content
 *     checksum) never DECODE_OK; for the others, if OK, no more than
 *     dst_cap bytes claimed.
 * On every call: nothing written outside dst[0..dst_cap) (guard bytes, or
 * ASan's redzones around the exact buffers), and *src_used, *dst_used
 * left alone on anything but DECODE_OK (decode.h: "both set only on
 * DECODE_OK").  Last for each stream, a note (not a case: decode.h
 * allows it) of the OK calls that wrote dst past *dst_used.  The workspace has exactly its declared size
 * and new junk before every call.
 *
 * usage: test_stream   (no arguments; extra ones are ignored)
 *
 * Prints "ok <name>" / "FAIL <name>: <why>" per case and "test_stream:
 * N passed, M failed, K skipped" at the end (tests/testlib.h); exits 1 if
 * anything failed.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZLIB_CONST
#include <bzlib.h>
#include <libdeflate.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "decode.h"
#include "testgen.h"
#include "testlib.h"

/* ---- the codecs ----------------------------------------------------------- */

typedef enum decode_status (*stream_fn)(const uint8_t *src, size_t src_len, size_t *src_used,
					uint8_t *dst, size_t dst_cap, size_t *dst_used, void *workspace);

/* A reference's reading of the first stream of src[0..len) into out[0..cap):
 * the input bytes it took, its output size in *out_n; (size_t)-1 if it
 * does not decode it. */
typedef size_t (*ref_fn)(const uint8_t *src, size_t len, uint8_t *out, size_t cap, size_t *out_n);

struct codec {
	stream_fn decode;
	size_t ws_bytes;
	ref_fn ref;
	struct buf ws;          /* allocated in main */
	unsigned calls;
};

/* ---- running a decoder -------------------------------------------------------- */

/* What *src_used and *dst_used hold before a call: a value no call sets. */
#define UNSET ((size_t)-1 - 0x5A5A)
/* dst's bytes before a call: what is still there past *dst_used was not
 * written. */
#define FILL 0x5C

/* The workspace gets new junk before every call ("contents undefined on
 * entry").  bzip2's is 3.6 MB: all of it every WS_FULL_EVERY calls, else
 * its first and last WS_EDGE bytes (its tables are at the end, after the
 * T-vector), or the sanitizer build spends its time in memset. */
#define WS_FULL_EVERY 16
#define WS_EDGE       (64u * KIB)

static void junk_workspace(struct codec *c)
{
	const uint8_t junk = (uint8_t)(0x3B + 7 * c->calls);

	if (c->ws.n <= 2 * WS_EDGE || c->calls % WS_FULL_EVERY == 0) {
		memset(c->ws.p, junk, c->ws.n);
	} else {
		memset(c->ws.p, junk, WS_EDGE);
		memset(c->ws.p + c->ws.n - WS_EDGE, junk, WS_EDGE);
	}
	c->calls++;
}

/* Writes into dst past *dst_used on DECODE_OK, kept apart from the other
 * checks: decode.h lets a decoder write all of [dst, dst + dst_cap), and
 * the fast loops' wild copies (gzip_decode.c WILD_SLACK, zstd_block.c
 * WILD_MARGIN, lzma_core.h WILD_OUT_MARGIN) write a little past the end
 * of a match; but whoever calls a stream decoder with room to spare may
 * hold something there.  check_stream notes them for each stream: the
 * calls that did it, and the worst. */
static struct {
	unsigned calls;
	size_t bytes, dst_used, cap, src_len;
} past;

static void note_past(const struct buf *d, size_t src_len, size_t dst_used)
{
	size_t last = dst_used;

	for (size_t i = dst_used; i < d->n; i++)
		if (d->p[i] != FILL)
			last = i + 1;
	if (last == dst_used)
		return;
	past.calls++;
	if (last - dst_used > past.bytes) {
		past.bytes = last - dst_used;
		past.dst_used = dst_used;
		past.cap = d->n;
		past.src_len = src_len;
	}
}

/* One call's results; out is a copy of dst[0..dst_used) on DECODE_OK
 * (malloc'ed; NULL otherwise). */
struct run {
	int st;
	size_t src_used, dst_used;
	uint8_t *out;
};

/* c's decode_stream on an exact copy of src[0..len) into an exact dst of
 * cap bytes; failf on whatever any call must not do (see the top). */
static struct run run_stream(struct codec *c, const uint8_t *src, size_t len, size_t cap)
{
	struct buf s = buf_from(src, len);
	struct buf d = buf_new(cap);
	struct run r = { 0, UNSET, UNSET, NULL };

	memset(d.p, FILL, cap);
	junk_workspace(c);
	r.st = c->decode(s.p, len, &r.src_used, d.p, cap, &r.dst_used, c->ws.p);
	if (!buf_guards_ok(&d))
		failf("wrote outside dst (cap %zu, status %s)", cap, status_name(r.st));
	if (!buf_guards_ok(&s))
		failf("wrote outside src (status %s)", status_name(r.st));
	if (!buf_guards_ok(&c->ws))
		failf("wrote outside its workspace (status %s)", status_name(r.st));
	if (!valid_status(r.st)) {
		failf("returned %d, not a decode_status", r.st);
	} else if (r.st != DECODE_OK) {
		if (r.src_used != UNSET || r.dst_used != UNSET)
			failf("status %s but *src_used or *dst_used set (%zu, %zu)", status_name(r.st),
			      r.src_used, r.dst_used);
	} else if (r.src_used > len || r.dst_used > cap) {
		failf("OK with *src_used %zu of %zu, *dst_used %zu of cap %zu", r.src_used, len, r.dst_used,
		      cap);
	} else {
		note_past(&d, len, r.dst_used);
		r.out = xmalloc(r.dst_used);
		if (r.dst_used)
			memcpy(r.out, d.p, r.dst_used);
	}
	buf_free(&s);
	buf_free(&d);
	return r;
}

/* Inside the current case: src[0..len) decoded with dst_cap cap is
 * DECODE_OK, takes clen input bytes and gives data[0..n). */
static void expect_stream(struct codec *c, const uint8_t *src, size_t len, size_t cap, const uint8_t *data,
			  size_t n, size_t clen, const char *what)
{
	struct run r = run_stream(c, src, len, cap);
	size_t at;

	if (r.st != DECODE_OK)
		failf("%s: cap %zu: status %s", what, cap, status_name(r.st));
	else if (r.src_used != clen)
		failf("%s: cap %zu: *src_used %zu, the stream is %zu bytes", what, cap, r.src_used, clen);
	else if (r.dst_used != n)
		failf("%s: cap %zu: *dst_used %zu, want %zu", what, cap, r.dst_used, n);
	else if ((at = first_diff(r.out, data, n)) != n)
		failf("%s: cap %zu: output differs from the input at byte %zu", what, cap, at);
	free(r.out);
}

/* Inside the current case: the reference reads the first stream of
 * src[0..len) as clen bytes that give data[0..n). */
static void expect_ref(const struct codec *c, const uint8_t *src, size_t len, const uint8_t *data, size_t n,
		       size_t clen, const char *what)
{
	/* Room for more than n: a reference that reads on shows it. */
	size_t cap = n + 4 * KIB, out_n = 0;
	uint8_t *out = xmalloc(cap);
	size_t used = c->ref(src, len, out, cap, &out_n);

	if (used == (size_t)-1)
		failf("%s: the reference does not decode it", what);
	else if (used != clen)
		failf("%s: the reference takes %zu bytes, ours %zu", what, used, clen);
	else if (out_n != n || first_diff(out, data, n) != n)
		failf("%s: the reference decodes %zu other bytes", what, out_n);
	free(out);
}

/* ---- references: zlib, libbz2, liblzma, libzstd ------------------------------ */

/* zlib's inflate with gzip framing stops at the end of the member and
 * leaves what follows in avail_in. */
static size_t ref_gzip(const uint8_t *src, size_t len, uint8_t *out, size_t cap, size_t *out_n)
{
	z_stream z;
	size_t used = (size_t)-1;

	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		fprintf(stderr, "test_stream: inflateInit2 failed\n");
		exit(2);
	}
	z.next_in = src;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (inflate(&z, Z_FINISH) == Z_STREAM_END) {
		used = len - z.avail_in;
		*out_n = cap - z.avail_out;
	}
	inflateEnd(&z);
	return used;
}

/* libbz2 reads its input a byte at a time, as the bits are needed: at
 * BZ_STREAM_END it has taken the byte with the stream's last bit and no
 * more. */
static size_t ref_bzip2(const uint8_t *src, size_t len, uint8_t *out, size_t cap, size_t *out_n)
{
	bz_stream b;
	size_t used = (size_t)-1;
	int r;

	memset(&b, 0, sizeof b);
	if (BZ2_bzDecompressInit(&b, 0, 0) != BZ_OK) {
		fprintf(stderr, "test_stream: BZ2_bzDecompressInit failed\n");
		exit(2);
	}
	b.next_in = (char *)(uintptr_t)src;
	b.avail_in = (unsigned)len;
	b.next_out = (char *)out;
	b.avail_out = (unsigned)cap;
	for (int k = 0; k < 1000; k++) {
		unsigned in_before = b.avail_in, out_before = b.avail_out;

		r = BZ2_bzDecompress(&b);
		if (r == BZ_STREAM_END) {
			used = len - b.avail_in;
			*out_n = cap - b.avail_out;
			break;
		}
		if (r != BZ_OK || (b.avail_in == in_before && b.avail_out == out_before))
			break;
	}
	BZ2_bzDecompressEnd(&b);
	return used;
}

/* liblzma's .lzma decoder (5.4: an end marker is also allowed after a
 * known size, as ours allows it); LZMA_RUN, so that it stops at the end
 * of the stream and leaves what follows. */
static size_t ref_lzma(const uint8_t *src, size_t len, uint8_t *out, size_t cap, size_t *out_n)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t used = (size_t)-1;
	lzma_ret r;

	if (lzma_alone_decoder(&s, UINT64_MAX) != LZMA_OK) {
		fprintf(stderr, "test_stream: lzma_alone_decoder failed\n");
		exit(2);
	}
	s.next_in = src;
	s.avail_in = len;
	s.next_out = out;
	s.avail_out = cap;
	for (int k = 0; k < 1000; k++) {
		size_t in_before = s.avail_in, out_before = s.avail_out;

		r = lzma_code(&s, LZMA_RUN);
		if (r == LZMA_STREAM_END) {
			used = (size_t)s.total_in;
			*out_n = (size_t)s.total_out;
			break;
		}
		if (r != LZMA_OK || (s.avail_in == in_before && s.avail_out == out_before))
			break;
	}
	lzma_end(&s);
	return used;
}

/* libzstd's streaming decoder returns 0 at the end of a frame, its input
 * position right after it. */
static size_t ref_zstd(const uint8_t *src, size_t len, uint8_t *out, size_t cap, size_t *out_n)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	ZSTD_inBuffer ib = { src, len, 0 };
	ZSTD_outBuffer ob = { out, cap, 0 };
	size_t used = (size_t)-1;

	for (int k = 0; k < 100000; k++) {
		size_t in_before = ib.pos, out_before = ob.pos;
		size_t r = ZSTD_decompressStream(dc, &ob, &ib);

		if (ZSTD_isError(r))
			break;
		if (r == 0) {
			used = ib.pos;
			*out_n = ob.pos;
			break;
		}
		if (ib.pos == in_before && ob.pos == out_before)
			break;
	}
	ZSTD_freeDCtx(dc);
	return used;
}

static struct codec c_gzip = { gzip_decode_stream, DECODE_WORKSPACE_gzip, ref_gzip, { 0 }, 0 };
static struct codec c_bzip2 = { bzip2_decode_stream, DECODE_WORKSPACE_bzip2, ref_bzip2, { 0 }, 0 };
static struct codec c_lzma = { lzma_decode_stream, DECODE_WORKSPACE_lzma, ref_lzma, { 0 }, 0 };
static struct codec c_zstd = { zstd_decode_stream, DECODE_WORKSPACE_zstd, ref_zstd, { 0 }, 0 };

/* ---- the compressors ---------------------------------------------------------- */

static void die(const char *what, size_t n)
{
	fprintf(stderr, "test_stream: %s failed on %zu bytes\n", what, n);
	exit(2);
}

/* A gzip member from zlib; header: with FEXTRA, FNAME, FCOMMENT and
 * FHCRC, a header the decoder must walk to find where DEFLATE starts. */
static uint8_t *zlib_member(const uint8_t *data, size_t n, int level, int header, size_t *clen)
{
	static uint8_t extra[] = { 'B', 'z', 4, 0, 'p', 'a', 'c', 'k' };
	static uint8_t name[] = "initrd.cpio";
	static uint8_t comment[] = "a piece of an initrd";
	gz_header h;
	z_stream z;
	size_t cap;
	uint8_t *out;

	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		die("deflateInit2", n);
	if (header) {
		memset(&h, 0, sizeof h);
		h.text = 1;
		h.time = 0x5EED;
		h.os = 3;
		h.extra = extra;
		h.extra_len = sizeof extra;
		h.name = name;
		h.comment = comment;
		h.hcrc = 1;
		if (deflateSetHeader(&z, &h) != Z_OK)
			die("deflateSetHeader", n);
	}
	cap = deflateBound(&z, (uLong)n) + 256;
	out = xmalloc(cap);
	z.next_in = data;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		die("zlib deflate", n);
	*clen = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

static uint8_t *make_zlib6(const uint8_t *data, size_t n, size_t *clen)
{
	return zlib_member(data, n, 6, 0, clen);
}

static uint8_t *make_zlib9_header(const uint8_t *data, size_t n, size_t *clen)
{
	return zlib_member(data, n, 9, 1, clen);
}

static uint8_t *make_libdeflate12(const uint8_t *data, size_t n, size_t *clen)
{
	struct libdeflate_compressor *z = libdeflate_alloc_compressor(12);
	size_t cap;
	uint8_t *out;

	if (!z)
		die("libdeflate_alloc_compressor", n);
	cap = libdeflate_gzip_compress_bound(z, n);
	out = xmalloc(cap);
	*clen = libdeflate_gzip_compress(z, data, n, out, cap);
	libdeflate_free_compressor(z);
	if (*clen == 0)
		die("libdeflate_gzip_compress", n);
	return out;
}

static uint8_t *bz_stream_of(int level, const uint8_t *data, size_t n, size_t *clen)
{
	size_t cap = n + n / 100 + 600;
	unsigned len = (unsigned)cap;
	uint8_t *out = xmalloc(cap);

	if (cap > UINT_MAX ||
	    BZ2_bzBuffToBuffCompress((char *)out, &len, (char *)(uintptr_t)data, (unsigned)n, level, 0, 0) != BZ_OK)
		die("BZ2_bzBuffToBuffCompress", n);
	*clen = len;
	return out;
}

static uint8_t *make_bz9(const uint8_t *data, size_t n, size_t *clen)
{
	return bz_stream_of(9, data, n, clen);
}

static uint8_t *make_bz1(const uint8_t *data, size_t n, size_t *clen)
{
	return bz_stream_of(1, data, n, clen);
}

/* Preset 6 but a 1 MiB dictionary: the inputs are no larger, and the
 * encoder sets up faster. */
static void lzma_options(lzma_options_lzma *o)
{
	if (lzma_lzma_preset(o, 6))
		die("lzma_lzma_preset", 0);
	o->dict_size = MIB;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* lzma_alone_encoder: the header's size all ones (unknown), an end
 * marker. */
static uint8_t *make_alone(const uint8_t *data, size_t n, size_t *clen)
{
	lzma_options_lzma o;
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = n + n / 8 + 4096;
	uint8_t *out = xmalloc(cap);
	lzma_ret r;

	lzma_options(&o);
	if (lzma_alone_encoder(&s, &o) != LZMA_OK)
		die("lzma_alone_encoder", n);
	s.next_in = data;
	s.avail_in = n;
	s.next_out = out;
	s.avail_out = cap;
	do
		r = lzma_code(&s, LZMA_FINISH);
	while (r == LZMA_OK && s.avail_out);
	if (r != LZMA_STREAM_END)
		die("lzma_code (alone)", n);
	*clen = cap - s.avail_out;
	lzma_end(&s);
	return out;
}

/* The same with the real size in the header: a known size and an end
 * marker after it. */
static uint8_t *make_alone_sized(const uint8_t *data, size_t n, size_t *clen)
{
	uint8_t *out = make_alone(data, n, clen);

	put_le64(out + 5, n);
	return out;
}

/* The raw LZMA1EXT encoder without LZMA_LZMA1EXT_ALLOW_EOPM behind a
 * header written here: a known size and no end marker, where the stream
 * ends with the symbol that completes the size. */
static uint8_t *make_raw_sized(const uint8_t *data, size_t n, size_t *clen)
{
	lzma_options_lzma o;
	size_t cap = n + n / 8 + 4096, pos = 13;
	uint8_t *out = xmalloc(cap);

	lzma_options(&o);
	o.ext_flags = 0;
	lzma_filter filters[] = { { LZMA_FILTER_LZMA1EXT, &o }, { LZMA_VLI_UNKNOWN, NULL } };
	if (lzma_raw_buffer_encode(filters, NULL, data, n, out, &pos, cap) != LZMA_OK)
		die("lzma_raw_buffer_encode (LZMA1EXT)", n);
	out[0] = (uint8_t)((o.pb * 5 + o.lp) * 9 + o.lc);
	for (int i = 0; i < 4; i++)
		out[1 + i] = (uint8_t)(o.dict_size >> (8 * i));
	put_le64(out + 5, n);
	*clen = pos;
	return out;
}

/* One zstd frame at level 3; size: ZSTD_c_contentSizeFlag (the one-shot
 * ZSTD_compress2 writes Frame_Content_Size unless it is 0); streamed: in
 * 64 KiB pieces with ZSTD_e_continue and the end on its own, so that
 * libzstd never learns the size (ZSTD_e_end with all the input in one call
 * would write it). */
static uint8_t *zstd_frame(const uint8_t *data, size_t n, int size, int checksum, int streamed,
			   size_t *clen)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(n), r;
	uint8_t *out = xmalloc(cap);

	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, size);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum);
	if (!streamed) {
		r = ZSTD_compress2(cc, out, cap, data, n);
	} else {
		ZSTD_outBuffer ob = { out, cap, 0 };
		size_t pos = 0;

		r = 0;
		while (pos < n && !ZSTD_isError(r)) {
			size_t piece = n - pos < 64 * KIB ? n - pos : 64 * KIB;
			ZSTD_inBuffer ib = { data + pos, piece, 0 };

			do
				r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_continue);
			while (!ZSTD_isError(r) && ib.pos < ib.size);
			pos += piece;
		}
		if (!ZSTD_isError(r)) {
			ZSTD_inBuffer ib = { data, 0, 0 };

			do
				r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end);
			while (!ZSTD_isError(r) && r != 0);
		}
		if (!ZSTD_isError(r))
			r = ob.pos;
	}
	ZSTD_freeCCtx(cc);
	if (ZSTD_isError(r))
		die("libzstd", n);
	*clen = r;
	return out;
}

static uint8_t *make_zstd_size(const uint8_t *data, size_t n, size_t *clen)
{
	return zstd_frame(data, n, 1, 0, 0, clen);
}

static uint8_t *make_zstd_size_check(const uint8_t *data, size_t n, size_t *clen)
{
	return zstd_frame(data, n, 1, 1, 0, clen);
}

static uint8_t *make_zstd_nosize(const uint8_t *data, size_t n, size_t *clen)
{
	return zstd_frame(data, n, 0, 0, 0, clen);
}

static uint8_t *make_zstd_streamed_check(const uint8_t *data, size_t n, size_t *clen)
{
	return zstd_frame(data, n, 1, 1, 1, clen);
}

struct maker {
	const char *name;
	struct codec *codec;
	/* a check covers the whole output: a damaged stream is never OK */
	int checked;
	uint8_t *(*make)(const uint8_t *data, size_t n, size_t *clen);
};

static const struct maker makers[] = {
	{ "gzip/zlib6", &c_gzip, 1, make_zlib6 },
	{ "gzip/zlib9-header", &c_gzip, 1, make_zlib9_header },
	{ "gzip/libdeflate12", &c_gzip, 1, make_libdeflate12 },
	{ "bzip2/9", &c_bzip2, 1, make_bz9 },
	{ "bzip2/1", &c_bzip2, 1, make_bz1 },
	{ "lzma/alone-unknown-size", &c_lzma, 0, make_alone },
	{ "lzma/alone-known-size", &c_lzma, 0, make_alone_sized },
	{ "lzma/raw-known-size-no-marker", &c_lzma, 0, make_raw_sized },
	{ "zstd/size", &c_zstd, 0, make_zstd_size },
	{ "zstd/size-checksum", &c_zstd, 1, make_zstd_size_check },
	{ "zstd/no-size", &c_zstd, 0, make_zstd_nosize },
	{ "zstd/streamed-checksum", &c_zstd, 1, make_zstd_streamed_check },
};
#define N_MAKERS (sizeof makers / sizeof makers[0])

/* ---- the cases ------------------------------------------------------------------ */

/* What follows a stream in the trailing-bytes cases: the second stream is
 * of its own input (the same for every maker). */
#define TAIL_BYTES   64
#define SECOND_BYTES 1000
static uint8_t second_data[SECOND_BYTES];

/* The exact cap, and the reference's agreement with it (and with the
 * input: the compressors' own sanity). */
static void case_exact(const struct maker *m, const char *in, const uint8_t *data, size_t n,
		       const uint8_t *s, size_t clen)
{
	begin_case();
	expect_stream(m->codec, s, clen, n, data, n, clen, "exact cap");
	expect_ref(m->codec, s, clen, data, n, clen, "exact cap");
	if (n == 0) {
		/* An empty stream with no dst at all: dst may be NULL when
		 * dst_cap is 0. */
		struct buf b = buf_from(s, clen);
		size_t su = UNSET, du = UNSET;
		int st;

		junk_workspace(m->codec);
		st = m->codec->decode(b.p, clen, &su, NULL, 0, &du, m->codec->ws.p);
		if (st != DECODE_OK || su != clen || du != 0)
			failf("dst NULL, cap 0: status %s, *src_used %zu, *dst_used %zu", status_name(st), su, du);
		buf_free(&b);
	}
	end_casef("%s %s: exact cap (%zu -> %zu bytes)", m->name, in, n, clen);
}

/* A cap larger than needed: the stream ends where it ends (what it wrote
 * past *dst_used goes to the stream's own case, note_past). */
static void case_larger(const struct maker *m, const char *in, const uint8_t *data, size_t n,
			const uint8_t *s, size_t clen)
{
	begin_case();
	expect_stream(m->codec, s, clen, n + 1, data, n, clen, "cap + 1");
	expect_stream(m->codec, s, clen, 2 * n + 64 * KIB, data, n, clen, "cap 2n + 64 KiB");
	end_casef("%s %s: larger caps", m->name, in);
}

/* One byte short: the stream holds more than dst_cap. */
static void case_short(const struct maker *m, const char *in, size_t n, const uint8_t *s, size_t clen)
{
	struct run r;

	if (n == 0)
		return;
	begin_case();
	r = run_stream(m->codec, s, clen, n - 1);
	if (r.st != DECODE_OUTPUT_OVERRUN)
		failf("cap %zu: status %s, want OUTPUT_OVERRUN", n - 1, status_name(r.st));
	free(r.out);
	end_casef("%s %s: cap one byte short", m->name, in);
}

/* The stream, then tail[0..tail_len): the first stream alone, with room
 * in dst for more (a decoder that ran on into the tail would use it). */
static void case_trailing(const struct maker *m, const char *in, const char *what, const uint8_t *data,
			  size_t n, const uint8_t *s, size_t clen, const uint8_t *tail, size_t tail_len)
{
	uint8_t *t = xmalloc(clen + tail_len);

	memcpy(t, s, clen);
	memcpy(t + clen, tail, tail_len);
	begin_case();
	expect_stream(m->codec, t, clen + tail_len, n + SECOND_BYTES + 4 * KIB, data, n, clen, what);
	expect_ref(m->codec, t, clen + tail_len, data, n, clen, what);
	end_casef("%s %s: then %s", m->name, in, what);
	free(t);
}

/* Every proper prefix of a stream up to 3000 bytes.  Of a longer one:
 * the first 24 (the header), the last 12 (the last block's end, the end
 * marker or the trailer and check, where a decoder might stop short) and
 * 6 at random between; each of the last costs a whole decode.  Never OK,
 * whatever the cap (the exact size, or room to spare). */
#define CUT_ALL  3000
#define CUT_HEAD 24
#define CUT_MID  6
#define CUT_TAIL 12

static void case_truncated(const struct maker *m, const char *in, size_t n, const uint8_t *s, size_t clen)
{
	const size_t cuts = clen <= CUT_ALL ? clen : CUT_HEAD + CUT_MID + CUT_TAIL;

	begin_case();
	for (size_t i = 0; i < cuts && !case_failed; i++) {
		size_t cut = i;
		struct run r;

		if (clen > CUT_ALL && i >= CUT_HEAD)
			cut = i < CUT_HEAD + CUT_MID ? CUT_HEAD + rng_below(clen - CUT_HEAD - CUT_TAIL)
						     : clen - (cuts - i);
		r = run_stream(m->codec, s, cut, i % 2 ? n + 4 * KIB : n);
		if (r.st == DECODE_OK)
			failf("cut to %zu of %zu bytes: OK with %zu bytes", cut, clen, r.dst_used);
		free(r.out);
	}
	end_casef("%s %s: %zu truncations", m->name, in, cuts);
}

/* The middle byte xored with a few masks, decoded at the exact cap or
 * a larger one.  A checked stream must not decode OK; the others may
 * (the damage may change only the output), within the cap (run_stream). */
static void case_flipped(const struct maker *m, const char *in, size_t n, const uint8_t *s, size_t clen)
{
	static const uint8_t masks[] = { 0x01, 0x10, 0x80, 0xFF };
	const size_t at = clen / 2;
	uint8_t *d = xmalloc(clen);
	unsigned ok = 0;

	begin_case();
	for (size_t k = 0; k < sizeof masks && !case_failed; k++) {
		const size_t cap = k % 2 ? n + 4 * KIB : n;
		struct run r;

		memcpy(d, s, clen);
		d[at] ^= masks[k];
		r = run_stream(m->codec, d, clen, cap);
		if (r.st == DECODE_OK) {
			ok++;
			if (m->checked)
				failf("byte %zu of %zu ^ 0x%02X, cap %zu: OK (%zu bytes, %zu taken)", at, clen, masks[k],
				      cap, r.dst_used, r.src_used);
		}
		free(r.out);
	}
	free(d);
	end_casef("%s %s: middle byte damaged (%u of %zu OK)", m->name, in, ok, sizeof masks);
}

/* Every case for one input and one maker. */
static void check_stream(const struct maker *m, const char *in, const uint8_t *data, size_t n)
{
	uint8_t zeros[TAIL_BYTES], garbage[TAIL_BYTES];
	size_t clen, clen2;
	uint8_t *s = m->make(data, n, &clen);
	uint8_t *s2 = m->make(second_data, SECOND_BYTES, &clen2);

	memset(&past, 0, sizeof past);
	memset(zeros, 0, sizeof zeros);
	gen_random(garbage, sizeof garbage);
	case_exact(m, in, data, n, s, clen);
	case_larger(m, in, data, n, s, clen);
	case_short(m, in, n, s, clen);
	case_trailing(m, in, "a zero byte", data, n, s, clen, zeros, 1);
	case_trailing(m, in, "64 zero bytes", data, n, s, clen, zeros, sizeof zeros);
	case_trailing(m, in, "64 random bytes", data, n, s, clen, garbage, sizeof garbage);
	case_trailing(m, in, "a second stream", data, n, s, clen, s2, clen2);
	case_truncated(m, in, n, s, clen);
	case_flipped(m, in, n, s, clen);
	/* Allowed (decode.h), so told, not judged. */
	if (past.calls)
		printf("note: %s %s: %u OK calls wrote up to %zu bytes past *dst_used, within dst_cap\n",
		       m->name, in, past.calls, past.bytes);
	free(s);
	free(s2);
}

/* zstd_decode_stream takes one frame, not a skippable one: a skippable
 * frame first (then a real one) is not one for it. */
static void case_zstd_skippable(void)
{
	static const uint8_t text[] = "after the skippable frame";
	uint8_t f[64 + sizeof text];
	size_t clen = ZSTD_compress(f + 12, sizeof f - 12, text, sizeof text, 3);
	struct run r;

	if (ZSTD_isError(clen))
		die("ZSTD_compress", sizeof text);
	/* magic 0x184D2A50, 4 bytes of user data */
	memcpy(f, "\x50\x2A\x4D\x18\x04\x00\x00\x00" "data", 12);
	begin_case();
	r = run_stream(&c_zstd, f, 12 + clen, 4 * KIB);
	if (r.st == DECODE_OK)
		failf("OK with %zu bytes out, %zu taken", r.dst_used, r.src_used);
	free(r.out);
	r = run_stream(&c_zstd, f + 12, clen, 4 * KIB);
	if (r.st != DECODE_OK || r.dst_used != sizeof text)
		failf("the frame alone: status %s", status_name(r.st));
	free(r.out);
	end_case("zstd: a skippable frame first");
}

/* Empty, small, and a MiB of gen_mixed (zero stretches, random data,
 * text, periodic patterns, tables, copies). */
static const struct gen_input inputs[] = {
	{ "empty", 0, gen_zeros },
	{ "random-50", 50, gen_random },
	{ "text-300", 300, gen_text },
	{ "semi-3000", 3000, gen_semi },
	{ "mixed-1MiB", MIB, gen_mixed },
};

int main(void)
{
	struct codec *const codecs[] = { &c_gzip, &c_bzip2, &c_lzma, &c_zstd };

	for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
		codecs[i]->ws = buf_new(codecs[i]->ws_bytes);
	gen_text(second_data, sizeof second_data);
	for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
		uint8_t *data = xmalloc(inputs[i].n);

		inputs[i].gen(data, inputs[i].n);
		for (size_t k = 0; k < N_MAKERS; k++)
			check_stream(&makers[k], inputs[i].name, data, inputs[i].n);
		free(data);
	}
	case_zstd_skippable();
	for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
		buf_free(&codecs[i]->ws);
	return finish_tests("test_stream");
}
