/* decode.h - what every payload decoder promises.  Each codec is one C
 * source, decode/<ident>_decode.c, compiled into the stub (-m32 and -m64,
 * freestanding) and into the host tests and benchmarks.  A decoder reads
 * only [src, src + src_len), writes only [dst, dst + dst_len) and its
 * workspace (the bytes decode/codecs.def declares for it, at least
 * 16-byte aligned, contents undefined on entry), keeps no static data,
 * and succeeds only when it consumed all of its input and produced
 * exactly dst_len bytes. */
#ifndef DECODE_H
#define DECODE_H

#include <stddef.h>
#include <stdint.h>

enum decode_status {
	DECODE_OK = 0,
	DECODE_TRUNCATED,       /* input ended inside a token, length or literal run */
	DECODE_OUTPUT_OVERRUN,  /* a literal run or match would write past dst_len */
	DECODE_BAD_OFFSET,      /* a match refers to before the start of the output, or offset 0 */
	DECODE_SHORT_OUTPUT,    /* input consumed, but fewer than dst_len bytes produced */
	DECODE_CHECK_MISMATCH,  /* the stream's own check (CRC, checksum) does not match */
	DECODE_CORRUPT,         /* anything else the format forbids */
};

static inline const char *decode_status_name(enum decode_status s)
{
	switch (s) {
	case DECODE_OK:             return "ok";
	case DECODE_TRUNCATED:      return "input truncated";
	case DECODE_OUTPUT_OVERRUN: return "output would overrun the kernel's size";
	case DECODE_BAD_OFFSET:     return "match offset out of range";
	case DECODE_SHORT_OUTPUT:   return "output shorter than the kernel's size";
	case DECODE_CHECK_MISMATCH: return "stream check mismatch";
	case DECODE_CORRUPT:        return "corrupt input";
	}
	return "unknown error";
}

typedef enum decode_status (*decode_fn)(const uint8_t *src, size_t src_len,
					uint8_t *dst, size_t dst_len, void *workspace);

/* DECODE_WORKSPACE_<ident>: the workspace bytes each decoder needs. */
enum decode_workspace {
#define CODEC(ident, name, id, workspace) DECODE_WORKSPACE_##ident = workspace,
#include "codecs.def"
#undef CODEC
};

/* <ident>_decode() for every codec in decode/codecs.def. */
#define CODEC(ident, name, id, workspace_bytes)                                  \
	enum decode_status ident##_decode(const uint8_t *src, size_t src_len, \
					  uint8_t *dst, size_t dst_len, void *workspace);
#include "codecs.def"
#undef CODEC

/* For a stream whose decompressed size is not known before it is decoded,
 * or that something else follows (an initrd's pieces,
 * stub/initrd_unpack.c): <ident>_decode_stream() decodes the one stream
 * that starts src (for zstd one frame) into at most dst_cap bytes, with
 * every check <ident>_decode() makes, and says where it ended: *src_used
 * input bytes, *dst_used output bytes (both set only on DECODE_OK).
 * Whatever follows the stream in src is not read past what the format's
 * own lookahead needs, and is not judged.  DECODE_OUTPUT_OVERRUN: the
 * stream holds more than dst_cap bytes.  The bytes of dst past *dst_used
 * may be written too (the fast loops' match copies run a little past a
 * match's end): whatever goes after the output is written after the call. */
#define DECODE_STREAM(ident)                                                                   \
	enum decode_status ident##_decode_stream(const uint8_t *src, size_t src_len, size_t *src_used, \
						 uint8_t *dst, size_t dst_cap, size_t *dst_used,       \
						 void *workspace)
DECODE_STREAM(gzip);
DECODE_STREAM(bzip2);
DECODE_STREAM(lzma);
DECODE_STREAM(zstd);

#endif
