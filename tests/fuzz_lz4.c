/* fuzz_lz4.c - libFuzzer target for decode/lz4_decode.c (built native and
 * -m32, tests/fuzz.mk).
 *
 * Input: [le32 v][LZ4 block].  The output size is
 *     dst_len = min(v & 0x1fffff, FUZZ_MAX_OUT) >> (v >> 28)
 * at most 1 MiB; the seeds (top nibble 0) give their exact sizes, and
 * mutated values mostly give small ones: a 1 MiB buffer per run (three of
 * them) would cost a factor of 15 in runs per second.
 *
 * Every run decodes the block three times, each into its own buffer of
 * exactly dst_len bytes (malloc'd, so ASan sees any write past it; the
 * block is copied into an exact-size buffer too, so reads past either end
 * are caught):
 *
 *   ours  lz4_decode(), the decoder the stub runs;
 *   ref   ref_decode() below: the "Compressed block format" and the
 *         choices documented at the top of decode/lz4_decode.c, one byte at
 *         a time, checks in the order of lz4_decode()'s safe loop;
 *   lib   liblz4's LZ4_decompress_safe().
 *
 * and aborts (a crash, for libFuzzer) when
 *
 *   1. ours and ref disagree on the status, or both say DECODE_OK and the
 *      bytes differ (lz4_decode.c promises that its fast and safe loops
 *      accept the same blocks and report the same statuses);
 *   2. liblz4 decodes exactly dst_len bytes and ours does not say
 *      DECODE_OK with the same bytes - except when ours stopped at a match
 *      offset of 0: the format calls it invalid, liblz4 1.9.4 accepts it
 *      (and copies from the output position itself);
 *   3. ours says DECODE_OK for a block that keeps the end-of-block
 *      conditions (every match starts >= MFLIMIT bytes and ends >=
 *      LAST_LITERALS bytes before the end of the output) and liblz4 does
 *      not decode exactly the same dst_len bytes.  Blocks that break those
 *      conditions are ones our decoder accepts on purpose and liblz4 may
 *      reject; they are compared only through 1.
 *
 * Built with -DFUZZ_MKSEEDS instead, this file is the seed generator:
 *   mkseeds_lz4 DIR   writes small inputs compressed by liblz4 (fast and
 *                     HC) in the format above, one file each.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <lz4hc.h>

#include "decode.h"
#include "fuzzlib.h"

#define MINMATCH      4u
#define MFLIMIT       12u
#define LAST_LITERALS 5u

#ifndef FUZZ_MKSEEDS

/* What ref_decode learned about the block's shape. */
struct shape {
	int compliant;  /* no match breaks the end-of-block conditions */
	int zero_offset; /* decoding stopped at a match offset of 0 */
};

/* Adds extension bytes to *len.  0, or -1 if the input ends first. */
static int ref_ext(const uint8_t *src, size_t n, size_t *ip, size_t *len)
{
	unsigned b;

	do {
		if (*ip == n)
			return -1;
		b = src[(*ip)++];
		*len += b;      /* n is small: no wrap (at most 255 * n) */
	} while (b == 255);
	return 0;
}

static enum decode_status ref_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
				     struct shape *sh)
{
	size_t ip = 0, op = 0;

	sh->compliant = 1;
	sh->zero_offset = 0;
	if (n == 0) {
		sh->compliant = 0;      /* no block at all: liblz4 says -1 */
		return DECODE_TRUNCATED;
	}
	for (;;) {
		if (ip == n)
			return DECODE_TRUNCATED;
		unsigned token = src[ip++];
		size_t lit = token >> 4, ml = token & 15u;

		if (lit == 15 && ref_ext(src, n, &ip, &lit) < 0)
			return DECODE_TRUNCATED;
		if (lit > n - ip)
			return DECODE_TRUNCATED;
		if (lit > cap - op)
			return DECODE_OUTPUT_OVERRUN;
		for (size_t i = 0; i < lit; i++)
			dst[op++] = src[ip++];
		if (ip == n) {
			/* liblz4 takes nothing but {0x00} for an empty output */
			if (cap == 0 && token != 0)
				sh->compliant = 0;
			return op == cap ? DECODE_OK : DECODE_SHORT_OUTPUT;
		}

		if (n - ip < 2)
			return DECODE_TRUNCATED;
		size_t off = (size_t)src[ip] | (size_t)src[ip + 1] << 8;
		ip += 2;
		if (off == 0 || off > op) {
			sh->zero_offset = off == 0;
			return DECODE_BAD_OFFSET;
		}
		if (ml == 15 && ref_ext(src, n, &ip, &ml) < 0)
			return DECODE_TRUNCATED;
		ml += MINMATCH;
		if (ml > cap - op)
			return DECODE_OUTPUT_OVERRUN;
		if (cap - op < MFLIMIT || cap - (op + ml) < LAST_LITERALS)
			sh->compliant = 0;
		for (size_t i = 0; i < ml; i++, op++)
			dst[op] = dst[op - off];
	}
}

static void die(const char *what, size_t dst_len, size_t n, int ours, int ref, int lib)
{
	fprintf(stderr, "fuzz_lz4: %s (dst_len %zu, block %zu bytes): ours %s, reference %s, "
		"liblz4 returned %d\n", what, dst_len, n, fuzz_status_name(ours), fuzz_status_name(ref), lib);
	abort();
}

static void check_run(const struct fuzz_input *in)
{
	if (in->n > (size_t)LZ4_MAX_INPUT_SIZE)
		return;
	const size_t dst_len = in->dst_len, n = in->n;
	uint8_t *ours = fuzz_exact(dst_len), *ref = fuzz_exact(dst_len), *lib = fuzz_exact(dst_len);
	struct shape sh;

	enum decode_status s_ours = lz4_decode(in->src, n, ours, dst_len, NULL);
	enum decode_status s_ref = ref_decode(in->src, n, ref, dst_len, &sh);
	int r_lib = LZ4_decompress_safe((const char *)in->src, (char *)lib, (int)n, (int)dst_len);
	int lib_ok = r_lib >= 0 && (size_t)r_lib == dst_len;

	if (s_ours != s_ref)
		die("status differs from the reference decoder", dst_len, n, s_ours, s_ref, r_lib);
	if (s_ours == DECODE_OK && memcmp(ours, ref, dst_len) != 0)
		die("output differs from the reference decoder", dst_len, n, s_ours, s_ref, r_lib);
	if (lib_ok && !sh.zero_offset && (s_ours != DECODE_OK || memcmp(ours, lib, dst_len) != 0))
		die("liblz4 decodes the block, ours differs", dst_len, n, s_ours, s_ref, r_lib);
	if (s_ours == DECODE_OK && sh.compliant && !lib_ok)
		die("ours decodes a compliant block liblz4 rejects", dst_len, n, s_ours, s_ref, r_lib);

	free(ours);
	free(ref);
	free(lib);
}

FUZZ_ENTRY(0, check_run)

#else /* FUZZ_MKSEEDS */

/* Variants: liblz4's fast and HC compressors. */
static void write_seed(const uint8_t *in, size_t n, unsigned hc)
{
	int bound = LZ4_compressBound((int)n);
	char *blk = malloc((size_t)bound + 1);
	int c = !blk ? 0
		: hc ? LZ4_compress_HC((const char *)in, blk, (int)n, bound, LZ4HC_CLEVEL_MAX)
		     : LZ4_compress_default((const char *)in, blk, (int)n, bound);

	if (c <= 0)
		fuzz_seed_failed(n);
	fuzz_seed(hc ? "hc" : "fast", n, blk, (size_t)c);
	free(blk);
}

static void make_seeds(void)
{
	static uint8_t buf[70000];
	static const char text[] = FUZZ_SEED_TEXT;
	/* every small-offset match path (offsets 1..9, 16) */
	static const size_t periods[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 16 };
	/* literal runs around the 15 / 15 + 255 length boundaries */
	static const size_t literals[] = { 14, 15, 16, 270, 271, 600 };
	uint32_t x = 0x2545f491u;

	fuzz_seed_small();              /* the empty one: the one-byte block {0x00} */
	fuzz_seed_periods(buf, 300, periods, sizeof periods / sizeof periods[0]);
	fuzz_fill_random(buf, sizeof(buf), &x);
	for (size_t k = 0; k < sizeof literals / sizeof literals[0]; k++)
		fuzz_seeds(buf, literals[k]);
	/* random with repeats: matches of every length, some long */
	for (size_t i = 1000; i < 3000; i++)
		buf[i] = buf[i % 997];
	fuzz_seeds(buf + 900, 2100);
	/* a long run, then text: a long match, ext bytes of 255 */
	memset(buf, 'z', 1200);
	memcpy(buf + 1200, text, sizeof(text) - 1);
	fuzz_seeds(buf, 1200 + sizeof(text) - 1);
	/* 64 KiB of text: offsets up to the 65535 limit */
	fuzz_seed_text(buf, 65536 + 200);
}

static const struct fuzz_seeder seeder = { "mkseeds_lz4", 2, write_seed, make_seeds };
FUZZ_SEEDS_MAIN(seeder)

#endif
