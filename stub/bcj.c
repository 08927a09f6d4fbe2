/* bcj.c - the x86 un-filter, linked only into the -bcj stubs (stub/stub.mk):
 * the one copy of the filter, decode/bcj_x86.h, which the xz decoder
 * runs too.
 *
 * It runs right after the decoder, over the kernel's bytes, as one pass:
 * the decoders decode in one call and offer no point to run it behind
 * their output as it grows, so a pass of 64 KiB steps here would see the
 * same cold memory as this one (the filter's state carries across steps,
 * so a decoder that grows its output in steps can call it after each). */
#include "stub.h"
#include "bcj_x86.h"

HOT void stub_unfilter_x86(uint8_t *kernel, size_t size)
{
	struct bcj_x86 s;

	bcj_x86_init(&s, 0);
	bcj_x86_decode(&s, kernel, size);
}
