/* compress_none.c - the stored payload: a copy, the baseline every codec
 * is measured against. */
#include <stdlib.h>
#include <string.h>

#include "codecs.h"

static int store(int level, const struct buffer *in, struct buffer *out, struct error *err)
{
	(void)level;
	out->data = malloc(in->size ? in->size : 1);
	if (!out->data)
		return fail_with(err, "out of memory");
	memcpy(out->data, in->data, in->size);
	out->size = in->size;
	return 0;
}

const struct codec_compressor none_compressor = { 0, 0, 0, store,
						  FRAME_COST(0, 16, 0) };
