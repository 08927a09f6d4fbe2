/* memcpy.c - the reference of the stored codec "none": the stream is the
 * data itself. */
#include <string.h>

#include "reference.h"

const char *ref_copy_compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
	(void)variant;
	*out = ref_alloc(n);
	if (n)
		memcpy(*out, in, n);
	*out_len = n;
	return NULL;
}

const char *ref_copy_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	if (src_len != dst_len)
		return ref_why("%zu bytes stored, %zu wanted", src_len, dst_len);
	if (dst_len)
		memcpy(dst, src, dst_len);
	return NULL;
}
