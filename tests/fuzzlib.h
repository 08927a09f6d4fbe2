/* fuzzlib.h - what the libFuzzer targets tests/fuzz_*.c and their seed
 * generators (the same files built -DFUZZ_MKSEEDS) share.
 *
 * Their inputs start with a header holding a le32 v that gives the output
 * size (xz puts a mode byte before it):
 *     dst_len = min(v & 0x1fffff, FUZZ_MAX_OUT) >> (v >> 28)
 * the seeds (top nibble 0) give their exact sizes.
 *
 * A fuzzer is its check of one run (FUZZ_ENTRY: the input taken apart,
 * the stream in an exact-size copy); a seed generator is its compressors
 * and the inputs it makes (struct fuzz_seeder, FUZZ_SEEDS_MAIN), with the
 * inputs every family shares (fuzz_seed_small, _periods, _text).
 *
 * Header only, every function static inline: fuzz.mk builds each fuzzer
 * from its one source file and the decoders. */
#ifndef FUZZLIB_H
#define FUZZLIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

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

/* ---- a run ---- */

/* A run's stream and the output size its header asks for. */
struct fuzz_input {
	uint8_t *src;           /* an exact-size copy of the stream (free it) */
	size_t n, dst_len;
	unsigned mode;          /* the mode byte before the header, if any */
};

/* Takes data[0..size) apart: 0 if it is too short to hold the header
 * (nothing to run), else 1 with *in filled. */
static inline int fuzz_take(const uint8_t *data, size_t size, struct fuzz_input *in)
{
	if (size < FUZZ_HDR_BYTES)
		return 0;
	in->dst_len = fuzz_dst_len(data);
	in->n = size - FUZZ_HDR_BYTES;
	in->src = fuzz_exact(in->n);
	if (in->n)
		memcpy(in->src, data + FUZZ_HDR_BYTES, in->n);
	return 1;
}

/* A libFuzzer entry: data is [mode_bytes (0 or 1)][le32 v][stream], and
 * run checks one run of it (aborting on a disagreement). */
static inline int fuzz_entry(const uint8_t *data, size_t size, size_t mode_bytes,
			     void (*run)(const struct fuzz_input *in))
{
	struct fuzz_input in;

	if (size < mode_bytes || !fuzz_take(data + mode_bytes, size - mode_bytes, &in))
		return 0;
	in.mode = mode_bytes ? data[0] : 0;
	run(&in);
	free(in.src);
	return 0;
}

/* Defines LLVMFuzzerTestOneInput as fuzz_entry with mode_bytes and run. */
#define FUZZ_ENTRY(mode_bytes, run) \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) \
	{ \
		return fuzz_entry(data, size, (mode_bytes), (run)); \
	}

static inline int fuzz_valid_status(int s)
{
	return s >= DECODE_OK && s <= DECODE_CORRUPT;
}

/* A status as the fuzzers' crash messages name it. */
static inline const char *fuzz_status_name(int s)
{
	return s == DECODE_OK ? "OK"
	       : fuzz_valid_status(s) ? decode_status_name((enum decode_status)s) : "(not a decode_status)";
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

#ifdef FUZZ_MKSEEDS

/* A family's seed generator, mkseeds_X DIR (FUZZ_SEEDS_MAIN). */
struct fuzz_seeder {
	const char *prog;               /* "mkseeds_X" */
	/* writes in[0..n) compressed its variant-v way (v < variants) with
	 * fuzz_seed; fuzz_seed_failed if it cannot */
	unsigned variants;
	void (*write)(const uint8_t *in, size_t n, unsigned v);
	/* makes the inputs, with fuzz_seeds and the helpers below */
	void (*make)(void);
};

static const struct fuzz_seeder *fuzz_seeder;
static const char *fuzz_seed_dir;
static int fuzz_seed_count;

/* Writes the next seed, DIR/seed-NNN-N-TAG (fuzz_write_seed). */
static inline void fuzz_seed(const char *tag, size_t n, const void *stream, size_t len)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/seed-%03d-%zu-%s", fuzz_seed_dir, fuzz_seed_count++, n, tag);
	fuzz_write_seed(path, n, stream, len);
}

/* The seeds of one input: every variant of the family's. */
static inline void fuzz_seeds(const uint8_t *in, size_t n)
{
	for (unsigned v = 0; v < fuzz_seeder->variants; v++)
		fuzz_seeder->write(in, n, v);
}

static inline void fuzz_seed_failed(size_t n)
{
	fprintf(stderr, "%s: could not compress %zu bytes\n", fuzz_seeder->prog, n);
	exit(1);
}

static inline int fuzz_seeds_main(int argc, char **argv, const struct fuzz_seeder *s)
{
	fuzz_seeder = s;
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", s->prog);
		return 2;
	}
	fuzz_seed_dir = argv[1];
	s->make();
	printf("%s: %d seeds in %s\n", s->prog, fuzz_seed_count, fuzz_seed_dir);
	return 0;
}

/* Defines main as fuzz_seeds_main with the seeder. */
#define FUZZ_SEEDS_MAIN(seeder) \
	int main(int argc, char **argv) \
	{ \
		return fuzz_seeds_main(argc, argv, &(seeder)); \
	}

/* The small inputs every family's seeds start with: none, one byte, 12
 * bytes and all of FUZZ_SEED_TEXT. */
static inline void fuzz_seed_small(void)
{
	static const char text[] = FUZZ_SEED_TEXT;

	fuzz_seeds((const uint8_t *)text, 0);
	fuzz_seeds((const uint8_t *)"x", 1);
	fuzz_seeds((const uint8_t *)text, 12);
	fuzz_seeds((const uint8_t *)text, sizeof text - 1);
}

/* p[0..n): a pattern of period `period` (at most 40): matches at every
 * small distance up to it. */
static inline void fuzz_fill_periodic(uint8_t *p, size_t n, size_t period)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)"abcdefghijklmnopqrstuvwxyz0123456789ABCD"[i % period];
}

/* One input of n bytes, in buf, per period. */
static inline void fuzz_seed_periods(uint8_t *buf, size_t n, const size_t *periods, size_t count)
{
	for (size_t k = 0; k < count; k++) {
		fuzz_fill_periodic(buf, n, periods[k]);
		fuzz_seeds(buf, n);
	}
}

/* p[0..n): FUZZ_SEED_TEXT again and again, shifted every 1000 bytes:
 * repeats at many distances. */
static inline void fuzz_fill_text(uint8_t *p, size_t n)
{
	static const char text[] = FUZZ_SEED_TEXT;

	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)text[(i * 7 + i / 1000) % (sizeof text - 1)];
}

/* fuzz_fill_text's n bytes, in buf. */
static inline void fuzz_seed_text(uint8_t *buf, size_t n)
{
	fuzz_fill_text(buf, n);
	fuzz_seeds(buf, n);
}

#endif

#endif
