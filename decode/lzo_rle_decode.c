/* lzo_rle_decode.c - LZO-RLE decoder, LZO1X bitstream version 1 (the
 * 17, 1 header and zero runs; Linux's "lzo-rle"), for the boot stub and the
 * host tools.  The core, shared with lzo_decode.c, and the format notes are
 * in lzo1x_core.h. */
#include "lzo1x_core.h"

enum decode_status lzo_rle_decode(const uint8_t *src, size_t src_len,
				  uint8_t *dst, size_t dst_len, void *workspace)
{
	(void)workspace;

	/* Guards the header read: a version-1 stream starts 17, 1 and has
	 * at least 5 bytes (header and end marker). */
	if (src_len < VERSION_MIN_LEN)
		return src_len == 0 || src[0] == VERSION_MARKER ? DECODE_TRUNCATED : DECODE_CORRUPT;
	if (src[0] != VERSION_MARKER || src[1] != VERSION_RLE)
		return DECODE_CORRUPT;
	return lzo_start(src + VERSION_HDR_LEN, src + src_len, dst, dst_len, 1);
}
