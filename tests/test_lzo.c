/* test_lzo.c - host unit test for decode/lzo_decode.c, decode/lzo_rle_decode.c
 * (the core in decode/lzo1x_core.h) and our compressor tools/compress/compress_lzo_rle_opt.c.
 *
 *   - liblzo2's own streams (lzo1x_1, lzo1x_999) of many inputs: lzo_decode
 *     reproduces them, agrees with lzo1x_decompress_safe and with the
 *     reference decoder (tools/reference/lzo_ref.h); one byte of dst less is
 *     OUTPUT_OVERRUN, one more SHORT_OUTPUT; lzo_rle_decode refuses them;
 *   - our compressor, version 0 (also decoded by liblzo2) and version 1
 *     (LZO-RLE, decoded by lzo_rle_decode; lzo_decode refuses it), on the
 *     same inputs; on zero-heavy inputs it must use zero runs and beat
 *     lzo1x_999, and on the files given it must not lose to lzo1x_999;
 *   - hand-built streams of every instruction kind, distance class and
 *     length near the ends of the buffers (where the fast loop hands over
 *     to the safe one), zero runs of 4..2051 bytes with 0..3 trailing
 *     literals, and known-bad streams with their exact statuses;
 *   - every proper prefix of small streams (TRUNCATED), bit flips and
 *     random garbage (any status, the same as the reference decoder's,
 *     the same bytes as liblzo2 when both decode).
 *
 * usage: test_lzo [file...]   (extra inputs, e.g. the test kernels; missing
 *                              files are skipped)
 *
 * Every buffer handed to a decoder has exactly the size it is told, so the
 * ASan build catches any access outside; without ASan the output buffers
 * get guard bytes on both sides, checked after every call.  Prints "ok
 * <name>" / "FAIL <name>: <why>" per case and "test_lzo: N passed, M
 * failed, K skipped" (tests/testlib.h); exits 1 if anything failed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzo/lzo1x.h>

#include "decode.h"
#include "testgen.h"
#include "testlib.h"
#include "compress_lzo_rle_opt.h"
#include "lzo_ref.h"

/* ---- decoding ----------------------------------------------------------- */

/* Our decoder for a bitstream version: 0 lzo_decode, 1 lzo_rle_decode. */
static decode_fn decoder(int version)
{
	return version ? lzo_rle_decode : lzo_decode;
}

/* Our decoder of a version through decode_exact, and the reference
 * decoder likewise; their statuses must match, and their outputs on OK.
 * The output (if wanted) in *out (malloc'ed, dst_len bytes); the
 * reference's statistics in *stats (if given). */
static int run_decode(int version, const uint8_t *src, size_t src_len, size_t dst_len, uint8_t **out,
		      struct lzo_ref_stats *stats)
{
	struct lzo_ref_stats local;
	uint8_t *got = NULL, *ref = xmalloc(dst_len);
	int st = decode_exact(decoder(version), src, src_len, dst_len, NULL, &got);
	int rst = lzo_ref_decode(src, src_len, ref, dst_len, version, stats ? stats : &local);

	/* lzo streams carry no check: CHECK_MISMATCH is not an answer */
	if (st == DECODE_CHECK_MISMATCH)
		failf("v%d: CHECK_MISMATCH from a format without a check", version);
	if (st != rst)
		failf("v%d: status %s, the reference decoder says %s (src %zu, dst %zu bytes)", version,
		      status_name(st), status_name(rst), src_len, dst_len);
	else if (st == DECODE_OK && first_diff(got, ref, dst_len) != dst_len)
		failf("v%d: differs from the reference decoder at byte %zu", version,
		      first_diff(got, ref, dst_len));
	if (out)
		*out = got;
	else
		free(got);
	free(ref);
	return st;
}

/* run_decode of each version, as a run_fn (tests/testlib.h). */
static int run_v0(const uint8_t *src, size_t src_len, size_t dst_len, uint8_t **out)
{
	return run_decode(0, src, src_len, dst_len, out, NULL);
}

static int run_v1(const uint8_t *src, size_t src_len, size_t dst_len, uint8_t **out)
{
	return run_decode(1, src, src_len, dst_len, out, NULL);
}

static const run_fn run_version[2] = { run_v0, run_v1 };

/* liblzo2's lzo1x_decompress_safe: 1 if it decodes exactly n bytes equal
 * to want. */
static int liblzo2_agrees(const uint8_t *blk, size_t clen, const uint8_t *want, size_t n)
{
	uint8_t *ref = xmalloc(n);
	lzo_uint got = n;
	int r = lzo1x_decompress_safe(blk, clen, ref, &got, NULL);
	int same = r == LZO_E_OK && got == n && first_diff(ref, want, n) == n;

	free(ref);
	return same;
}

/* ---- compression -------------------------------------------------------- */

enum codec { C_LZO1X_1, C_LZO1X_999, C_OURS_V0, C_OURS_V1, N_CODECS };
static const char *const codec_name[] = { "lzo1x_1", "lzo1x_999", "ours-v0", "ours-rle" };
static const int codec_version[] = { 0, 0, 0, 1 };

/* Returns a malloc'ed stream of data[0..n) and its size in *clen. */
static uint8_t *compress(unsigned c, const uint8_t *data, size_t n, size_t *clen)
{
	size_t cap = n + n / 16 + 64 + 3;
	uint8_t *out;

	if (c == C_OURS_V0 || c == C_OURS_V1) {
		cap = lzo_opt_bound(n);
		out = xmalloc(cap);
		*clen = lzo_opt_compress(data, n, out, cap, c == C_OURS_V1);
		if (*clen == 0) {
			fprintf(stderr, "test_lzo: lzo_opt_compress failed on %zu bytes\n", n);
			exit(2);
		}
		return out;
	}

	void *work = xmalloc(c == C_LZO1X_1 ? LZO1X_1_MEM_COMPRESS : LZO1X_999_MEM_COMPRESS);
	lzo_uint got = 0;
	int r;

	out = xmalloc(cap);
	if (c == C_LZO1X_1)
		r = lzo1x_1_compress(data, n, out, &got, work);
	else
		r = lzo1x_999_compress(data, n, out, &got, work);
	free(work);
	if (r != LZO_E_OK) {
		fprintf(stderr, "test_lzo: liblzo2 failed to compress %zu bytes (%d)\n", n, r);
		exit(2);
	}
	*clen = got;
	return out;
}

static const struct stream_makers makers = { N_CODECS, codec_name, compress };

/* Round trip of one stream, inside the current case: the exact size
 * decodes and matches the input (and liblzo2, for version 0); one byte
 * less is OUTPUT_OVERRUN, one more SHORT_OUTPUT; the other entry point
 * refuses the stream. */
static void check_stream(const uint8_t *data, size_t n, const uint8_t *blk, size_t clen, int version,
			 const char *what, struct lzo_ref_stats *stats)
{
	uint8_t *out = NULL;
	size_t at;
	int st;

	st = run_decode(version, blk, clen, n, &out, stats);
	if (st != DECODE_OK)
		failf("%s: n=%zu clen=%zu: status %s", what, n, clen, status_name(st));
	else if ((at = first_diff(out, data, n)) != n)
		failf("%s: n=%zu: output differs from input at byte %zu", what, n, at);
	free(out);
	if (version == 0 && !liblzo2_agrees(blk, clen, data, n))
		failf("%s: n=%zu: lzo1x_decompress_safe does not reproduce the input", what, n);
	expect_wrong_sizes(run_version[version], data, n, blk, clen, what, SIZES_STATUS_BYTES);

	st = run_decode(!version, blk, clen, n, NULL, NULL);
	if (st == DECODE_OK)
		failf("%s: n=%zu: the version-%d decoder accepts a version-%d stream", what, n, !version,
		      version);
}

/* ---- positive tests ------------------------------------------------------ */

/* LZO-RLE's point: zero-heavy inputs use zero runs and come out smaller
 * than lzo1x_999's; the others at least no larger. */
static void test_rle_sizes(void)
{
	static const struct { const char *name; size_t n; void (*gen)(uint8_t *, size_t); int zero_heavy; } in[] = {
		{ "zeros-1MiB", MIB, gen_zeros, 1 },
		{ "zero-heavy-1MiB", MIB, gen_zero_heavy, 1 },
		{ "zero-spots-256KiB", 256 * 1024, gen_zero_spots, 1 },
		{ "mixed-2MiB", 2 * MIB, gen_mixed_far, 0 },
		{ "text-1MiB", MIB, gen_text, 0 },
		{ "semi-1MiB", MIB, gen_semi, 0 },
	};
	uint8_t *d = xmalloc(2 * MIB);
	char name[128];

	for (size_t k = 0; k < sizeof in / sizeof in[0]; k++) {
		size_t c999, crle;
		uint8_t *b999, *brle;
		struct lzo_ref_stats stats;

		in[k].gen(d, in[k].n);
		b999 = compress(C_LZO1X_999, d, in[k].n, &c999);
		brle = compress(C_OURS_V1, d, in[k].n, &crle);
		snprintf(name, sizeof name, "rle-size-%s", in[k].name);
		begin_case();
		check_stream(d, in[k].n, brle, crle, 1, "lzo-rle", &stats);
		if (in[k].zero_heavy && stats.zero_runs == 0)
			failf("no zero-run instruction in a zero-heavy input");
		if (in[k].zero_heavy ? crle >= c999 : crle > c999)
			failf("ours %zu bytes, lzo1x_999 %zu", crle, c999);
		printf("note: %s: lzo1x_999 %zu, ours lzo-rle %zu (%zu zero runs, %zu bytes)\n", in[k].name,
		       c999, crle, stats.zero_runs, stats.zero_bytes);
		end_case(name);
		free(b999);
		free(brle);
	}
	free(d);
}

static void test_files(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		size_t size;
		uint8_t *data = read_whole_file(argv[i], &size);

		char name[300];

		if (!data) {
			snprintf(name, sizeof name, "file:%s", argv[i]);
			skip_case(name, strerror(errno));
			continue;
		}

		size_t clen[N_CODECS];

		for (int c = 0; c < N_CODECS; c++) {
			uint8_t *blk = compress((enum codec)c, data, size, &clen[c]);

			snprintf(name, sizeof name, "file:%s/%s", argv[i], codec_name[c]);
			begin_case();
			check_stream(data, size, blk, clen[c], codec_version[c], "roundtrip", NULL);
			if (c == C_OURS_V1 && clen[c] > clen[C_LZO1X_999])
				failf("ours lzo-rle %zu bytes, lzo1x_999 %zu", clen[c], clen[C_LZO1X_999]);
			end_case(name);
			free(blk);
		}
		printf("note: %s: %zu bytes: lzo1x_1 %zu, lzo1x_999 %zu, ours v0 %zu, ours lzo-rle %zu\n", argv[i],
		       size, clen[C_LZO1X_1], clen[C_LZO1X_999], clen[C_OURS_V0], clen[C_OURS_V1]);
		free(data);
	}
}

/* ---- hand-built streams -------------------------------------------------
 * A tiny encoder that writes exactly the instruction asked for (not the
 * cheapest one), with the expected output computed byte by byte. */

enum kind { K_M1A, K_M1B, K_M2, K_M3, K_M4, K_RLE };
static const char *const kind_name[] = { "M1a", "M1b", "M2", "M3", "M4", "zero-run" };

struct builder {
	uint8_t *blk;
	size_t blen;
	uint8_t *out;
	size_t olen;
	int started;
	size_t sbits;           /* index of the last instruction's S bits */
	unsigned state;
};

static void b_init(struct builder *b, int version)
{
	b->blen = b->olen = 0;
	b->started = 0;
	b->state = 0;
	if (version) {
		b->blk[b->blen++] = 17;
		b->blk[b->blen++] = 1;
	}
}

static void b_ext(struct builder *b, size_t v)
{
	for (; v > 255; v -= 255)
		b->blk[b->blen++] = 0;
	b->blk[b->blen++] = (uint8_t)v;
}

/* k literals (random, or zero if zeros): in the first byte, in the S bits
 * of the last instruction, or as a run. */
static void b_lits(struct builder *b, size_t k, int zeros)
{
	if (k == 0)
		return;
	if (!b->started && k <= 238) {
		b->blk[b->blen++] = (uint8_t)(17 + k);
		b->state = k < 4 ? (unsigned)k : 4;
	} else if (b->started && k <= 3) {
		b->blk[b->sbits] |= (uint8_t)k;
		b->state = (unsigned)k;
	} else {
		if (k <= 18) {
			b->blk[b->blen++] = (uint8_t)(k - 3);
		} else {
			b->blk[b->blen++] = 0;
			b_ext(b, k - 18);
		}
		b->state = 4;
	}
	for (size_t i = 0; i < k; i++) {
		uint8_t c = zeros ? 0 : (uint8_t)rng();

		b->blk[b->blen++] = c;
		b->out[b->olen++] = c;
	}
	b->started = 1;
}

/* An M3 or M4: opcode op with len - 2 in its low bits, or, past max,
 * zero there and len - max in extension bytes; then the 14 low bits of
 * d after the two state bits. */
static void b_long_match(struct builder *b, uint8_t op, size_t len, size_t max, size_t d)
{
	if (len <= max) {
		b->blk[b->blen++] = (uint8_t)(op | (len - 2));
	} else {
		b->blk[b->blen++] = op;
		b_ext(b, len - max);
	}
	b->sbits = b->blen;
	b->blk[b->blen++] = (uint8_t)(d << 2);
	b->blk[b->blen++] = (uint8_t)(d >> 6);
}

/* One instruction; the caller makes sure it is legal here. */
static void b_inst(struct builder *b, enum kind k, size_t len, size_t dist)
{
	size_t d;

	b->started = 1;
	switch (k) {
	case K_M1A:
	case K_M1B:
		d = dist - (k == K_M1A ? 1 : 2049);
		b->sbits = b->blen;
		b->blk[b->blen++] = (uint8_t)((d & 3) << 2);
		b->blk[b->blen++] = (uint8_t)(d >> 2);
		break;
	case K_M2:
		d = dist - 1;
		b->sbits = b->blen;
		b->blk[b->blen++] = (uint8_t)((len - 1) << 5 | (d & 7) << 2);
		b->blk[b->blen++] = (uint8_t)(d >> 3);
		break;
	case K_M3:
		b_long_match(b, 0x20, len, 33, dist - 1);
		break;
	case K_M4:
		d = dist - 16384;
		b_long_match(b, (uint8_t)(0x10 | (d >> 14) << 3), len, 9, d);
		break;
	case K_RLE:
		b->blk[b->blen++] = (uint8_t)(0x18 | ((len - 4) & 7));
		b->sbits = b->blen;
		b->blk[b->blen++] = 0xfc;
		b->blk[b->blen++] = 0xff;
		b->blk[b->blen++] = (uint8_t)((len - 4) >> 3);
		memset(b->out + b->olen, 0, len);
		b->olen += len;
		b->state = 0;
		return;
	}
	for (size_t i = 0; i < len; i++, b->olen++)
		b->out[b->olen] = b->out[b->olen - dist];
	b->state = 0;
}

static void b_end(struct builder *b)
{
	b->blk[b->blen++] = 0x11;
	b->blk[b->blen++] = 0;
	b->blk[b->blen++] = 0;
}

static void check_built(struct builder *b, int version, const char *what)
{
	expect_exact(run_version[version], b->out, b->olen, b->blk, b->blen, what, NULL);
	if (version == 0 && !liblzo2_agrees(b->blk, b->blen, b->out, b->olen))
		failf("%s: lzo1x_decompress_safe disagrees", what);
	expect_wrong_sizes(run_version[version], b->out, b->olen, b->blk, b->blen, what, SIZES_STATUS);
}

/* Builds: `pre` literals, then `reps` times (what makes the instruction
 * legal, the instruction, `between` literals), then `tail` literals. */
static void build_one(struct builder *b, int version, size_t pre, enum kind k, size_t len, size_t dist,
		      int reps, size_t between, size_t tail)
{
	b_init(b, version);
	b_lits(b, pre, 0);
	for (int r = 0; r < reps; r++) {
		if (k == K_M1A && (b->state < 1 || b->state > 3)) {
			b_inst(b, K_M2, 3, 1);
			b_lits(b, 1 + (size_t)r % 3, 0);
		} else if (k == K_M1B && b->state != 4) {
			b_lits(b, 4 + (size_t)r, 0);
		}
		b_inst(b, k, len, dist);
		/* Literals after S-bit literals would be a second group:
		 * an M1b's run between goes in one piece. */
		if (r + 1 < reps)
			b_lits(b, k == K_M1B ? between + 4 : between, 0);
	}
	b_lits(b, tail, 0);
	b_end(b);
}

static void test_built(void)
{
	static const size_t m3_len[] = { 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 34, 35, 40, 48,
					 63, 64, 65, 100, 288, 289, 1000 };
	static const size_t m3_dist[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 16, 17, 23, 31, 32, 33,
					  64, 1000, 2049, 16384 };
	static const size_t m4_len[] = { 3, 4, 8, 9, 10, 11, 30, 264, 265, 300 };
	static const size_t m4_dist[] = { 16385, 16386, 20000, 32767, 32768, 49150, 49151 };
	static const size_t rle_len[] = { 4, 5, 6, 7, 8, 11, 12, 13, 15, 16, 17, 20, 31, 32, 33, 47, 48,
					  49, 100, 1000, 2050, 2051 };
	static const size_t tails[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 12, 15, 16, 17, 18, 19, 20, 24, 31,
					40, 47, 48, 49, 60 };
	struct builder b;
	char what[160];

	b.blk = xmalloc(80000);
	b.out = xmalloc(80000);
	for (int k = K_M1A; k <= K_RLE; k++) {
		for (int version = 0; version <= 1; version++) {
			char name[64];

			if (k == K_RLE && version == 0)
				continue;
			snprintf(name, sizeof name, "built-%s-v%d", kind_name[k], version);
			begin_case();
			for (size_t li = 0;; li++) {
				size_t len;

				switch (k) {
				case K_M1A: len = 2; break;
				case K_M1B: len = 3; break;
				case K_M2: len = 3 + li; break;
				case K_M3: len = m3_len[li]; break;
				case K_M4: len = m4_len[li]; break;
				default: len = rle_len[li]; break;
				}
				for (size_t di = 0;; di++) {
					size_t dist;

					switch (k) {
					case K_M1A: dist = di < 20 ? di + 1 : (di == 20 ? 512 : 1024); break;
					case K_M1B: dist = di < 12 ? 2049 + di : 3072; break;
					case K_M2: dist = di < 20 ? di + 1 : (di == 20 ? 1000 : 2048); break;
					case K_M3: dist = m3_dist[di]; break;
					case K_M4: dist = m4_dist[di]; break;
					default: dist = 0; break;
					}
					/* In version 1, distance 49151 is a zero run. */
					if (!(k == K_M4 && version == 1 && dist == 49151) &&
					    !(k == K_M4 && version == 1 && len >= 261 && len <= 264 &&
					      (dist & 0x803f) == 0x803f)) {
						for (size_t ti = 0; ti < sizeof tails / sizeof tails[0] && !case_failed; ti++) {
							size_t pre = dist + 1 + (ti & 7);

							build_one(&b, version, pre, (enum kind)k, len, dist, 1, 0, tails[ti]);
							snprintf(what, sizeof what, "%s len %zu dist %zu tail %zu", kind_name[k],
								 len, dist, tails[ti]);
							check_built(&b, version, what);
							build_one(&b, version, pre, (enum kind)k, len, dist, 3, ti & 3, tails[ti]);
							snprintf(what, sizeof what, "3x %s len %zu dist %zu between %zu tail %zu",
								 kind_name[k], len, dist, ti & 3, tails[ti]);
							check_built(&b, version, what);
						}
					}
					if ((k == K_M1A && di == 21) || (k == K_M1B && di == 12) || (k == K_M2 && di == 21) ||
					    (k == K_M3 && di + 1 == sizeof m3_dist / sizeof m3_dist[0]) ||
					    (k == K_M4 && di + 1 == sizeof m4_dist / sizeof m4_dist[0]) || k == K_RLE)
						break;
				}
				if (k == K_M1A || k == K_M1B || (k == K_M2 && len == 8) ||
				    (k == K_M3 && li + 1 == sizeof m3_len / sizeof m3_len[0]) ||
				    (k == K_M4 && li + 1 == sizeof m4_len / sizeof m4_len[0]) ||
				    (k == K_RLE && li + 1 == sizeof rle_len / sizeof rle_len[0]))
					break;
			}
			end_case(name);
		}
	}
	free(b.blk);
	free(b.out);
}

/* Zero runs as the brief of the format has them: runs of 4 and 2051 zeros
 * with 0..3 trailing literals, after each kind of state, at the start, in
 * the middle (fast loop) and at the end of a stream; and what they are
 * when read as version 0. */
static void test_zero_runs(void)
{
	static const size_t runs[] = { 4, 2051 };
	struct builder b;
	char what[128];

	b.blk = xmalloc(16384);
	b.out = xmalloc(16384);
	begin_case();
	for (size_t r = 0; r < 2; r++)
	for (size_t trail = 0; trail <= 3; trail++)
	for (size_t pre = 1; pre <= 5; pre++)
	for (size_t post = 0; post <= 2; post++) {
		b_init(&b, 1);
		b_lits(&b, pre, 0);                     /* state 1..3 or a run */
		for (size_t k = 0; k < post * 50; k++) {
			b_inst(&b, K_M3, 20, 1 + k % pre);
			b_lits(&b, 1 + k % 5, 0);
		}
		b_inst(&b, K_RLE, runs[r], 0);
		b_lits(&b, trail, 0);
		if (post) {
			b_lits(&b, 0, 0);
			b_inst(&b, K_M2, 3, 1);
			b_inst(&b, K_RLE, runs[1 - r], 0);  /* after a match with S = 0 */
			b_lits(&b, trail + 4, 0);
			b_inst(&b, K_M2, 4, 2);
		}
		b_end(&b);
		snprintf(what, sizeof what, "run %zu trail %zu pre %zu post %zu", runs[r], trail, pre, post);
		check_built(&b, 1, what);
		/* The same bytes without the header, read as version 0: an M4
		 * at distance 49151, before the start of the output. */
		if (run_decode(0, b.blk + 2, b.blen - 2, b.olen, NULL, NULL) == DECODE_OK)
			failf("%s: decodes as version 0", what);
		/* Every proper prefix is truncated. */
		for (size_t cut = 0; cut < b.blen && !case_failed; cut++) {
			int st = run_decode(1, b.blk, cut, b.olen, NULL, NULL);

			if (st != DECODE_TRUNCATED)
				failf("%s: prefix %zu/%zu gave %s", what, cut, b.blen, status_name(st));
		}
	}
	end_case("zero-runs-4-and-2051");

	/* A zero run too long for dst, in the fast loop and in the safe one. */
	begin_case();
	for (size_t pre = 1; pre <= 300; pre += 299) {
		b_init(&b, 1);
		b_lits(&b, pre, 0);
		b_inst(&b, K_RLE, 2051, 0);
		b_lits(&b, 100, 0);
		b_end(&b);
		for (size_t cut = 1; cut <= 2051 + 100; cut += cut < 120 ? 1 : 97) {
			int st = run_decode(1, b.blk, b.blen, b.olen - cut, NULL, NULL);

			if (st != DECODE_OUTPUT_OVERRUN)
				failf("pre %zu, dst %zu short: %s", pre, cut, status_name(st));
		}
	}
	end_case("zero-run-overrun");
	free(b.blk);
	free(b.out);
}

/* ---- negative tests ------------------------------------------------------ */

/* Every proper prefix of a valid stream is TRUNCATED. */
static void check_prefixes(unsigned k, const uint8_t *data, size_t n, const uint8_t *blk, size_t clen)
{
	(void)data;
	expect_prefixes(run_version[codec_version[k]], n, blk, clen, 1u << DECODE_TRUNCATED);
}

static void test_truncation(void)
{
	static const struct gen_input zeros[] = {
		{ "zeros-0", 0, gen_zeros },
		{ "zeros-3000", 3000, gen_zeros },
	};

	each_stream(&makers, "truncated", small_inputs, n_small_inputs, check_prefixes);
	each_stream(&makers, "truncated", zeros, sizeof zeros / sizeof zeros[0], check_prefixes);
}

/* Bit flips, byte changes and random garbage: any status (the same as the
 * reference decoder's, checked in run_decode), never an access outside
 * the buffers; when liblzo2 decodes a version-0 stream to exactly dst_len
 * bytes with the canonical end, ours must too, with the same bytes. */
static void check_flips(unsigned k, const uint8_t *data, size_t n, const uint8_t *blk, size_t clen)
{
	static uint8_t lib[70000 + 1];
	const size_t flips = n > 10000 ? 300 : 3000;
	const int v = codec_version[k];

	(void)data;
	for (size_t f = 0; f < flips && !case_failed; f++) {
		uint8_t *bad = xmalloc(clen);
		size_t at = rng_below(clen), dst_len = n;
		uint8_t *out = NULL;
		struct lzo_ref_stats stats;
		int st;

		memcpy(bad, blk, clen);
		if (f & 1)
			bad[at] ^= (uint8_t)(1u << rng_below(8));
		else
			bad[at] = (uint8_t)rng();
		if (f % 7 == 0)
			dst_len = rng_below(n + 2);
		st = run_decode(v, bad, clen, dst_len, &out, &stats);
		if (v == 0) {
			lzo_uint got = dst_len;
			int r = lzo1x_decompress_safe(bad, clen, lib, &got, NULL);

			if (r == LZO_E_OK && got == dst_len && !stats.odd_end &&
			    (st != DECODE_OK || first_diff(out, lib, dst_len) != dst_len))
				failf("flip at %zu: liblzo2 decodes %zu bytes, ours %s", at, dst_len,
				      status_name(st));
			if (st == DECODE_OK && !(r == LZO_E_OK && got == dst_len))
				failf("flip at %zu: ours decodes, liblzo2 says %d (%lu bytes)", at, r,
				      (unsigned long)got);
		}
		free(out);
		free(bad);
	}
}

static void test_garbage(void)
{
	static const struct gen_input inputs[] = {
		{ "semi-300", 300, gen_semi },
		{ "text-2000", 2000, gen_text },
		{ "zero-spots-1000", 1000, gen_zero_spots },
		{ "mixed-70000", 70000, gen_mixed_far },
	};

	each_stream(&makers, "garbage", inputs, sizeof inputs / sizeof inputs[0], check_flips);
	begin_case();
	for (size_t f = 0; f < 20000 && !case_failed; f++) {
		size_t n = rng_below(64), dst_len = rng_below(300);
		uint8_t junk[64];

		gen_random(junk, n);
		if (f & 1 && n >= 2) {
			junk[0] = 17;
			junk[1] = 1;
		}
		run_decode(0, junk, n, dst_len, NULL, NULL);
		run_decode(1, junk, n, dst_len, NULL, NULL);
	}
	end_case("garbage-random-streams");
}

/* Hand-made streams with a known answer. */
static void expect(const char *name, int version, const uint8_t *blk, size_t len, size_t dst_len, int want,
		   const void *want_out)
{
	expect_case(run_version[version], name, blk, len, dst_len, want, want_out);
}

static void test_handmade(void)
{
	static const uint8_t eos[] = { 0x11, 0x00, 0x00 };
	static const uint8_t rle_empty[] = { 17, 1, 0x11, 0x00, 0x00 };
	/* "abc" in the first byte (state 3), M1a distance 1, length 2. */
	static const uint8_t m1a[] = { 20, 'a', 'b', 'c', 0x00, 0x00, 0x11, 0x00, 0x00 };
	/* 4 literals (state 4), then an M1b: distance 2049 > 4. */
	static const uint8_t m1b_far[] = { 21, 'a', 'b', 'c', 'd', 0x00, 0x00, 0x11, 0x00, 0x00 };
	/* M2 "aaa" from distance 1 after "a", with S = 2: "xy". */
	static const uint8_t m2[] = { 18, 'a', 0x42, 0x00, 'x', 'y', 0x11, 0x00, 0x00 };
	static const uint8_t m2_far[] = { 18, 'a', 0x44, 0x00, 'x', 'y', 0x11, 0x00, 0x00 };
	/* The same after a literal run read from the very first byte (0). */
	static const uint8_t run_first[] = { 0x01, 'a', 'b', 'c', 'd', 0x11, 0x00, 0x00 };
	static const uint8_t odd_end_len[] = { 18, 'a', 0x12, 0x00, 0x00 };
	static const uint8_t odd_end_s[] = { 18, 'a', 0x11, 0x01, 0x00 };
	static const uint8_t odd_end_ext[] = { 18, 'a', 0x10, 0x05, 0x00, 0x00 };
	static const uint8_t after_end[] = { 18, 'a', 0x11, 0x00, 0x00, 0x00 };
	static const uint8_t v1_in_v0[] = { 17, 1, 18, 'a', 0x11, 0x00, 0x00 };
	static const uint8_t v2[] = { 17, 2, 18, 'a', 0x11, 0x00, 0x00 };
	static const uint8_t v1_ok[] = { 17, 1, 18, 'a', 0x11, 0x00, 0x00 };
	static const uint8_t no_header[] = { 18, 'a', 0x11, 0x00, 0x00 };
	/* Zero run of 4 right after the first literal, with S = 1. */
	static const uint8_t rle4[] = { 17, 1, 18, 'a', 0x18, 0xfd, 0xff, 0x00, 'z', 0x11, 0x00, 0x00 };
	static const uint8_t rle4_out[] = { 'a', 0, 0, 0, 0, 'z' };
	/* An ordinary M4 at distance 49150 in version 1 (LE16 0xfff8) with
	 * too little output: a bad offset, not a zero run. */
	static const uint8_t m4_49150[] = { 17, 1, 18, 'a', 0x19, 0xf8, 0xff, 0x11, 0x00, 0x00 };
	static const uint8_t ext_cut[] = { 18, 'a', 0x20, 0x00, 0x00 };
	static const uint8_t run_cut[] = { 0x00, 0x00, 0x00 };
	static const uint8_t m3_cut[] = { 18, 'a', 0x21, 0x00 };

	expect("handmade-empty-stream", 0, eos, sizeof eos, 0, DECODE_OK, NULL);
	expect("handmade-empty-stream-dst-1", 0, eos, sizeof eos, 1, DECODE_SHORT_OUTPUT, NULL);
	expect("handmade-empty-src", 0, eos, 0, 0, DECODE_TRUNCATED, NULL);
	expect("handmade-empty-src-v1", 1, eos, 0, 0, DECODE_TRUNCATED, NULL);
	expect("handmade-empty-rle-stream", 1, rle_empty, sizeof rle_empty, 0, DECODE_OK, NULL);
	expect("handmade-rle-empty-as-v0", 0, rle_empty, sizeof rle_empty, 0, DECODE_CORRUPT, NULL);
	expect("handmade-m1a-after-first-byte", 0, m1a, sizeof m1a, 5, DECODE_OK, "abccc");
	expect("handmade-m1b-too-far", 0, m1b_far, sizeof m1b_far, 7, DECODE_BAD_OFFSET, NULL);
	expect("handmade-m2-trailing-2", 0, m2, sizeof m2, 6, DECODE_OK, "aaaaxy");
	expect("handmade-m2-too-far", 0, m2_far, sizeof m2_far, 6, DECODE_BAD_OFFSET, NULL);
	expect("handmade-run-in-first-byte-0", 0, run_first, sizeof run_first, 4, DECODE_OK, "abcd");
	expect("handmade-end-other-length", 0, odd_end_len, sizeof odd_end_len, 1, DECODE_CORRUPT, NULL);
	expect("handmade-end-with-s-bits", 0, odd_end_s, sizeof odd_end_s, 1, DECODE_CORRUPT, NULL);
	expect("handmade-end-with-extension", 0, odd_end_ext, sizeof odd_end_ext, 1, DECODE_CORRUPT, NULL);
	expect("handmade-bytes-after-end", 0, after_end, sizeof after_end, 1, DECODE_CORRUPT, NULL);
	expect("handmade-v1-stream-as-v0", 0, v1_in_v0, sizeof v1_in_v0, 1, DECODE_CORRUPT, NULL);
	expect("handmade-version-2", 1, v2, sizeof v2, 1, DECODE_CORRUPT, NULL);
	expect("handmade-version-1", 1, v1_ok, sizeof v1_ok, 1, DECODE_OK, "a");
	expect("handmade-v1-without-header", 1, no_header, sizeof no_header, 1, DECODE_CORRUPT, NULL);
	expect("handmade-v1-short-header", 1, v1_ok, 4, 1, DECODE_TRUNCATED, NULL);
	expect("handmade-zero-run-4-s1", 1, rle4, sizeof rle4, 6, DECODE_OK, rle4_out);
	expect("handmade-zero-run-as-v0", 0, rle4 + 2, sizeof rle4 - 2, 6, DECODE_BAD_OFFSET, NULL);
	expect("handmade-m4-49150-v1", 1, m4_49150, sizeof m4_49150, 4, DECODE_BAD_OFFSET, NULL);
	expect("handmade-extension-cut", 0, ext_cut, sizeof ext_cut, 300, DECODE_TRUNCATED, NULL);
	expect("handmade-run-length-cut", 0, run_cut, sizeof run_cut, 1000, DECODE_TRUNCATED, NULL);
	expect("handmade-m3-distance-cut", 0, m3_cut, sizeof m3_cut, 10, DECODE_TRUNCATED, NULL);

	begin_case();
	if (lzo_decode(NULL, 0, NULL, 0, NULL) != DECODE_TRUNCATED)
		failf("NULL/0 not TRUNCATED");
	if (lzo_decode(eos, sizeof eos, NULL, 0, NULL) != DECODE_OK)
		failf("end marker into NULL/0 not OK");
	if (lzo_rle_decode(rle_empty, sizeof rle_empty, NULL, 0, NULL) != DECODE_OK)
		failf("empty LZO-RLE stream into NULL/0 not OK");
	end_case("handmade-null-empty");

	/* M1b at its real distances after a long literal run (in the first
	 * byte: 0 and a length extension), checked with liblzo2 too. */
	{
		struct builder b;

		b.blk = xmalloc(8192);
		b.out = xmalloc(8192);
		begin_case();
		for (size_t d = 2049; d <= 3072; d += 31) {
			b_init(&b, 0);
			b_lits(&b, 3100, 0);
			b_inst(&b, K_M1B, 3, d);
			b_lits(&b, 2, 0);
			b_end(&b);
			check_built(&b, 0, "m1b after a 3100-byte run");
		}
		end_case("handmade-m1b-real-distances");
		free(b.blk);
		free(b.out);
	}
}

int main(int argc, char **argv)
{
	if (lzo_init() != LZO_E_OK) {
		fprintf(stderr, "test_lzo: lzo_init failed\n");
		return 2;
	}
	test_handmade();
	test_zero_runs();
	test_built();
	test_truncation();
	test_garbage();
	test_rle_sizes();
	test_files(argc, argv);
	return finish_tests("test_lzo");
}
