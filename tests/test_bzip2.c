/* test_bzip2.c - host unit test for decode/bzip2_decode.c.
 *
 * Compresses many inputs with libbz2 (BZ2_bzBuffToBuffCompress at levels 1,
 * 5 and 9) and checks that bzip2_decode reproduces them exactly and agrees
 * with BZ2_bzBuffToBuffDecompress; wrong output sizes, truncations at many
 * cut points, damaged CRCs, header fields and trailing data must give the
 * documented statuses.  Streams built here bit by bit (a naive encoder:
 * sorted rotations, MTF, RUNA/RUNB, fixed-length codes) reach the checks
 * libbz2 never trips: bad group and selector counts, code lengths out of
 * range or oversubscribed, codes that are no code, runs and blocks too
 * long, origPtr out of range, a randomised block.  Last, damaged and
 * random streams: any status, but nothing touched outside the buffers,
 * and where ours says OK libbz2 must agree byte for byte.
 *
 * usage: test_bzip2 [file...]   (extra inputs; missing files are skipped)
 *
 * Every buffer handed to bzip2_decode has exactly the size it is told, the
 * workspace included (DECODE_WORKSPACE_bzip2 bytes, refilled with new
 * garbage before every call), so a build with -fsanitize=address
 * catches any out-of-bounds access; without ASan the output buffers get
 * guard bytes on both sides that are checked after every call.  Prints
 * "ok <name>" / "FAIL <name>: <why>" per case and "test_bzip2: N passed,
 * M failed, K skipped" at the end (tests/testlib.h); exits 1 if anything
 * failed.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bzlib.h>

#include "decode.h"
#include "testgen.h"
#include "testlib.h"

/* ---- running the decoder ---------------------------------------------------- */

/* The workspace: exactly the declared size, allocated once, refilled with
 * a different byte before every call (its contents are undefined on
 * entry, and the decoder must not depend on them): all of it every
 * WS_FULL_FILL calls, otherwise its last WS_TAIL bytes, where the
 * decoder keeps its tables after the 3.6 MB T-vector (filling all of it
 * every time makes the ASan build several times slower). */
#define WS_FULL_FILL 16
#define WS_TAIL      (128u * 1024u)
static struct buf workspace;
static unsigned ws_calls;

/* bzip2_decode through decode_exact, the workspace refilled first. */
static int run_decode(const uint8_t *src, size_t src_len, size_t dst_len, uint8_t **out)
{
	if (ws_calls % WS_FULL_FILL == 0 || workspace.n <= WS_TAIL)
		memset(workspace.p, (uint8_t)ws_calls, workspace.n);
	else
		memset(workspace.p + workspace.n - WS_TAIL, (uint8_t)ws_calls, WS_TAIL);
	ws_calls++;
	return decode_exact(bzip2_decode, src, src_len, dst_len, &workspace, out);
}

/* ---- libbz2 --------------------------------------------------------------- */

/* Returns a malloc'ed bzip2 stream of data[0..n) and its size in *clen. */
static uint8_t *compress(int level, const uint8_t *data, size_t n, size_t *clen)
{
	size_t bound = n + n / 100 + 600;
	unsigned len;
	uint8_t *out;
	int r;

	if (bound > UINT_MAX) {
		fprintf(stderr, "test_bzip2: input of %zu bytes too large for libbz2\n", n);
		exit(2);
	}
	out = xmalloc(bound);
	len = (unsigned)bound;
	r = BZ2_bzBuffToBuffCompress((char *)out, &len, (char *)data, (unsigned)n, level, 0, 0);
	if (r != BZ_OK) {
		fprintf(stderr, "test_bzip2: libbz2 failed to compress %zu bytes (%d)\n", n, r);
		exit(2);
	}
	*clen = len;
	return out;
}

/* libbz2's verdict on a stream with an output buffer of dst_len bytes:
 * 1 if it decodes to exactly dst_len bytes (copied to out, if given). */
static int lib_decodes(const uint8_t *src, size_t src_len, size_t dst_len, uint8_t *out)
{
	char *buf = xmalloc(dst_len + 1);
	unsigned len = (unsigned)(dst_len + 1);
	int r = BZ2_bzBuffToBuffDecompress(buf, &len, (char *)src, (unsigned)src_len, 0, 0);
	int ok = r == BZ_OK && len == dst_len;

	if (ok && out && dst_len)
		memcpy(out, buf, dst_len);
	free(buf);
	return ok;
}

/* ---- positive tests -------------------------------------------------------- */

/* One stream, inside the current case: the exact size decodes and matches
 * both the input and libbz2; one byte less is OUTPUT_OVERRUN, one more
 * SHORT_OUTPUT (with the same bytes in front). */
static void check_stream(const uint8_t *data, size_t n, const uint8_t *s, size_t clen,
			 const char *what)
{
	uint8_t *out = NULL, *ref = xmalloc(n);
	size_t at;
	int st = expect_exact(run_decode, data, n, s, clen, what, &out);

	if (!lib_decodes(s, clen, n, ref))
		failf("%s: n=%zu: libbz2 does not decode its own stream", what, n);
	else if (st == DECODE_OK && (at = first_diff(out, ref, n)) != n)
		failf("%s: n=%zu: differs from libbz2 at byte %zu", what, n, at);
	free(ref);
	free(out);
	expect_wrong_sizes(run_decode, data, n, s, clen, what, SIZES_STATUS_BYTES);
}

/* Level 1: 100k blocks.  Random data (RLE1 changes nothing) of lengths
 * around the block size and its multiples, and text. */
static void test_level1_blocks(void)
{
	uint8_t *d = xmalloc(MIB);
	char name[64];

	{
		static const size_t lens[] = { 99999, 100000, 100001, 199999, 200000, 200001,
					       250000, 1000000 };

		for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
			size_t clen;
			uint8_t *s;

			gen_random(d, lens[k]);
			s = compress(1, d, lens[k], &clen);
			snprintf(name, sizeof name, "level1-blocks-random-%zu", lens[k]);
			begin_case();
			check_stream(d, lens[k], s, clen, "level 1");
			end_case(name);
			free(s);
		}
		gen_text(d, 777777);
		{
			size_t clen;
			uint8_t *s = compress(1, d, 777777, &clen);

			begin_case();
			check_stream(d, 777777, s, clen, "level 1");
			end_case("level1-blocks-text-777777");
			free(s);
		}
	}
	free(d);
}

/* ---- bit-level access to streams ------------------------------------------- */

static unsigned get_bit_at(const uint8_t *s, size_t bit)
{
	return s[bit >> 3] >> (7 - (bit & 7)) & 1;
}

static void flip_bit_at(uint8_t *s, size_t bit)
{
	s[bit >> 3] ^= (uint8_t)(0x80 >> (bit & 7));
}

static uint64_t get_bits_at(const uint8_t *s, size_t bit, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 1 | get_bit_at(s, bit + i);
	return v;
}

static void put_bits_at(uint8_t *s, size_t bit, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++)
		if (get_bit_at(s, bit + i) != (unsigned)(v >> (n - 1 - i) & 1))
			flip_bit_at(s, bit + i);
}

#define BLOCK_MAGIC 0x314159265359ull
#define EOS_MAGIC   0x177245385090ull

/* Bit offset of the end-of-stream magic (the stream ends with it, 32 CRC
 * bits and 0..7 padding bits), or (size_t)-1. */
static size_t find_eos(const uint8_t *s, size_t clen)
{
	for (unsigned pad = 0; pad < 8; pad++) {
		size_t bit = clen * 8 - pad - 32 - 48;

		if (clen * 8 >= pad + 80 && get_bits_at(s, bit, 48) == EOS_MAGIC)
			return bit;
	}
	return (size_t)-1;
}

/* ---- negative tests on libbz2's streams ----------------------------------- */

static void expect_status(const char *name, const uint8_t *s, size_t len, size_t dst_len, int want)
{
	expect_case(run_decode, name, s, len, dst_len, want, NULL);
}

/* Every proper prefix must be TRUNCATED: each error met after reading
 * past the end of the input is reported as such, and the end-of-stream
 * CRC reaches into the last byte. */
static void test_truncation(void)
{
	struct { const char *name; size_t n; void (*gen)(uint8_t *, size_t); int level; } inputs[] = {
		{ "empty", 0, gen_zeros, 9 },
		{ "random-1", 1, gen_random, 9 },
		{ "runs-300", 300, gen_runs, 9 },
		{ "text-3000", 3000, gen_text, 9 },
		{ "zeros-100000", 100000, gen_zeros, 9 },
		{ "random-250000-level1", 250000, gen_random, 1 },
		{ "mixed-600000-level1", 600000, gen_mixed_runs, 1 },
	};
	uint8_t *data = xmalloc(MIB);
	char name[128];

	for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
		size_t clen, cuts = 0;
		uint8_t *s;

		inputs[k].gen(data, inputs[k].n);
		s = compress(inputs[k].level, data, inputs[k].n, &clen);
		snprintf(name, sizeof name, "truncated-%s", inputs[k].name);
		begin_case();
		/* Every cut of short streams; for long ones the first and last
		 * 100 and about 100 more at random (a cut near the end costs a
		 * whole decode). */
		for (size_t cut = 0; cut < clen && !case_failed; cut++) {
			if (clen > 1000 && cut >= 100 && cut < clen - 100) {
				if (rng_below(clen / 100) != 0)
					continue;
			}
			int st = run_decode(s, cut, inputs[k].n, NULL);

			cuts++;
			if (st != DECODE_TRUNCATED)
				failf("prefix of %zu/%zu bytes gave %s", cut, clen, status_name(st));
		}
		end_case(name);
		printf("note: %s: %zu cut points\n", name, cuts);
		free(s);
	}
	free(data);
}

static void test_damaged(void)
{
	uint8_t *data = xmalloc(300000), *s, *m;
	size_t n = 5000, clen, eos;
	char name[128];

	gen_text(data, n);
	s = compress(9, data, n, &clen);
	m = xmalloc(clen + 16);

	/* The first block's CRC is byte-aligned: bytes 10..13. */
	for (int byte = 10; byte < 14; byte++) {
		memcpy(m, s, clen);
		m[byte] ^= 0x10;
		snprintf(name, sizeof name, "damaged-block-crc-byte%d", byte);
		expect_status(name, m, clen, n, DECODE_CHECK_MISMATCH);
	}
	/* The stream CRC: each of its 32 bits. */
	eos = find_eos(s, clen);
	begin_case();
	if (eos == (size_t)-1)
		failf("cannot find the end-of-stream marker");
	for (unsigned bit = 0; bit < 32 && !case_failed; bit++) {
		memcpy(m, s, clen);
		flip_bit_at(m, eos + 48 + bit);
		int st = run_decode(m, clen, n, NULL);

		if (st != DECODE_CHECK_MISMATCH)
			failf("stream CRC bit %u flipped gave %s", bit, status_name(st));
	}
	end_case("damaged-stream-crc");
	/* The end-of-stream magic. */
	memcpy(m, s, clen);
	flip_bit_at(m, eos + 20);
	expect_status("damaged-eos-magic", m, clen, n, DECODE_CORRUPT);
	/* The block magic. */
	memcpy(m, s, clen);
	m[4] ^= 1;
	expect_status("damaged-block-magic", m, clen, n, DECODE_CORRUPT);
	/* Randomised bit (bit 0 of byte 14): refused, see bzip2_decode.c. */
	memcpy(m, s, clen);
	m[14] |= 0x80;
	expect_status("randomised-block", m, clen, n, DECODE_CORRUPT);
	/* origPtr (the 24 bits after it) out of range. */
	memcpy(m, s, clen);
	put_bits_at(m, 14 * 8 + 1, 24, 0xffffff);
	expect_status("origptr-0xffffff", m, clen, n, DECODE_CORRUPT);

	/* Header. */
	{
		static const char *const bad[] = { "BZh0", "BZh:", "BZH9", "BZ09", "bZh9", "BZa9" };

		for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
			memcpy(m, s, clen);
			memcpy(m, bad[k], 4);
			snprintf(name, sizeof name, "bad-header-%s", bad[k]);
			expect_status(name, m, clen, n, DECODE_CORRUPT);
		}
		expect_status("header-only", (const uint8_t *)"BZh9", 4, 0, DECODE_TRUNCATED);
		expect_status("header-cut", (const uint8_t *)"BZh9", 3, 0, DECODE_TRUNCATED);
		expect_status("null-empty", NULL, 0, 0, DECODE_TRUNCATED);
	}

	/* Trailing data: a byte, a second stream. */
	memcpy(m, s, clen);
	m[clen] = 0;
	expect_status("trailing-zero-byte", m, clen + 1, n, DECODE_CORRUPT);
	{
		size_t elen;
		uint8_t *e = compress(9, data, 0, &elen);
		uint8_t *cat = xmalloc(clen + elen);

		memcpy(cat, s, clen);
		memcpy(cat + clen, e, elen);
		expect_status("concatenated-streams", cat, clen + elen, n, DECODE_CORRUPT);
		free(cat);
		free(e);
	}
	free(s);
	/* Nonzero padding bits: a stream that has some. */
	for (n = 5000; n < 5100; n++) {
		gen_text(data, n);
		s = compress(9, data, n, &clen);
		eos = find_eos(s, clen);
		if (clen * 8 - (eos + 48 + 32) >= 4)
			break;
		free(s);
	}
	m = realloc(m, clen);
	if (!m)
		exit(2);
	memcpy(m, s, clen);
	{
		size_t pad = clen * 8 - (eos + 48 + 32);

		begin_case();
		for (size_t bit = 0; bit < pad; bit++) {
			memcpy(m, s, clen);
			flip_bit_at(m, clen * 8 - 1 - bit);
			int st = run_decode(m, clen, n, NULL);

			if (st != DECODE_CORRUPT)
				failf("padding bit %zu set gave %s", bit, status_name(st));
		}
		end_case("nonzero-padding");
		printf("note: nonzero-padding: %zu padding bits\n", pad);
	}
	free(s);

	/* A block longer than the header allows: a 900k-level stream of one
	 * 200000-byte block (random: RLE1 keeps it as is), relabelled 'BZh1'. */
	gen_random(data, 200000);
	s = compress(9, data, 200000, &clen);
	s[3] = '1';
	expect_status("block-longer-than-level", s, clen, 200000, DECODE_CORRUPT);
	s[3] = '2';
	expect_status("block-fits-level-2", s, clen, 200000, DECODE_OK);
	free(s);

	/* Wrong sizes of output for a multi-block stream. */
	gen_random(data, 250000);
	s = compress(1, data, 250000, &clen);
	expect_status("multi-block-dst-0", s, clen, 0, DECODE_OUTPUT_OVERRUN);
	expect_status("multi-block-dst-100000", s, clen, 100000, DECODE_OUTPUT_OVERRUN);
	expect_status("multi-block-dst-double", s, clen, 500000, DECODE_SHORT_OUTPUT);
	/* The second block's CRC: find its magic after the first. */
	{
		size_t bit;

		for (bit = 80 + 8; bit + 48 <= clen * 8; bit++)
			if (get_bits_at(s, bit, 48) == BLOCK_MAGIC)
				break;
		begin_case();
		if (bit + 48 > clen * 8) {
			failf("no second block");
		} else {
			memcpy(m = realloc(m, clen), s, clen);
			flip_bit_at(m, bit + 48 + 7);
			int st = run_decode(m, clen, 250000, NULL);

			if (st != DECODE_CHECK_MISMATCH)
				failf("second block's CRC flipped gave %s", status_name(st));
		}
		end_case("damaged-second-block-crc");
	}
	free(s);
	free(m);
	free(data);
}

/* ---- hand-built streams ----------------------------------------------------
 * A naive encoder for small blocks, so that every field can be set to
 * what libbz2 would never write. */

struct bw {
	uint8_t *p;
	size_t bits, cap;
};

static void bw_put(struct bw *w, unsigned n, uint64_t v)
{
	for (unsigned i = 0; i < n; i++, w->bits++) {
		if (w->bits / 8 >= w->cap) {
			w->cap = w->cap ? 2 * w->cap : 1024;
			w->p = realloc(w->p, w->cap);
			if (!w->p)
				exit(2);
		}
		if (w->bits % 8 == 0)
			w->p[w->bits / 8] = 0;
		if (v >> (n - 1 - i) & 1)
			w->p[w->bits / 8] |= (uint8_t)(0x80 >> (w->bits % 8));
	}
}

static uint32_t crc_bz(uint32_t c, const uint8_t *p, size_t n)
{
	while (n--) {
		c ^= (uint32_t)*p++ << 24;
		for (int k = 0; k < 8; k++)
			c = c & 0x80000000u ? c << 1 ^ 0x04c11db7u : c << 1;
	}
	return c;
}

/* What a block is made of; the encoder fills the honest values, tests
 * override some before writing. */
#define MAX_SYMS 200100
struct block {
	/* the block after RLE1 (the BWT's input) */
	const uint8_t *data;
	size_t n;
	/* fields */
	uint32_t crc;
	unsigned randomised;
	uint32_t orig;
	uint8_t used[256];              /* 1 for each byte in the map */
	unsigned n_groups, n_sel;
	uint8_t sel_mtf[64];            /* MTF values of the selectors (n_sel <= 64 here) */
	unsigned start_len;             /* first code length of each group */
	uint8_t len[6][258];            /* code lengths */
	int len_override;               /* write len[] as given, even out of range */
	unsigned alpha;
	uint16_t sym[MAX_SYMS];         /* symbols, EOB last */
	size_t n_sym;
};

static const uint8_t *rot_base;
static size_t rot_n;

static int rot_cmp(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	for (size_t k = 0; k < rot_n; k++) {
		uint8_t x = rot_base[(i + k) % rot_n], y = rot_base[(j + k) % rot_n];

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* Appends a zero run of r (>= 0) as RUNA/RUNB digits, bijective base 2,
 * lowest digit first. */
static void put_run(struct block *b, size_t r)
{
	while (r) {
		if (r & 1) {
			b->sym[b->n_sym++] = 0;         /* RUNA: 1 x weight */
			r = (r - 1) / 2;
		} else {
			b->sym[b->n_sym++] = 1;         /* RUNB: 2 x weight */
			r = (r - 2) / 2;
		}
	}
}

/* Ends b's symbols with the end-of-block symbol and gives them the
 * selectors they need, one per 50. */
static void end_symbols(struct block *b)
{
	b->sym[b->n_sym++] = (uint16_t)(b->alpha - 1);
	b->n_sel = (unsigned)((b->n_sym + 49) / 50);
}

/* Fills b for a block whose BWT input is data[0..n) (n >= 1) and whose
 * output (RLE1 undone) is out[0..out_n).  All symbols get the same
 * length, the smallest that holds them. */
static void make_block(struct block *b, const uint8_t *data, size_t n, const uint8_t *out, size_t out_n)
{
	size_t *rows = xmalloc(n * sizeof(size_t));
	uint8_t mtf[256], list[256];
	unsigned n_used = 0, L = 1;
	size_t run = 0;

	memset(b, 0, sizeof(*b));
	b->data = data;
	b->n = n;
	b->crc = ~crc_bz(0xffffffffu, out, out_n);
	for (size_t i = 0; i < n; i++)
		b->used[data[i]] = 1;
	for (unsigned c = 0; c < 256; c++)
		if (b->used[c])
			list[n_used++] = (uint8_t)c;
	for (size_t i = 0; i < n; i++)
		rows[i] = i;
	rot_base = data;
	rot_n = n;
	qsort(rows, n, sizeof(size_t), rot_cmp);
	memcpy(mtf, list, n_used);
	for (size_t r = 0; r < n; r++) {
		uint8_t c = data[(rows[r] + n - 1) % n];   /* last column */
		unsigned idx = 0;

		if (rows[r] == 0)
			b->orig = (uint32_t)r;
		while (mtf[idx] != c)
			idx++;
		memmove(mtf + 1, mtf, idx);
		mtf[0] = c;
		if (idx == 0) {
			run++;
			continue;
		}
		put_run(b, run);
		run = 0;
		b->sym[b->n_sym++] = (uint16_t)(idx + 1);
	}
	put_run(b, run);
	b->alpha = n_used + 2;
	b->sym[b->n_sym++] = (uint16_t)(n_used + 1);       /* EOB */
	while ((1u << L) < b->alpha)
		L++;
	b->n_groups = 2;
	b->n_sel = (unsigned)((b->n_sym + 49) / 50);
	b->start_len = L;
	for (unsigned g = 0; g < 6; g++)
		memset(b->len[g], (int)L, sizeof(b->len[g]));
	free(rows);
}

/* Writes a block; every selector picks group 0 unless sel_mtf says
 * otherwise.  Codes are canonical from len[group]. */
static void write_block(struct bw *w, const struct block *b)
{
	unsigned code[6][258];

	bw_put(w, 48, BLOCK_MAGIC);
	bw_put(w, 32, b->crc);
	bw_put(w, 1, b->randomised);
	bw_put(w, 24, b->orig);
	{
		unsigned map = 0;

		for (unsigned g = 0; g < 16; g++)
			for (unsigned k = 0; k < 16; k++)
				if (b->used[g * 16 + k])
					map |= 0x8000u >> g;
		bw_put(w, 16, map);
		for (unsigned g = 0; g < 16; g++) {
			if (!(map & (0x8000u >> g)))
				continue;
			unsigned bits = 0;

			for (unsigned k = 0; k < 16; k++)
				if (b->used[g * 16 + k])
					bits |= 0x8000u >> k;
			bw_put(w, 16, bits);
		}
	}
	bw_put(w, 3, b->n_groups);
	bw_put(w, 15, b->n_sel);
	for (unsigned i = 0; i < b->n_sel; i++) {
		unsigned j = i < sizeof(b->sel_mtf) ? b->sel_mtf[i] : 0;

		for (unsigned k = 0; k < j; k++)
			bw_put(w, 1, 1);
		bw_put(w, 1, 0);
	}
	for (unsigned g = 0; g < b->n_groups && g < 6; g++) {
		unsigned cur = b->start_len;

		bw_put(w, 5, cur);
		for (unsigned s = 0; s < b->alpha; s++) {
			while (cur != b->len[g][s]) {
				bw_put(w, 2, cur < b->len[g][s] ? 2 : 3);  /* 10: +1, 11: -1 */
				cur = cur < b->len[g][s] ? cur + 1 : cur - 1;
			}
			bw_put(w, 1, 0);
		}
	}
	/* Canonical codes per group (only meaningful for sane lengths). */
	for (unsigned g = 0; g < 6; g++) {
		unsigned next = 0;

		for (unsigned L = 1; L <= 31; L++) {
			for (unsigned s = 0; s < b->alpha; s++)
				if (b->len[g][s] == L)
					code[g][s] = next++;
			next <<= 1;
		}
	}
	{
		unsigned group = 0, order[6] = { 0, 1, 2, 3, 4, 5 };

		for (size_t i = 0; i < b->n_sym; i++) {
			if (i % 50 == 0) {
				unsigned j = i / 50 < sizeof(b->sel_mtf) ? b->sel_mtf[i / 50] : 0;
				unsigned v = order[j % 6];

				memmove(order + 1, order, j % 6 * sizeof(order[0]));
				order[0] = v;
				group = v < 6 ? v : 0;
			}
			bw_put(w, b->len[group][b->sym[i]], code[group][b->sym[i]]);
		}
	}
}

/* A stream of the given blocks (their CRCs combined), the header level. */
static size_t write_stream(struct bw *w, char level, struct block *const *blocks, size_t n_blocks)
{
	uint32_t combined = 0;

	w->bits = 0;
	bw_put(w, 8, 'B');
	bw_put(w, 8, 'Z');
	bw_put(w, 8, 'h');
	bw_put(w, 8, (uint8_t)level);
	for (size_t i = 0; i < n_blocks; i++) {
		write_block(w, blocks[i]);
		combined = (combined << 1 | combined >> 31) ^ blocks[i]->crc;
	}
	bw_put(w, 48, EOS_MAGIC);
	bw_put(w, 32, combined);
	while (w->bits % 8)
		bw_put(w, 1, 0);
	return w->bits / 8;
}

/* One case: a level-1 stream of b with n_sym symbols 2 (MTF indices 1,
 * 0, 1, ...), decoded at dst_len, gives want. */
static void expect_level1(struct block *b, const char *name, unsigned n_sym, size_t dst_len, int want)
{
	struct bw w = { 0 };
	size_t len;

	b->n_sym = 0;
	while (b->n_sym < n_sym)
		b->sym[b->n_sym++] = 2;
	end_symbols(b);
	len = write_stream(&w, '1', &b, 1);
	expect_status(name, w.p, len, dst_len, want);
	free(w.p);
}

/* Builds a one-block stream from b and checks the status; for OK also the
 * output and that libbz2 agrees (libbz2 is lenient where we are not, so
 * for errors it is not asked). */
static void expect_block(const char *name, struct block *b, size_t dst_len, int want,
			 const uint8_t *want_out)
{
	struct bw w = { 0 };
	size_t len = write_stream(&w, '9', &b, 1);
	uint8_t *out = NULL;
	int st;

	begin_case();
	st = run_decode(w.p, len, dst_len, &out);
	if (st != want) {
		failf("status %s, want %s", status_name(st), status_name(want));
	} else if (want == DECODE_OK) {
		uint8_t *ref = xmalloc(dst_len);

		if (want_out && first_diff(out, want_out, dst_len) != dst_len)
			failf("wrong output at byte %zu", first_diff(out, want_out, dst_len));
		else if (!lib_decodes(w.p, len, dst_len, ref))
			failf("libbz2 rejects the stream");
		else if (first_diff(out, ref, dst_len) != dst_len)
			failf("differs from libbz2 at byte %zu", first_diff(out, ref, dst_len));
		free(ref);
	}
	free(out);
	free(w.p);
	end_case(name);
}

static void test_handmade(void)
{
	static struct block b;  /* large: not on the stack */
	static const uint8_t hello[] = "hello, hello, bzip2 world";
	const size_t hn = sizeof(hello) - 1;
	uint8_t tmp[64];

	make_block(&b, hello, hn, hello, hn);
	expect_block("handmade-valid", &b, hn, DECODE_OK, hello);
	expect_block("handmade-valid-dst-short", &b, hn - 1, DECODE_OUTPUT_OVERRUN, NULL);

	/* Six groups, selectors that switch between them (MTF values 0..5),
	 * each group with its own (valid, incomplete) lengths. */
	{
		static struct block m;
		static uint8_t d[600];

		for (size_t i = 0; i < sizeof d; i++)
			d[i] = (uint8_t)("abcdefghij"[rng_below(10)]);
		make_block(&m, d, sizeof d, d, sizeof d);
		m.n_groups = 6;
		for (unsigned i = 0; i < m.n_sel; i++)
			m.sel_mtf[i] = (uint8_t)(i * 7 % 6);
		for (unsigned g = 0; g < 6; g++)
			memset(m.len[g], (int)(m.start_len + g % 3), sizeof(m.len[g]));
		expect_block("handmade-six-groups", &m, sizeof d, DECODE_OK, d);
		/* Mixed lengths: a complete code with 1..alpha-1-bit codes. */
		for (unsigned s = 0; s < m.alpha; s++)
			m.len[1][s] = (uint8_t)(s + 1 < m.alpha ? s + 1 : s);
		for (unsigned s = 0; s < m.alpha; s++)
			m.len[2][s] = (uint8_t)(20 - s % 3);   /* long codes: the slow path */
		expect_block("handmade-long-and-short-codes", &m, sizeof d, DECODE_OK, d);
	}

	/* Fields out of range. */
	make_block(&b, hello, hn, hello, hn);
	b.randomised = 1;
	expect_block("handmade-randomised", &b, hn, DECODE_CORRUPT, NULL);
	make_block(&b, hello, hn, hello, hn);
	b.orig = (uint32_t)hn;
	expect_block("handmade-origptr-eq-nblock", &b, hn, DECODE_CORRUPT, NULL);
	make_block(&b, hello, hn, hello, hn);
	b.orig = (b.orig + 1) % (uint32_t)hn;   /* another rotation of the text */
	expect_block("handmade-origptr-wrong-row", &b, hn, DECODE_CHECK_MISMATCH, NULL);

	make_block(&b, hello, hn, hello, hn);
	b.n_groups = 1;
	expect_block("handmade-one-group", &b, hn, DECODE_CORRUPT, NULL);
	b.n_groups = 7;
	expect_block("handmade-seven-groups", &b, hn, DECODE_CORRUPT, NULL);
	b.n_groups = 0;
	expect_block("handmade-zero-groups", &b, hn, DECODE_CORRUPT, NULL);

	make_block(&b, hello, hn, hello, hn);
	b.n_sel = 0;
	expect_block("handmade-no-selectors", &b, hn, DECODE_CORRUPT, NULL);
	make_block(&b, hello, hn, hello, hn);
	b.sel_mtf[0] = 2;       /* with 2 groups, MTF values are 0..1 */
	expect_block("handmade-selector-beyond-groups", &b, hn, DECODE_CORRUPT, NULL);
	b.sel_mtf[0] = 1;
	memcpy(b.len[1], b.len[0], sizeof(b.len[1]));
	expect_block("handmade-selector-group-1", &b, hn, DECODE_OK, hello);

	/* More symbols than the selectors cover: 200 symbols, 1 selector. */
	{
		static uint8_t d[400];

		for (size_t i = 0; i < sizeof d; i++)
			d[i] = (uint8_t)rng();
		make_block(&b, d, sizeof d, d, sizeof d);
		b.n_sel = 1;
		expect_block("handmade-selectors-run-out", &b, sizeof d, DECODE_CORRUPT, NULL);
		/* More selectors than needed are fine. */
		make_block(&b, d, sizeof d, d, sizeof d);
		b.n_sel += 10;
		expect_block("handmade-extra-selectors", &b, sizeof d, DECODE_OK, d);
	}

	/* Code lengths: a start of 0 or 21, a delta to 0 or 21, too many
	 * short codes. */
	make_block(&b, hello, hn, hello, hn);
	memset(b.len[1], 0, sizeof(b.len[1]));
	b.start_len = b.len[0][0];
	b.len[1][0] = 0;        /* the writer steps down to 0 */
	expect_block("handmade-length-0", &b, hn, DECODE_CORRUPT, NULL);
	make_block(&b, hello, hn, hello, hn);
	b.len[1][1] = 21;
	expect_block("handmade-length-21", &b, hn, DECODE_CORRUPT, NULL);
	make_block(&b, hello, hn, hello, hn);
	b.start_len = 0;        /* first length 0, then up to L */
	expect_block("handmade-start-length-0", &b, hn, DECODE_CORRUPT, NULL);
	make_block(&b, hello, hn, hello, hn);
	b.start_len = 21;
	expect_block("handmade-start-length-21", &b, hn, DECODE_CORRUPT, NULL);
	make_block(&b, hello, hn, hello, hn);
	b.len[1][0] = 1;
	b.len[1][1] = 1;
	b.len[1][2] = 1;        /* three 1-bit codes */
	expect_block("handmade-oversubscribed", &b, hn, DECODE_CORRUPT, NULL);
	make_block(&b, hello, hn, hello, hn);
	for (unsigned s = 0; s < b.alpha; s++)
		b.len[0][s] = 20;       /* all 20 bits: 2^20 codes, alpha used */
	b.start_len = 20;
	memcpy(b.len[1], b.len[0], sizeof(b.len[1]));
	expect_block("handmade-all-20-bit-codes", &b, hn, DECODE_OK, hello);

	/* A bit pattern that is no code: all lengths L + 1 leave the codes
	 * alpha .. 2^(L+1) - 1 free; the EOB (the last symbol, right before
	 * the end-of-stream magic) is replaced by the all-ones pattern. */
	{
		struct bw w = { 0 };
		struct block *bp = &b;
		size_t len, eos;
		unsigned L;
		int st;

		make_block(&b, hello, hn, hello, hn);
		L = b.start_len + 1;
		b.start_len = L;
		memset(b.len[0], (int)L, sizeof(b.len[0]));
		memset(b.len[1], (int)L, sizeof(b.len[1]));
		len = write_stream(&w, '9', &bp, 1);
		eos = find_eos(w.p, len);
		put_bits_at(w.p, eos - L, L, (1u << L) - 1);
		begin_case();
		st = run_decode(w.p, len, hn, NULL);
		if (st != DECODE_CORRUPT)
			failf("status %s, want CORRUPT", status_name(st));
		end_case("handmade-no-such-code");
		free(w.p);
	}

	/* Empty used map; an empty block (EOB first). */
	make_block(&b, hello, hn, hello, hn);
	memset(b.used, 0, sizeof(b.used));
	expect_block("handmade-empty-used-map", &b, hn, DECODE_CORRUPT, NULL);
	make_block(&b, hello, hn, hello, hn);
	b.sym[0] = (uint16_t)(b.alpha - 1);
	b.n_sym = 1;
	b.n_sel = 1;
	expect_block("handmade-empty-block", &b, 0, DECODE_CORRUPT, NULL);

	/* RLE1 counts: the BWT input 'a' x 30 reads as 6 x (4 'a' and a
	 * count of 'a' = 97 more): 606 bytes. */
	{
		static uint8_t ref[606];

		memset(tmp, 'a', 30);
		memset(ref, 'a', sizeof ref);
		make_block(&b, tmp, 30, ref, sizeof ref);
		expect_block("handmade-rle1-counts", &b, sizeof ref, DECODE_OK, ref);
		expect_block("handmade-rle1-count-overrun", &b, sizeof ref - 1, DECODE_OUTPUT_OVERRUN, NULL);
	}
	{
		/* Two used bytes 0 and 1 (so MTF index 1 exists). */
		static const uint8_t zo[] = { 0, 1 };

		/* 25 RUNBs: a run of 2^26 - 2 > 900000. */
		make_block(&b, zo, 2, zo, 2);
		b.n_sym = 0;
		for (int k = 0; k < 25; k++)
			b.sym[b.n_sym++] = 1;
		end_symbols(&b);
		expect_block("handmade-run-overflow", &b, 100, DECODE_CORRUPT, NULL);
		/* A run of exactly 900000 zero bytes fits a level-9 block: it
		 * reads as 180000 x (4 zeros, count 0), 720000 bytes; the CRC
		 * is wrong on purpose. */
		b.n_sym = 0;
		put_run(&b, 900000);
		end_symbols(&b);
		b.orig = 0;
		expect_block("handmade-run-900000", &b, 720000, DECODE_CHECK_MISMATCH, NULL);
		/* 900001: one too many. */
		b.n_sym = 0;
		put_run(&b, 900001);
		end_symbols(&b);
		expect_block("handmade-run-900001", &b, 720000, DECODE_CORRUPT, NULL);
		/* 900000 and one more byte. */
		b.n_sym = 0;
		put_run(&b, 900000);
		b.sym[b.n_sym++] = 2;
		end_symbols(&b);
		expect_block("handmade-run-900000-plus-one", &b, 720000, DECODE_CORRUPT, NULL);

		/* 100001 MTF symbols in a level-1 stream; 100000 fit (the CRC
		 * is wrong on purpose; the output can be up to 5.2 MB). */
		expect_level1(&b, "handmade-level1-block-100001", 100001, 100001, DECODE_CORRUPT);
		expect_level1(&b, "handmade-level1-block-100000", 100000, 6000000, DECODE_CHECK_MISMATCH);
	}

	/* A block that ends after 4 equal bytes with no count byte (the BWT
	 * input "aaaa"): refused; libbz2 reads a count from beyond the block. */
	memset(tmp, 'a', 4);
	make_block(&b, tmp, 4, tmp, 4);
	expect_block("handmade-4-equal-no-count", &b, 4, DECODE_CORRUPT, NULL);
	memcpy(tmp, "baaaa", 5);
	make_block(&b, tmp, 5, tmp, 5);
	expect_block("handmade-4-equal-no-count-2", &b, 5, DECODE_CORRUPT, NULL);
	memcpy(tmp, "aaab", 4);
	make_block(&b, tmp, 4, tmp, 4);
	expect_block("handmade-3-equal-at-end", &b, 4, DECODE_OK, tmp);
	/* "aaaa" + count 0 + "b" -> "aaaab". */
	memcpy(tmp, "aaaa\0b", 6);
	make_block(&b, tmp, 6, (const uint8_t *)"aaaab", 5);
	expect_block("handmade-count-0", &b, 5, DECODE_OK, (const uint8_t *)"aaaab");
	/* "aaaa" + count 0 + "aaaa" + count 1: runs restart after a count. */
	memcpy(tmp, "aaaa\0aaaa\1", 10);
	make_block(&b, tmp, 10, (const uint8_t *)"aaaaaaaaa", 9);
	expect_block("handmade-run-restarts", &b, 9, DECODE_OK, (const uint8_t *)"aaaaaaaaa");

	/* Two blocks, RLE1 state not carried over: "aaa" | "a" + "aaa..." */
	{
		static struct block b1, b2;
		struct block *bl[2] = { &b1, &b2 };
		struct bw w = { 0 };
		size_t len;
		int st;
		uint8_t *out = NULL;

		make_block(&b1, (const uint8_t *)"aaa", 3, (const uint8_t *)"aaa", 3);
		make_block(&b2, (const uint8_t *)"aa", 2, (const uint8_t *)"aa", 2);
		len = write_stream(&w, '9', bl, 2);
		begin_case();
		st = run_decode(w.p, len, 5, &out);
		if (st != DECODE_OK)
			failf("status %s", status_name(st));
		else if (memcmp(out, "aaaaa", 5) != 0)
			failf("wrong output");
		else if (!lib_decodes(w.p, len, 5, NULL))
			failf("libbz2 rejects it");
		end_case("handmade-two-blocks");
		free(out);
		/* The stream CRC of two blocks, damaged. */
		flip_bit_at(w.p, find_eos(w.p, len) + 48 + 31);
		expect_status("handmade-two-blocks-stream-crc", w.p, len, 5, DECODE_CHECK_MISMATCH);
		free(w.p);
	}

	/* No blocks at all, output expected: SHORT_OUTPUT. */
	{
		struct bw w = { 0 };
		size_t len = write_stream(&w, '9', NULL, 0);

		expect_status("handmade-no-blocks-dst-0", w.p, len, 0, DECODE_OK);
		expect_status("handmade-no-blocks-dst-1", w.p, len, 1, DECODE_SHORT_OUTPUT);
		free(w.p);
	}
}

/* ---- garbage ------------------------------------------------------------------ */

/* Damaged and random streams: any status, nothing touched outside the
 * buffers; when ours says OK, libbz2 must decode the same bytes. */
static uint8_t *garbage_stream(unsigned round, const uint8_t *data, size_t n, size_t *clen)
{
	return compress(round % 3 == 0 ? 1 : 9, data, n, clen);
}

/* Garbage after a valid header and block magic. */
static void garbage_after_magic(uint8_t *s, size_t *clen, size_t n)
{
	(void)n;
	*clen = 10 + rng_below(*clen - 10 + 1);
	gen_random(s + 10, *clen - 10);
}

static void bit_flips(uint8_t *s, size_t *clen, size_t n)
{
	(void)n;
	for (int k = 1 + (int)rng_below(8); k > 0; k--)
		flip_bit_at(s, rng_below(*clen * 8));
}

/* A bit flip in the block header region. */
static void header_flip(uint8_t *s, size_t *clen, size_t n)
{
	(void)n;
	flip_bit_at(s, 32 + rng_below(*clen * 8 - 32 < 2000 ? *clen * 8 - 32 : 2000));
}

static void flip_and_cut(uint8_t *s, size_t *clen, size_t n)
{
	(void)n;
	flip_bit_at(s, rng_below(*clen * 8));
	*clen = rng_below(*clen + 1);
}

static unsigned lib_only;

static void judge_stream(unsigned round, const uint8_t *s, size_t clen, size_t dst_len, int st,
			 const uint8_t *out)
{
	uint8_t *ref = xmalloc(dst_len);
	int lib_ok = lib_decodes(s, clen, dst_len, ref);

	if (st == DECODE_OK) {
		if (!lib_ok)
			failf("round %u: OK, libbz2 does not decode %zu bytes", round, dst_len);
		else if (dst_len && memcmp(ref, out, dst_len) != 0)
			failf("round %u: OK but output differs from libbz2", round);
	} else if (lib_ok) {
		lib_only++;
		/* Only our stricter checks may refuse what libbz2 takes (see
		 * bzip2_decode.c). */
		if (st != DECODE_CORRUPT)
			failf("round %u: libbz2 decodes it, ours says %s", round, status_name(st));
	}
	free(ref);
}

static void test_garbage(void)
{
	static void (*const gens[])(uint8_t *, size_t) = { gen_runs, gen_text, gen_random, gen_mixed_runs };
	static const damage_fn damages[] = {
		garbage_after_magic, damage_byte, bit_flips, header_flip, flip_and_cut, NULL,
	};
	static const struct garbage g = {
		1500, 2000, 66000, 8, 4, gens, garbage_stream, damages, 6, run_decode, judge_stream,
	};
	unsigned ok = garbage_rounds(&g, "garbage-1500");

	printf("note: garbage: %u of %u decoded OK; %u taken by libbz2 only\n", ok, g.rounds, lib_only);
}

int main(void)
{
	workspace = buf_new(DECODE_WORKSPACE_bzip2);
	test_handmade();
	test_damaged();
	test_truncation();
	test_level1_blocks();
	test_garbage();
	buf_free(&workspace);
	return finish_tests("test_bzip2");
}
