/* codec_lz4.c - puts stub/lz4_decode.c into a stub. */
#include "stub.h"

const struct stub_codec stub_codec = { BZPACK_CODEC_LZ4, lz4_decode };
