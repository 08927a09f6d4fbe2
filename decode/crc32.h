/* crc32.h - the CRC-32 of gzip (RFC 1952 section 8) and xz (xz file
 * format section 6): the ISO 3309 / IEEE 802.3 polynomial, bit-reflected.
 * One source for both decoders, in the stub and on the host.
 *
 * Slicing-by-8 (Intel's technique, Kounavis and Berry, 2005): t[0] is the
 * classic byte-at-a-time table; t[k][b] is the CRC of byte b followed by
 * k zero bytes, so eight input bytes fold with eight independent lookups.
 * The tables are built at run time into caller memory, the decoder's
 * workspace: the stub has no .data or .bss to keep them in. */
#ifndef CRC32_H
#define CRC32_H

#include <cpuid.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "mem.h"

#define CRC32_POLY 0xedb88320u          /* x^32 + x^26 + ... + 1, reflected */

/* Fills the eight tables (8 KiB). */
static inline void crc32_init(uint32_t t[8][256])
{
	for (unsigned b = 0; b < 256; b++) {
		uint32_t c = b;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32_POLY & (0u - (c & 1)));
		t[0][b] = c;
	}
	for (unsigned b = 0; b < 256; b++)
		for (int k = 1; k < 8; k++)
			t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
}

/* Folds the 8 bytes at p into the CRC register c.  Always inlined: gzip's
 * lanes keep three registers going through it at once. */
static ALWAYS_INLINE uint32_t crc32_fold8(const uint32_t t[8][256], uint32_t c, const uint8_t *p)
{
	const uint32_t a = load_le32(p) ^ c, b = load_le32(p + 4);

	return t[7][a & 0xff] ^ t[6][(a >> 8) & 0xff] ^ t[5][(a >> 16) & 0xff] ^ t[4][a >> 24] ^
	       t[3][b & 0xff] ^ t[2][(b >> 8) & 0xff] ^ t[1][(b >> 16) & 0xff] ^ t[0][b >> 24];
}

/* Runs the CRC register c over n bytes at p.  The pre- and
 * post-inversion are the caller's (start from ~0u, finish with ~), so
 * calls chain.  Static, not inline: gzip calls it from two places, and
 * the compiler then keeps one copy (declared inline, it copied it into
 * both and grew the 32-bit stub by 212 bytes).  Every
 * includer calls it, so it is never unused. */
static uint32_t crc32_update(const uint32_t t[8][256], uint32_t c, const uint8_t *p, size_t n)
{
	for (; n >= 8; p += 8, n -= 8)
		c = crc32_fold8(t, c, p);
	for (; n; n--)
		c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
	return c;
}

/* ---- Carry-less multiplication (PCLMULQDQ) --------------------------------
 * Folding, after Intel's "Fast CRC Computation for Generic Polynomials
 * Using PCLMULQDQ Instruction" (Gopal, Ozturk, Guilford, Wolrich, Feghali,
 * Dixon, Karakoyunlu, 2009).  Four 16-byte registers x0..x3 run over the
 * input 64 bytes at a time; the polynomial a register stands for, moved on
 * by the 64 bytes that follow it, is congruent (mod P) to the sum of two
 * 64 x 32-bit carry-less products, which is xored into the next 16 bytes.
 *
 * Why two products: 16 input bytes at the register's little-endian bit
 * positions 0..127 stand for the polynomial sum b_i x^(127-i) (the
 * reflected order: the first byte's bit 0 is the highest power).  With L
 * the low and H the high quadword, V = L(x) x^64 + H(x), and V moved on by
 * D bits is V x^D = L(x) x^(64+D) + H(x) x^D.  PCLMULQDQ of two reflected
 * quadwords is the reflected product one bit short (bit k is the
 * coefficient of x^(126-k)), so a constant c at bits 1..32 (a reflected
 * 32-bit value shifted left once) times L stands for L(x) c(x) x^32 in
 * the 128-bit register; for that to be L(x) x^(64+D) mod P, c must be
 * x^(D+32) mod P; for H, x^(D-32) mod P.  The four constants are these
 * for D = 512 (the loop's 64 bytes) and D = 128 (one register into the
 * next); tests/test_crc32.c computes them from P and checks them against
 * these.  The paper's Barrett reduction of the last register is left out:
 * that register is 16 bytes congruent to everything folded so far, and the
 * table loop runs the CRC over them, then over the tail.
 *
 * The functions carry the target attribute, so the stub's -m64
 * -mgeneral-regs-only build may contain them; they run only where
 * crc32_have_clmul() said so (the stub's entries enable SSE).  Hosted
 * builds run exactly this too: make bench-native measures the stub's code. */
#define CRC32_K_544 0x154442bd4ull      /* x^(512+32) mod P, reflected, << 1 */
#define CRC32_K_480 0x1c6e41596ull      /* x^(512-32) */
#define CRC32_K_160 0x1751997d0ull      /* x^(128+32) */
#define CRC32_K_96  0x0ccaa009eull      /* x^(128-32) */

#define CRC32_CLMUL __attribute__((target("pclmul")))

typedef long long crc32_v2 __attribute__((vector_size(16)));

/* What crc32_update_clmul() may use: */
#define CRC32_TABLES_ONLY 0     /* nothing: the tables */
#define CRC32_PCLMUL      1     /* PCLMULQDQ (CPUID 1, ECX bit 1) */

/* The best of the above this CPU has. */
static MAYBE_UNUSED int crc32_have_clmul(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_PCLMUL))
		return CRC32_TABLES_ONLY;
	return CRC32_PCLMUL;
}

static CRC32_CLMUL ALWAYS_INLINE crc32_v2 crc32_load16(const uint8_t *p)
{
	crc32_v2 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

/* x moved on by the distance k's constants are for, xored into next. */
static CRC32_CLMUL ALWAYS_INLINE crc32_v2 crc32_fold16(crc32_v2 x, crc32_v2 k, crc32_v2 next)
{
	return __builtin_ia32_pclmulqdq128(x, k, 0x00) ^ __builtin_ia32_pclmulqdq128(x, k, 0x11) ^ next;
}

/* crc32_update() with the folding above for runs of 64 bytes and more;
 * the tables do the last register and the tail.  Same register in and
 * out as crc32_update(); only where crc32_have_clmul() said so. */
static MAYBE_UNUSED CRC32_CLMUL uint32_t crc32_update_clmul(const uint32_t t[8][256], uint32_t c, const uint8_t *p,
							   size_t n)
{
	const crc32_v2 k512 = { (long long)CRC32_K_544, (long long)CRC32_K_480 };
	const crc32_v2 k128 = { (long long)CRC32_K_160, (long long)CRC32_K_96 };
	const crc32_v2 c0 = { (long long)c, 0 };
	crc32_v2 x0, x1, x2, x3;
	uint8_t last[16];

	if (n < 64)
		return crc32_update(t, c, p, n);
	/* The register's bytes come first: they are xored into the first four. */
	x0 = crc32_load16(p) ^ c0;
	x1 = crc32_load16(p + 16);
	x2 = crc32_load16(p + 32);
	x3 = crc32_load16(p + 48);
	for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
		x0 = crc32_fold16(x0, k512, crc32_load16(p));
		x1 = crc32_fold16(x1, k512, crc32_load16(p + 16));
		x2 = crc32_fold16(x2, k512, crc32_load16(p + 32));
		x3 = crc32_fold16(x3, k512, crc32_load16(p + 48));
	}
	x3 = crc32_fold16(crc32_fold16(crc32_fold16(x0, k128, x1), k128, x2), k128, x3);
	for (; n >= 16; p += 16, n -= 16)
		x3 = crc32_fold16(x3, k128, crc32_load16(p));
	__builtin_memcpy(last, &x3, sizeof(last));
	return crc32_update(t, crc32_update(t, 0, last, sizeof(last)), p, n);
}

/* ---- Combining CRCs ------------------------------------------------------
 * The CRC register is linear: crc(s, A B) = crc(s, A) * x^(8 |B|) mod P
 * xor crc(0, B), the product in the bit-reflected representation (bit 31
 * is x^0).  So independent runs over pieces of a buffer join into the CRC
 * of the whole; zlib's "braided" CRC and crc32_combine rest on the same
 * algebra.  Not every includer combines: MAYBE_UNUSED. */

#define CRC32_X0 0x80000000u    /* the polynomial 1, bit-reflected */

/* a * b mod P, bit-reflected. */
static MAYBE_UNUSED uint32_t crc32_mulmod(uint32_t a, uint32_t b)
{
	uint32_t p = 0;

	for (int i = 0; i < 32; i++) {
		p ^= b & (0u - ((a >> (31 - i)) & 1));          /* a's x^i term */
		b = (b >> 1) ^ (CRC32_POLY & (0u - (b & 1)));   /* b *= x */
	}
	return p;
}

/* x^(8 * n) mod P: the register of x^0 run over n zero bytes.  What
 * crc32_mulmod() multiplies a CRC by to move it n bytes on. */
static MAYBE_UNUSED uint32_t crc32_zeros_shift(const uint32_t t[8][256], size_t n)
{
	uint32_t v = CRC32_X0;

	for (size_t i = 0; i < n; i++)
		v = (v >> 8) ^ t[0][v & 0xff];
	return v;
}

#endif
