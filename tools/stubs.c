/* stubs.c - see stubs.h. */
#include "stubs.h"

#include "bzpack_format.h"

extern const uint8_t stub_setup[], stub_setup_end[];
extern const uint8_t stub_none_32[], stub_none_32_end[], stub_none_64[], stub_none_64_end[];
extern const uint8_t stub_lz4_32[], stub_lz4_32_end[], stub_lz4_64[], stub_lz4_64_end[];

static struct buffer blob(const uint8_t *start, const uint8_t *end)
{
	return (struct buffer){ (uint8_t *)start, (size_t)(end - start) };
}

struct buffer stub_setup_blob(void)
{
	return blob(stub_setup, stub_setup_end);
}

struct buffer stub_blob(int codec, int bits)
{
	static const struct { const uint8_t *start, *end; } stubs[BZPACK_CODEC_COUNT][2] = {
		[BZPACK_CODEC_NONE] = { { stub_none_32, stub_none_32_end }, { stub_none_64, stub_none_64_end } },
		[BZPACK_CODEC_LZ4]  = { { stub_lz4_32, stub_lz4_32_end }, { stub_lz4_64, stub_lz4_64_end } },
	};
	if (codec < 0 || codec >= BZPACK_CODEC_COUNT || (bits != 32 && bits != 64))
		return (struct buffer){ 0, 0 };
	return blob(stubs[codec][bits == 64].start, stubs[codec][bits == 64].end);
}
