/* codec.c - binds the one decoder a stub carries.  Built once per codec
 * with -DSTUB_CODEC=<ident> (stub/stub.mk, from decode/codecs.def), so a
 * stub links decode/<ident>_decode.c and nothing of the other codecs. */
#include "stub.h"

#define PASTE(a, b) a##b
#define EXPAND_PASTE(a, b) PASTE(a, b)

const struct stub_codec stub_codec = {
	.id = EXPAND_PASTE(BZPACK_CODEC_, STUB_CODEC),
	.workspace_size = EXPAND_PASTE(DECODE_WORKSPACE_, STUB_CODEC),
};

enum decode_status stub_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
			       void *workspace)
{
	return EXPAND_PASTE(STUB_CODEC, _decode)(src, src_len, dst, dst_len, workspace);
}
