/* crc32c.c - CRC-32C, slicing-by-8.  See crc32c.h. */
#include "crc32c.h"

void crc32c_init(struct crc32c_table *tab)
{
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

static inline uint32_t load_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t crc32c_update(const struct crc32c_table *tab, uint32_t crc,
		       const void *buf, size_t len)
{
	const uint8_t *p = buf;
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
