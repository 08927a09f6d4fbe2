/* inplace.h - how close behind the kernel's end its payload may start
 * when the stub decompresses in place. */
#ifndef INPLACE_H
#define INPLACE_H

#include <stdint.h>

#include "codecs.h"
#include "util.h"

/* The margin's grain and the slack added to the simulated minimum, see
 * inplace.c. */
#define INPLACE_GRAIN 64
#define INPLACE_SLACK 256

/* The smallest offset from the kernel's first byte at which the payload
 * may lie for our decoder to turn it into out in place (the output
 * growing over it), plus INPLACE_SLACK; found by decoding in place, and
 * checked at the offset returned.  Slow inputs say so on stderr when
 * progress is set. */
int inplace_offset(const struct codec *c, const struct buffer *payload, const struct buffer *out,
		   int progress, uint64_t *offset, struct error *err);

#endif
