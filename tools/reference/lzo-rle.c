/* lzo-rle.c - LZO-RLE has no library: the compressor is the packer's own
 * (tools/compress/compress_lzo_rle_opt.c) and the reference decoder the
 * byte-at-a-time one written from Linux's Documentation/staging/lzo.rst
 * (lzo_ref.h), independent of decode/lzo1x_core.h. */
#include "compress_lzo_rle_opt.h"
#include "lzo_ref.h"
#include "reference.h"

const char *ref_lzo_rle_compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
	size_t cap = lzo_opt_bound(n);

	(void)variant;
	*out = ref_alloc(cap);
	*out_len = lzo_opt_compress(in, n, *out, cap, 1);
	return *out_len ? NULL : ref_why("lzo_opt_compress failed on %zu bytes", n);
}

const char *ref_lzo_rle_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	struct lzo_ref_stats stats;
	enum decode_status st = lzo_ref_decode(src, src_len, dst, dst_len, 1, &stats);

	return st == DECODE_OK ? NULL : ref_why("%s", decode_status_name(st));
}
