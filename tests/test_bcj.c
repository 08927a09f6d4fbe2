/* test_bcj.c - decode/bcj_x86.h, both directions, against liblzma's x86
 * filter on the same bytes.
 *
 * liblzma's filter cannot end a raw chain on its own, so the reference of
 * the filtered bytes is the chain x86 + LZMA2 encoded, then decoded with
 * LZMA2 alone: what the x86 stage handed LZMA2.  For each input:
 *   - our encoder, in one run and in steps of random sizes, gives exactly
 *     those bytes;
 *   - our decoder, in one run and in steps, gives the input back from them.
 * Inputs: every length 0..64 of x86-like bytes (opcodes E8/E9 next to
 * near operands, in and across the 3-byte history), longer x86-like and
 * executable-like buffers at several start offsets, and the files named
 * on the command line (the test kernels). */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bcj_x86.h"
#include "testgen.h"
#include "testlib.h"

/* The x86 stage's output of data[0..n), from liblzma; NULL on error. */
static uint8_t *liblzma_filtered(const uint8_t *data, size_t n, uint32_t start)
{
	lzma_options_lzma lz;
	lzma_options_bcj bcj = { start };
	size_t cap = n + n / 16 + 4096, cpos = 0, in_pos = 0, out_pos = 0;
	uint8_t *comp = xmalloc(cap), *out = xmalloc(n + 1);

	if (lzma_lzma_preset(&lz, 0)) {
		failf("lzma_lzma_preset failed");
		goto fail;
	}
	lzma_filter enc[] = { { LZMA_FILTER_X86, &bcj }, { LZMA_FILTER_LZMA2, &lz },
			      { LZMA_VLI_UNKNOWN, NULL } };
	lzma_filter dec[] = { { LZMA_FILTER_LZMA2, &lz }, { LZMA_VLI_UNKNOWN, NULL } };
	lzma_ret r = lzma_raw_buffer_encode(enc, NULL, data, n, comp, &cpos, cap);
	if (r != LZMA_OK) {
		failf("liblzma x86+lzma2 encode: %d", (int)r);
		goto fail;
	}
	r = lzma_raw_buffer_decode(dec, NULL, comp, &in_pos, cpos, out, &out_pos, n + 1);
	if (r != LZMA_OK || out_pos != n) {
		failf("liblzma lzma2 decode: %d, %zu of %zu bytes", (int)r, out_pos, n);
		goto fail;
	}
	free(comp);
	return out;
fail:
	free(comp);
	free(out);
	return NULL;
}

/* Runs the filter over buf[0, n) in steps of random sizes (1..max_step),
 * then once more with the whole size, as the stub does. */
static void run_in_steps(uint8_t *buf, size_t n, uint32_t start, int encode, size_t max_step)
{
	struct bcj_x86 s;
	size_t avail = 0;

	bcj_x86_init(&s, start);
	while (avail < n) {
		avail += 1 + rng_below(max_step);
		if (avail > n)
			avail = n;
		(encode ? bcj_x86_encode : bcj_x86_decode)(&s, buf, avail);
	}
	(encode ? bcj_x86_encode : bcj_x86_decode)(&s, buf, n);
}

static void check_one(const uint8_t *data, size_t n, uint32_t start, const char *what)
{
	uint8_t *ref = liblzma_filtered(data, n, start);
	struct buf b = buf_new(n);
	struct bcj_x86 s;

	if (!ref)
		return;
	for (int mode = 0; mode < 4 && !case_failed; mode++) {
		const int encode = mode < 2, steps = mode & 1;
		const uint8_t *from = encode ? data : ref, *want = encode ? ref : data;

		memcpy(b.p, from, n);
		if (steps) {
			run_in_steps(b.p, n, start, encode, rng_below(2) ? 7 : 70000);
		} else {
			bcj_x86_init(&s, start);
			(encode ? bcj_x86_encode : bcj_x86_decode)(&s, b.p, n);
		}
		size_t d = first_diff(b.p, want, n);
		if (d != n)
			failf("%s: %s%s differs from %s at byte %zu of %zu (start %u)", what,
			      encode ? "encode" : "decode", steps ? " in steps" : "",
			      encode ? "liblzma's filter" : "the input", d, n, start);
		if (!buf_guards_ok(&b))
			failf("%s: wrote outside the buffer", what);
	}
	buf_free(&b);
	free(ref);
}

/* Bytes where the filter's rules all matter: E8/E9 opcodes close
 * together, operands whose top byte is 0x00 or 0xFF, and other bytes. */
static void gen_x86_like(uint8_t *p, size_t n)
{
	static const uint8_t pick[] = { 0xE8, 0xE9, 0x00, 0xFF, 0x01, 0xFE, 0x90, 0x48 };

	for (size_t i = 0; i < n; i++)
		p[i] = rng_below(4) ? pick[rng_below(sizeof pick)] : (uint8_t)rng();
}

int main(int argc, char **argv)
{
	static const uint32_t starts[] = { 0, 1, 0x1000, 0xFFFFFFF0u };
	uint8_t *data = xmalloc(1 << 20);

	begin_case();
	for (size_t n = 0; n <= 64 && !case_failed; n++)
		for (int rep = 0; rep < 40 && !case_failed; rep++) {
			gen_x86_like(data, n);
			check_one(data, n, 0, "x86-like");
		}
	end_case("bcj lengths 0..64");

	for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++) {
		begin_case();
		gen_x86_like(data, 1 << 20);
		check_one(data, 1 << 20, starts[s], "x86-like 1 MiB");
		gen_mixed(data, 1 << 20);
		check_one(data, 1 << 20, starts[s], "mixed 1 MiB");
		end_casef("bcj 1 MiB at start 0x%x", starts[s]);
	}
	free(data);

	for (int a = 1; a < argc; a++) {
		size_t n;
		uint8_t *file = read_whole_file(argv[a], &n);

		begin_case();
		if (!file)
			failf("cannot read %s", argv[a]);
		else
			check_one(file, n, 0, argv[a]);
		end_casef("bcj %s", argv[a]);
		free(file);
	}
	return finish_tests("test_bcj");
}
