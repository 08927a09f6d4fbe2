/* zlib_inflate.h - zlib's verdict on a gzip member, the reference that
 * tests/test_gzip.c and tests/fuzz_gzip.c hold gzip_decode to.  Header
 * only: the fuzzer is built from one source file. */
#ifndef ZLIB_INFLATE_H
#define ZLIB_INFLATE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* 1 if zlib's inflate decodes all of src[0..n) to exactly cap bytes at
 * dst, else 0; aborts if zlib cannot even start. */
static inline int zlib_inflates(const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
	z_stream s;
	int r;

	memset(&s, 0, sizeof(s));
	if (inflateInit2(&s, 15 + 16) != Z_OK)  /* 16: a gzip wrapper */
		abort();
	s.next_in = (Bytef *)src;
	s.avail_in = (uInt)n;
	s.next_out = dst;
	s.avail_out = (uInt)cap;
	r = inflate(&s, Z_FINISH);
	inflateEnd(&s);
	return r == Z_STREAM_END && s.avail_in == 0 && s.total_out == cap;
}

#endif
