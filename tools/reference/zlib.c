/* zlib.c - gzip members through zlib (windowBits 15 + 16: the gzip
 * wrapper, whose CRC-32 inflate checks as ours does): levels 1, 6 and 9,
 * and the Huffman-only and RLE strategies at 9. */
#include <string.h>

#define ZLIB_CONST
#include <zlib.h>

#include "reference.h"

const char *ref_zlib_compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
	static const int level[] = { 9, 9, 1, 6, 9 };
	static const int strategy[] = { Z_HUFFMAN_ONLY, Z_RLE, Z_DEFAULT_STRATEGY, Z_DEFAULT_STRATEGY,
					Z_DEFAULT_STRATEGY };
	z_stream z;
	int r;

	if (variant >= sizeof level / sizeof level[0])
		return ref_why("no zlib variant %u", variant);
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, level[variant], Z_DEFLATED, 15 + 16, 8, strategy[variant]) != Z_OK)
		return "deflateInit2 failed";
	*out_len = deflateBound(&z, (uLong)n);
	*out = ref_alloc(*out_len);
	z.next_in = in;
	z.avail_in = (uInt)n;
	z.next_out = *out;
	z.avail_out = (uInt)*out_len;
	r = deflate(&z, Z_FINISH);
	*out_len = z.total_out;
	deflateEnd(&z);
	return r == Z_STREAM_END ? NULL : ref_why("deflate returned %d", r);
}

const char *ref_zlib_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	uint8_t spare;
	z_stream z;
	int r;

	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return "inflateInit2 failed";
	z.next_in = src;
	z.avail_in = (uInt)src_len;
	z.next_out = dst_len ? dst : &spare;
	z.avail_out = (uInt)dst_len;
	r = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (r != Z_STREAM_END)
		return ref_why("inflate returned %d", r);
	if (z.avail_in != 0 || z.total_out != dst_len)
		return ref_why("inflate left %u input bytes, produced %lu", z.avail_in, z.total_out);
	return NULL;
}
