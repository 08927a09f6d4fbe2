/* liblzo2.c - LZO1X streams: liblzo2's LZO1X-1 and LZO1X-999 compressors,
 * its bounds-checked decoder. */
#include <stdlib.h>

#include <lzo/lzo1x.h>

#include "reference.h"

const char *ref_lzo1x_compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
	lzo_uint got = 0;
	void *work = ref_alloc(variant == 0 ? LZO1X_1_MEM_COMPRESS : LZO1X_999_MEM_COMPRESS);
	int r;

	*out = ref_alloc(n + n / 16 + 64 + 3);      /* LZO1X's worst case */
	r = variant == 0 ? lzo1x_1_compress(in, n, *out, &got, work) : lzo1x_999_compress(in, n, *out, &got, work);
	free(work);
	if (r != LZO_E_OK)
		return ref_why("liblzo2 failed to compress %zu bytes (%d)", n, r);
	*out_len = got;
	return NULL;
}

const char *ref_lzo1x_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	lzo_uint n = dst_len;
	int r = lzo1x_decompress_safe(src, src_len, dst, &n, NULL);

	if (r != LZO_E_OK)
		return ref_why("lzo1x_decompress_safe returned %d", r);
	return n == dst_len ? NULL : ref_why("lzo1x_decompress_safe produced %lu bytes", (unsigned long)n);
}
