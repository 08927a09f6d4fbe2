/* liblzma.c - .lzma (LZMA alone) and .xz streams through liblzma.  .lzma:
 * presets 0, 6 and 9|EXTREME (the packer's default); .xz: one LZMA2
 * filter, no BCJ, a CRC32 check as the kernel's xz payloads have, presets
 * 0, 6 and 6|EXTREME. */
#include <lzma.h>

#include "reference.h"

static const uint32_t presets[] = { 0, 6, 9 | LZMA_PRESET_EXTREME };
static const uint32_t xz_presets[] = { 0, 6, 6 | LZMA_PRESET_EXTREME };

/* The preset's options with a dictionary no larger than the input needs
 * (at least 4 KiB): preset 9's 64 MiB would be set up, and its encoder's
 * 674 MiB, for every small test input.  The stream is the same. */
static const char *options(lzma_options_lzma *opt, uint32_t preset, size_t n)
{
	if (lzma_lzma_preset(opt, preset))
		return "lzma_lzma_preset failed";
	if (opt->dict_size > n)
		opt->dict_size = n < LZMA_DICT_SIZE_MIN ? LZMA_DICT_SIZE_MIN : (uint32_t)n;
	return NULL;
}

/* One lzma_code() run over all of in; *out grows to what it needs. */
static const char *run(lzma_stream *z, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len,
		       size_t cap)
{
	lzma_ret r;

	*out = ref_alloc(cap);
	z->next_in = in;
	z->avail_in = n;
	z->next_out = *out;
	z->avail_out = cap;
	r = lzma_code(z, LZMA_FINISH);
	*out_len = z->total_out;
	lzma_end(z);
	return r == LZMA_STREAM_END ? NULL : ref_why("lzma_code returned %d", (int)r);
}

const char *ref_lzma_alone_compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out,
				    size_t *out_len)
{
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_options_lzma opt;

	if (variant >= sizeof presets / sizeof presets[0])
		return ref_why("no lzma variant %u", variant);
	const char *why = options(&opt, presets[variant], n);

	if (why)
		return why;
	if (lzma_alone_encoder(&z, &opt) != LZMA_OK)
		return "lzma_alone_encoder failed";
	return run(&z, in, n, out, out_len, n + n / 2 + 4096);
}

const char *ref_xz_compress(unsigned variant, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
	size_t bound = lzma_stream_buffer_bound(n), pos = 0;
	lzma_options_lzma opt;
	lzma_filter filters[2] = { { LZMA_FILTER_LZMA2, &opt }, { LZMA_VLI_UNKNOWN, NULL } };
	const char *why;
	lzma_ret r;

	if (variant >= sizeof xz_presets / sizeof xz_presets[0])
		return ref_why("no xz variant %u", variant);
	if ((why = options(&opt, xz_presets[variant], n)))
		return why;
	*out = ref_alloc(bound);
	r = lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC32, NULL, in, n, *out, &pos, bound);
	*out_len = pos;
	return r == LZMA_OK ? NULL : ref_why("lzma_stream_buffer_encode returned %d", (int)r);
}

/* Decodes with the stream decoder z: all of src, exactly dst_len bytes. */
static const char *decode(lzma_stream *z, const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	uint8_t spare;
	lzma_ret r;

	z->next_in = src;
	z->avail_in = src_len;
	/* No room at all is LZMA_BUF_ERROR even for an empty stream: one
	 * spare byte, which must stay unwritten. */
	z->next_out = dst_len ? dst : &spare;
	z->avail_out = dst_len ? dst_len : 1;
	do
		r = lzma_code(z, LZMA_FINISH);   /* LZMA_BUF_ERROR once nothing moves */
	while (r == LZMA_OK);
	lzma_end(z);
	if (r != LZMA_STREAM_END)
		return ref_why("lzma_code returned %d", (int)r);
	if (z->avail_in != 0 || z->total_out != dst_len)
		return ref_why("liblzma left %zu input bytes, produced %llu", z->avail_in,
			       (unsigned long long)z->total_out);
	return NULL;
}

const char *ref_lzma_alone_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	lzma_stream z = LZMA_STREAM_INIT;

	if (lzma_alone_decoder(&z, UINT64_MAX) != LZMA_OK)
		return "lzma_alone_decoder failed";
	return decode(&z, src, src_len, dst, dst_len);
}

const char *ref_xz_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	lzma_stream z = LZMA_STREAM_INIT;

	if (lzma_stream_decoder(&z, UINT64_MAX, 0) != LZMA_OK)
		return "lzma_stream_decoder failed";
	return decode(&z, src, src_len, dst, dst_len);
}
