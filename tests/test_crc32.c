/* test_crc32.c - decode/crc32.h, the CRC-32 of gzip and xz: the check
 * value, the table path and the PCLMULQDQ folding path against a
 * reference library's crc32() on random data of every alignment and many
 * lengths,
 * chained updates, the combiner, and the folding constants recomputed
 * from the polynomial.  The reference is zlib's crc32(); -m32
 * has no installable i386 zlib (ci/deps.sh), so there it is libdeflate's
 * libdeflate_crc32(), the same function of the same polynomial.
 *
 * On a CPU without PCLMULQDQ the folding path cannot run: its checks are
 * reported as "skip: NAME: why" (ci/tests/test-host.sh counts them), not
 * left out in silence. */
#include <stdio.h>
#include <stdlib.h>

#include "crc32.h"

#ifdef REFERENCE_I386
#include <libdeflate.h>
#define REF_NAME "libdeflate_crc32"
static uint32_t ref_crc32(const uint8_t *p, size_t n) { return libdeflate_crc32(0, p, n); }
#else
#include <zlib.h>
#define REF_NAME "zlib crc32"
static uint32_t ref_crc32(const uint8_t *p, size_t n) { return (uint32_t)crc32(0, p, (uInt)n); }
#endif

#define CHECK_VALUE 0xcbf43926u /* CRC-32 of "123456789" */
#define BUF_BYTES   8192
#define MAX_OFFSET  64

static unsigned passed, failed, skipped;
static uint32_t t[8][256];

static void expect(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	ok ? passed++ : failed++;
}

typedef uint32_t crc_fn(const uint32_t t[8][256], uint32_t c, const uint8_t *p, size_t n);

/* The whole CRC (pre- and post-inverted) of n bytes at p. */
static uint32_t whole(crc_fn *f, const uint8_t *p, size_t n)
{
	return ~f(t, ~0u, p, n);
}

/* x^n mod P, P = the gzip polynomial with its x^32 term, one bit at a
 * time in the plain (unreflected) order: bit i is x^i. */
static uint64_t xpow_mod(unsigned n)
{
	const uint64_t p = 0x104c11db7ull;
	uint64_t r = 1;

	while (n--) {
		r <<= 1;
		if (r >> 32)
			r ^= p;
	}
	return r;
}

/* The 32-bit value v reflected (bit i to bit 31 - i). */
static uint32_t reflect32(uint32_t v)
{
	uint32_t r = 0;

	for (int i = 0; i < 32; i++)
		r |= ((v >> i) & 1) << (31 - i);
	return r;
}

/* A folding constant as crc32.h derives it: x^n mod P, reflected, << 1. */
static uint64_t fold_constant(unsigned n)
{
	return (uint64_t)reflect32((uint32_t)xpow_mod(n)) << 1;
}

/* Every offset below MAX_OFFSET and many lengths up to BUF_BYTES, plus
 * every length up to 300 (the 64- and 16-byte steps and the tail). */
static int same_as_reference(crc_fn *f, const uint8_t *buf, unsigned *count)
{
	int same = 1;

	for (size_t off = 0; off < MAX_OFFSET; off++)
		for (size_t len = 0; len + off <= BUF_BYTES; len += len < 300 ? 1 : 1 + len / 16) {
			same &= whole(f, buf + off, len) == ref_crc32(buf + off, len);
			++*count;
		}
	return same;
}

static void check_path(const char *name, crc_fn *f, const uint8_t *buf)
{
	char what[160];
	unsigned count = 0;
	int ok;

	snprintf(what, sizeof(what), "%s: check value", name);
	expect(whole(f, (const uint8_t *)"123456789", 9) == CHECK_VALUE, what);
	ok = same_as_reference(f, buf, &count);
	snprintf(what, sizeof(what), "%s equals %s on %u (offset, length) pairs", name, REF_NAME, count);
	expect(ok, what);
	/* Chained: split points that fall inside and between the 64-byte steps. */
	ok = 1;
	for (size_t cut = 0; cut <= 4096; cut += 37)
		ok &= ~f(t, f(t, ~0u, buf, cut), buf + cut, 4096 - cut) == ref_crc32(buf, 4096);
	snprintf(what, sizeof(what), "%s: chained updates equal one update", name);
	expect(ok, what);
	snprintf(what, sizeof(what), "%s: empty input", name);
	expect(whole(f, buf, 0) == 0, what);
}

int main(void)
{
	static uint8_t buf[BUF_BYTES];
	uint32_t x = 2463534242u;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
	crc32_init(t);

	expect(CRC32_K_544 == fold_constant(512 + 32) && CRC32_K_480 == fold_constant(512 - 32) &&
	       CRC32_K_160 == fold_constant(128 + 32) && CRC32_K_96 == fold_constant(128 - 32),
	       "folding constants are x^(D +- 32) mod P, reflected, << 1");

	check_path("tables", crc32_update, buf);
	if (crc32_have_clmul() < CRC32_PCLMUL) {
		printf("skip: pclmulqdq: this CPU has no PCLMULQDQ; the folding path (check value, "
		       "against " REF_NAME ", chained updates) cannot run\n");
		skipped++;
	} else {
		check_path("pclmulqdq", crc32_update_clmul, buf);
	}

	/* The combiner: crc(A B) from crc(A), crc(0, B) and |B|. */
	int ok = 1;
	for (size_t a = 0; a <= 3000; a += 250) {
		const size_t b = 4000 - a;
		const uint32_t ca = crc32_update(t, ~0u, buf, a), cb = crc32_update(t, 0, buf + a, b);

		ok &= ~(crc32_mulmod(ca, crc32_zeros_shift(t, b)) ^ cb) == ref_crc32(buf, 4000);
	}
	expect(ok, "combined CRCs equal the CRC of the whole");

	printf("test_crc32: %u passed, %u failed, %u skipped\n", passed, failed, skipped);
	return failed != 0;
}
