/* libdeflate.c - gzip members through libdeflate: levels 1, 6 and 12. */
#include <libdeflate.h>

#include "reference.h"

const char *ref_libdeflate_compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out,
				    size_t *out_len)
{
	static const int level[] = { 1, 6, 12 };
	struct libdeflate_compressor *c;
	size_t bound;

	if (variant >= sizeof level / sizeof level[0])
		return ref_why("no libdeflate variant %u", variant);
	c = libdeflate_alloc_compressor(level[variant]);
	if (!c)
		return "libdeflate_alloc_compressor failed";
	bound = libdeflate_gzip_compress_bound(c, n);
	*out = ref_alloc(bound);
	*out_len = libdeflate_gzip_compress(c, in, n, *out, bound);
	libdeflate_free_compressor(c);
	return *out_len ? NULL : "libdeflate_gzip_compress failed";
}

const char *ref_libdeflate_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	/* One decompressor for the whole run, as libdeflate intends. */
	static struct libdeflate_decompressor *d;
	enum libdeflate_result r;
	size_t in = 0, n = 0;

	if (!d && !(d = libdeflate_alloc_decompressor()))
		return "libdeflate_alloc_decompressor failed";
	r = libdeflate_gzip_decompress_ex(d, src, src_len, dst, dst_len, &in, &n);
	if (r != LIBDEFLATE_SUCCESS)
		return ref_why("libdeflate_gzip_decompress returned %d", (int)r);
	if (in != src_len || n != dst_len)
		return ref_why("libdeflate_gzip_decompress read %zu of %zu bytes, produced %zu", in, src_len, n);
	return NULL;
}
