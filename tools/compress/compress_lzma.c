/* compress_lzma.c - the legacy .lzma container from liblzma's
 * lzma_alone_encoder: level L is preset L | LZMA_PRESET_EXTREME (default
 * 9), with the preset's dictionary shrunk to the smallest power of two
 * that holds the whole kernel (no match can reach further; the header
 * then asks for no more).  The header says "size unknown" and the stream
 * ends with an end marker, as lzma_alone_encoder always writes it; the
 * stub decodes it with decode/lzma_decode.c. */
#include <lzma.h>
#include <stdlib.h>

#include "codecs.h"

#define LZMA_DICT_MIN ((uint32_t)4096)

/* The preset's dictionary, but no larger than the input needs. */
static uint32_t fit_dict(uint32_t preset_dict, size_t in_size)
{
	uint32_t d = LZMA_DICT_MIN;

	while (d < preset_dict && d < in_size)
		d <<= 1;
	return d < preset_dict ? d : preset_dict;
}

static int compress_lzma(int level, const struct buffer *in, struct buffer *out, struct error *err)
{
	lzma_options_lzma opt;
	lzma_stream strm = LZMA_STREAM_INIT;
	/* The header (13 bytes) and an incompressible worst case. */
	size_t cap = in->size + in->size / 16 + 4096;
	lzma_ret r;

	if (lzma_lzma_preset(&opt, (uint32_t)level | LZMA_PRESET_EXTREME))
		return fail_with(err, "liblzma has no preset %d", level);
	opt.dict_size = fit_dict(opt.dict_size, in->size);
	r = lzma_alone_encoder(&strm, &opt);
	if (r != LZMA_OK)
		return fail_with(err, "lzma_alone_encoder failed (%d)", (int)r);
	out->data = malloc(cap);
	if (!out->data) {
		lzma_end(&strm);
		return fail_with(err, "out of memory");
	}
	strm.next_in = in->data;
	strm.avail_in = in->size;
	strm.next_out = out->data;
	strm.avail_out = cap;
	r = lzma_code(&strm, LZMA_FINISH);
	out->size = cap - strm.avail_out;
	lzma_end(&strm);
	if (r != LZMA_STREAM_END) {
		free(out->data);
		out->data = NULL;
		return fail_with(err, "LZMA compression failed (%d)", (int)r);
	}
	return 0;
}

const struct codec_compressor lzma_compressor = { 0, 9, 9, compress_lzma,
						  FRAME_COST(3127, 44, -21) };
