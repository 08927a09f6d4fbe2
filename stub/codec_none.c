/* codec_none.c - puts stub/none_decode.c into a stub. */
#include "stub.h"

const struct stub_codec stub_codec = { BZPACK_CODEC_NONE, none_decode };
