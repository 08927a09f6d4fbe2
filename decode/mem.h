/* mem.h - memory primitives for code shared by the stub and the host:
 * memcpy/memset/memmove, and the little-endian loads every decoder uses.
 *
 * The stub is built -ffreestanding -fbuiltin: constant-size calls inline;
 * the rest go to stub/string.c.  Hosted builds use the C library.
 *
 * Byte order, one rule: a 32- or 64-bit field is loaded with a memcpy of
 * its width into a native integer (no alignment or aliasing assumption;
 * one load instruction on x86), then byte-swapped if the host is
 * big-endian.  Narrower fields (16, 24 bits) are assembled from bytes.
 * __builtin_memcpy: inline even where memcpy is not a builtin (the test
 * kernels' -ffreestanding build of crc32c.c). */
#ifndef MEM_H
#define MEM_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"

#if __STDC_HOSTED__
#include <string.h>
#else
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#endif

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define MEM_LE32(x) __builtin_bswap32(x)
#define MEM_LE64(x) __builtin_bswap64(x)
#else
#define MEM_LE32(x) (x)
#define MEM_LE64(x) (x)
#endif

static ALWAYS_INLINE uint32_t load_le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static ALWAYS_INLINE uint32_t load_le24(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static ALWAYS_INLINE uint32_t load_le32(const uint8_t *p)
{
	uint32_t v;

	__builtin_memcpy(&v, p, 4);
	return MEM_LE32(v);
}

static ALWAYS_INLINE uint64_t load_le64(const uint8_t *p)
{
	uint64_t v;

	__builtin_memcpy(&v, p, 8);
	return MEM_LE64(v);
}

/* A size_t-wide load: the bit buffers' refill word (4 bytes in the 32-bit
 * stub, 8 in the 64-bit one). */
static ALWAYS_INLINE size_t load_le_word(const uint8_t *p)
{
	return sizeof(size_t) == 8 ? (size_t)load_le64(p) : (size_t)load_le32(p);
}

#endif
