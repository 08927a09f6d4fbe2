/* compress_bzip2.c - one bzip2 stream from libbz2 (BZ2_bzBuffToBuffCompress),
 * block size level x 100 kB, by default 9 (900 kB blocks, the best ratio):
 * the stub decodes it with decode/bzip2_decode.c. */
#include <bzlib.h>
#include <limits.h>
#include <stdlib.h>

#include "codecs.h"

#define BZIP2_LEVEL_MIN 1
#define BZIP2_LEVEL_MAX 9
/* libbz2's work factor: 0 means its default (30); it only matters for
 * highly repetitive input, where the sort falls back to a slower one. */
#define BZIP2_WORK_FACTOR 0

static int compress_bzip2(int level, const struct buffer *in, struct buffer *out, struct error *err)
{
	/* libbz2's documented worst case: 1% larger plus 600 bytes. */
	size_t bound = in->size + in->size / 100 + 600;

	if (bound > UINT_MAX)
		return fail_with(err, "kernel of %zu bytes is too large for libbz2's one-call API", in->size);
	out->data = malloc(bound);
	if (!out->data)
		return fail_with(err, "out of memory");
	unsigned n = (unsigned)bound;
	int r = BZ2_bzBuffToBuffCompress((char *)out->data, &n, (char *)in->data, (unsigned)in->size,
					 level, 0, BZIP2_WORK_FACTOR);
	if (r != BZ_OK) {
		free(out->data);
		out->data = NULL;
		return fail_with(err, "bzip2 compression failed (libbz2 error %d)", r);
	}
	out->size = n;
	return 0;
}

const struct codec_compressor bzip2_compressor = { BZIP2_LEVEL_MIN, BZIP2_LEVEL_MAX, BZIP2_LEVEL_MAX,
						   compress_bzip2,
						  FRAME_COST(1731, 80, -4) };
