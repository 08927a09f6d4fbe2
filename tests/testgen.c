/* testgen.c - deterministic test inputs (tests/testgen.h). */
#include "testgen.h"

#include <string.h>

#include "testlib.h"

void gen_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(rng() >> 56);
}

void gen_abc(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)('a' + i % 3);
}

void gen_zeros(uint8_t *p, size_t n)
{
	memset(p, 0, n);
}

void gen_semi(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (i >= 7 && rng_below(5) != 0) ? p[i - 7 + rng_below(3)] : (uint8_t)rng();
}

void gen_text(uint8_t *p, size_t n)
{
	static const char *const words[] = {
		"the", "kernel", "boot", "stub", "decompress", "memory", "page", "of",
		"and", "to", "in", "is", "a", "that", "for", "interrupt", "table",
		"descriptor", "segment", "long", "mode", "paging", "entry", "x86",
		"return", "static", "struct", "int", "void", "if", "else", "while",
	};
	size_t i = 0;

	while (i < n) {
		const char *w = words[rng_below(sizeof words / sizeof words[0])];
		size_t len = strlen(w);

		for (size_t k = 0; k < len && i < n; k++)
			p[i++] = (uint8_t)w[k];
		if (i < n)
			p[i++] = rng_below(12) == 0 ? '\n' : (rng_below(9) == 0 ? ',' : ' ');
	}
}

void gen_periodic(uint8_t *p, size_t n, size_t period, int noise)
{
	uint8_t pat[64];

	gen_random(pat, period);
	for (size_t i = 0; i < n; i++)
		p[i] = (noise && rng_below(16) == 0) ? (uint8_t)rng() : pat[i % period];
}

void gen_tables(uint8_t *p, size_t n)
{
	for (size_t k = 0; k < n; k++)
		p[k] = (k & 3) == 0 ? (uint8_t)rng_below(40) : (k & 3) == 1 ? (uint8_t)rng_below(2) : 0;
}

void gen_edited_copies(uint8_t *p, size_t from, size_t to)
{
	for (size_t j = from; j < to; j++)
		p[j] = (j > 4096 && rng_below(8) != 0) ? p[j - 1 - rng_below(4096)] ^ (uint8_t)(rng_below(4) == 0)
						       : (uint8_t)rng_below(256);
}

/* ---- stretches ---- */

void gen_stretches(uint8_t *p, size_t n, const struct stretch_mix *m)
{
	size_t i = 0;

	while (i < n) {
		size_t len = m->min_len + m->below(m->spread);
		const struct stretch_kind *k;

		if (len > n - i)
			len = n - i;
		k = &m->kinds[m->below(m->count)];
		if (k->fill)
			k->fill(p + i, len);
		else
			k->copy(p, i, len);
		i += len;
	}
}

/* gen_periodic with a random period of 1..20, noisy. */
static void gen_noisy_periodic(uint8_t *p, size_t n)
{
	gen_periodic(p, n, 1 + rng_below(20), 1);
}

static void copy_edited(uint8_t *p, size_t at, size_t len)
{
	gen_edited_copies(p, at, at + len);
}

/* A copy from 16 KiB to 48 KiB back (LZO's M4 distances), once there is
 * that much behind; edited near copies before. */
static void copy_far(uint8_t *p, size_t at, size_t len)
{
	if (at <= 65536) {
		copy_edited(p, at, len);
		return;
	}
	size_t from = at - 16385 - rng_below(49151 - 16385);

	for (size_t k = 0; k < len; k++)
		p[at + k] = p[from + k];
}

/* Stretches of 64..16447 bytes: zeros, random data, text, `pattern`,
 * tables and edited copies, with `far` copies from far back too. */
static void gen_mixed_of(uint8_t *p, size_t n, void (*pattern)(uint8_t *, size_t), int far)
{
	const struct stretch_kind kinds[] = {
		{ gen_zeros, NULL }, { gen_random, NULL }, { gen_text, NULL }, { pattern, NULL },
		{ gen_tables, NULL }, { NULL, far ? copy_far : copy_edited }, { NULL, copy_edited },
	};
	const struct stretch_mix m = { rng_below, 64, 16384, far ? 7 : 6, kinds };

	gen_stretches(p, n, &m);
}

void gen_mixed(uint8_t *p, size_t n)
{
	gen_mixed_of(p, n, gen_noisy_periodic, 0);
}

void gen_mixed_runs(uint8_t *p, size_t n)
{
	gen_mixed_of(p, n, gen_runs, 0);
}

void gen_mixed_far(uint8_t *p, size_t n)
{
	gen_mixed_of(p, n, gen_noisy_periodic, 1);
}

/* Skewed literals: a few very frequent bytes (1-3 bit codes) among rare
 * ones (15-bit codes, subtables), no repeats to speak of. */
void gen_skewed(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = rng();
		unsigned z = (unsigned)__builtin_ctzll(r | (1ull << 40));

		p[i] = (uint8_t)(z < 14 ? z : 14 + (r >> 56) % 242);
	}
}

/* Runs of random lengths 1..300 of a few byte values: every RLE1 case
 * (runs of 1..3, exactly 4, 4 + count, more than 259 split in two). */
void gen_runs(uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t len = 1 + (rng_below(4) ? rng_below(8) : rng_below(300));
		uint8_t c = (uint8_t)("\0\0AB\xff"[rng_below(5)]);

		while (len-- && i < n)
			p[i++] = c;
	}
}

/* Short zero runs in noise: zero runs and literals around them. */
void gen_zero_spots(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = rng_below(3) == 0 ? (uint8_t)rng() : (i % 23 < 9 ? 0 : (uint8_t)(i * 7));
}

/* Zero-heavy, like a kernel image's padding and tables: random stretches
 * with zero runs of 4..6000 bytes between them. */
void gen_zero_heavy(uint8_t *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t z = 4 + rng_below(rng_below(4) == 0 ? 6000 : 300), d = 1 + rng_below(64);

		for (size_t k = 0; k < z && i < n; k++)
			p[i++] = 0;
		for (size_t k = 0; k < d && i < n; k++)
			p[i++] = (uint8_t)(1 + rng_below(255));
	}
}

const struct gen_input small_inputs[] = {
	{ "semi-40", 40, gen_semi },
	{ "semi-200", 200, gen_semi },
	{ "text-300", 300, gen_text },
	{ "abc-100", 100, gen_abc },
	{ "random-50", 50, gen_random },
	{ "zero-spots-500", 500, gen_zero_spots },
	{ "semi-3000", 3000, gen_semi },
};
const size_t n_small_inputs = sizeof small_inputs / sizeof small_inputs[0];
