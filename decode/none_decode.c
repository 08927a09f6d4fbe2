/* none_decode.c - the stored payload: the baseline every codec is measured
 * against, so it is exactly one copy: a memmove, because decompressing in
 * place puts the payload over the output, a little ahead of it.  Shared by
 * the stub and the host. */
#include "decode.h"
#include "mem.h"

enum decode_status none_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
			       void *workspace)
{
	(void)workspace;        /* none declared in codecs.def */
	if (src_len != dst_len)
		return src_len < dst_len ? DECODE_SHORT_OUTPUT : DECODE_OUTPUT_OVERRUN;
	memmove(dst, src, dst_len);
	return DECODE_OK;
}
