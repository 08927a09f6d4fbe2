/* codecs.h - the packer's codec table: one struct codec per line of
 * decode/codecs.def.  The packer, --help, --list-codecs, the round trip,
 * the host tests and the native benchmark all iterate it. */
#ifndef CODECS_H
#define CODECS_H

#include "bzpack_format.h"
#include "decode.h"
#include "util.h"

#define LEVEL_DEFAULT (-1)      /* the codec's default level */

/* An estimate of what our decoder spends on a stretch of kernel, for
 * cutting frames that take the CPUs equally long (frames_pack.c): in
 * sixteenths of an instruction, per byte liblz4's fastest level makes
 * of the stretch (how much there is to decode), per byte of the stretch,
 * and per zero byte in it.  The weights are fitted to the decoders'
 * exact per-frame instruction counts on Debian's amd64 kernel and the
 * test kernels (ci/benchmarks/smp-table.sh measures them); only their
 * proportions matter. */
#define FRAME_COST(lz4_byte, byte, zero_byte) { lz4_byte, byte, zero_byte }
struct frame_cost {
	int lz4_byte, byte, zero_byte;
};

/* A codec's compressor glue, tools/compress/compress_<ident>.c, defines
 * <ident>_compressor: the reference library (or our own compressor) at
 * the levels it accepts.  compress() gets a level within them and
 * allocates out->data (the caller frees it). */
struct codec_compressor {
	int min_level, max_level, default_level;
	int (*compress)(int level, const struct buffer *in, struct buffer *out, struct error *err);
	struct frame_cost cost;         /* what a stretch of kernel costs our decoder */
};

struct codec {
	const char *name;               /* as -c takes it */
	uint8_t id;                     /* bzpack_header.codec */
	size_t workspace_size;          /* the decoder's, from codecs.def */
	const struct codec_compressor *compressor; /* levels and compress() */
	decode_fn decode;               /* the very source the stub runs */
};

extern const struct codec codecs[];
extern const size_t codec_count;

const struct codec *codec_by_name(const char *name);   /* NULL if unknown */
const struct codec *codec_by_id(unsigned id);          /* NULL if unknown */
/* "none, lz4, ...": for messages and --help. */
const char *codec_names(void);

/* Decode with our decoder and a workspace of its size. */
enum decode_status codec_decode(const struct codec *c, const uint8_t *src, size_t src_len,
				uint8_t *dst, size_t dst_len);

/* Compress at level (LEVEL_DEFAULT: the codec's default), then decode the
 * result with our own decoder and compare, so that an image whose stub
 * could not decode it is never written. */
int codec_compress(const struct codec *c, int level, const struct buffer *in, struct buffer *out,
		   struct error *err);

#define CODEC(ident, name, id, workspace) extern const struct codec_compressor ident##_compressor;
#include "codecs.def"
#undef CODEC

#endif
