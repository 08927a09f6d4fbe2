/* compress_zstd.c - one Zstandard frame from libzstd, by default at its
 * maximum level (22, "ultra"): the stub decodes it with
 * decode/zstd_decode.c.
 *
 * The frame carries the content size and the content checksum (the
 * decoder verifies both).  The window is made as large as the kernel
 * (the decoder's window is its output, so a large one costs the stub
 * nothing), which makes libzstd write a single-segment frame: no window
 * descriptor, Window_Size = Frame_Content_Size.  Long-distance matching
 * is allowed.  libzstd's one-shot ZSTD_decompress() still decodes the
 * frame (the tests check it), since a single-segment frame needs no
 * window buffer beyond the output. */
#include <stdlib.h>
#include <zstd.h>

#include "codecs.h"

#define ZSTD_LEVEL_MIN     1
#define ZSTD_LEVEL_MAX     22           /* ZSTD_maxCLevel() of every libzstd since 1.0 */
/* The smallest window libzstd takes, and the largest it takes on a 64-bit
 * host (ZSTD_WINDOWLOG_MAX_64): kernels are far smaller. */
#define WINDOW_LOG_MIN     10
#define WINDOW_LOG_MAX     31

/* The smallest window log whose window holds n bytes. */
static int window_log_for(size_t n)
{
	int log = WINDOW_LOG_MIN;

	while (log < WINDOW_LOG_MAX && ((size_t)1 << log) < n)
		log++;
	return log;
}

static int set(ZSTD_CCtx *cc, ZSTD_cParameter p, int v, struct error *err)
{
	size_t r = ZSTD_CCtx_setParameter(cc, p, v);

	if (ZSTD_isError(r))
		return fail_with(err, "zstd: setting parameter %d to %d: %s", (int)p, v,
				 ZSTD_getErrorName(r));
	return 0;
}

static int compress_zstd(int level, const struct buffer *in, struct buffer *out, struct error *err)
{
	const size_t bound = ZSTD_compressBound(in->size);
	ZSTD_CCtx *cc;
	size_t n;

	if (ZSTD_isError(bound) || bound == 0)
		return fail_with(err, "kernel of %zu bytes is too large for zstd", in->size);
	cc = ZSTD_createCCtx();
	if (!cc)
		return fail_with(err, "out of memory");
	if (set(cc, ZSTD_c_compressionLevel, level, err) < 0 ||
	    set(cc, ZSTD_c_checksumFlag, 1, err) < 0 ||
	    set(cc, ZSTD_c_contentSizeFlag, 1, err) < 0 ||
	    set(cc, ZSTD_c_windowLog, window_log_for(in->size), err) < 0 ||
	    set(cc, ZSTD_c_enableLongDistanceMatching, 1, err) < 0) {
		ZSTD_freeCCtx(cc);
		return -1;
	}
	out->data = malloc(bound);
	if (!out->data) {
		ZSTD_freeCCtx(cc);
		return fail_with(err, "out of memory");
	}
	n = ZSTD_compress2(cc, out->data, bound, in->data, in->size);
	ZSTD_freeCCtx(cc);
	if (ZSTD_isError(n)) {
		free(out->data);
		out->data = NULL;
		return fail_with(err, "zstd compression failed: %s", ZSTD_getErrorName(n));
	}
	out->size = n;
	return 0;
}

const struct codec_compressor zstd_compressor = { ZSTD_LEVEL_MIN, ZSTD_LEVEL_MAX, ZSTD_LEVEL_MAX,
						  compress_zstd,
						  FRAME_COST(489, 23, 2) };
