/* libzstd.c - Zstandard frames through libzstd: levels 1, 3 and 19, with
 * the content size in the frame header and no checksum (as
 * ZSTD_compress writes them). */
#include <zstd.h>

#include "reference.h"

const char *ref_zstd_compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
	static const int level[] = { 1, 3, 19 };
	size_t bound = ZSTD_compressBound(n);

	if (variant >= sizeof level / sizeof level[0])
		return ref_why("no zstd variant %u", variant);
	*out = ref_alloc(bound);
	*out_len = ZSTD_compress(*out, bound, in, n, level[variant]);
	return ZSTD_isError(*out_len) ? ZSTD_getErrorName(*out_len) : NULL;
}

const char *ref_zstd_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	size_t r = ZSTD_decompress(dst, dst_len, src, src_len);

	if (ZSTD_isError(r))
		return ZSTD_getErrorName(r);
	return r == dst_len ? NULL : ref_why("ZSTD_decompress produced %zu bytes", r);
}
