/* x86_filter.h - bzpack --bcj on the host: the x86 branch converter
 * (decode/bcj_x86.h, the one the stub un-filters with) over a kernel's
 * own bytes, and back. */
#ifndef X86_FILTER_H
#define X86_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "codecs.h"
#include "kernel.h"

/* Filters k's kernel bytes (not its relocation table) in place and sets
 * BZPACK_FLAG_X86 in k->flags; a kernel already filtered is left alone. */
void kernel_x86_filter(struct kernel *k);

/* What the stub does after decoding: un-filters buf[0, size). */
void x86_unfilter(uint8_t *buf, size_t size);

/* Whether c's compressor already puts the x86 filter inside its own
 * stream: xz does (compress_xz.c, as Linux's xz kernels are, its decoder
 * undoing it block by block), and a second filter in front of it only
 * makes the image larger.  --bcj leaves such a codec's input alone. */
int codec_filters_x86(const struct codec *c);

/* "+x86" for a payload with BZPACK_FLAG_X86, else "": after the codec's
 * name wherever the packer names what it made (codec_auto's table,
 * --info, -v). */
const char *x86_filter_suffix(uint32_t flags);

#endif
