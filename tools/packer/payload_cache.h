/* payload_cache.h - compressed payloads kept between runs.
 *
 * Packing Debian's 60 MB kernel at xz 9e or zstd 22 takes a minute, and
 * make test, make bench and a user's `bzpack bench` in CI pack the same
 * kernels with the same codecs again and again.  With a cache directory,
 * a payload is kept under a name made of what decides it: the codec, its
 * level, the input's size and CRC32C, and the CRC32C of this very packer
 * (its compressor glue and stubs are inside it; a rebuild that changes a
 * byte misses the cache).  A hit is decoded with our decoder and compared
 * with the input before it is used, so a stale or damaged entry can never
 * give a wrong image: at worst a payload a fresh run would have
 * compressed differently (a new compression library), which is still this
 * kernel exactly. */
#ifndef PAYLOAD_CACHE_H
#define PAYLOAD_CACHE_H

#include "codecs.h"
#include "util.h"

/* codec_compress(), through the cache in cache_dir (created if missing);
 * cache_dir NULL: no cache.  A cache that cannot be written is said on
 * stderr and the payload is still returned. */
int codec_compress_cached(const char *cache_dir, const struct codec *c, int level,
			  const struct buffer *in, struct buffer *out, struct error *err);

#endif
