/* test_gzip.c - host unit test for decode/gzip_decode.c.
 *
 * Compresses many inputs with libdeflate (levels 1, 6, 12) and zlib (gzip
 * framing through deflateInit2 with windowBits 31: level 0, stored blocks;
 * 1; 9; Z_FIXED, fixed-code blocks only) and checks that gzip_decode
 * reproduces them and agrees with libdeflate_gzip_decompress.  Then: gzip
 * headers with FEXTRA/FNAME/FCOMMENT/FHCRC built by hand, every cut point
 * of small members, wrong output sizes, damaged CRC32/ISIZE, hand-made
 * invalid DEFLATE streams (a bit writer below), and random damage, where
 * whatever our decoder says must match zlib's inflate (accept or not, same
 * bytes).
 *
 * usage: test_gzip [file...]   (extra inputs; missing files are skipped)
 *
 * Every call also runs the decoder built without its fast loop
 * (gzip_decode_safe, tests/gzip_decode_safe.c) and insists on the same status
 * and, when OK, the same bytes.
 *
 * Every buffer handed to gzip_decode has exactly the size it is told (the
 * workspace too), so a build with -fsanitize=address catches any access
 * outside them; without ASan the output buffer gets guard bytes on both
 * sides that are checked after every call.  Prints "ok <name>" /
 * "FAIL <name>: <why>" per case and "test_gzip: N passed, M failed,
 * K skipped" at the end (tests/testlib.h); exits 1 if anything failed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "decode.h"
#include "testgen.h"
#include "testlib.h"
#include "zlib_inflate.h"

/* ---- running the decoder ------------------------------------------------ */

/* The same decoder built with GZIP_SAFE_LOOP_ONLY (tests/gzip_decode_safe.c): no
 * fast loop.  Every call below runs both; the fast loop must change
 * nothing, neither the status nor the bytes. */
enum decode_status gzip_decode_safe(const uint8_t *src, size_t src_len, uint8_t *dst,
				    size_t dst_len, void *workspace);

/* fn through decode_exact, with an exact workspace of junk ("contents
 * undefined on entry"). */
static int run_one(decode_fn fn, const uint8_t *src, size_t src_len, size_t dst_len, uint8_t **out)
{
	struct buf ws = buf_new(DECODE_WORKSPACE_gzip);
	int st;

	memset(ws.p, 0xEE, ws.n);
	st = decode_exact(fn, src, src_len, dst_len, &ws, out);
	buf_free(&ws);
	return st;
}

/* gzip_decode, checked against gzip_decode_safe; the output (if wanted)
 * in *out (malloc'ed, dst_len bytes). */
static int run_decode(const uint8_t *src, size_t src_len, size_t dst_len, uint8_t **out)
{
	uint8_t *fast, *safe;
	int st = run_one(gzip_decode, src, src_len, dst_len, &fast);
	int st_safe = run_one(gzip_decode_safe, src, src_len, dst_len, &safe);

	if (st != st_safe)
		failf("fast loop says %s, safe loop alone %s (dst_len %zu)", status_name(st),
		      status_name(st_safe), dst_len);
	else if (st == DECODE_OK && dst_len && memcmp(fast, safe, dst_len) != 0)
		failf("fast and safe loops produce different bytes (dst_len %zu)", dst_len);
	free(safe);
	if (out)
		*out = fast;
	else
		free(fast);
	return st;
}

/* ---- compressors -------------------------------------------------------- */

enum comp { LD1, LD6, LD12, ZL0, ZL1, ZL9, ZLFIXED, NUM_COMP };
static const char *const comp_name[NUM_COMP] = {
	"libdeflate1", "libdeflate6", "libdeflate12", "zlib0", "zlib1", "zlib9", "zlib-fixed"
};

static uint8_t *zlib_gzip(const uint8_t *data, size_t n, int level, int strategy, size_t *clen)
{
	z_stream s;
	size_t cap;
	uint8_t *out;

	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, level, Z_DEFLATED, 31, 8, strategy) != Z_OK) {
		fprintf(stderr, "test_gzip: deflateInit2 failed\n");
		exit(2);
	}
	cap = deflateBound(&s, (uLong)n) + 64;
	out = xmalloc(cap);
	s.next_in = (Bytef *)data;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	if (deflate(&s, Z_FINISH) != Z_STREAM_END) {
		fprintf(stderr, "test_gzip: zlib failed to compress %zu bytes\n", n);
		exit(2);
	}
	*clen = s.total_out;
	deflateEnd(&s);
	return out;
}

/* Returns a malloc'ed gzip member of data[0..n) and its size in *clen. */
static uint8_t *make_gzip(enum comp c, const uint8_t *data, size_t n, size_t *clen)
{
	static const int ld_level[] = { 1, 6, 12 };
	struct libdeflate_compressor *z;
	size_t cap;
	uint8_t *out;

	switch (c) {
	case ZL0: return zlib_gzip(data, n, 0, Z_DEFAULT_STRATEGY, clen);
	case ZL1: return zlib_gzip(data, n, 1, Z_DEFAULT_STRATEGY, clen);
	case ZL9: return zlib_gzip(data, n, 9, Z_DEFAULT_STRATEGY, clen);
	case ZLFIXED: return zlib_gzip(data, n, 6, Z_FIXED, clen);
	default: break;
	}
	z = libdeflate_alloc_compressor(ld_level[c - LD1]);
	if (!z) {
		fprintf(stderr, "test_gzip: libdeflate_alloc_compressor failed\n");
		exit(2);
	}
	cap = libdeflate_gzip_compress_bound(z, n);
	out = xmalloc(cap);
	*clen = libdeflate_gzip_compress(z, data, n, out, cap);
	libdeflate_free_compressor(z);
	if (*clen == 0) {
		fprintf(stderr, "test_gzip: libdeflate failed to compress %zu bytes\n", n);
		exit(2);
	}
	return out;
}

/* Raw DEFLATE from libdeflate (for members built by hand). */
static uint8_t *deflate_raw(const uint8_t *data, size_t n, int level, size_t *clen)
{
	struct libdeflate_compressor *z = libdeflate_alloc_compressor(level);
	size_t cap = libdeflate_deflate_compress_bound(z, n);
	uint8_t *out = xmalloc(cap);

	*clen = libdeflate_deflate_compress(z, data, n, out, cap);
	libdeflate_free_compressor(z);
	return out;
}

/* zlib's verdict on a member with an output of exactly dst_len bytes: 1 if
 * it decodes the whole input to exactly dst_len bytes (and *out gets
 * them), else 0. */
static int zlib_accepts(const uint8_t *src, size_t n, size_t dst_len, uint8_t **out)
{
	uint8_t *o = xmalloc(dst_len + 1);
	int ok = zlib_inflates(src, n, o, dst_len);

	if (out)
		*out = o;
	else
		free(o);
	return ok;
}

/* One member of one input, inside the current case: exact size decodes
 * and matches the input and libdeflate; one byte less is OUTPUT_OVERRUN;
 * one byte more is SHORT_OUTPUT. */
static void check_member(const uint8_t *data, size_t n, const uint8_t *gz, size_t clen,
			 const char *what)
{
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	uint8_t *out = NULL, *ref = xmalloc(n);
	size_t got = 0, at;
	int st = expect_exact(run_decode, data, n, gz, clen, what, &out);

	if (libdeflate_gzip_decompress(d, gz, clen, ref, n, &got) != LIBDEFLATE_SUCCESS || got != n)
		failf("%s: n=%zu: libdeflate does not decode it", what, n);
	else if (st == DECODE_OK && (at = first_diff(out, ref, n)) != n)
		failf("%s: n=%zu: differs from libdeflate at byte %zu", what, n, at);
	libdeflate_free_decompressor(d);
	free(ref);
	free(out);
	expect_wrong_sizes(run_decode, data, n, gz, clen, what, SIZES_STATUS_BYTES);
}

/* ---- gzip headers -------------------------------------------------------- */

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* A member by hand: header with the given flags (FEXTRA, FNAME, FCOMMENT,
 * FHCRC and FTEXT get contents), then raw DEFLATE, then the trailer. */
static uint8_t *make_member(uint8_t flg, const uint8_t *raw, size_t rawlen, const uint8_t *data,
			    size_t n, size_t *len)
{
	uint8_t *m = xmalloc(64 + 400 + rawlen + 8);
	size_t p = 0;

	m[p++] = 0x1f;
	m[p++] = 0x8b;
	m[p++] = 8;
	m[p++] = flg;
	put_le32(m + p, 0x5f5e0ff0);    /* MTIME */
	p += 4;
	m[p++] = 2;                     /* XFL */
	m[p++] = 3;                     /* OS: Unix */
	if (flg & 0x04) {               /* FEXTRA: two subfields */
		static const uint8_t extra[] = { 'A', 'p', 4, 0, 1, 2, 3, 4, 'B', 'z', 0, 0 };

		m[p++] = sizeof(extra);
		m[p++] = 0;
		memcpy(m + p, extra, sizeof(extra));
		p += sizeof(extra);
	}
	if (flg & 0x08) {               /* FNAME */
		memcpy(m + p, "vmlinux", 8);
		p += 8;
	}
	if (flg & 0x10) {               /* FCOMMENT */
		memcpy(m + p, "built by test_gzip", 19);
		p += 19;
	}
	if (flg & 0x02) {               /* FHCRC */
		uint32_t c = (uint32_t)crc32(0, m, (uInt)p);

		m[p++] = (uint8_t)c;
		m[p++] = (uint8_t)(c >> 8);
	}
	memcpy(m + p, raw, rawlen);
	p += rawlen;
	put_le32(m + p, (uint32_t)crc32(0, data, (uInt)n));
	put_le32(m + p + 4, (uint32_t)n);
	*len = p + 8;
	return m;
}

static void test_headers(void)
{
	uint8_t data[3000];
	size_t rawlen, mlen, n = sizeof(data);
	uint8_t *raw, *m, *out = NULL;
	char name[64];
	int st;

	gen_text(data, n);
	raw = deflate_raw(data, n, 9, &rawlen);

	/* Every combination of the optional fields (and FTEXT). */
	for (unsigned flg = 0; flg < 0x20; flg++) {
		snprintf(name, sizeof name, "header-flags-0x%02x", flg);
		begin_case();
		m = make_member((uint8_t)flg, raw, rawlen, data, n, &mlen);
		check_member(data, n, m, mlen, "flags");
		if (!zlib_accepts(m, mlen, n, NULL))
			failf("zlib does not accept the member we built");
		/* Every cut inside the header is TRUNCATED. */
		for (size_t cut = 0; cut < mlen - rawlen - 8; cut++)
			if ((st = run_decode(m, cut, n, NULL)) != DECODE_TRUNCATED)
				failf("cut at %zu (in the header) gave %s", cut, status_name(st));
		if (flg & 0x02) {
			/* Damaged header CRC. */
			m[mlen - rawlen - 8 - 1] ^= 0x40;
			if ((st = run_decode(m, mlen, n, NULL)) != DECODE_CHECK_MISMATCH)
				failf("damaged FHCRC gave %s", status_name(st));
		}
		free(m);
		end_case(name);
	}

	begin_case();
	m = make_member(0x1c, raw, rawlen, data, n, &mlen);
	for (unsigned bit = 0x20; bit <= 0x80; bit <<= 1) {
		m[3] = (uint8_t)(0x1c | bit);
		if ((st = run_decode(m, mlen, n, NULL)) != DECODE_CORRUPT)
			failf("reserved FLG bit 0x%02x gave %s", bit, status_name(st));
		/* ... even when that is all there is */
		if ((st = run_decode(m, 4, n, NULL)) != DECODE_CORRUPT)
			failf("4 bytes with reserved FLG bit 0x%02x gave %s", bit, status_name(st));
	}
	m[3] = 0x1c;
	for (size_t i = 0; i < 3; i++) {
		m[i] ^= 0x01;
		if ((st = run_decode(m, mlen, n, NULL)) != DECODE_CORRUPT)
			failf("damaged byte %zu of ID1/ID2/CM gave %s", i, status_name(st));
		if ((st = run_decode(m, i + 1, n, NULL)) != DECODE_CORRUPT)
			failf("damaged byte %zu of ID1/ID2/CM, cut after it, gave %s", i, status_name(st));
		m[i] ^= 0x01;
	}
	/* A name without its terminator runs into the data: whatever
	 * follows, never out of bounds; with the whole input one string,
	 * TRUNCATED. */
	{
		uint8_t hdr[40] = { 0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3 };

		memset(hdr + 10, 'x', sizeof(hdr) - 10);
		if ((st = run_decode(hdr, sizeof(hdr), 10, NULL)) != DECODE_TRUNCATED)
			failf("unterminated FNAME gave %s", status_name(st));
		hdr[3] = 0x04;  /* FEXTRA with XLEN 0x7878 > input */
		if ((st = run_decode(hdr, sizeof(hdr), 10, NULL)) != DECODE_TRUNCATED)
			failf("FEXTRA longer than the input gave %s", status_name(st));
	}
	if ((st = run_decode(m, 0, n, NULL)) != DECODE_TRUNCATED)
		failf("empty input gave %s", status_name(st));
	if ((st = run_decode(NULL, 0, 0, NULL)) != DECODE_TRUNCATED)
		failf("empty input, empty output gave %s", status_name(st));
	{
		void *ws = xmalloc(DECODE_WORKSPACE_gzip);

		if ((st = gzip_decode(NULL, 0, NULL, 0, ws)) != DECODE_TRUNCATED ||
		    (st = gzip_decode_safe(NULL, 0, NULL, 0, ws)) != DECODE_TRUNCATED)
			failf("NULL src and dst gave %s", status_name(st));
		free(ws);
	}
	free(m);
	end_case("header-damage");

	/* The trailer: CRC32, ISIZE, and nothing after it. */
	begin_case();
	m = make_member(0, raw, rawlen, data, n, &mlen);
	for (size_t i = mlen - 8; i < mlen; i++) {
		for (unsigned bit = 1; bit < 256; bit <<= 1) {
			m[i] ^= (uint8_t)bit;
			if ((st = run_decode(m, mlen, n, NULL)) != DECODE_CHECK_MISMATCH)
				failf("trailer byte %zu bit 0x%02x flipped gave %s", i - (mlen - 8), bit,
				      status_name(st));
			m[i] ^= (uint8_t)bit;
		}
	}
	{
		uint8_t *longer = xmalloc(mlen + 1);

		memcpy(longer, m, mlen);
		longer[mlen] = 0;
		if ((st = run_decode(longer, mlen + 1, n, NULL)) != DECODE_CORRUPT)
			failf("a byte after the trailer gave %s", status_name(st));
		free(longer);
	}
	{
		/* Two members: only one is decoded, the second is "after". */
		uint8_t *two = xmalloc(2 * mlen);

		memcpy(two, m, mlen);
		memcpy(two + mlen, m, mlen);
		if ((st = run_decode(two, 2 * mlen, n, NULL)) != DECODE_CORRUPT)
			failf("two members gave %s", status_name(st));
		if ((st = run_decode(two, 2 * mlen, 2 * n, NULL)) != DECODE_SHORT_OUTPUT)
			failf("two members, both sizes, gave %s", status_name(st));
		free(two);
	}
	/* Output in memory: the decoder's bytes before the trailer check are
	 * the data even when the trailer is damaged. */
	m[mlen - 1] ^= 1;
	st = run_decode(m, mlen, n, &out);
	if (st != DECODE_CHECK_MISMATCH || first_diff(out, data, n) != n)
		failf("damaged ISIZE: %s, output %s", status_name(st),
		      first_diff(out, data, n) == n ? "intact" : "differs");
	free(out);
	free(m);
	end_case("trailer-damage");
	free(raw);
}

/* ---- truncation ------------------------------------------------------------
 * Every proper prefix of a member is TRUNCATED: header, DEFLATE data and
 * trailer alike. */
static void test_truncation(void)
{
	static const size_t sizes[] = { 0, 1, 5, 60, 300, 2000, 9000 };
	uint8_t *data = xmalloc(9000);
	char name[64];

	for (int c = 0; c < NUM_COMP; c++) {
		snprintf(name, sizeof name, "truncations/%s", comp_name[c]);
		begin_case();
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && !case_failed; k++) {
			size_t n = sizes[k], clen;
			uint8_t *gz;

			if (k % 2)
				gen_text(data, n);
			else
				gen_mixed(data, n);
			gz = make_gzip((enum comp)c, data, n, &clen);
			for (size_t cut = 0; cut < clen && !case_failed; cut++) {
				int st = run_decode(gz, cut, n, NULL);

				if (st != DECODE_TRUNCATED)
					failf("n=%zu clen=%zu cut at %zu: %s, want TRUNCATED", n, clen, cut,
					      status_name(st));
			}
			free(gz);
		}
		end_case(name);
	}
	free(data);
}

/* ---- hand-made DEFLATE streams ------------------------------------------ */

struct bitw {
	uint8_t buf[4096];
	size_t nbits;
};

static void put_bits(struct bitw *w, uint32_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++, w->nbits++) {
		if ((w->nbits & 7) == 0)
			w->buf[w->nbits >> 3] = 0;
		w->buf[w->nbits >> 3] |= (uint8_t)(((v >> i) & 1) << (w->nbits & 7));
	}
}

/* A Huffman code: most significant bit first. */
static void put_code(struct bitw *w, uint32_t code, unsigned len)
{
	while (len--)
		put_bits(w, (code >> len) & 1, 1);
}

static size_t bytes_of(const struct bitw *w)
{
	return (w->nbits + 7) / 8;
}

/* Fixed literal/length code (3.2.6). */
static void put_fixed_litlen(struct bitw *w, unsigned sym)
{
	if (sym < 144)
		put_code(w, 0x30 + sym, 8);
	else if (sym < 256)
		put_code(w, 0x190 + sym - 144, 9);
	else if (sym < 280)
		put_code(w, sym - 256, 7);
	else
		put_code(w, 0xc0 + sym - 280, 8);
}

/* w := one final fixed-Huffman block (3.2.6) of the literal/length
 * symbols syms[], up to and including end-of-block (256).  A length
 * symbol (257..287) is followed in syms[] by its 5-bit distance code;
 * the cases use only lengths and distances without extra bits. */
static void put_fixed_block(struct bitw *w, const uint16_t *syms)
{
	memset(w, 0, sizeof(*w));
	put_bits(w, 1, 1);      /* BFINAL */
	put_bits(w, 1, 2);      /* BTYPE 01: fixed codes */
	for (;; syms++) {
		put_fixed_litlen(w, *syms);
		if (*syms == 256)
			break;
		if (*syms > 256)
			put_code(w, *++syms, 5);
	}
}

/* Wraps raw DEFLATE bits in a gzip member whose trailer describes
 * expect[0..n). */
static uint8_t *wrap(const struct bitw *w, const uint8_t *expect, size_t n, size_t *len)
{
	return make_member(0, w->buf, bytes_of(w), expect, n, len);
}

/* Checks one hand-made stream: our status, and zlib's verdict (accepts
 * exactly when we say OK, with the same bytes). */
static void check_stream(const char *what, const struct bitw *w, const uint8_t *expect, size_t n,
			 int want)
{
	size_t mlen;
	uint8_t *m = wrap(w, expect, n, &mlen), *out = NULL, *zout = NULL;
	int st = run_decode(m, mlen, n, &out);
	int zok = zlib_accepts(m, mlen, n, &zout);

	if (st != want)
		failf("%s: %s, want %s", what, status_name(st), status_name(want));
	else if (st == DECODE_OK && first_diff(out, expect, n) != n)
		failf("%s: wrong output", what);
	if (zok != (st == DECODE_OK))
		failf("%s: zlib %s it, we say %s", what, zok ? "accepts" : "rejects", status_name(st));
	else if (zok && first_diff(out, zout, n) != n)
		failf("%s: differs from zlib", what);
	free(m);
	free(out);
	free(zout);
}

/* Starts a new final block of type btype in w. */
static void new_block(struct bitw *w, unsigned btype)
{
	memset(w, 0, sizeof(*w));
	put_bits(w, 1, 1);
	put_bits(w, btype, 2);
}

/* A dynamic block's HLIT, HDIST and HCLEN fields, as sent. */
static void put_counts(struct bitw *w, uint32_t hlit, uint32_t hdist, uint32_t hclen)
{
	put_bits(w, hlit, 5);
	put_bits(w, hdist, 5);
	put_bits(w, hclen, 4);
}

/* All 19 precode lengths pre[] (3 bits each), in their order (RFC 1951
 * 3.2.7). */
static void put_precode(struct bitw *w, const uint8_t *pre)
{
	static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };

	for (int i = 0; i < 19; i++)
		put_bits(w, pre[order[i]], 3);
}

/* Starts w afresh with a dynamic block header for the given code
 * lengths, sent with a precode whose lengths are pre[] (all lengths sent
 * literally, 0..15). */
static void new_dynamic_block(struct bitw *w, int final, const uint8_t *lens, unsigned hlit,
			      unsigned hdist)
{
	/* Precode: lengths 0..15 with 5-bit codes except 16/17/18 unused,
	 * then complete: 16 codes of length 4 = complete. */
	uint8_t pre[19] = { 0 };

	for (int i = 0; i < 16; i++)
		pre[i] = 4;
	memset(w, 0, sizeof(*w));
	put_bits(w, (uint32_t)final, 1);
	put_bits(w, 2, 2);
	put_counts(w, hlit - 257, hdist - 1, 19 - 4);
	put_precode(w, pre);
	/* Canonical precode: symbol s (0..15) has code s, 4 bits. */
	for (unsigned i = 0; i < hlit + hdist; i++)
		put_code(w, lens[i], 4);
}

/* Canonical codes for lens[0..n) (3.2.2). */
static void canonical(const uint8_t *lens, unsigned n, uint32_t *codes)
{
	unsigned count[16] = { 0 }, next[16] = { 0 }, code = 0;

	for (unsigned i = 0; i < n; i++)
		count[lens[i]]++;
	count[0] = 0;
	for (int b = 1; b < 16; b++) {
		code = (code + count[b - 1]) << 1;
		next[b] = code;
	}
	for (unsigned i = 0; i < n; i++)
		if (lens[i])
			codes[i] = next[lens[i]]++;
}

/* "a", a match of length 3 (code 257) with 1-bit distance code dist,
 * end of block: with codes[] for 2-bit 'a' and EOB, 1-bit 257. */
static void put_a_match(struct bitw *w, const uint32_t *codes, uint32_t dist)
{
	put_code(w, codes['a'], 2);
	put_code(w, codes[257], 1);
	put_code(w, dist, 1);
	put_code(w, codes[256], 2);
}

static void test_handmade(void)
{
	struct bitw w;
	uint8_t expect[600];

	begin_case();

	/* Fixed blocks. */
	static const struct {
		const char *name;
		uint16_t syms[6];       /* put_fixed_block's */
		size_t n;               /* expect[0..n): the trailer's CRC and size */
		int want;
	} fixed[] = {
		/* "ab", then a match of 258 (285) at distance 2 (code 1) */
		{ "fixed ab + match", { 'a', 'b', 285, 1, 256 }, 260, DECODE_OK },
		/* the same at distance 3 (code 2): one byte before the start */
		{ "distance too far", { 'a', 'b', 285, 2, 256 }, 260, DECODE_BAD_OFFSET },
		/* distance codes 30 and 31, literal/length codes 286 and 287 */
		{ "distance code 30/31", { 'a', 257, 30, 256 }, 4, DECODE_CORRUPT },
		{ "distance code 30/31", { 'a', 257, 31, 256 }, 4, DECODE_CORRUPT },
		{ "length code 286/287", { 'a', 286, 0, 256 }, 4, DECODE_CORRUPT },
		{ "length code 286/287", { 'a', 287, 0, 256 }, 4, DECODE_CORRUPT },
	};

	for (int i = 0; i < 260; i++)
		expect[i] = (uint8_t)(i % 2 ? 'b' : 'a');
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
		put_fixed_block(&w, fixed[i].syms);
		check_stream(fixed[i].name, &w, expect, fixed[i].n, fixed[i].want);
	}

	/* Block type 3. */
	new_block(&w, 3);
	put_bits(&w, 0, 16);
	check_stream("block type 3", &w, expect, 0, DECODE_CORRUPT);

	/* Stored: LEN/NLEN mismatch; then a good one, empty and not. */
	new_block(&w, 0);
	put_bits(&w, 0, 5);
	put_bits(&w, 3, 16);
	put_bits(&w, 0xfffb, 16);
	put_bits(&w, 'x' | 'y' << 8, 16);
	put_bits(&w, 'z', 8);
	memcpy(expect, "xyz", 3);
	check_stream("stored NLEN wrong", &w, expect, 3, DECODE_CORRUPT);
	memset(&w, 0, sizeof(w));
	put_bits(&w, 0, 1);
	put_bits(&w, 0, 2);
	put_bits(&w, 0, 5);
	put_bits(&w, 0, 16);
	put_bits(&w, 0xffff, 16);       /* empty stored block */
	put_bits(&w, 1, 1);
	put_bits(&w, 0, 2);
	put_bits(&w, 0, 5);
	put_bits(&w, 3, 16);
	put_bits(&w, 0xfffc, 16);
	put_bits(&w, 'x' | 'y' << 8, 16);
	put_bits(&w, 'z', 8);
	check_stream("stored empty + xyz", &w, expect, 3, DECODE_OK);

	/* Dynamic blocks.  lens[]: literal/length then distance lengths. */
	{
		uint8_t lens[320];
		uint32_t codes[320];
		unsigned hlit = 257, hdist = 1;

		/* Only EOB, with one code of one bit: incomplete, allowed;
		 * no distance codes at all (one zero length). */
		memset(lens, 0, sizeof(lens));
		lens[256] = 1;
		new_dynamic_block(&w, 1, lens, hlit, hdist);
		put_code(&w, 0, 1);
		check_stream("dynamic: EOB only (one 1-bit code)", &w, expect, 0, DECODE_OK);

		/* 'a' and EOB with 1-bit codes, one distance code of one bit:
		 * "a", then a match 3 at distance 1 (code 0 of one bit). */
		memset(lens, 0, sizeof(lens));
		hlit = 258;
		lens['a'] = 2;
		lens[256] = 2;
		lens[257] = 1;          /* length 3 */
		lens[hlit] = 1;         /* distance code 0 (distance 1), one bit */
		canonical(lens, hlit, codes);
		new_dynamic_block(&w, 1, lens, hlit, hdist);
		put_a_match(&w, codes, 0);
		memset(expect, 'a', 4);
		check_stream("dynamic: one 1-bit distance code", &w, expect, 4, DECODE_OK);

		/* The missing half of that distance code. */
		new_dynamic_block(&w, 1, lens, hlit, hdist);
		put_a_match(&w, codes, 1);
		check_stream("dynamic: unused half of a 1-bit code", &w, expect, 4, DECODE_CORRUPT);

		/* No distance code at all, and a length used. */
		lens[hlit] = 0;
		new_dynamic_block(&w, 1, lens, hlit, hdist);
		put_a_match(&w, codes, 0);
		check_stream("dynamic: length without distance codes", &w, expect, 4, DECODE_CORRUPT);

		/* Incomplete literal/length code with more than one code. */
		memset(lens, 0, sizeof(lens));
		lens['a'] = 2;
		lens[256] = 2;
		lens[hlit] = 1;
		canonical(lens, hlit, codes);
		new_dynamic_block(&w, 1, lens, hlit, hdist);
		put_code(&w, codes['a'], 2);
		put_code(&w, codes[256], 2);
		check_stream("dynamic: incomplete literal/length code", &w, expect, 1, DECODE_CORRUPT);

		/* Over-subscribed: three 1-bit codes. */
		lens['b'] = 1;
		lens['a'] = 1;
		lens[256] = 1;
		new_dynamic_block(&w, 1, lens, hlit, hdist);
		put_code(&w, 0, 8);
		check_stream("dynamic: over-subscribed", &w, expect, 1, DECODE_CORRUPT);

		/* Missing end-of-block code. */
		memset(lens, 0, sizeof(lens));
		lens['a'] = 1;
		lens['b'] = 1;
		lens[hlit] = 1;
		new_dynamic_block(&w, 1, lens, hlit, hdist);
		put_code(&w, 0, 8);
		check_stream("dynamic: no end-of-block code", &w, expect, 1, DECODE_CORRUPT);

		/* HLIT 287 (30 length codes). */
		memset(lens, 0, sizeof(lens));
		lens['a'] = 1;
		lens[256] = 1;
		new_dynamic_block(&w, 1, lens, 287, 1);
		put_code(&w, 0, 1);
		put_code(&w, 1, 1);
		expect[0] = 'a';
		check_stream("dynamic: HLIT 287", &w, expect, 1, DECODE_CORRUPT);
		/* ... and 286 is fine */
		new_dynamic_block(&w, 1, lens, 286, 1);
		put_code(&w, 0, 1);
		put_code(&w, 1, 1);
		check_stream("dynamic: HLIT 286", &w, expect, 1, DECODE_OK);
		/* HDIST 31 */
		new_dynamic_block(&w, 1, lens, 257, 31);
		put_code(&w, 0, 1);
		put_code(&w, 1, 1);
		check_stream("dynamic: HDIST 31", &w, expect, 1, DECODE_CORRUPT);

		/* 15-bit codes: a code with lengths 1, 2, ..., 14, 15, 15 over
		 * literals 0..15 and EOB. */
		memset(lens, 0, sizeof(lens));
		for (int i = 0; i < 15; i++)
			lens[i] = (uint8_t)(i + 1);
		lens[256] = 15;
		canonical(lens, hlit, codes);
		new_dynamic_block(&w, 0, lens, hlit, hdist);
		for (int rep = 0; rep < 3; rep++)
			for (int i = 14; i >= 0; i--)
				put_code(&w, codes[i], lens[i]);
		put_code(&w, codes[256], 15);
		/* a second block, fixed, final, with a far match into the
		 * first one */
		put_bits(&w, 1, 1);
		put_bits(&w, 1, 2);
		put_fixed_litlen(&w, 257 + 8);  /* 11 + 1 extra bit */
		put_bits(&w, 1, 1);             /* 12 */
		put_code(&w, 8, 5);             /* distance code 8: 17 + 3 bits */
		put_bits(&w, 5, 3);             /* 22 */
		put_fixed_litlen(&w, 256);
		{
			size_t k = 0;

			for (int rep = 0; rep < 3; rep++)
				for (int i = 14; i >= 0; i--)
					expect[k++] = (uint8_t)i;
			for (int i = 0; i < 12; i++, k++)
				expect[k] = expect[k - 22];
			check_stream("dynamic: 1..15-bit codes, then fixed", &w, expect, k, DECODE_OK);
		}

		/* Repeat code 16 first. */
		new_block(&w, 2);
		put_counts(&w, 0, 0, 0);        /* 4 precode lengths: 16, 17, 18, 0 */
		put_bits(&w, 1, 3);
		put_bits(&w, 1, 3);
		put_bits(&w, 0, 3);
		put_bits(&w, 0, 3);             /* 16 and 17: one bit each */
		put_code(&w, 0, 1);             /* 16 */
		put_bits(&w, 0, 2);
		check_stream("dynamic: repeat with nothing to repeat", &w, expect, 0, DECODE_CORRUPT);

		/* Zeros past the end of the lengths: 17 with 10 zeros at the
		 * last 5 of 258. */
		new_block(&w, 2);
		put_counts(&w, 0, 0, 15);       /* all 19 */
		{
			/* precode: 18 and 17: 1 bit each */
			uint8_t pre[19] = { 0 };

			pre[17] = 1;
			pre[18] = 1;
			put_precode(&w, pre);
		}
		put_code(&w, 1, 1);             /* 18: 11 + 127 = 138 zeros */
		put_bits(&w, 127, 7);
		put_code(&w, 1, 1);             /* 18: 11 + 104 = 115 zeros: 253 */
		put_bits(&w, 104, 7);
		put_code(&w, 0, 1);             /* 17: 3 + 7 = 10 zeros, only 5 left */
		put_bits(&w, 7, 3);
		check_stream("dynamic: zeros past the end", &w, expect, 0, DECODE_CORRUPT);
	}
	end_case("handmade-streams");
}

/* ---- damage ---------------------------------------------------------------
 * Random damage to good members and pure garbage: any status, never an
 * access out of bounds (ASan), and the same verdict as zlib's inflate. */
static uint8_t *garbage_member(unsigned round, const uint8_t *data, size_t n, size_t *clen)
{
	return make_gzip((enum comp)(round % NUM_COMP), data, n, clen);
}

static void garbage_after_header(uint8_t *gz, size_t *clen, size_t n)
{
	(void)n;
	if (*clen > 10)
		gen_random(gz + 10, *clen - 10);
}

/* A few bit flips in the DEFLATE data. */
static void flips_in_data(uint8_t *gz, size_t *clen, size_t n)
{
	(void)n;
	for (int k = 1 + (int)rng_below(8); k > 0; k--)
		flip_random_bit(gz + 10, *clen - 18);
}

static void flip_near_start(uint8_t *gz, size_t *clen, size_t n)
{
	(void)n;
	flip_random_bit(gz + 10, *clen - 18 < 40 ? *clen - 18 : 40);
}

static void judge_member(unsigned round, const uint8_t *gz, size_t clen, size_t dst_len, int st,
			 const uint8_t *out)
{
	uint8_t *zout = NULL;
	int zok = zlib_accepts(gz, clen, dst_len, &zout);

	if (zok != (st == DECODE_OK))
		failf("round %u: we say %s, zlib %s", round, status_name(st), zok ? "accepts" : "rejects");
	else if (zok && first_diff(out, zout, dst_len) != dst_len)
		failf("round %u: both accept, output differs", round);
	free(zout);
}

static void test_garbage(void)
{
	static void (*const gens[])(uint8_t *, size_t) = { gen_semi, gen_text, gen_mixed };
	static const damage_fn damages[] = {
		garbage_after_header, damage_byte, flips_in_data, damage_flip_cut, flip_near_start, NULL,
	};
	static const struct garbage g = {
		3000, 600, 66000, 4, 3, gens, garbage_member, damages, 6, run_decode, judge_member,
	};
	unsigned ok = garbage_rounds(&g, "damage-3000");

	printf("note: damage: %u of %u decoded OK (zlib agreed on every one)\n", ok, g.rounds);
}

int main(void)
{
	test_headers();
	test_truncation();
	test_handmade();
	test_garbage();
	return finish_tests("test_gzip");
}
