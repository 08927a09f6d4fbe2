/* inplace.c - the exact in-place margin, by simulation.
 *
 * When the image lies where the kernel goes, the stub moves the payload
 * to the end of the kernel's range and decompresses it in place, as
 * Linux's decompressor does (arch/x86/boot/compressed: the compressed
 * kernel is moved to the end of the buffer, z_extract_offset ahead).
 * Linux sizes that distance with a formula that must hold for any input
 * (about output/4096 + 64 KiB + the codec's block).  We know the input:
 * the packer runs the stub's own decoder (the same C source) in place in
 * a host buffer laid out as the stub's, output at 0 and payload at d, and
 * takes the smallest d at which the kernel comes out exact.  Below it the
 * output overtakes input not yet read.  A framed payload is simulated as
 * the stub decodes it in place: one frame after the other, in table
 * order, each frame's output growing over its own input and then over
 * the next frames' (which is why in place is never decoded by several
 * CPUs at once: a later frame's output would land on an earlier frame's
 * input still unread).
 *
 * The search: d starts at out - in (the payload ending with the output:
 * less would leave the output's end to be written over the payload's),
 * grows by doubling steps from 4 KiB until the decode comes out exact,
 * then a binary search to INPLACE_GRAIN bytes between the last failure and
 * the first success.  The stub is not the host build: a 32-bit decoder
 * reads its bit buffers in 4-byte rather than 8-byte words, and copies in
 * 16-byte SSE moves where the host's may differ, so how far reads run
 * ahead of what they consumed, and writes past what they produced, differ
 * by a few words.  INPLACE_SLACK covers that with room to spare, and the
 * offset returned is checked once more.
 */
#include "inplace.h"
#include "frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_STEP 4096

struct trial {
	const struct codec *c;
	int framed;             /* a frame table and its frames, decoded in table order */
	const struct buffer *payload, *out;
	uint8_t *buf;           /* room for the payload at up to out->size, rounded, + INPLACE_SLACK */
	unsigned count;
};

/* Does the payload at d decode in place to exactly out? */
static int decodes_at(struct trial *t, uint64_t d)
{
	t->count++;
	memcpy(t->buf + d, t->payload->data, t->payload->size);
	enum decode_status s = payload_decode(t->c, t->framed, t->buf + d, t->payload->size, t->buf, t->out->size);
	return s == DECODE_OK && memcmp(t->buf, t->out->data, t->out->size) == 0;
}

int inplace_offset(const struct codec *c, int framed, const struct buffer *payload, const struct buffer *out,
		   int progress, uint64_t *offset, struct error *err)
{
	/* At d = out->size, rounded up, nothing overlaps: the decoder never
	 * writes past the output it was given. */
	uint64_t apart = align_up(out->size, INPLACE_GRAIN);
	struct trial t = { c, framed, payload, out, malloc(apart + INPLACE_SLACK + payload->size), 0 };

	if (!t.buf)
		return fail_with(err, "out of memory");
	if (progress)
		fprintf(stderr, "bzpack: %s: simulating the in-place decode for the margin...\n", c->name);
	uint64_t least = inplace_floor(out->size, payload->size);
	uint64_t bad = 0, good = least, step = FIRST_STEP;
	int bad_seen = 0;

	while (good < apart && !decodes_at(&t, good)) {
		bad = good;
		bad_seen = 1;
		good = least + step < apart ? least + step : apart;
		step *= 2;
	}
	while (bad_seen && good - bad > INPLACE_GRAIN) {
		uint64_t mid = (bad + (good - bad) / 2) & ~(uint64_t)(INPLACE_GRAIN - 1);
		if (mid <= bad)
			mid = bad + INPLACE_GRAIN;
		if (decodes_at(&t, mid))
			good = mid;
		else
			bad = mid;
	}
	/* The slack, and the check at what the stub will use: a decoder whose
	 * reads were not monotone in d would fail here rather than boot. */
	uint64_t d = good + INPLACE_SLACK;
	int ok = decodes_at(&t, d);
	free(t.buf);
	if (!ok)
		return fail_with(err, "internal error: our %s decoder does not decode in place at %llu bytes "
				 "after the kernel's start", c->name, (unsigned long long)d);
	if (progress)
		fprintf(stderr, "bzpack: %s: in place from %llu bytes (output %zu, payload %zu: margin %lld), "
			"%u trial decodes\n", c->name, (unsigned long long)d, out->size, payload->size,
			(long long)(d + payload->size) - (long long)out->size, t.count);
	*offset = d;
	return 0;
}
