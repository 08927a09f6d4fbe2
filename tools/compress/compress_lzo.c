/* compress_lzo.c - an LZO1X stream (bitstream version 0, no header) from
 * liblzo2's lzo1x_999 compressor at levels 1..9 (lzo1x_999_compress_level;
 * 9, the default, is what lzo1x_999_compress does).  The stub decodes it
 * with decode/lzo_decode.c (lzo_decode). */
#include <lzo/lzo1x.h>
#include <stdlib.h>

#include "codecs.h"

static int compress_lzo(int level, const struct buffer *in, struct buffer *out, struct error *err)
{
	/* LZO1X's worst case: incompressible input grows by 1/16 plus 67 bytes. */
	size_t cap = in->size + in->size / 16 + 64 + 3;
	lzo_uint n = 0;
	void *work;
	int r;

	if (lzo_init() != LZO_E_OK)
		return fail_with(err, "lzo_init failed");
	if ((lzo_uint)in->size != in->size)
		return fail_with(err, "kernel of %zu bytes is too large for liblzo2", in->size);
	out->data = malloc(cap);
	work = malloc(LZO1X_999_MEM_COMPRESS);
	if (!out->data || !work) {
		free(work);
		return fail_with(err, "out of memory");
	}
	r = lzo1x_999_compress_level(in->data, in->size, out->data, &n, work, NULL, 0, NULL, level);
	free(work);
	if (r != LZO_E_OK || n > cap)
		return fail_with(err, "lzo1x_999_compress_level returned %d", r);
	out->size = n;
	return 0;
}

const struct codec_compressor lzo_compressor = { 1, 9, 9, compress_lzo,
						  FRAME_COST(142, 10, -1) };
