/* linux_codecs.h - the codecs Linux compresses its bzImage payload with,
 * told apart by their first bytes. */
#ifndef LINUX_CODECS_H
#define LINUX_CODECS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Each decoder reads [in, in + in_len) up to the end of its stream (what
 * follows is trailing data and is ignored), writes at most cap bytes, and
 * reports how many it wrote.  A stream that would write more than cap
 * bytes is an error. */
typedef int (*unpack_fn)(const uint8_t *in, size_t in_len, uint8_t *out, size_t cap,
			 size_t *produced, struct error *err);

struct linux_codec {
	const char *name;
	uint8_t magic[9];
	size_t magic_len;
	unpack_fn unpack;
};

/* The codec of a payload starting at p (n bytes, without Linux's size
 * trailer); expected is that trailer, for .lzma, which has no magic.
 * NULL if none fits. */
const struct linux_codec *linux_codec_find(const uint8_t *p, size_t n, uint64_t expected);

#endif
