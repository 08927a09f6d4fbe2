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

/* Little-endian 32-bit load, in bytes: no alignment or aliasing
 * assumptions, and compilers turn it into one load on x86. */
static inline uint32_t crc32_load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Folds the 8 bytes at p into the CRC register c.  Always inlined: gzip's
 * lanes keep three registers going through it at once. */
static inline __attribute__((always_inline)) uint32_t crc32_fold8(const uint32_t t[8][256],
								  uint32_t c, const uint8_t *p)
{
	const uint32_t a = crc32_load_le32(p) ^ c, b = crc32_load_le32(p + 4);

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

#endif
