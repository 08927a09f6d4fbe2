/* fuzz_zstd.c - libFuzzer target for decode/zstd_*.c, differential
 * against libzstd.
 *
 * Input: [le32 v][zstd data].  The output size is
 *     dst_len = min(v & 0x1fffff, FUZZ_MAX_OUT) >> (v >> 28)
 * at most 1 MiB; the seeds (top nibble 0) give their exact sizes.
 *
 * Every run decodes the data with zstd_decode() into a malloc'd buffer of
 * exactly dst_len bytes, from an exact-size copy of the input, with an
 * exact-size workspace (ASan sees any access outside them), and with
 * libzstd's ZSTD_decompressDCtx() (windowLogMax 31, like the packer's
 * frames need) into a buffer of the same size, and aborts (a crash, for
 * libFuzzer) when
 *
 *   1. ours returns something that is not a decode_status;
 *   2. libzstd decodes exactly dst_len bytes and ours does not say
 *      DECODE_OK with the same bytes;
 *   3. ours says DECODE_OK and libzstd does not decode the same dst_len
 *      bytes - except when libzstd refuses the frame's window as too
 *      large (over 2^31 bytes): we need no window beyond the output, so
 *      any Window_Size the format can say is fine with us.
 *
 * Three exceptions to 2, where libzstd (1.5.x) is the lenient one and we
 * follow the format: it ignores the reserved bits of the sequences
 * section's modes byte; its fast four-stream Huffman path does not check
 * that each stream ends with its end mark and was consumed to its last
 * bit, so it accepts streams that run short or long; and its sequence decoder updates the FSE
 * states after the last sequence too (the format says not to), so it
 * accepts a sequences bitstream read past its start (the missing bits
 * taken as zeros) and one with those extra bits left over.  We call all
 * three corrupt.  decode/zstd_*.c built with -DZSTD_DECODE_NOTES names
 * the check that failed in zstd_decode_note, and these are let through.
 *
 * Built with -DFUZZ_MKSEEDS instead, this file is the seed generator:
 *   mkseeds_zstd DIR   writes small inputs compressed by libzstd (several
 *                      levels, windows, checksum and content size on and
 *                      off, two frames, a skippable frame), one file each.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "decode.h"
#include "fuzzlib.h"


#ifndef FUZZ_MKSEEDS

static void die(const char *what, size_t dst_len, size_t n, int ours, size_t lib)
{
	fprintf(stderr, "fuzz_zstd: %s (dst_len %zu, input %zu bytes): ours %s, libzstd %s\n", what,
		dst_len, n, fuzz_status_name(ours),
		ZSTD_isError(lib) ? ZSTD_getErrorName(lib) : "decoded");
	abort();
}

static ZSTD_DCtx *dctx;
const char *zstd_decode_note;    /* set by decode/zstd_*.c (-DZSTD_DECODE_NOTES) */

static void check_run(const struct fuzz_input *in)
{
	const size_t dst_len = in->dst_len, n = in->n;
	const uint8_t *src = in->src;

	if (!dctx) {
		dctx = ZSTD_createDCtx();
		if (!dctx || ZSTD_isError(ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 31)))
			abort();
	}
	uint8_t *ours = fuzz_exact(dst_len), *lib = fuzz_exact(dst_len);
	void *ws = fuzz_exact(DECODE_WORKSPACE_zstd);

	zstd_decode_note = NULL;
	int s = zstd_decode(src, n, ours, dst_len, ws);
	const int lenient = s == DECODE_CORRUPT && zstd_decode_note &&
			    (strcmp(zstd_decode_note, "huffman stream not consumed exactly") == 0 ||
			     strcmp(zstd_decode_note, "huffman stream without its end mark") == 0 ||
			     strcmp(zstd_decode_note, "sequence stream not consumed exactly") == 0 ||
			     strcmp(zstd_decode_note, "reserved bits of the modes byte set") == 0);
	size_t r = ZSTD_decompressDCtx(dctx, lib, dst_len, src, n);
	int lib_ok = !ZSTD_isError(r) && r == dst_len;

	if (!fuzz_valid_status(s))
		die("not a decode_status", dst_len, n, s, r);
	if (lib_ok && !lenient && (s != DECODE_OK || memcmp(ours, lib, dst_len) != 0))
		die("libzstd decodes it, ours differs", dst_len, n, s, r);
	const int window_refused = ZSTD_isError(r) &&
				   ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge;

	if (s == DECODE_OK && !window_refused && (!lib_ok || memcmp(ours, lib, dst_len) != 0))
		die("ours decodes it, libzstd differs", dst_len, n, s, r);

	free(ours);
	free(lib);
	free(ws);
}

FUZZ_ENTRY(0, check_run)

#else /* FUZZ_MKSEEDS */

/* Compresses in[0..n) and returns the frame's size in out (cap bytes). */
static size_t compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, int level, int wlog,
		       int checksum, int size_flag)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	size_t r;

	ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, checksum);
	ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, size_flag);
	if (wlog)
		ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, wlog);
	if (size_flag) {
		r = ZSTD_compress2(cc, out, cap, in, n);
	} else {
		/* Streamed, the end in a call of its own: no content size,
		 * and the window as asked, not shrunk to the input. */
		ZSTD_outBuffer ob = { out, cap, 0 };
		ZSTD_inBuffer ib = { in, n, 0 };

		do
			r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_continue);
		while (!ZSTD_isError(r) && ib.pos < ib.size);
		ib.size = ib.pos = 0;
		while (!ZSTD_isError(r) && (r = ZSTD_compressStream2(cc, &ob, &ib, ZSTD_e_end)) != 0)
			;
		if (!ZSTD_isError(r))
			r = ob.pos;
	}
	ZSTD_freeCCtx(cc);
	if (ZSTD_isError(r)) {
		fprintf(stderr, "mkseeds_zstd: %s\n", ZSTD_getErrorName(r));
		exit(1);
	}
	return r;
}

/* Variants: levels 1, 3, 19 and 22, with window logs of libzstd's
 * choice, 1 KiB, and (streamed, no size) 32 MiB for the decoder's
 * prefetching loop. */
static void write_seed(const uint8_t *in, size_t n, unsigned l)
{
	static const int levels[] = { 1, 3, 19, 22 };
	static uint8_t z[2 * 300000];
	size_t zn = compress(in, n, z, sizeof z, levels[l], l == 1 ? 10 : l == 2 ? 25 : 0, (int)(l & 1),
			     l != 2);
	char what[32];

	snprintf(what, sizeof what, "L%d", levels[l]);
	fuzz_seed(what, n, z, zn);
}

static void make_seeds(void)
{
	static uint8_t buf[300000];
	static uint8_t z[2 * 300000];
	static const char text[] = FUZZ_SEED_TEXT;
	/* small offsets and repeat offsets */
	static const size_t periods[] = { 1, 2, 3, 5, 8, 13, 16, 40 };
	uint32_t x = 0x2545f491u;

	fuzz_seed_small();
	/* periodic data, a byte changed every 97 */
	for (size_t p = 0; p < sizeof(periods) / sizeof(periods[0]); p++) {
		fuzz_fill_periodic(buf, 2000, periods[p]);
		for (size_t i = 0; i < 2000; i += 97)
			buf[i] ^= 1;
		fuzz_seeds(buf, 2000);
	}
	/* random (raw literals, raw blocks), then text with repeats */
	fuzz_fill_random(buf, sizeof(buf), &x);
	fuzz_seeds(buf, 3000);
	{
		static uint8_t t[200000];

		fuzz_fill_text(t, sizeof t);
		for (size_t i = 0; i < sizeof t; i++)
			buf[i] = t[i] ^ (buf[i] < 8);
	}
	fuzz_seeds(buf, 20000);
	fuzz_seeds(buf, 200000);         /* several blocks: treeless literals, repeat tables */
	/* runs: RLE blocks and RLE literals */
	memset(buf, 'z', 150000);
	fuzz_seeds(buf, 150000);

	/* two frames and a skippable frame */
	{
		size_t zn = compress((const uint8_t *)text, 50, z, sizeof z, 3, 0, 1, 1);
		static const uint8_t skip[] = { 0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3 };

		memcpy(z + zn, skip, sizeof skip);
		zn += sizeof skip;
		zn += compress((const uint8_t *)text + 50, 60, z + zn, sizeof z - zn, 19, 0, 0, 0);
		fuzz_seed("frames", 110, z, zn);
	}
}

static const struct fuzz_seeder seeder = { "mkseeds_zstd", 4, write_seed, make_seeds };
FUZZ_SEEDS_MAIN(seeder)

#endif
