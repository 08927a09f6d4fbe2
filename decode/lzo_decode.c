/* lzo_decode.c - LZO1X decoder, bitstream version 0 (what liblzo2's
 * lzo1x_* compressors and Linux's "lzo" write), for the boot stub and the
 * host tools.  The core, shared with lzo_rle_decode.c, and the format notes
 * are in lzo1x_core.h. */
#include "lzo1x_core.h"

enum decode_status lzo_decode(const uint8_t *src, size_t src_len,
			      uint8_t *dst, size_t dst_len, void *workspace)
{
	(void)workspace;        /* LZO needs none: its window is the output */

	/* Keeps NULL + 0 out of the pointer arithmetic. */
	if (src_len == 0)
		return DECODE_TRUNCATED;
	/* A version header: not a version-0 stream (see lzo1x_core.h). */
	if (src_len >= VERSION_MIN_LEN && src[0] == VERSION_MARKER)
		return DECODE_CORRUPT;
	return lzo_start(src, src + src_len, dst, dst_len, 0);
}
