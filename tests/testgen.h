/* testgen.h - deterministic test inputs for the host decoder tests, from
 * testlib's rng(): each fills p[0..n) and consumes the PRNG the same way
 * on every run, so a test's corpus is the same everywhere. */
#ifndef TESTGEN_H
#define TESTGEN_H

#include <stddef.h>
#include <stdint.h>

#include "testlib.h"

/* Random bytes (the PRNG's top byte each). */
void gen_random(uint8_t *p, size_t n);
/* "abcabc...": one short period, matches from the third byte on. */
void gen_abc(uint8_t *p, size_t n);
void gen_zeros(uint8_t *p, size_t n);
/* Mostly repeats with a little noise: many short matches, short and long
 * literal runs, near the ends of the buffers too. */
void gen_semi(uint8_t *p, size_t n);
/* English-like words of kernel vocabulary, spaces, commas and newlines. */
void gen_text(uint8_t *p, size_t n);
/* A pattern of period `period` (at most 64, random bytes); with `noise`,
 * about one byte in 16 replaced: many short overlapping matches. */
void gen_periodic(uint8_t *p, size_t n, size_t period, int noise);
/* Small little-endian integers, like a kernel's tables. */
void gen_tables(uint8_t *p, size_t n);
/* "Code": p[from..to) made of copies of the 4 KiB before each byte,
 * with edits; reads p below from, so it needs the whole buffer. */
void gen_edited_copies(uint8_t *p, size_t from, size_t to);
/* Something like an executable: stretches of zeros, random data, text,
 * noisy periodic patterns, tables and edited copies. */
void gen_mixed(uint8_t *p, size_t n);
/* gen_mixed with runs (gen_runs) for its periodic patterns. */
void gen_mixed_runs(uint8_t *p, size_t n);
/* Skewed literals: a few very frequent bytes among rare ones, no repeats
 * to speak of (short and long Huffman codes). */
void gen_skewed(uint8_t *p, size_t n);
/* Runs of random lengths 1..300 of a few byte values (bzip2's RLE1). */
void gen_runs(uint8_t *p, size_t n);
/* Short zero runs in noise. */
void gen_zero_spots(uint8_t *p, size_t n);
/* gen_mixed with copies from up to 64 KiB back too. */
void gen_mixed_far(uint8_t *p, size_t n);
/* Zero-heavy, like a kernel's padding and tables: random stretches with
 * zero runs of 4..6000 bytes between them. */
void gen_zero_heavy(uint8_t *p, size_t n);

/* Small inputs (semi, text, abc, random, zero spots), up to 3000 bytes:
 * what the truncation sweeps cut (tests/testlib.h, each_stream). */
extern const struct gen_input small_inputs[];
extern const size_t n_small_inputs;

/* ---- stretches ---- */

/* One kind of stretch: fill makes one on its own; copy (where fill is
 * NULL) fills p[at..at + len) from what came before it. */
struct stretch_kind {
	void (*fill)(uint8_t *p, size_t n);
	void (*copy)(uint8_t *p, size_t at, size_t len);
};

/* How gen_stretches mixes kinds: each stretch is min_len + below(spread)
 * bytes long (cut at the end) and of kind kinds[below(count)].  below is
 * the PRNG (rng_below, or a test's own where its inputs must stay as they
 * are). */
struct stretch_mix {
	size_t (*below)(size_t n);
	size_t min_len, spread;
	unsigned count;
	const struct stretch_kind *kinds;
};

/* p[0..n) as stretches of the kinds of m, one after another. */
void gen_stretches(uint8_t *p, size_t n, const struct stretch_mix *m);

#endif
