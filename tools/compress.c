/* compress.c - see compress.h. */
#include "compress.h"

#include <lz4.h>
#include <lz4hc.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

int codec_from_name(const char *name)
{
	for (int c = 0; c < BZPACK_CODEC_COUNT; c++)
		if (strcmp(name, bzpack_codec_name((unsigned)c)) == 0)
			return c;
	return -1;
}

static int compress_lz4(int level, const struct buffer *in, struct buffer *out, struct error *err)
{
	if (level == LEVEL_DEFAULT)
		level = LZ4HC_CLEVEL_MAX;
	if (level < 1 || level > LZ4HC_CLEVEL_MAX)
		return fail_with(err, "lz4 level must be 1..%d", LZ4HC_CLEVEL_MAX);
	if (in->size > LZ4_MAX_INPUT_SIZE)
		return fail_with(err, "kernel of %zu bytes is too large for one LZ4 block", in->size);
	int bound = LZ4_compressBound((int)in->size);
	out->data = malloc((size_t)bound);
	if (!out->data)
		return fail_with(err, "out of memory");
	int n = LZ4_compress_HC((const char *)in->data, (char *)out->data, (int)in->size, bound, level);
	if (n <= 0)
		return fail_with(err, "LZ4 compression failed");
	out->size = (size_t)n;
	return 0;
}

static int copy_stored(const struct buffer *in, struct buffer *out, struct error *err)
{
	out->data = malloc(in->size);
	if (!out->data)
		return fail_with(err, "out of memory");
	memcpy(out->data, in->data, in->size);
	out->size = in->size;
	return 0;
}

decode_fn codec_decoder(int codec)
{
	static const decode_fn decoders[BZPACK_CODEC_COUNT] = {
		[BZPACK_CODEC_NONE] = none_decode,
		[BZPACK_CODEC_LZ4] = lz4_decode,
	};
	return codec >= 0 && codec < BZPACK_CODEC_COUNT ? decoders[codec] : NULL;
}

/* Decode with the very source the stub runs, and compare. */
static int round_trip(int codec, const struct buffer *in, const struct buffer *packed, struct error *err)
{
	decode_fn decode = codec_decoder(codec);
	if (!decode)
		return fail_with(err, "internal error: no decoder for codec %d", codec);
	uint8_t *check = malloc(in->size ? in->size : 1);
	if (!check)
		return fail_with(err, "out of memory");
	enum decode_status s = decode(packed->data, packed->size, check, in->size);
	int same = s == DECODE_OK && memcmp(check, in->data, in->size) == 0;
	free(check);
	if (!same)
		return fail_with(err, "internal error: our %s decoder does not reproduce the kernel (%s)",
				 bzpack_codec_name((unsigned)codec), decode_status_name(s));
	return 0;
}

int compress_payload(int codec, int level, const struct buffer *in, struct buffer *out,
		     struct error *err)
{
	int r;

	switch (codec) {
	case BZPACK_CODEC_NONE:
		r = copy_stored(in, out, err);
		break;
	case BZPACK_CODEC_LZ4:
		r = compress_lz4(level, in, out, err);
		break;
	default:
		return fail_with(err, "unknown codec %d", codec);
	}
	if (r < 0)
		return r;
	return round_trip(codec, in, out, err);
}
