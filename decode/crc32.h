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
