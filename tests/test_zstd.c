/* test_zstd.c - host unit test for decode/zstd_*.c.
 *
 * Compresses many inputs with libzstd (levels 1, 3, 19 and 22, several
 * window sizes, checksum and content size on and off, single frames and
 * streamed ones, inputs over 128 KiB so frames have several blocks,
 * random data for raw blocks, long runs of one byte for RLE blocks) and
 * checks that zstd_decode reproduces them exactly and agrees with
 * libzstd's ZSTD_decompress.  Then: several frames back to back, a
 * skippable frame, hand-made headers (dictionary ID, reserved bits), and
 * damage: truncations at many cut points, wrong output sizes, a damaged
 * checksum (DECODE_CHECK_MISMATCH), bit flips and garbage (any status, no
 * out-of-bounds access).
 *
 * usage: test_zstd [file...]   (extra inputs; missing files are skipped)
 *
 * Every buffer handed to zstd_decode has exactly the size it is told,
 * and so does its workspace (DECODE_WORKSPACE_zstd bytes), so a build
 * with -fsanitize=address catches any out-of-bounds access; without ASan
 * the output buffer gets guard bytes on both sides, checked after every
 * call.  Prints "ok <name>" / "FAIL <name>: <why>" per case and
 * "test_zstd: N passed, M failed, K skipped" at the end (tests/testlib.h);
 * exits 1 if anything failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "decode.h"
#include "testlib.h"

/* ---- running the decoder ------------------------------------------------ */

/* The decoder's own words for a status, in the failure messages. */
static const char *sname(int st)
{
	return st == DECODE_OK ? "OK" : decode_status_name((enum decode_status)st);
}

/* zstd_decode of src[0..n) into cap bytes through decode_exact, with an
 * exact workspace; on DECODE_OK the output must be want (if not NULL).
 * Returns the status. */
static int run_zstd(const uint8_t *src, size_t n, size_t cap, const uint8_t *want)
{
	struct buf ws = buf_new(DECODE_WORKSPACE_zstd);
	uint8_t *out = NULL;
	int st = decode_exact(zstd_decode, src, n, cap, &ws, want ? &out : NULL);

	if (want) {
		if (st == DECODE_OK && cap && memcmp(out, want, cap) != 0)
			failf("output differs from the input");
		free(out);
	}
	buf_free(&ws);
	return st;
}

/* ---- inputs ------------------------------------------------------------- */

enum kind { K_TEXT, K_RANDOM, K_RUNS, K_MIXED, K_BINARY, K_ZERO, K_COUNT };
static const char *const kind_names[K_COUNT] = { "text", "random", "runs", "mixed", "binary", "zero" };

static uint8_t *make_input(enum kind k, size_t n)
{
	static const char *const words[] = {
		"kernel ", "boot ", "stub ", "decompress ", "the ", "of ", "zstd ", "frame ",
		"block ", "literal ", "sequence ", "offset\n", "match ", "window ", "huffman ", "fse ",
	};
	uint8_t *p = xmalloc(n);
	size_t i = 0;

	switch (k) {
	case K_TEXT:
		while (i < n) {
			const char *w = words[rng_below(16)];

			for (; *w && i < n; w++)
				p[i++] = (uint8_t)*w;
		}
		break;
	case K_RANDOM:
		for (; i < n; i++)
			p[i] = (uint8_t)rng();
		break;
	case K_RUNS:
		while (i < n) {
			const uint8_t b = (uint8_t)rng();
			size_t r = 1 + rng_below(rng_below(4) ? 40 : 300 * KIB);

			for (; r-- && i < n; i++)
				p[i] = b;
		}
		break;
	case K_MIXED:
		/* random stretches, repeats from near and far, runs */
		while (i < n) {
			size_t r = 1 + rng_below(2000);
			unsigned what = (unsigned)rng_below(4);

			for (; r-- && i < n; i++) {
				if (what == 0 || i < 70000)
					p[i] = (uint8_t)rng();
				else if (what == 1)
					p[i] = p[i - 1 - (i % 7)];
				else if (what == 2)
					p[i] = p[i - 65536];
				else
					p[i] = 'x';
			}
		}
		break;
	case K_BINARY:
		/* machine-code-like: small values, repeated structures */
		for (; i < n; i++)
			p[i] = (uint8_t)(rng_below(3) ? (i * 13 + (i >> 5)) & 0x3f : rng() & 0xff);
		break;
	case K_ZERO:
	default:
		memset(p, 0, n);
		break;
	}
	return p;
}

/* ---- compression with libzstd ------------------------------------------- */

struct zopts {
	int level;
	int window_log;         /* 0: libzstd's choice */
	int checksum;
	int content_size;       /* 0: streamed without a pledged size */
};

/* Returns a malloc'd frame and its size in *out_n. */
static uint8_t *zcompress(const uint8_t *in, size_t n, const struct zopts *o, size_t *out_n)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t cap = ZSTD_compressBound(n), r;
	uint8_t *out = xmalloc(cap);

	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, o->level);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, o->checksum);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, o->content_size);
	if (o->window_log)
		ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, o->window_log);
	if (o->content_size) {
		r = ZSTD_compress2(cc, out, cap, in, n);
	} else {
		/* Streaming, in pieces, with no size known in advance (the
		 * end comes in a call of its own, with no input): the frame
		 * header has no Frame_Content_Size, and the window is not
		 * shrunk to the input. */
		ZSTD_outBuffer ob = { out, cap, 0 };
		size_t pos = 0;

		r = 0;
		while (pos < n && !ZSTD_isError(r)) {
			size_t piece = n - pos < 100 * KIB ? n - pos : 100 * KIB;
			ZSTD_inBuffer ib = { in + pos, piece, 0 };

			do
				r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_continue);
			while (!ZSTD_isError(r) && ib.pos < ib.size);
			pos += piece;
		}
		if (!ZSTD_isError(r)) {
			ZSTD_inBuffer ib = { in, 0, 0 };

			do
				r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end);
			while (!ZSTD_isError(r) && r != 0);
		}
		r = ZSTD_isError(r) ? r : ob.pos;
	}
	ZSTD_freeCCtx(cc);
	if (ZSTD_isError(r)) {
		fprintf(stderr, "test_zstd: libzstd failed: %s\n", ZSTD_getErrorName(r));
		exit(2);
	}
	*out_n = r;
	return out;
}

/* libzstd's own decode of the whole input into cap bytes: its size, or
 * (size_t)-1 on error. */
static size_t zdecompress(const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	size_t r;

	ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax, 31);
	r = ZSTD_decompressDCtx(dc, dst, cap, src, n);
	ZSTD_freeDCtx(dc);
	return ZSTD_isError(r) ? (size_t)-1 : r;
}

/* ---- the checks ---------------------------------------------------------- */

/* Round trip: ours reproduces in[] from z[], and so does libzstd's
 * one-shot ZSTD_decompress. */
static void check_roundtrip(const char *name, const uint8_t *in, size_t n, const uint8_t *z,
			    size_t zn)
{
	begin_case();
	int st = run_zstd(z, zn, n, in);

	if (st != DECODE_OK)
		failf("zstd_decode says %s", sname(st));
	{
		uint8_t *lib = xmalloc(n);
		size_t r = zdecompress(z, zn, lib, n);

		if (r != n || memcmp(lib, in, n) != 0)
			failf("libzstd does not decode it to the same bytes");
		/* The packer's frames must also pass the simplest call. */
		r = ZSTD_decompress(lib, n, z, zn);
		if (ZSTD_isError(r) || r != n)
			failf("ZSTD_decompress (one-shot, defaults) fails: %s",
			      ZSTD_isError(r) ? ZSTD_getErrorName(r) : "wrong size");
		free(lib);
	}
	end_case(name);
}

/* Wrong output sizes: one byte short must not be OK, one byte long is
 * DECODE_SHORT_OUTPUT (or an overrun when the frame says its size). */
static void check_sizes(const char *name, const uint8_t *in, size_t n, const uint8_t *z, size_t zn)
{
	begin_case();
	if (n > 0) {
		int st = run_zstd(z, zn, n - 1, NULL);

		if (st == DECODE_OK)
			failf("dst_len - 1 decodes OK");
	}
	{
		int st = run_zstd(z, zn, n + 1, NULL);

		if (st != DECODE_SHORT_OUTPUT && st != DECODE_OUTPUT_OVERRUN && st != DECODE_CORRUPT)
			failf("dst_len + 1: %s", sname(st));
		st = run_zstd(z, zn, n + 1000, NULL);
		if (st == DECODE_OK)
			failf("dst_len + 1000 decodes OK");
	}
	(void)in;
	end_casef("%s: wrong output sizes", name);
}

/* Truncations: every cut point of small frames, a spread of them (both
 * ends dense) in large ones.  Never DECODE_OK. */
static void check_truncations(const char *name, const uint8_t *z, size_t zn, size_t n)
{
	size_t cuts = 0;

	begin_case();
	for (size_t cut = 0; cut < zn; cut++) {
		if (zn > 600 && cut > 200 && cut < zn - 200 && rng_below(zn / 150) != 0)
			continue;
		int st = run_zstd(z, cut, n, NULL);

		cuts++;
		if (st == DECODE_OK && n > 0) {
			failf("cut at %zu of %zu decodes OK", cut, zn);
			break;
		}
	}
	end_casef("%s: %zu truncations", name, cuts);
}

/* Bit flips and byte overwrites anywhere: any status, no crash, no
 * out-of-bounds access; with the checksum on, DECODE_OK only with the
 * right bytes. */
static void check_damage(const char *name, const uint8_t *in, size_t n, const uint8_t *z,
			 size_t zn, int checksum, unsigned tries)
{
	uint8_t *d = xmalloc(zn);
	unsigned ok_same = 0, ok_other = 0, bad = 0;

	begin_case();
	for (unsigned t = 0; t < tries && !case_failed; t++) {
		memcpy(d, z, zn);
		unsigned flips = 1 + (unsigned)rng_below(4);

		for (unsigned f = 0; f < flips; f++) {
			size_t at = rng_below(zn);

			if (rng_below(2))
				d[at] ^= (uint8_t)(1u << rng_below(8));
			else
				d[at] = (uint8_t)rng();
		}
		/* Decode into an exact buffer; compare when OK. */
		uint8_t *out = xmalloc(n);
		uint8_t *src = xmalloc(zn);
		void *ws = xmalloc(DECODE_WORKSPACE_zstd);

		memcpy(src, d, zn);
		int st = zstd_decode(src, zn, out, n, ws);

		if (!(st >= DECODE_OK && st <= DECODE_CORRUPT))
			failf("status %d is not a decode_status", st);
		else if (st == DECODE_OK && memcmp(out, in, n) == 0)
			ok_same++;
		else if (st == DECODE_OK)
			ok_other++;
		else
			bad++;
		free(out);
		free(src);
		free(ws);
	}
	if (checksum && ok_other)
		failf("%u damaged frames with a checksum decoded OK to other bytes", ok_other);
	free(d);
	end_casef("%s: %u damaged copies (%u errors, %u unchanged output, %u other output)", name,
		 tries, bad, ok_same, ok_other);
}

/* The last 4 bytes of a frame with a checksum, damaged. */
static void check_checksum(const char *name, const uint8_t *in, size_t n, const uint8_t *z,
			   size_t zn)
{
	uint8_t *d = xmalloc(zn);

	begin_case();
	for (unsigned byte = 0; byte < 4; byte++) {
		memcpy(d, z, zn);
		d[zn - 4 + byte] ^= (uint8_t)(1u << byte);
		int st = run_zstd(d, zn, n, NULL);

		if (st != DECODE_CHECK_MISMATCH)
			failf("checksum byte %u damaged: %s, expected %s", byte, sname(st),
			      sname(DECODE_CHECK_MISMATCH));
	}
	(void)in;
	free(d);
	end_casef("%s: damaged checksum", name);
}

/* Everything for one input and one set of options. */
static void check_all(const char *what, const uint8_t *in, size_t n, const struct zopts *o,
		      unsigned damage_tries, int truncations)
{
	char name[200];
	size_t zn;
	uint8_t *z = zcompress(in, n, o, &zn);

	snprintf(name, sizeof name, "%s %zu bytes level %d wlog %d%s%s -> %zu", what, n, o->level,
		 o->window_log, o->checksum ? " checksum" : "", o->content_size ? " size" : " streamed",
		 zn);
	check_roundtrip(name, in, n, z, zn);
	check_sizes(name, in, n, z, zn);
	if (truncations)
		check_truncations(name, z, zn, n);
	if (o->checksum && n > 0)
		check_checksum(name, in, n, z, zn);
	if (damage_tries)
		check_damage(name, in, n, z, zn, o->checksum, damage_tries);
	free(z);
}

/* ---- multi-frame and hand-made inputs ------------------------------------ */

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Several frames (different options) with skippable frames between
 * them; truncated at every frame boundary too. */
static void check_concatenated(void)
{
	const size_t sizes[] = { 1000, 300 * KIB, 0, 5, 200 * KIB };
	const struct zopts opts[] = { { 3, 0, 1, 1 }, { 19, 18, 0, 1 }, { 1, 0, 1, 0 },
				      { 22, 0, 0, 0 }, { 3, 20, 1, 1 } };
	const size_t nf = sizeof(sizes) / sizeof(sizes[0]);
	size_t total = 0, zcap = 0, zn = 0, bounds[16], nb = 0;
	uint8_t *in, *z;

	for (size_t i = 0; i < nf; i++)
		total += sizes[i];
	in = make_input(K_MIXED, total);
	zcap = ZSTD_compressBound(total) + nf * 64 + 1000;
	z = xmalloc(zcap);
	for (size_t i = 0, at = 0; i < nf; i++) {
		size_t fn;
		uint8_t *f = zcompress(in + at, sizes[i], &opts[i], &fn);

		memcpy(z + zn, f, fn);
		zn += fn;
		bounds[nb++] = zn;
		free(f);
		at += sizes[i];
		if (i == 1 || i == 2) {
			/* a skippable frame: magic 0x184D2A5?, size, payload */
			put_le32(z + zn, 0x184D2A50u + (uint32_t)i);
			put_le32(z + zn + 4, 17);
			memset(z + zn + 8, 0xEE, 17);
			zn += 8 + 17;
			bounds[nb++] = zn;
		}
	}

	begin_case();
	int st = run_zstd(z, zn, total, in);
	if (st != DECODE_OK)
		failf("zstd_decode says %s", sname(st));
	{
		uint8_t *lib = xmalloc(total);

		if (zdecompress(z, zn, lib, total) != total || memcmp(lib, in, total) != 0)
			failf("libzstd does not decode them to the same bytes");
		free(lib);
	}
	end_casef("%zu frames and 2 skippable frames, %zu bytes -> %zu", nf, total, zn);

	begin_case();
	for (size_t b = 0; b + 1 < nb; b++) {
		st = run_zstd(z, bounds[b], total, NULL);
		if (st != DECODE_SHORT_OUTPUT)
			failf("cut after frame %zu: %s, expected %s", b, sname(st),
			      sname(DECODE_SHORT_OUTPUT));
		st = run_zstd(z, bounds[b] + 2, total, NULL);
		if (st != DECODE_TRUNCATED)
			failf("cut 2 bytes into frame %zu: %s, expected %s", b + 1, sname(st),
			      sname(DECODE_TRUNCATED));
	}
	end_case("concatenated frames cut at frame boundaries");
	check_truncations("concatenated frames", z, zn, total);
	free(in);
	free(z);
}

/* One hand-made frame: header bytes, then blocks. */
static void check_handmade(const char *name, const uint8_t *z, size_t zn, size_t cap, int want)
{
	begin_case();
	int st = run_zstd(z, zn, cap, NULL);

	if (st != want)
		failf("%s, expected %s", sname(st), sname(want));
	end_casef("hand-made: %s", name);
}

static void check_handmade_all(void)
{
	/* magic, descriptor, [window], [dictionary id], [content size], blocks */
#define MAGIC 0x28, 0xB5, 0x2F, 0xFD
	/* single segment, 1-byte FCS 0, one empty last raw block */
	static const uint8_t empty[] = { MAGIC, 0x20, 0x00, 0x01, 0x00, 0x00 };
	/* ... with a 1-byte dictionary ID of 0 (allowed) and of 7 (not) */
	static const uint8_t did0[] = { MAGIC, 0x21, 0x00, 0x00, 0x01, 0x00, 0x00 };
	static const uint8_t did7[] = { MAGIC, 0x21, 0x07, 0x00, 0x01, 0x00, 0x00 };
	/* reserved descriptor bit set */
	static const uint8_t reserved[] = { MAGIC, 0x28, 0x00, 0x01, 0x00, 0x00 };
	/* reserved block type 3 */
	static const uint8_t btype3[] = { MAGIC, 0x20, 0x00, 0x07, 0x00, 0x00 };
	/* window descriptor (1 KiB), RLE block of 5 x 'a', raw block "bc" */
	static const uint8_t rle_raw[] = { MAGIC, 0x00, 0x00, 0x2A, 0x00, 0x00, 'a',
					   0x11, 0x00, 0x00, 'b', 'c' };
	/* a raw block larger than the 1 KiB window */
	static const uint8_t too_big[] = { MAGIC, 0x00, 0x00, 0x09, 0x20, 0x00 };
	/* a bad magic number */
	static const uint8_t magic[] = { 0x28, 0xB5, 0x2F, 0xFE, 0x20, 0x00, 0x01, 0x00, 0x00 };
	/* skippable frame only, and one whose size runs past the input */
	static const uint8_t skip[] = { 0x5A, 0x2A, 0x4D, 0x18, 0x02, 0x00, 0x00, 0x00, 1, 2 };
	static const uint8_t skip_long[] = { 0x5A, 0x2A, 0x4D, 0x18, 0x03, 0x00, 0x00, 0x00, 1, 2 };
	/* 1 KiB window (a single-segment frame of 3 bytes could not hold a
	 * 5-byte block); compressed block: raw literals "abc", nseq 0 */
	static const uint8_t lits[] = { MAGIC, 0x00, 0x00, 0x2D, 0x00, 0x00, 0x18, 'a', 'b', 'c', 0x00 };
	/* ... with a stray byte after the empty sequences section */
	static const uint8_t lits_stray[] = { MAGIC, 0x00, 0x00, 0x35, 0x00, 0x00, 0x18, 'a', 'b', 'c',
					      0x00, 0x00 };
	/* ... treeless literals in the first block: no table to repeat */
	static const uint8_t treeless[] = { MAGIC, 0x00, 0x00, 0x2D, 0x00, 0x00, 0x03, 0x30, 0x00,
					    0x00, 0x00 };
	/* a sequences section that repeats a table the frame never had */
	static const uint8_t rep_mode[] = { MAGIC, 0x00, 0x00, 0x3D, 0x00, 0x00, 0x18, 'a', 'b', 'c',
					    0x01, 0xFC, 0x80 };
	/* 1 KiB window, an RLE block of 2000 x 'q': Block_Maximum_Size limits
	 * its content (one byte), not the run */
	static const uint8_t rle_long[] = { MAGIC, 0x00, 0x00, 0x83, 0x3E, 0x00, 'q' };
	/* 32 KiB window; a compressed block (found by the fuzzer) whose
	 * sequences make 128 KiB, more than the window allows a block */
	static const uint8_t block_over[] = { MAGIC, 0x00, 0x29, 0x4c, 0x00, 0x00, 0x08, 0x7a,
					      0x01, 0x00, 0xfc, 0xff, 0x39, 0x10, 0x02, 0x83,
					      0x4f, 0x02, 0x7a };
	/* 1 KiB window; raw literals "abc", one sequence whose offsets table
	 * (mode FSE, accuracy log 5) gives all 32 symbols "less than 1":
	 * the states all go to them, none to the spread (an earlier
	 * fse_build ran past its buffer on this; found by the fuzzer).
	 * The sequence's bits then run out: corrupt, libzstd says so too. */
	static const uint8_t all_low[] = { MAGIC, 0x00, 0x00, 0xAD, 0x00, 0x00, 0x18, 'a', 'b', 'c',
					   0x01, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
					   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80 };
	/* a content size that the blocks do not produce */
	static const uint8_t fcs_wrong[] = { MAGIC, 0x20, 0x04, 0x19, 0x00, 0x00, 'a', 'b', 'c' };

	check_handmade("empty frame", empty, sizeof empty, 0, DECODE_OK);
	check_handmade("empty frame, dst_len 1", empty, sizeof empty, 1, DECODE_SHORT_OUTPUT);
	check_handmade("dictionary ID 0", did0, sizeof did0, 0, DECODE_OK);
	check_handmade("dictionary ID 7", did7, sizeof did7, 0, DECODE_CORRUPT);
	check_handmade("reserved descriptor bit", reserved, sizeof reserved, 0, DECODE_CORRUPT);
	check_handmade("reserved block type", btype3, sizeof btype3, 0, DECODE_CORRUPT);
	check_handmade("RLE and raw blocks", rle_raw, sizeof rle_raw, 7, DECODE_OK);
	check_handmade("block larger than the window", too_big, sizeof too_big, 1024, DECODE_CORRUPT);
	check_handmade("bad magic", magic, sizeof magic, 0, DECODE_CORRUPT);
	check_handmade("skippable frame alone", skip, sizeof skip, 0, DECODE_OK);
	check_handmade("skippable frame past the input", skip_long, sizeof skip_long, 0,
		       DECODE_TRUNCATED);
	check_handmade("raw literals, no sequences", lits, sizeof lits, 3, DECODE_OK);
	check_handmade("stray byte after the sequences header", lits_stray, sizeof lits_stray, 3,
		       DECODE_CORRUPT);
	check_handmade("treeless literals first", treeless, sizeof treeless, 3, DECODE_CORRUPT);
	check_handmade("repeat mode first", rep_mode, sizeof rep_mode, 3, DECODE_CORRUPT);
	check_handmade("content size disagrees", fcs_wrong, sizeof fcs_wrong, 4, DECODE_CORRUPT);
	check_handmade("RLE block longer than the window", rle_long, sizeof rle_long, 2000, DECODE_OK);
	check_handmade("compressed block makes more than the window", block_over, sizeof block_over,
		       150000, DECODE_CORRUPT);
	check_handmade("offsets table of only \"less than 1\" symbols", all_low, sizeof all_low, 3,
		       DECODE_CORRUPT);
	check_handmade("nothing at all", empty, 0, 0, DECODE_OK);
	check_handmade("nothing at all, dst_len 1", empty, 0, 1, DECODE_TRUNCATED);

	/* The hand-made OK frames as libzstd sees them. */
	begin_case();
	{
		uint8_t out[8];
		size_t r = zdecompress(rle_raw, sizeof rle_raw, out, sizeof out);

		if (r != 7 || memcmp(out, "aaaaabc", 7) != 0)
			failf("libzstd decodes the RLE + raw frame differently");
		r = zdecompress(lits, sizeof lits, out, sizeof out);
		if (r != 3 || memcmp(out, "abc", 3) != 0)
			failf("libzstd decodes the literals-only frame differently");
		{
			uint8_t *run = xmalloc(2000);

			r = zdecompress(rle_long, sizeof rle_long, run, 2000);
			if (r != 2000 || run[0] != 'q' || run[1999] != 'q')
				failf("libzstd does not decode the long RLE block");
			free(run);
		}
	}
	end_case("hand-made frames agree with libzstd");
}

/* Random garbage after a valid magic number and header-ish bytes. */
static void check_garbage(void)
{
	unsigned statuses[DECODE_CORRUPT + 1] = { 0 };

	begin_case();
	for (unsigned t = 0; t < 3000 && !case_failed; t++) {
		size_t zn = 4 + rng_below(t < 2000 ? 64 : 4000), cap = rng_below(5000);
		uint8_t *z = xmalloc(zn);

		for (size_t i = 0; i < zn; i++)
			z[i] = (uint8_t)rng();
		put_le32(z, 0xFD2FB528u);
		if (zn > 4)
			z[4] &= 0xF4;   /* mostly plausible descriptors */
		int st = run_zstd(z, zn, cap, NULL);

		if (st >= DECODE_OK && st <= DECODE_CORRUPT)
			statuses[st]++;
		free(z);
	}
	end_casef("3000 garbage frames (OK %u, truncated %u, overrun %u, offset %u, short %u, check %u, corrupt %u)",
		 statuses[0], statuses[1], statuses[2], statuses[3], statuses[4], statuses[5],
		 statuses[6]);
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	static const int levels[] = { 1, 3, 19, 22 };
	static const size_t small[] = { 0, 1, 2, 7, 31, 100, 1000, 4 * KIB + 3 };

	/* Small inputs of every kind at every level: every cut point. */
	for (size_t s = 0; s < sizeof(small) / sizeof(small[0]); s++)
		for (int k = 0; k < K_COUNT; k++)
			for (size_t l = 0; l < 4; l++) {
				uint8_t *in = make_input((enum kind)k, small[s]);
				struct zopts o = { levels[l], 0, (int)(l & 1), l != 2 };

				check_all(kind_names[k], in, small[s], &o, small[s] > 30 ? 50 : 0,
					  small[s] >= 7);
				if (l == 1 && small[s] >= 100) {
					/* a window over 16 MiB (see below) */
					o.window_log = 25;
					o.content_size = 0;
					check_all(kind_names[k], in, small[s], &o, 20, 1);
				}
				free(in);
			}

	/* Larger inputs: several blocks, window sizes, raw and RLE blocks,
	 * checksum and content size on and off. */
	{
		static const struct {
			enum kind k;
			size_t n;
			struct zopts o;
		} big[] = {
			{ K_TEXT, 300 * KIB, { 1, 0, 1, 1 } },
			{ K_TEXT, 300 * KIB, { 3, 10, 1, 1 } },     /* 1 KiB window: tiny blocks */
			{ K_TEXT, 700 * KIB, { 19, 17, 0, 1 } },
			{ K_TEXT, 700 * KIB, { 22, 0, 1, 0 } },
			{ K_RANDOM, 300 * KIB, { 3, 0, 1, 1 } },    /* raw blocks */
			{ K_RANDOM, 200 * KIB, { 22, 0, 0, 0 } },
			{ K_RUNS, 1 * MIB, { 3, 0, 1, 1 } },        /* RLE blocks */
			{ K_RUNS, 600 * KIB, { 22, 20, 1, 0 } },
			{ K_ZERO, 1 * MIB, { 1, 0, 1, 1 } },
			{ K_MIXED, 1 * MIB, { 3, 0, 1, 1 } },
			{ K_MIXED, 1 * MIB, { 19, 16, 1, 0 } },
			{ K_MIXED, 900 * KIB, { 22, 0, 1, 1 } },
			{ K_BINARY, 500 * KIB, { 1, 12, 0, 1 } },
			{ K_BINARY, 500 * KIB, { 22, 0, 1, 1 } },
			/* Streamed with a 32 or 64 MiB window: the window
			 * descriptor says more than 16 MiB, which turns on
			 * the decoder's prefetching sequence loop. */
			{ K_MIXED, 1 * MIB, { 19, 25, 1, 0 } },
			{ K_TEXT, 700 * KIB, { 3, 26, 0, 0 } },
			{ K_BINARY, 300 * KIB, { 22, 25, 1, 0 } },
			/* Frames the size of a kernel's: more than 8 MiB
			 * of output, round trip, truncations and damage. */
			{ K_MIXED, 12 * MIB, { 1, 0, 1, 1 } },
			{ K_TEXT, 10 * MIB, { 3, 24, 0, 0 } },
		};

		for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
			uint8_t *in = make_input(big[i].k, big[i].n);

			check_all(kind_names[big[i].k], in, big[i].n, &big[i].o, 40, 1);
			free(in);
		}
	}

	check_concatenated();
	check_handmade_all();
	check_garbage();

	/* Extra inputs (the test kernels) at the packer's level and others. */
	for (int a = 1; a < argc; a++) {
		size_t n;
		uint8_t *in = read_whole_file(argv[a], &n);

		if (!in) {
			skip_case(argv[a], "cannot read it");
			continue;
		}
		for (size_t l = 0; l < 4; l++) {
			struct zopts o = { levels[l], l == 3 ? 22 : 0, 1, 1 };

			check_all(argv[a], in, n, &o, l == 3 ? 20 : 0, l == 3);
		}
		free(in);
	}

	return finish_tests("test_zstd");
}
