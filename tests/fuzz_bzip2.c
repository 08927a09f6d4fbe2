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
		what, dst_len, n, ours == DECODE_OK ? "OK" : decode_status_name((enum decode_status)ours),
		lib);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void *workspace;

	if (size < FUZZ_HDR_BYTES)
		return 0;
	if (!workspace && !(workspace = malloc(DECODE_WORKSPACE_bzip2)))
		abort();
	size_t dst_len = fuzz_dst_len(data);
	size_t n = size - FUZZ_HDR_BYTES;

	uint8_t *src = fuzz_exact(n);
	memcpy(src, data + FUZZ_HDR_BYTES, n);
	uint8_t *ours = fuzz_exact(dst_len);
	uint8_t *lib = fuzz_exact(dst_len + 1);

	int s_ours = bzip2_decode(src, n, ours, dst_len, workspace);
	unsigned lib_len = (unsigned)dst_len + 1;
	int r_lib = BZ2_bzBuffToBuffDecompress((char *)lib, &lib_len, (char *)src, (unsigned)n, 0, 0);
	int lib_ok = r_lib == BZ_OK && lib_len == dst_len;

	if (s_ours < DECODE_OK || s_ours > DECODE_CORRUPT)
		die("not a decode_status", dst_len, n, s_ours, r_lib);
	if (s_ours == DECODE_OK && (!lib_ok || memcmp(ours, lib, dst_len) != 0))
		die("ours decodes a stream libbz2 decodes differently or not at all", dst_len, n,
		    s_ours, r_lib);
	if (lib_ok && s_ours != DECODE_OK && s_ours != DECODE_CORRUPT)
		die("libbz2 decodes the stream, ours fails", dst_len, n, s_ours, r_lib);

	free(src);
	free(ours);
	free(lib);
	return 0;
}

#else /* FUZZ_MKSEEDS */

static int seed_no;

static void write_seed(const char *dir, const uint8_t *in, size_t n, int level)
{
	unsigned len = (unsigned)(n + n / 100 + 600);
	char *s = malloc(len);
	char path[4096];

	if (!s || BZ2_bzBuffToBuffCompress(s, &len, (char *)in, (unsigned)n, level, 0, 0) != BZ_OK) {
		fprintf(stderr, "mkseeds_bzip2: libbz2 could not compress %zu bytes\n", n);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/seed-%03d-%zu-level%d", dir, seed_no++, n, level);
	fuzz_write_seed(path, n, s, len);
	free(s);
}

static void both(const char *dir, const uint8_t *in, size_t n)
{
	write_seed(dir, in, n, 1);
	write_seed(dir, in, n, 9);
}

int main(int argc, char **argv)
{
	static uint8_t buf[70000];
	static const char text[] = FUZZ_SEED_TEXT;
	uint32_t x = 0x2545f491u;

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds_bzip2 DIR\n");
		return 2;
	}
	const char *dir = argv[1];

	both(dir, buf, 0);                               /* no blocks */
	both(dir, (const uint8_t *)"x", 1);
	both(dir, (const uint8_t *)text, 12);
	both(dir, (const uint8_t *)text, sizeof(text) - 1);
	/* RLE1: runs around 4 and 4 + 255; long zero runs (RUNA/RUNB) */
	static const size_t runs[] = { 3, 4, 5, 259, 260, 1000, 65536 };
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		memset(buf, r & 1 ? 'z' : 0, runs[r]);
		both(dir, buf, runs[r]);
	}
	/* random bytes: all 256 symbols, large MTF indices */
	fuzz_fill_random(buf, sizeof(buf), &x);
	both(dir, buf, 300);
	both(dir, buf, 5000);
	/* mostly a few letters: short codes, many selectors */
	for (size_t i = 0; i < 20000; i++)
		buf[i] = (uint8_t)("aaaabbbcde"[buf[i] % 10]);
	both(dir, buf, 20000);
	/* text with repeats */
	for (size_t i = 0; i < 65536 + 200; i++)
		buf[i] = (uint8_t)text[(i * 7 + i / 1000) % (sizeof(text) - 1)];
	both(dir, buf, 65536 + 200);
	printf("mkseeds_bzip2: %d seeds in %s\n", seed_no, dir);
	return 0;
}

#endif
