/* mem.h - memcpy/memset/memmove for code shared by the stub and the host.
 * The stub is built -ffreestanding -fbuiltin: constant-size calls inline;
 * the rest go to stub/string.c.  Hosted builds use the C library. */
#ifndef MEM_H
#define MEM_H

#include <stddef.h>

#if __STDC_HOSTED__
#include <string.h>
#else
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#endif

#endif
