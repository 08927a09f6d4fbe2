/* fuzz_reference.c - libFuzzer target over every line of
 * decode/references.def: our decoder of the line's codec against the
 * reference, the same way for every codec (the fuzz twin of
 * tests/test_reference.c; tests/fuzz_<codec>.c add what only one codec
 * has).  Input: a byte picking the reference (modulo their number), a
 * mode byte, then
 *   mode even   the le32 header of tests/fuzzlib.h (the output size) and a
 *               stream: our decoder may return any status but must stay
 *               inside its exact-size buffers, and where it says DECODE_OK
 *               the reference must decode the stream to the same bytes;
 *   mode odd    data: the reference compresses it (variant mode / 2), our
 *               decoder must give it back exactly, and the stream cut by
 *               one byte must not decode.
 * Any disagreement aborts with a line saying which.
 *
 * Built with -DFUZZ_MKSEEDS instead, this file is the seed generator:
 *   mkseeds_reference DIR   writes, per reference, a few small inputs in
 *                           both modes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "fuzzlib.h"
#include "our_decoders.h"
#include "reference.h"

#ifndef FUZZ_MKSEEDS

static void die(const struct reference *r, const char *what, const char *why)
{
	fprintf(stderr, "fuzz_reference: %s/%s: %s%s%s\n", r->codec, r->name, what, why ? ": " : "",
		why ? why : "");
	abort();
}

/* Our decoder of r's codec on exact copies; the output to *out. */
static int run_ours(const struct reference *r, const uint8_t *src, size_t n, size_t dst_len, uint8_t **out)
{
	const struct our_decoder *d = find_our_decoder(r->codec);

	if (!d)
		die(r, "decode/references.def names a codec decode/codecs.def does not have", NULL);
	uint8_t *s = fuzz_exact(n), *ws = fuzz_exact(d->workspace);
	int st;

	if (n)
		memcpy(s, src, n);
	*out = fuzz_exact(dst_len);
	st = d->fn(s, n, *out, dst_len, ws);
	free(s);
	free(ws);
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	const struct reference *r = &references[data[0] % n_references];
	unsigned mode = data[1];
	uint8_t *out = NULL;

	data += 2, size -= 2;
	if (mode % 2 == 0) {
		struct fuzz_input in;

		if (!fuzz_take(data, size, &in))
			return 0;
		if (run_ours(r, in.src, in.n, in.dst_len, &out) == DECODE_OK) {
			uint8_t *theirs = fuzz_exact(in.dst_len);
			const char *why = r->decode(in.src, in.n, theirs, in.dst_len);

			if (why)
				die(r, "ours decodes a stream the reference refuses", why);
			if (in.dst_len && memcmp(out, theirs, in.dst_len))
				die(r, "ours and the reference decode a stream differently", NULL);
			free(theirs);
		}
		free(out);
		free(in.src);
		return 0;
	}

	unsigned variants = ref_variant_count(r);
	uint8_t *blk = NULL;
	size_t clen = 0;
	const char *why = r->compress(mode / 2 % variants, data, size, &blk, &clen);
	int st;

	if (why)
		die(r, "the reference cannot compress", why);
	st = run_ours(r, blk, clen, size, &out);
	if (st != DECODE_OK)
		die(r, "ours refuses the reference's stream", decode_status_name((enum decode_status)st));
	if (size && memcmp(out, data, size))
		die(r, "ours decodes the reference's stream wrongly", NULL);
	free(out);
	if (clen && strcmp(r->codec, "none")) {
		st = run_ours(r, blk, clen - 1, size, &out);
		if (st == DECODE_OK)
			die(r, "ours accepts the reference's stream cut by one byte", NULL);
		free(out);
	}
	free(blk);
	return 0;
}

#else /* FUZZ_MKSEEDS */

static void write_file(const char *path, const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(a, 1, an, f) != an || (bn && fwrite(b, 1, bn, f) != bn) || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const char text[] = FUZZ_SEED_TEXT;
	uint8_t in[600];
	uint32_t x = 0x9E3779B9u;
	char path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds_reference DIR\n");
		return 2;
	}
	fuzz_fill_random(in, sizeof in, &x);
	memcpy(in + 100, text, sizeof text - 1);
	for (size_t r = 0; r < n_references; r++) {
		const struct reference *ref = &references[r];

		for (unsigned v = 0; v < ref_variant_count(ref); v++) {
			uint8_t hdr[2 + FUZZ_HDR_BYTES] = { (uint8_t)r, (uint8_t)(2 * v + 1) };
			uint8_t *blk = NULL;
			size_t clen = 0, n = sizeof in;
			const char *why = ref->compress(v, in, n, &blk, &clen);

			if (why) {
				fprintf(stderr, "mkseeds_reference: %s: %s\n", ref->name, why);
				return 1;
			}
			snprintf(path, sizeof path, "%s/%s-%s-%u-data", argv[1], ref->codec, ref->name, v);
			write_file(path, hdr, 2, in, n);
			hdr[1] = (uint8_t)(2 * v);
			hdr[2] = (uint8_t)n, hdr[3] = (uint8_t)(n >> 8), hdr[4] = 0, hdr[5] = 0;
			snprintf(path, sizeof path, "%s/%s-%s-%u-stream", argv[1], ref->codec, ref->name, v);
			write_file(path, hdr, sizeof hdr, blk, clen);
			free(blk);
		}
	}
	return 0;
}

#endif
