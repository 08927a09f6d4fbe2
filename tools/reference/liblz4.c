/* liblz4.c - LZ4 blocks (no frame), as bzpack ships them: liblz4's fast
 * compressor and its HC one at the highest level; its bounds-checked
 * decoder. */
#include <lz4.h>
#include <lz4hc.h>

#include "reference.h"

const char *ref_lz4_compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
	int bound, r;

	if (n > LZ4_MAX_INPUT_SIZE)
		return ref_why("%zu bytes: too large for one LZ4 block", n);
	bound = LZ4_compressBound((int)n);
	*out = ref_alloc((size_t)bound);
	if (variant == 0)
		r = LZ4_compress_default((const char *)in, (char *)*out, (int)n, bound);
	else
		r = LZ4_compress_HC((const char *)in, (char *)*out, (int)n, bound, LZ4HC_CLEVEL_MAX);
	if (r <= 0)
		return ref_why("liblz4 failed to compress %zu bytes", n);
	*out_len = (size_t)r;
	return NULL;
}

const char *ref_lz4_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);

	return r == (int)dst_len ? NULL : ref_why("LZ4_decompress_safe returned %d", r);
}
