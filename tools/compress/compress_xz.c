/* compress_xz.c - one .xz stream from liblzma, like Linux's own xz
 * kernels: the x86 BCJ filter then LZMA2, a CRC32 check, one block.
 * Level L is preset L | LZMA_PRESET_EXTREME (default 9), with the
 * dictionary grown or shrunk to the smallest power of two that holds the
 * whole kernel (capped at 64 MiB, what the decoder needs no memory for:
 * the stub's dictionary is the kernel itself), and 4 literal context bits.
 * The stub decodes it with decode/xz_decode.c.
 *
 * Measured on Debian's 6.1 amd64 kernel (60,817,408 bytes as bzpack lays
 * it out), preset 9e, 64 MiB dictionary, BCJ:
 *   lc/lp/pb 3/0/2 (the preset) 7,920,836   4/0/2 7,913,720   3/0/1 7,924,228
 *   3/1/2 7,922,808   4/0/3 7,922,664   3/0/3 7,933,460   2/0/2 7,940,120
 *   3/0/0 7,989,400   4/0/0 7,976,500   without BCJ (3/0/2) 8,524,812;
 *   match finder depth 0 (auto) 7,921,592, 4000 the same as the preset's 512.
 * (Debian's own vmlinuz is 8,247,232 bytes.) */
#include <lzma.h>
#include <stdlib.h>

#include "codecs.h"

#define XZ_DICT_MIN ((uint32_t)4096)
#define XZ_DICT_MAX ((uint32_t)64 << 20)
/* Literal context bits: LZMA2 allows lc + lp <= 4, the preset's lp is 0. */
#define XZ_LC       4

static uint32_t fit_dict(size_t in_size)
{
	uint32_t d = XZ_DICT_MIN;

	while (d < XZ_DICT_MAX && d < in_size)
		d <<= 1;
	return d;
}

static int compress_xz(int level, const struct buffer *in, struct buffer *out, struct error *err)
{
	lzma_options_lzma opt;
	size_t cap = lzma_stream_buffer_bound(in->size), pos = 0;
	lzma_ret r;

	if (lzma_lzma_preset(&opt, (uint32_t)level | LZMA_PRESET_EXTREME))
		return fail_with(err, "liblzma has no preset %d", level);
	opt.dict_size = fit_dict(in->size);
	opt.lc = XZ_LC;

	lzma_filter filters[] = {
		{ LZMA_FILTER_X86, NULL },
		{ LZMA_FILTER_LZMA2, &opt },
		{ LZMA_VLI_UNKNOWN, NULL },
	};

	out->data = malloc(cap ? cap : 1);
	if (!out->data)
		return fail_with(err, "out of memory");
	r = lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, NULL, in->data, in->size,
				      out->data, &pos, cap);
	if (r != LZMA_OK) {
		free(out->data);
		out->data = NULL;
		return fail_with(err, "xz compression failed (%d)", (int)r);
	}
	out->size = pos;
	return 0;
}

const struct codec_compressor xz_compressor = { 0, 9, 9, compress_xz,
						  FRAME_COST(3002, 107, -1) };
