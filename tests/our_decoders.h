/* our_decoders.h - our decoders, one per line of decode/codecs.def, by
 * the codec's identifier: what the differential test and fuzz driver
 * (tests/test_reference.c, tests/fuzz_reference.c) look a reference's
 * codec up in.  Header only: the fuzz driver is built from one source
 * file. */
#ifndef OUR_DECODERS_H
#define OUR_DECODERS_H

#include <stddef.h>
#include <string.h>

#include "decode.h"

struct our_decoder {
	const char *ident;
	decode_fn fn;
	size_t workspace;
};

static const struct our_decoder our_decoders[] = {
#define CODEC(ident, name, id, workspace) { #ident, ident##_decode, workspace },
#include "codecs.def"
#undef CODEC
};

/* The decoder of codec ident; NULL if decode/codecs.def has none. */
static inline const struct our_decoder *find_our_decoder(const char *ident)
{
	for (size_t k = 0; k < sizeof our_decoders / sizeof our_decoders[0]; k++)
		if (!strcmp(our_decoders[k].ident, ident))
			return &our_decoders[k];
	return NULL;
}

#endif
