/* test_reference.c - the differential test: every line of
 * decode/references.def against our decoder of its codec
 * (decode/codecs.def), the same way.  For each reference and each of its
 * compressor variants:
 *
 *   inputs     one corpus for every codec (empty, one byte, every length
 *              of several small inputs, zeros, repeated bytes, periodic
 *              patterns with and without noise, random data, text, skewed
 *              literals, runs, zero-heavy and mixed "executables"): the
 *              reference compresses, and our decoder must give back the
 *              input exactly, as the reference's own decoder does; one
 *              byte of room less must fail, one more must fail too
 *              (DECODE_OUTPUT_OVERRUN, DECODE_SHORT_OUTPUT: any status but
 *              DECODE_OK for zstd, whose frame header may disagree with
 *              the room first);
 *              (inputs of a megabyte and more with the strongest variant
 *              only: liblzma and libbz2 take seconds over each);
 *   files      the same for the files named on the command line (the test
 *              kernels), strongest variant;
 *   truncation the reference's stream cut at many points: never DECODE_OK;
 *   garbage    random bytes and randomly damaged streams: any status, in
 *              bounds, and where ours says DECODE_OK the reference must
 *              agree byte for byte.
 *
 * The codec-specific hand-made streams stay in tests/test_<codec>.c.
 * Every buffer has exactly its size, the workspace too (ASan builds), and
 * guard bytes elsewhere (tests/testlib.h).  The -m32 builds link only
 * the references with an i386 library (REFERENCE_I386).
 *
 * usage: test_reference [file...]   (a file that cannot be read fails)
 * TEST_REFERENCE=NAME runs only the lines of that reference name or codec.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "our_decoders.h"
#include "reference.h"
#include "testgen.h"
#include "testlib.h"

/* The reference under test and our decoder of its codec. */
static const struct reference *ref;
static const struct our_decoder *dec;

/* Our decoder through decode_exact, with an exact workspace of its own. */
static int run_ours(const uint8_t *src, size_t src_len, size_t dst_len, uint8_t **out)
{
	struct buf w = buf_new(dec->workspace);
	int st = decode_exact(dec->fn, src, src_len, dst_len, &w, out);

	buf_free(&w);
	return st;
}

/* Whether a wrong dst_len may fail with any status (zstd: see the top). */
static int loose_sizes(void)
{
	return !strcmp(dec->ident, "zstd");
}

/* One stream blk of data[0..n) through our decoder and the reference's,
 * inside the current case. */
static void check_stream(const uint8_t *data, size_t n, const uint8_t *blk, size_t clen, const char *what)
{
	uint8_t *mine = xmalloc(n);
	const char *why;
	size_t at;

	expect_exact(run_ours, data, n, blk, clen, what, NULL);
	if ((why = ref->decode(blk, clen, mine, n)))
		failf("%s: n=%zu: %s's decoder: %s", what, n, ref->name, why);
	else if ((at = first_diff(mine, data, n)) != n)
		failf("%s: n=%zu: %s's decoder differs at byte %zu", what, n, ref->name, at);
	free(mine);
	expect_wrong_sizes(run_ours, data, n, blk, clen, what, loose_sizes() ? SIZES_NOT_OK : SIZES_STATUS);
}

/* The reference's compressor variant k on data[0..n), checked
 * (roundtrip_each). */
static void check_variant(unsigned k, const uint8_t *data, size_t n, const char *what)
{
	uint8_t *blk = NULL;
	size_t clen = 0;
	const char *why = ref->compress(k, data, n, &blk, &clen);

	if (why)
		failf("%s: %s's compressor: %s", what, ref->name, why);
	else
		check_stream(data, n, blk, clen, what);
	free(blk);
}

static struct compressors variants;

static void check_last(unsigned k, const uint8_t *data, size_t n, const char *what)
{
	(void)k;
	check_variant(variants.count - 1, data, n, what);
}

/* One case per variant: "CODEC/REF:NAME/VARIANT". */
static void roundtrip(const char *name, const uint8_t *data, size_t n)
{
	char full[400];

	snprintf(full, sizeof full, "%s/%s:%s", dec->ident, ref->name, name);
	roundtrip_each(&variants, full, data, n);
}

/* One case per variant, "CODEC/REF:NAME-LO..HI/VARIANT": every length up
 * to 64, then every 11th (each length is a compression and four decodes,
 * and libbz2 and liblzma set up megabytes of state for each). */
/* One case, "CODEC/REF:NAME/VARIANT", with the last (strongest) variant
 * only: for the inputs of a megabyte and more, which the strongest
 * settings of liblzma and libbz2 take seconds over. */
static void roundtrip_big(const char *name, const uint8_t *data, size_t n)
{
	const char *last = variants.names[variants.count - 1];
	struct compressors one = { 1, &last, check_last };

	char full[400];

	snprintf(full, sizeof full, "%s/%s:%s", dec->ident, ref->name, name);
	roundtrip_each(&one, full, data, n);
}

static void roundtrip_lengths(const char *name, size_t lo, size_t hi, void (*gen)(uint8_t *, size_t))
{
	uint8_t *data = xmalloc(hi);
	char what[64];

	for (unsigned k = 0; k < variants.count; k++) {
		begin_case();
		for (size_t n = lo; n <= hi && !case_failed; n += n < 64 ? 1 : 11) {
			gen(data, n);
			snprintf(what, sizeof what, "length %zu", n);
			check_variant(k, data, n, what);
		}
		end_casef("%s/%s:%s-%zu..%zu/%s", dec->ident, ref->name, name, lo, hi, variants.names[k]);
	}
	free(data);
}

/* ---- the corpus ----------------------------------------------------------- */

static void test_inputs(void)
{
	uint8_t *d = xmalloc(3 * MIB);
	char name[64];

	roundtrip("empty", d, 0);
	d[0] = 0x42;
	roundtrip("one-byte", d, 1);

	roundtrip_lengths("tiny-random", 2, 300, gen_random);
	roundtrip_lengths("tiny-zeros", 1, 300, gen_zeros);
	roundtrip_lengths("tiny-abc", 2, 100, gen_abc);
	roundtrip_lengths("small-semi", 2, 400, gen_semi);
	roundtrip_lengths("small-abc", 65, 300, gen_abc);
	roundtrip_lengths("small-text", 200, 700, gen_text);
	roundtrip_lengths("small-runs", 2, 300, gen_runs);
	roundtrip_lengths("small-zero-spots", 2, 400, gen_zero_spots);

	memset(d, 0, 3 * MIB);
	roundtrip_big("zeros-3MiB", d, 3 * MIB);
	{
		/* Around the boundaries of the formats' length fields and
		 * run codings (deflate's 258, bzip2's RLE1 4 and 4 + 255). */
		static const size_t lens[] = { 3, 4, 5, 8, 13, 100, 258, 259, 260, 263, 264, 518, 519,
					       520, 1000, 4096, 65543, 300001 };

		for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
			memset(d, 0xA5, lens[k]);
			snprintf(name, sizeof name, "repeated-byte-%zu", lens[k]);
			roundtrip(name, d, lens[k]);
		}
	}
	for (size_t period = 1; period <= 20; period++) {
		gen_periodic(d, 20000, period, 0);
		snprintf(name, sizeof name, "period-%zu", period);
		roundtrip(name, d, 20000);
		gen_periodic(d, 20000, period, 1);
		snprintf(name, sizeof name, "period-%zu-noisy", period);
		roundtrip(name, d, 20000);
	}
	for (size_t i = 0; i < 256; i++)
		d[i] = (uint8_t)i;
	roundtrip("all-256-bytes", d, 256);

	gen_random(d, MIB);
	roundtrip_big("random-1MiB", d, MIB);
	/* Random data with copies of itself: long literal runs, long
	 * matches, and the longest distances of a 32 KiB window. */
	gen_random(d, 300000);
	memcpy(d + 150000, d + 1000, 100000);
	roundtrip("random-with-long-match", d, 300000);
	gen_random(d, 300000);
	memcpy(d + 150000, d + 150000 - 32768, 30000);
	roundtrip("random-with-far-match", d, 300000);

	gen_text(d, MIB);
	roundtrip_big("text-1MiB", d, MIB);
	gen_skewed(d, MIB);
	roundtrip_big("skewed-1MiB", d, MIB);
	gen_runs(d, MIB);
	roundtrip_big("runs-1MiB", d, MIB);
	gen_zero_heavy(d, MIB);
	roundtrip_big("zero-heavy-1MiB", d, MIB);
	gen_mixed(d, 2 * MIB);
	roundtrip_big("mixed-2MiB", d, 2 * MIB);
	gen_mixed_far(d, 2 * MIB);
	roundtrip_big("mixed-far-2MiB", d, 2 * MIB);
	free(d);
}

/* The files named on the command line.  One that cannot be read is a
 * failure, not a skip: whoever named it meant it to be tested. */
static void test_files(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		size_t size;
		uint8_t *data = read_whole_file(argv[i], &size);

		if (!data) {
			begin_case();
			failf("cannot read it: %s", strerror(errno));
			end_casef("%s/%s:file:%s", dec->ident, ref->name, argv[i]);
			continue;
		}
		char name[300];

		snprintf(name, sizeof name, "file:%s", argv[i]);
		roundtrip_big(name, data, size);
		free(data);
	}
}

/* ---- damage ----------------------------------------------------------------- */

/* The last variant's stream of a mixed input, for the damage cases. */
static uint8_t *sample_stream(uint8_t *data, size_t n, size_t *clen)
{
	uint8_t *blk = NULL;
	const char *why;

	gen_mixed(data, n);
	why = ref->compress(variants.count - 1, data, n, &blk, clen);
	if (why) {
		fprintf(stderr, "test_reference: %s: %s\n", ref->name, why);
		exit(2);
	}
	return blk;
}

/* Cut short anywhere: never DECODE_OK (every cut in the first and last
 * 64 bytes, evenly spaced ones between). */
static void test_truncation(void)
{
	static const size_t sizes[] = { 1000, 70000 };

	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		size_t n = sizes[s], clen;
		uint8_t *data = xmalloc(n), *blk = sample_stream(data, n, &clen);
		size_t step = clen > 256 ? clen / 97 : 1;

		begin_case();
		for (size_t cut = 0; cut < clen && !case_failed; cut = cut < 64 || cut + 64 >= clen ? cut + 1 : cut + step) {
			int st = run_ours(blk, cut, n, NULL);

			if (st == DECODE_OK)
				failf("cut to %zu of %zu bytes: DECODE_OK", cut, clen);
		}
		end_casef("%s/%s:truncated-%zu", dec->ident, ref->name, n);
		free(blk);
		free(data);
	}
}

/* Where ours accepts a damaged stream, the reference must decode it to
 * the same bytes. */
static void agree_if_ok(const uint8_t *blk, size_t clen, size_t n, const char *what)
{
	uint8_t *out = NULL, *mine;
	const char *why;
	size_t at;

	if (run_ours(blk, clen, n, &out) == DECODE_OK) {
		mine = xmalloc(n);
		if ((why = ref->decode(blk, clen, mine, n)))
			failf("%s: ours says OK, %s: %s", what, ref->name, why);
		else if ((at = first_diff(mine, out, n)) != n)
			failf("%s: ours and %s differ at byte %zu", what, ref->name, at);
		free(mine);
	}
	free(out);
}

static void test_garbage(void)
{
	const size_t n = 20000;
	size_t clen;
	uint8_t *data = xmalloc(n), *blk = sample_stream(data, n, &clen), *g = xmalloc(4096);
	char what[64];

	begin_case();
	for (int round = 0; round < 300 && !case_failed; round++) {
		size_t len = rng_below(4096);

		gen_random(g, len);
		snprintf(what, sizeof what, "random %zu bytes (round %d)", len, round);
		agree_if_ok(g, len, 1 + rng_below(3 * len + 1), what);
	}
	end_casef("%s/%s:garbage-random", dec->ident, ref->name);

	begin_case();
	for (int round = 0; round < 300 && !case_failed; round++) {
		uint8_t *d = xmalloc(clen);

		memcpy(d, blk, clen);
		for (int k = 1 + (int)rng_below(4); k > 0 && clen; k--)
			d[rng_below(clen)] ^= (uint8_t)(1u << rng_below(8));
		snprintf(what, sizeof what, "bit flips (round %d)", round);
		agree_if_ok(d, clen, n, what);
		free(d);
	}
	end_casef("%s/%s:garbage-flips", dec->ident, ref->name);
	free(g);
	free(blk);
	free(data);
}

/* ---- the table ------------------------------------------------------------- */

int main(int argc, char **argv)
{
	char names[8][32];
	const char *name_ptrs[8];
	const char *only = getenv("TEST_REFERENCE");

	for (size_t r = 0; r < n_references; r++) {
		ref = &references[r];
		if (only && strcmp(only, ref->name) && strcmp(only, ref->codec))
			continue;
		dec = find_our_decoder(ref->codec);
		begin_case();
		if (!dec)
			failf("decode/references.def names codec %s, which decode/codecs.def does not have",
			      ref->codec);
		variants.count = ref_variant_count(ref);
		if (variants.count == 0 || variants.count > 8)
			failf("%u compressor variants (1..8 wanted)", variants.count);
		end_casef("%s/%s:table", ref->codec, ref->name);
		if (case_failed)
			continue;
		for (unsigned k = 0; k < variants.count; k++)
			name_ptrs[k] = ref_variant_name(ref, k, names[k], sizeof names[k]);
		variants.names = name_ptrs;
		variants.check = check_variant;

		test_inputs();
		test_files(argc, argv);
		test_truncation();
		test_garbage();
	}
	return finish_tests("test_reference");
}
