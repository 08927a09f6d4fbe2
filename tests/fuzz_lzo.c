/* fuzz_lzo.c - libFuzzer target for decode/lzo_decode.c and
 * decode/lzo_rle_decode.c (their core: decode/lzo1x_core.h).
 *
 * Input: [le32 v][stream].  The output size is
 *     dst_len = min(v & 0x1fffff, FUZZ_MAX_OUT) >> (v >> 28)
 * as in tests/fuzz_lz4.c: the seeds (top nibble 0) give their exact
 * sizes, mutated values mostly small ones.
 *
 * Every run decodes the stream, from an exact-size copy, into buffers of
 * exactly dst_len bytes (malloc'd: ASan sees any access outside them):
 *
 *   lzo_decode() and lzo_rle_decode(), the decoders the stubs run;
 *   lzo_ref_decode() (tools/reference/lzo_ref.h), versions 0 and 1: the format one
 *       byte at a time, with the checks of our safe loop in its order;
 *   liblzo2's lzo1x_decompress_safe(), the reference for version 0;
 *
 * and aborts (a crash, for libFuzzer) when
 *
 *   1. one of ours and the reference decoder of its version disagree on
 *      the status, or both say DECODE_OK and the bytes differ (the fast
 *      and safe loops must accept the same streams with the same statuses);
 *   2. liblzo2 decodes exactly dst_len bytes and lzo_decode does not say
 *      DECODE_OK with the same bytes - unless the reference decoder
 *      stopped at an end marker other than 0x11 0x00 0x00, which liblzo2
 *      takes and we refuse on purpose (lzo1x_core.h, "Strict end");
 *   3. lzo_decode says DECODE_OK and liblzo2 does not decode exactly the
 *      same dst_len bytes.
 *
 * Built with -DFUZZ_MKSEEDS instead, this file is the seed generator:
 *   mkseeds_lzo DIR   writes small inputs compressed by liblzo2 (lzo1x_1,
 *                     lzo1x_999) and by our compressor (versions 0 and 1).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzo/lzo1x.h>

#include "decode.h"
#include "fuzzlib.h"
#include "lzo_ref.h"


#ifndef FUZZ_MKSEEDS

static void die(const char *what, int version, size_t dst_len, size_t n, int ours, int ref, int lib)
{
	fprintf(stderr, "fuzz_lzo: version %d: %s (dst_len %zu, stream %zu bytes): ours %s, reference %s, "
		"liblzo2 returned %d\n", version, what, dst_len, n, fuzz_status_name(ours), fuzz_status_name(ref),
		lib);
	abort();
}

static void check_run(const struct fuzz_input *in)
{
	const size_t dst_len = in->dst_len, n = in->n;
	const uint8_t *src = in->src;
	uint8_t *ours = fuzz_exact(dst_len), *ref = fuzz_exact(dst_len), *lib = fuzz_exact(dst_len);
	struct lzo_ref_stats st[2];
	enum decode_status s_ours[2], s_ref[2];

	for (int version = 0; version <= 1; version++) {
		s_ours[version] = (version ? lzo_rle_decode : lzo_decode)(src, n, ours, dst_len, NULL);
		s_ref[version] = lzo_ref_decode(src, n, ref, dst_len, version, &st[version]);
		if (s_ours[version] != s_ref[version])
			die("status differs from the reference decoder", version, dst_len, n, s_ours[version],
			    s_ref[version], 0);
		if (s_ours[version] == DECODE_OK && memcmp(ours, ref, dst_len) != 0)
			die("output differs from the reference decoder", version, dst_len, n, s_ours[version],
			    s_ref[version], 0);
	}

	/* ours still holds lzo_rle_decode's output: decode version 0 again-> */
	s_ours[0] = lzo_decode(src, n, ours, dst_len, NULL);
	lzo_uint got = dst_len;
	int r_lib = lzo1x_decompress_safe(src, n, lib, &got, NULL);
	int lib_ok = r_lib == LZO_E_OK && got == dst_len;

	if (lib_ok && !st[0].odd_end && (s_ours[0] != DECODE_OK || memcmp(ours, lib, dst_len) != 0))
		die("liblzo2 decodes the stream, ours differs", 0, dst_len, n, s_ours[0], s_ref[0], r_lib);
	if (s_ours[0] == DECODE_OK && (!lib_ok || memcmp(ours, lib, dst_len) != 0))
		die("ours decodes a stream liblzo2 does not", 0, dst_len, n, s_ours[0], s_ref[0], r_lib);

	free(ours);
	free(ref);
	free(lib);
}

FUZZ_ENTRY(0, check_run)

#else /* FUZZ_MKSEEDS */

#include "compress_lzo_rle_opt.h"

/* Variants: liblzo2's lzo1x_1 and lzo1x_999, our compressor's two
 * versions. */
static void write_seed(const uint8_t *in, size_t n, unsigned how)
{
	static const char *const names[] = { "lzo1x_1", "lzo1x_999", "ours-v0", "ours-rle" };
	size_t cap = lzo_opt_bound(n) + n / 16 + 64;
	uint8_t *blk = malloc(cap);
	lzo_uint c = 0;
	int r = LZO_E_OK;

	if (!blk)
		fuzz_seed_failed(n);
	if (how <= 1) {
		void *work = malloc(how ? LZO1X_999_MEM_COMPRESS : LZO1X_1_MEM_COMPRESS);

		if (!work)
			fuzz_seed_failed(n);
		r = how ? lzo1x_999_compress(in, n, blk, &c, work) : lzo1x_1_compress(in, n, blk, &c, work);
		free(work);
	} else {
		c = lzo_opt_compress(in, n, blk, cap, (int)how - 2);
		if (c == 0)
			r = LZO_E_ERROR;
	}
	if (r != LZO_E_OK)
		fuzz_seed_failed(n);
	fuzz_seed(names[how], n, blk, c);
	free(blk);
}

static void make_seeds(void)
{
	static uint8_t buf[70000];
	/* every small-distance match path */
	static const size_t periods[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 16 };
	/* literal runs around the first-byte and field limits */
	static const size_t literals[] = { 3, 4, 18, 19, 238, 239, 600 };
	uint32_t x = 0x2545f491u;

	if (lzo_init() != LZO_E_OK)
		exit(1);
	fuzz_seed_small();
	fuzz_seed_periods(buf, 300, periods, sizeof periods / sizeof periods[0]);
	fuzz_fill_random(buf, sizeof(buf), &x);
	for (size_t k = 0; k < sizeof literals / sizeof literals[0]; k++)
		fuzz_seeds(buf, literals[k]);
	/* random with repeats: matches of every length, M1 after runs */
	for (size_t i = 1000; i < 4000; i++)
		buf[i] = i % 5 == 0 ? (uint8_t)i : buf[i % 997];
	fuzz_seeds(buf + 900, 3100);
	/* zeros: runs of every size, in noise */
	memset(buf, 0, 5000);
	for (size_t i = 0; i < 5000; i += 37 + i % 300)
		buf[i] = (uint8_t)(i | 1);
	fuzz_seeds(buf, 5000);
	memset(buf, 0, 2100);
	fuzz_seeds(buf, 2100);
	/* 64 KiB of text: M4 distances up to the window's end */
	fuzz_seed_text(buf, 65536 + 200);
}

static const struct fuzz_seeder seeder = { "mkseeds_lzo", 4, write_seed, make_seeds };
FUZZ_SEEDS_MAIN(seeder)

#endif
