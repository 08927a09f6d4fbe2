/* compress_lzo_rle.c - an LZO-RLE stream (LZO1X bitstream version 1) from
 * bzpack's own optimal-parsing compressor (compress_lzo_rle_opt.c): no library writes
 * LZO-RLE, and Linux's compressor for it is a fast single-probe one.  The
 * stub decodes it with decode/lzo_decode.c (lzo_rle_decode).  One level. */
#include <stdlib.h>

#include "codecs.h"
#include "compress_lzo_rle_opt.h"

#define LZO_RLE_LEVEL 9         /* as hard as lzo1x_999 searches, and harder */

static int compress_lzo_rle(int level, const struct buffer *in, struct buffer *out, struct error *err)
{
	size_t cap = lzo_opt_bound(in->size);

	(void)level;
	out->data = malloc(cap);
	if (!out->data)
		return fail_with(err, "out of memory");
	out->size = lzo_opt_compress(in->data, in->size, out->data, cap, 1);
	if (out->size == 0) {
		free(out->data);
		out->data = NULL;
		return fail_with(err, "LZO-RLE compression failed (out of memory, or %zu bytes is too large)",
				 in->size);
	}
	return 0;
}

const struct codec_compressor lzo_rle_compressor = { LZO_RLE_LEVEL, LZO_RLE_LEVEL, LZO_RLE_LEVEL,
						      compress_lzo_rle,
						  FRAME_COST(132, 10, -6) };
