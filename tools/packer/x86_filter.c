/* x86_filter.c - see x86_filter.h. */
#include "x86_filter.h"

#include "bcj_x86.h"
#include "bzpack_format.h"

void kernel_x86_filter(struct kernel *k)
{
	struct bcj_x86 s;

	if (k->flags & BZPACK_FLAG_X86)
		return;
	bcj_x86_init(&s, 0);
	bcj_x86_encode(&s, k->blob.data, kernel_size(k));
	k->flags |= BZPACK_FLAG_X86;
}

void x86_unfilter(uint8_t *buf, size_t size)
{
	struct bcj_x86 s;

	bcj_x86_init(&s, 0);
	bcj_x86_decode(&s, buf, size);
}

int codec_filters_x86(const struct codec *c)
{
	return c->id == BZPACK_CODEC_xz;
}

const char *x86_filter_suffix(uint32_t flags)
{
	return flags & BZPACK_FLAG_X86 ? "+x86" : "";
}
