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

/* Where the search starts: the payload ending with the output (out_size
 * - payload_size, rounded down to the grain; 0 when the payload is the
 * larger).  Below it the output's end would be written over the payload. */
static inline uint64_t inplace_floor(uint64_t out_size, uint64_t payload_size)
{
	return out_size > payload_size ? (out_size - payload_size) & ~(uint64_t)(INPLACE_GRAIN - 1) : 0;
}

/* The smallest offset from the kernel's first byte at which the payload
 * may lie for our decoder to turn it into out in place (the output
 * growing over it), plus INPLACE_SLACK; framed: the payload is a frame
 * table and its frames, decoded serially in table order; found by decoding in place, and
 * checked at the offset returned.  Slow inputs say so on stderr when
 * progress is set. */
int inplace_offset(const struct codec *c, int framed, const struct buffer *payload, const struct buffer *out,
		   int progress, uint64_t *offset, struct error *err);

#endif
