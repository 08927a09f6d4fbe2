/* frames_pack.h - a kernel compressed into independent frames
 * (bzpack_format.h, "the frame table"), on every host core. */
#ifndef FRAMES_PACK_H
#define FRAMES_PACK_H

#include <stdio.h>

#include "codecs.h"
#include "util.h"

/* --frames auto: one frame per FRAMES_AUTO_BYTES of kernel, at least one,
 * at most BZPACK_MAX_CPUS (more frames than CPUs cost ratio for nothing). */
#define FRAMES_AUTO_BYTES (8u << 20)
unsigned frames_auto(size_t kernel_size);

/* Split in into up to n frames of whole 4 KiB pages (fewer when it is
 * small), compress each at level with codec_compress() (which checks
 * that our decoder reproduces it) on as many threads as the host has
 * cores, and lay out the frame table and the frames in out.  *count: the
 * frames made; 1 means out is one plain stream, as without --frames. */
int frames_compress(const struct codec *c, int level, const struct buffer *in, unsigned n, struct buffer *out,
		    unsigned *count, struct error *err);

/* The frames of a framed payload, one line each, for -v and --info. */
void frames_print(FILE *out, const uint8_t *payload, size_t size);

#endif
