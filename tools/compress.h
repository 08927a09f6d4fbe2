/* compress.h - the packer's side of each codec: the reference compressor
 * (a Debian library) and a round trip through our own decoder, so that an
 * image whose stub could not decode it is never written. */
#ifndef COMPRESS_H
#define COMPRESS_H

#include "bzpack_format.h"
#include "decode.h"
#include "util.h"

#define LEVEL_DEFAULT (-1)      /* the codec's maximum */

int codec_from_name(const char *name);  /* -1 if unknown */
/* The decoder a stub of this codec runs (the same source); NULL if none. */
decode_fn codec_decoder(int codec);
int compress_payload(int codec, int level, const struct buffer *in, struct buffer *out,
		     struct error *err);

#endif
