/* payload_cache.h - compressed payloads kept between runs.
 *
 * Packing Debian's 60 MB kernel at xz 9e or zstd 22 takes a minute, and
 * make test, make bench, make bench-native and a user's `bzpack bench` in
 * CI compress the same kernels with the same codecs again and again.
 * With a cache directory, a payload is kept under a name made of what
 * decides it: what made it (a codec and its level, or a reference
 * library's compressor), the input's size and CRC32C, and the CRC32C of
 * the running program (its compressor glue is inside it; a rebuild that
 * changes a byte misses the cache).  A hit is decoded and compared with
 * the input before it is used, so a stale or damaged entry can never give
 * a wrong payload: at worst one a fresh run would have compressed
 * differently (a new compression library), which still decodes to this
 * input exactly.  This is the one payload cache: the packer, `bzpack
 * bench` and the native benchmark all go through it. */
#ifndef PAYLOAD_CACHE_H
#define PAYLOAD_CACHE_H

#include "codecs.h"
#include "util.h"

/* One kind of payload: how it is made, and how a cached one is checked.
 * arg is passed to both. */
struct payload_maker {
	const char *name;          /* part of the file name: "lz4-12", "ref-xz-6e" */
	int (*compress)(const void *arg, const struct buffer *in, struct buffer *out, struct error *err);
	int (*reproduces)(const void *arg, const struct buffer *payload, const struct buffer *in);
	const void *arg;
};

/* m's payload of in, through the cache in cache_dir (created if missing);
 * cache_dir NULL: no cache.  *hit (when hit is not NULL) says whether it
 * came from the cache.  A cache that cannot be written is said on stderr
 * and the payload is still returned. */
int payload_cache_get(const char *cache_dir, const struct payload_maker *m, const struct buffer *in,
		      struct buffer *out, int *hit, struct error *err);

/* codec_compress(), through the cache; *hit as above. */
int codec_compress_cached(const char *cache_dir, const struct codec *c, int level,
			  const struct buffer *in, struct buffer *out, int *hit, struct error *err);

#endif
