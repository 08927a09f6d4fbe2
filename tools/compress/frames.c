/* frames.c - see frames.h. */
#include "frames.h"

#include <string.h>

enum decode_status payload_decode(const struct codec *c, int framed, const uint8_t *src, size_t src_len,
				  uint8_t *dst, size_t dst_len)
{
	if (!framed)
		return codec_decode(c, src, src_len, dst, dst_len);
	if (src_len > UINT32_MAX || dst_len > UINT32_MAX ||
	    bzpack_frames_check(src, (uint32_t)src_len, (uint32_t)dst_len))
		return DECODE_CORRUPT;
	/* Copied out first, as the stub does: decoded in place, the first
	 * frames' output overwrites the table. */
	const struct bzpack_frames *t = (const void *)src;
	struct bzpack_frame frame[BZPACK_FRAMES_MAX];
	uint32_t count = t->count;
	memcpy(frame, t->frame, count * sizeof(frame[0]));
	for (uint32_t i = 0; i < count; i++) {
		const struct bzpack_frame *f = &frame[i];
		enum decode_status s = codec_decode(c, src + f->in_offset, f->in_size, dst + f->out_offset,
						    f->out_size);
		if (s != DECODE_OK)
			return s;
	}
	return DECODE_OK;
}
