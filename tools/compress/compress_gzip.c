/* compress_gzip.c - one gzip member from libdeflate's compressor, by
 * default at its maximum level (12): the stub decodes it with
 * decode/gzip_decode.c. */
#include <libdeflate.h>
#include <stdlib.h>

#include "codecs.h"

#define GZIP_MIN_LEVEL     1
#define GZIP_MAX_LEVEL     12
#define GZIP_DEFAULT_LEVEL 12

static int compress_gzip(int level, const struct buffer *in, struct buffer *out, struct error *err)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);

	if (!c)
		return fail_with(err, "out of memory");
	size_t bound = libdeflate_gzip_compress_bound(c, in->size);
	out->data = malloc(bound);
	if (!out->data) {
		libdeflate_free_compressor(c);
		return fail_with(err, "out of memory");
	}
	size_t n = libdeflate_gzip_compress(c, in->data, in->size, out->data, bound);
	libdeflate_free_compressor(c);
	if (n == 0)
		return fail_with(err, "gzip compression failed");
	out->size = n;
	return 0;
}

const struct codec_compressor gzip_compressor = { GZIP_MIN_LEVEL, GZIP_MAX_LEVEL, GZIP_DEFAULT_LEVEL,
						  compress_gzip,
						  FRAME_COST(372, 65, -46) };
