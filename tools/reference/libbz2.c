/* libbz2.c - bzip2 streams through libbz2: block sizes 100k, 500k and
 * 900k (levels 1, 5, 9). */
#include <bzlib.h>

#include "reference.h"

const char *ref_bz2_compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
	static const int level[] = { 1, 5, 9 };
	/* libbz2's documented worst case: 1% + 600 bytes over the input. */
	unsigned int len = (unsigned int)(n + n / 100 + 600);
	int r;

	if (variant >= sizeof level / sizeof level[0])
		return ref_why("no libbz2 variant %u", variant);
	*out = ref_alloc(len);
	r = BZ2_bzBuffToBuffCompress((char *)*out, &len, (char *)in, (unsigned int)n, level[variant], 0, 0);
	*out_len = len;
	return r == BZ_OK ? NULL : ref_why("BZ2_bzBuffToBuffCompress returned %d", r);
}

const char *ref_bz2_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	/* The stream API, so that a stream that ends before its input does
	 * (or before dst is full) is caught. */
	bz_stream s = { 0 };
	char spare;
	int r;

	if (BZ2_bzDecompressInit(&s, 0, 0) != BZ_OK)
		return "BZ2_bzDecompressInit failed";
	s.next_in = (char *)src;    /* libbz2 never writes through it */
	s.avail_in = (unsigned int)src_len;
	s.next_out = dst_len ? (char *)dst : &spare;
	s.avail_out = (unsigned int)dst_len;
	do {
		unsigned int in_before = s.avail_in, out_before = s.avail_out;

		r = BZ2_bzDecompress(&s);
		if (r == BZ_OK && s.avail_in == in_before && s.avail_out == out_before)
			break;  /* stuck: out of input or out of room */
	} while (r == BZ_OK);
	BZ2_bzDecompressEnd(&s);
	if (r != BZ_STREAM_END)
		return ref_why("BZ2_bzDecompress returned %d", r);
	if (s.avail_in || s.total_out_lo32 != (unsigned int)dst_len)
		return ref_why("libbz2 left %u input bytes, produced %u", s.avail_in, s.total_out_lo32);
	return NULL;
}
