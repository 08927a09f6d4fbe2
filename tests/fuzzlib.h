/* fuzzlib.h - what the libFuzzer targets tests/fuzz_*.c and their seed
 * generators (the same files built -DFUZZ_MKSEEDS) share.
 *
 * Their inputs start with a header holding a le32 v that gives the output
 * size (xz puts a mode byte before it):
 *     dst_len = min(v & 0x1fffff, FUZZ_MAX_OUT) >> (v >> 28)
 * the seeds (top nibble 0) give their exact sizes.
 *
 * Header only, every function static inline: fuzz.mk builds each fuzzer
 * from its one source file and the decoders. */
#ifndef FUZZLIB_H
#define FUZZLIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef FUZZ_MAX_OUT
#define FUZZ_MAX_OUT (1u << 20)
#endif
/* The le32 v. */
#define FUZZ_HDR_BYTES 4

static inline uint32_t fuzz_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The output size the le32 at p asks for. */
static inline size_t fuzz_dst_len(const uint8_t *p)
{
	uint32_t v = fuzz_le32(p);
	size_t dst_len = (v & 0x1fffffu) < FUZZ_MAX_OUT ? (v & 0x1fffffu) : FUZZ_MAX_OUT;

	return dst_len >> (v >> 28);
}

/* An exact-size buffer, so ASan sees any access past it (malloc(0) may
 * return NULL, which every decoder accepts together with a length of 0). */
static inline uint8_t *fuzz_exact(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	if (!p)
		abort();
	return p;
}

/* ---- seed generators ---- */

/* A sentence of English for text seeds. */
#define FUZZ_SEED_TEXT \
	"bzpack packs an x86 kernel behind a tiny stub that checks it, decompresses " \
	"it and enters it as the Linux x86 boot protocol says.  The stub never jumps " \
	"into a kernel it could not fully decompress and verify."

/* xorshift32 (Marsaglia, "Xorshift RNGs", 2003): the seeds' random bytes. */
static inline uint32_t fuzz_xorshift32(uint32_t *x)
{
	*x ^= *x << 13, *x ^= *x >> 17, *x ^= *x << 5;
	return *x;
}

static inline void fuzz_fill_random(uint8_t *p, size_t n, uint32_t *x)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)fuzz_xorshift32(x);
}

/* Writes one seed to path: the le32 header asking for exactly n output
 * bytes, then the stream; exits 1 if it cannot. */
static inline void fuzz_write_seed(const char *path, size_t n, const void *stream, size_t len)
{
	uint8_t hdr[FUZZ_HDR_BYTES] = { (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24) };
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(hdr, 1, sizeof(hdr), f) != sizeof(hdr) || fwrite(stream, 1, len, f) != len ||
	    fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

#endif
