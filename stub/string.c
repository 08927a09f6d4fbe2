/* string.c - the out-of-line mem* functions of the stub.  Constant-size
 * calls never get here (the stub is built -fbuiltin, so the compiler
 * inlines them); large copies do: the payload move, the "none" codec, the
 * bss clear.  Built -fno-tree-loop-distribute-patterns so that these loops
 * do not turn back into calls to themselves. */
#include "mem.h"
#include "stub.h"

typedef uintptr_t word;
#define WORD sizeof(word)
#define BLOCK (4 * WORD)

void *memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	for (; n >= BLOCK; d += BLOCK, s += BLOCK, n -= BLOCK) {
		word w[4];
		__builtin_memcpy(w, s, BLOCK);
		__builtin_memcpy(d, w, BLOCK);
	}
	for (; n; n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);     /* forward copy is safe */
	/* dst overlaps the tail of src: copy backwards */
	d += n;
	s += n;
	for (; n >= BLOCK; n -= BLOCK) {
		word w[4];
		d -= BLOCK;
		s -= BLOCK;
		__builtin_memcpy(w, s, BLOCK);
		__builtin_memcpy(d, w, BLOCK);
	}
	while (n--)
		*--d = *--s;
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;
	word pattern = (uint8_t)c * (~(word)0 / 0xff);

	for (; n >= WORD; d += WORD, n -= WORD)
		__builtin_memcpy(d, &pattern, WORD);
	for (; n; n--)
		*d++ = (uint8_t)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const uint8_t *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}
