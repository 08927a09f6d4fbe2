/* compress_lz4.c - one LZ4 block from liblz4's HC compressor, by default
 * at its maximum level: the stub decodes it with decode/lz4_decode.c. */
#include <lz4.h>
#include <lz4hc.h>
#include <stdlib.h>

#include "codecs.h"

static int compress_lz4(int level, const struct buffer *in, struct buffer *out, struct error *err)
{
	if (in->size > LZ4_MAX_INPUT_SIZE)
		return fail_with(err, "kernel of %zu bytes is too large for one LZ4 block", in->size);
	int bound = LZ4_compressBound((int)in->size);
	out->data = malloc((size_t)bound);
	if (!out->data)
		return fail_with(err, "out of memory");
	int n = LZ4_compress_HC((const char *)in->data, (char *)out->data, (int)in->size, bound, level);
	if (n <= 0)
		return fail_with(err, "LZ4 compression failed");
	out->size = (size_t)n;
	return 0;
}

const struct codec_compressor lz4_compressor = { 1, LZ4HC_CLEVEL_MAX, LZ4HC_CLEVEL_MAX, compress_lz4,
						  FRAME_COST(94, 4, -4) };
