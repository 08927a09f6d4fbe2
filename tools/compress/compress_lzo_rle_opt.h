/* compress_lzo_rle_opt.h - bzpack's own LZO1X compressor with optimal parsing, for
 * bitstream version 1 (LZO-RLE, the `lzo-rle` codec) and, for testing it
 * against liblzo2's decoder, version 0.  See compress_lzo_rle_opt.c. */
#ifndef LZO_OPT_H
#define LZO_OPT_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes lzo_opt_compress() writes for n input bytes. */
size_t lzo_opt_bound(size_t n);

/* Compresses in[0..n) into out (cap bytes, at least lzo_opt_bound(n)) as
 * one LZO1X stream of the given bitstream version (0: plain LZO1X, no
 * header; 1: LZO-RLE, header 17 1 and zero runs).  Returns the stream's
 * size, or 0 if out of memory, if cap is too small or if n >= 2^32 - 16. */
size_t lzo_opt_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, int version);

#endif
