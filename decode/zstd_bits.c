/* zstd_bits.c - the out-of-line parts of the zstd decoder's backward
 * bitstream reader (zstd_internal.h has the inline ones), and its header
 * fields' little-endian reader: one copy for every layer that reads. */
#include "zstd_internal.h"

const uint32_t zstd_br_mask[BR_MAX_READ + 1] = {
	0x0, 0x1, 0x3, 0x7, 0xF, 0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF,
	0xFFF, 0x1FFF, 0x3FFF, 0x7FFF, 0xFFFF, 0x1FFFF, 0x3FFFF, 0x7FFFF,
	0xFFFFF, 0x1FFFFF, 0x3FFFFF, 0x7FFFFF, 0xFFFFFF, 0x1FFFFFF, 0x3FFFFFF,
	0x7FFFFFF, 0xFFFFFFF, 0x1FFFFFFF, 0x3FFFFFFF, 0x7FFFFFFF,
};

/* Sets up a read of the stream [p, p + n).  Returns 0 for a stream that
 * cannot be valid: empty, or its last byte (which holds the end mark) 0.
 * Once per stream: out of line. */
int zstd_br_init(struct bitrd *b, const uint8_t *p, size_t n, uint8_t pad[BR_WORD])
{
	unsigned last;

	if (n == 0)
		return 0;
	last = p[n - 1];
	if (last == 0)
		return 0;
	if (n >= BR_WORD) {
		b->lim = p + BR_WORD;
		b->ptr = p + n - BR_WORD;
		b->consumed = 8 - highbit32(last);
	} else {
		unsigned i;

		for (i = 0; i < BR_WORD; i++)
			pad[i] = i < n ? p[i] : 0;
		b->ptr = pad;
		b->lim = pad + BR_WORD;
		b->consumed = 8 * (unsigned)(BR_WORD - n) + 8 - highbit32(last);
	}
	b->bits = load_word(b->ptr);
	return 1;
}

/* A little-endian field of n <= 8 bytes (headers: out of line, once). */
uint64_t zstd_get_le_n(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}
