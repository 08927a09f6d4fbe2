/* frames.h - the host side of a framed payload (bzpack_format.h, "the
 * frame table"): decoding one as the stub does, serially, which the
 * in-place simulation, the payload cache and --extract run. */
#ifndef FRAMES_H
#define FRAMES_H

#include "codecs.h"

/* Decode a payload of one stream (framed 0) or a frame table and its
 * frames (framed 1), in table order, into exactly dst_len bytes.  The
 * table must tile the payload and the output (bzpack_frames_check());
 * the frames' checksums are not checked here (the caller's). */
enum decode_status payload_decode(const struct codec *c, int framed, const uint8_t *src, size_t src_len,
				  uint8_t *dst, size_t dst_len);

#endif
