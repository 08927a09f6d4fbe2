/* crc32c.c - CRC-32C: the SSE4.2 instruction, or slicing-by-8.  See
 * crc32c.h. */
#include <cpuid.h>

#include "crc32c.h"
#include "mem.h"

static int cpu_has_crc32(void)
{
	unsigned a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2);
}

void crc32c_init(struct crc32c_table *tab, int force_tables)
{
	tab->hw = !force_tables && cpu_has_crc32();
	if (tab->hw)
		return;
	for (uint32_t n = 0; n < 256; n++) {
		uint32_t c = n;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32C_POLY_REFLECTED & (0u - (c & 1)));
		tab->t[0][n] = c;
	}
	/* t[k][n]: the CRC of byte n followed by k zero bytes. */
	for (uint32_t n = 0; n < 256; n++)
		for (int k = 1; k < 8; k++)
			tab->t[k][n] = (tab->t[k - 1][n] >> 8) ^ tab->t[0][tab->t[k - 1][n] & 0xff];
}

/* General-purpose registers only: the crc32 instruction needs no SSE state.
 * Unrolled to a word per instruction with few loop instructions around
 * them (the boot stub's verify is counted in instructions per byte); one
 * dependency chain, since each crc32 needs the one before: 8 bytes per
 * 3-cycle latency on current cores, about 2 ms for a 14 MB payload at
 * 3 GHz, too little for interleaved streams and their combining (carry-
 * less multiplies, which need SSE state) to pay at boot.  No CPU has
 * PCLMULQDQ without SSE4.2, so it would add no path of its own either. */
#ifdef __x86_64__       /* the 8-byte form exists in 64-bit mode only */
typedef uint64_t crc_word; /* crc32q zero-extends: the CRC stays in a 64-bit register */
#define CRC32_WORD(crc, v) __builtin_ia32_crc32di(crc, v)
#else
typedef uint32_t crc_word;
#define CRC32_WORD(crc, v) __builtin_ia32_crc32si(crc, v)
#endif
/* 128 bytes per loop: 16 crc32q, or 32 crc32l in 32-bit mode, and 3
 * instructions of loop. */
#define CRC32_BLOCK 128
#define CRC32_UNROLL (CRC32_BLOCK / sizeof(crc_word))

__attribute__((target("sse4.2")))
static uint32_t crc32c_hw(uint32_t crc32, const uint8_t *p, size_t len)
{
	crc_word crc = crc32;

	for (; len >= CRC32_BLOCK; p += CRC32_BLOCK, len -= CRC32_BLOCK) {
#pragma GCC unroll 32
		for (size_t i = 0; i < CRC32_UNROLL; i++) {
			crc_word v;
			__builtin_memcpy(&v, p + i * sizeof(v), sizeof(v));
			crc = CRC32_WORD(crc, v);
		}
	}
	for (; len >= sizeof(crc_word); p += sizeof(crc_word), len -= sizeof(crc_word)) {
		crc_word v;
		__builtin_memcpy(&v, p, sizeof(v));
		crc = CRC32_WORD(crc, v);
	}
	for (; len; p++, len--)
		crc = __builtin_ia32_crc32qi((uint32_t)crc, *p);
	return (uint32_t)crc;
}

uint32_t crc32c_update(const struct crc32c_table *tab, uint32_t crc,
		       const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (tab->hw)
		return ~crc32c_hw(~crc, p, len);
	const uint32_t (*t)[256] = tab->t;

	crc = ~crc;
	for (; len >= 8; p += 8, len -= 8) {
		uint32_t lo = load_le32(p) ^ crc;
		uint32_t hi = load_le32(p + 4);
		crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^
		      t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
		      t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		      t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
	}
	for (; len; p++, len--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p) & 0xff];
	return ~crc;
}
