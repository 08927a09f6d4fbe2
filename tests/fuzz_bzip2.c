/* fuzz_bzip2.c - libFuzzer target for decode/bzip2_decode.c, checked
 * against libbz2.
 *
 * Input: [le32 v][bzip2 stream].  The output size is
 *     dst_len = min(v & 0x1fffff, FUZZ_MAX_OUT) >> (v >> 28)
 * at most 1 MiB; the seeds (top nibble 0) give their exact sizes.
 *
 * Every run decodes the stream with bzip2_decode() (the decoder the stub
 * runs) into a buffer of exactly dst_len bytes, with an exact copy of the
 * stream and a workspace of exactly DECODE_WORKSPACE_bzip2 bytes (all
 * malloc'd, so ASan sees any access past them), and with libbz2's
 * BZ2_bzBuffToBuffDecompress into dst_len + 1 bytes ("decodes" means: to
 * exactly dst_len bytes).  It aborts (a crash, for libFuzzer) when
 *
 *   1. ours returns something that is not a decode_status;
 *   2. ours says DECODE_OK and libbz2 does not decode the same dst_len
 *      bytes;
 *   3. libbz2 decodes the stream and ours does not say DECODE_OK with the
 *      same bytes - except DECODE_CORRUPT, which bzip2_decode.c's stricter
 *      checks give for streams libbz2 takes: trailing bytes or a second
 *      stream, nonzero padding bits, randomised blocks, oversubscribed
 *      code lengths (libbz2 also takes, say, a code that is no code when
 *      its table happens to map it).
 *
 * Built with -DFUZZ_MKSEEDS instead, this file is the seed generator:
 *   mkseeds_bzip2 DIR   writes small inputs compressed by libbz2 (levels 1
 *                       and 9) in the format above, one file each.
 */
#include <bzlib.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "fuzzlib.h"


#ifndef FUZZ_MKSEEDS

static void die(const char *what, size_t dst_len, size_t n, int ours, int lib)
{
	fprintf(stderr, "fuzz_bzip2: %s (dst_len %zu, stream %zu bytes): ours %s, libbz2 %d\n",
		what, dst_len, n, fuzz_status_name(ours), lib);
	abort();
}

static void check_run(const struct fuzz_input *in)
{
	static void *workspace;
	if (!workspace && !(workspace = malloc(DECODE_WORKSPACE_bzip2)))
		abort();
	const size_t dst_len = in->dst_len, n = in->n;
	uint8_t *ours = fuzz_exact(dst_len);
	uint8_t *lib = fuzz_exact(dst_len + 1);

	int s_ours = bzip2_decode(in->src, n, ours, dst_len, workspace);
	unsigned lib_len = (unsigned)dst_len + 1;
	int r_lib = BZ2_bzBuffToBuffDecompress((char *)lib, &lib_len, (char *)in->src, (unsigned)n, 0, 0);
	int lib_ok = r_lib == BZ_OK && lib_len == dst_len;

	if (!fuzz_valid_status(s_ours))
		die("not a decode_status", dst_len, n, s_ours, r_lib);
	if (s_ours == DECODE_OK && (!lib_ok || memcmp(ours, lib, dst_len) != 0))
		die("ours decodes a stream libbz2 decodes differently or not at all", dst_len, n,
		    s_ours, r_lib);
	if (lib_ok && s_ours != DECODE_OK && s_ours != DECODE_CORRUPT)
		die("libbz2 decodes the stream, ours fails", dst_len, n, s_ours, r_lib);

	free(ours);
	free(lib);
}

FUZZ_ENTRY(0, check_run)

#else /* FUZZ_MKSEEDS */

/* Variants: libbz2 at levels 1 and 9. */
static void write_seed(const uint8_t *in, size_t n, unsigned v)
{
	const int level = v ? 9 : 1;
	unsigned len = (unsigned)(n + n / 100 + 600);
	char *s = malloc(len);
	char tag[16];

	if (!s || BZ2_bzBuffToBuffCompress(s, &len, (char *)in, (unsigned)n, level, 0, 0) != BZ_OK)
		fuzz_seed_failed(n);
	snprintf(tag, sizeof tag, "level%d", level);
	fuzz_seed(tag, n, s, len);
	free(s);
}

static void make_seeds(void)
{
	static uint8_t buf[70000];
	/* RLE1: runs around 4 and 4 + 255; long zero runs (RUNA/RUNB) */
	static const size_t runs[] = { 3, 4, 5, 259, 260, 1000, 65536 };
	uint32_t x = 0x2545f491u;

	fuzz_seed_small();              /* the empty one: no blocks */
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		memset(buf, r & 1 ? 'z' : 0, runs[r]);
		fuzz_seeds(buf, runs[r]);
	}
	/* random bytes: all 256 symbols, large MTF indices */
	fuzz_fill_random(buf, sizeof(buf), &x);
	fuzz_seeds(buf, 300);
	fuzz_seeds(buf, 5000);
	/* mostly a few letters: short codes, many selectors */
	for (size_t i = 0; i < 20000; i++)
		buf[i] = (uint8_t)("aaaabbbcde"[buf[i] % 10]);
	fuzz_seeds(buf, 20000);
	fuzz_seed_text(buf, 65536 + 200);
}

static const struct fuzz_seeder seeder = { "mkseeds_bzip2", 2, write_seed, make_seeds };
FUZZ_SEEDS_MAIN(seeder)

#endif
