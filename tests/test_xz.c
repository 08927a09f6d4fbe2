/* test_xz.c - host unit test for decode/xz_decode.c and decode/lzma_decode.c
 * (and the LZMA core they share, decode/lzma_core.h), against liblzma.
 *
 * liblzma compresses (.xz through lzma_stream_buffer_encode and the
 * multi-threaded block encoder, .lzma through lzma_alone_encoder and the
 * raw LZMA1EXT encoder), and our decoders must reproduce every input:
 * presets 0, 6 and 9e, dictionaries from 4 KiB up, every lc/lp/pb with
 * lc + lp <= 4, check types None/CRC32/CRC64 (SHA-256 refused), x86 BCJ
 * (with start offsets, on E8/E9-heavy data and on the files given as
 * arguments), several blocks, LZMA2 uncompressed chunks, .lzma with a
 * known size (with and without end marker) and an unknown one.  Then
 * hand-assembled streams (LZMA2 control sequences, index and footer
 * inconsistencies), truncations at every cut point, wrong dst sizes,
 * damaged CRCs and checks (DECODE_CHECK_MISMATCH), bit flips and garbage
 * (any status, never a stray access).
 *
 * usage: test_xz [file...]   (extra inputs; missing files are skipped)
 *
 * Every buffer handed to the decoders has exactly the size it is told,
 * the workspace included (DECODE_WORKSPACE_xz / _lzma bytes, filled with
 * junk first), so a build with -fsanitize=address catches any access
 * outside them; without ASan the output gets guard bytes on both sides.
 * Prints "ok <name>" / "FAIL <name>: <why>" per case and
 * "test_xz: N passed, M failed, K skipped" (tests/testlib.h); exits 1 if
 * anything failed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzma.h>

#include "decode.h"
#include "testgen.h"
#include "testlib.h"

/* ---- memory ------------------------------------------------------------- */

static uint8_t *xdup(const void *p, size_t n)
{
	uint8_t *d = xmalloc(n);

	if (n)
		memcpy(d, p, n);
	return d;
}

/* ---- running our decoders ----------------------------------------------- */

enum fmt { FMT_XZ, FMT_LZMA };

static const char *fmt_name(enum fmt f)
{
	return f == FMT_XZ ? "xz" : "lzma";
}

/* Our decoder of format f through decode_exact, with an exact workspace
 * full of junk. */
static int run_decode(enum fmt f, const uint8_t *src, size_t src_len, size_t dst_len, uint8_t **out)
{
	struct buf ws = buf_new(f == FMT_XZ ? DECODE_WORKSPACE_xz : DECODE_WORKSPACE_lzma);
	int st;

	memset(ws.p, 0xA5, ws.n);
	st = decode_exact(f == FMT_XZ ? xz_decode : lzma_decode, src, src_len, dst_len, &ws, out);
	buf_free(&ws);
	return st;
}

/* Expects src to decode to exactly data[0..n). */
static void expect_decodes(enum fmt f, const uint8_t *src, size_t src_len, const uint8_t *data, size_t n)
{
	uint8_t *out;
	int st = run_decode(f, src, src_len, n, &out);

	if (st != DECODE_OK)
		failf("%s: %zu -> %zu bytes: status %s", fmt_name(f), src_len, n, status_name(st));
	else if (n && memcmp(out, data, n) != 0)
		failf("%s: output differs at byte %zu of %zu", fmt_name(f), first_diff(out, data, n), n);
	free(out);
}

static void expect_status(enum fmt f, const uint8_t *src, size_t src_len, size_t dst_len, int want,
			  const char *what)
{
	int st = run_decode(f, src, src_len, dst_len, NULL);

	if (st != want)
		failf("%s: %s: status %s, want %s", fmt_name(f), what, status_name(st), status_name(want));
}

/* The stream decodes to data, and the wrong sizes around n fail with the
 * statuses the container promises. */
static void expect_roundtrip(enum fmt f, const uint8_t *src, size_t src_len, const uint8_t *data, size_t n)
{
	expect_decodes(f, src, src_len, data, n);
	expect_status(f, src, src_len, n + 1, DECODE_SHORT_OUTPUT, "dst_len + 1");
	if (n > 0)
		expect_status(f, src, src_len, n - 1, DECODE_OUTPUT_OVERRUN, "dst_len - 1");
	if (n > 1)
		expect_status(f, src, src_len, n / 2, DECODE_OUTPUT_OVERRUN, "dst_len / 2");
}

/* ---- liblzma encoders --------------------------------------------------- */

struct enc {
	uint32_t preset;        /* 0..9, | LZMA_PRESET_EXTREME */
	uint32_t dict;          /* 0: the preset's */
	int lc, lp, pb;         /* -1: the preset's */
	int nice_len;           /* 0: the preset's */
	lzma_check check;
	int bcj;                /* x86 BCJ before LZMA2 (.xz only) */
	uint32_t bcj_start;
	size_t block_size;      /* .xz: 0 = one block, else the MT encoder's block size */
};

static struct enc enc_default(uint32_t preset)
{
	struct enc e = { preset, 0, -1, -1, -1, 0, LZMA_CHECK_CRC32, 0, 0, 0 };

	return e;
}

static void lzma_opts(const struct enc *e, lzma_options_lzma *o)
{
	if (lzma_lzma_preset(o, e->preset)) {
		fprintf(stderr, "test_xz: bad preset %u\n", e->preset);
		exit(2);
	}
	if (e->dict)
		o->dict_size = e->dict;
	if (e->lc >= 0)
		o->lc = (uint32_t)e->lc;
	if (e->lp >= 0)
		o->lp = (uint32_t)e->lp;
	if (e->pb >= 0)
		o->pb = (uint32_t)e->pb;
	if (e->nice_len)
		o->nice_len = (uint32_t)e->nice_len;
}

/* Runs encoder s, set up with result init (what: its name), over
 * in[0..n) into a new buffer of cap bytes: the stream, its size in
 * *out_len; NULL (a failure recorded) if it fails. */
static uint8_t *run_encoder(lzma_stream *s, lzma_ret init, const char *what, const uint8_t *in, size_t n,
			    size_t cap, size_t *out_len)
{
	uint8_t *out = xmalloc(cap);
	lzma_ret r = init;

	if (r != LZMA_OK) {
		failf("%s: %d", what, (int)r);
		free(out);
		return NULL;
	}
	s->next_in = in;
	s->avail_in = n;
	s->next_out = out;
	s->avail_out = cap;
	do
		r = lzma_code(s, LZMA_FINISH);
	while (r == LZMA_OK && s->avail_out);
	*out_len = cap - s->avail_out;
	lzma_end(s);
	if (r != LZMA_STREAM_END) {
		failf("%s: lzma_code %d", what, (int)r);
		free(out);
		return NULL;
	}
	return out;
}

/* An .xz stream; NULL (and a failure recorded) if liblzma refuses. */
static uint8_t *enc_xz(const struct enc *e, const uint8_t *in, size_t n, size_t *out_len)
{
	lzma_options_lzma o;
	lzma_options_bcj bcj = { e->bcj_start };
	lzma_filter filters[3];
	size_t k = 0, cap = lzma_stream_buffer_bound(n) + 4096, pos = 0;
	uint8_t *out;
	lzma_ret r;

	lzma_opts(e, &o);
	if (e->bcj)
		filters[k++] = (lzma_filter){ LZMA_FILTER_X86, e->bcj_start ? &bcj : NULL };
	filters[k++] = (lzma_filter){ LZMA_FILTER_LZMA2, &o };
	filters[k] = (lzma_filter){ LZMA_VLI_UNKNOWN, NULL };

	if (e->block_size) {
		lzma_stream s = LZMA_STREAM_INIT;
		lzma_mt mt;

		memset(&mt, 0, sizeof mt);
		mt.threads = 2;
		mt.block_size = e->block_size;
		mt.filters = filters;
		mt.check = e->check;
		return run_encoder(&s, lzma_stream_encoder_mt(&s, &mt), "lzma_stream_encoder_mt", in, n, cap,
				   out_len);
	}
	out = xmalloc(cap);
	r = lzma_stream_buffer_encode(filters, e->check, NULL, in, n, out, &pos, cap);
	if (r != LZMA_OK) {
		failf("lzma_stream_buffer_encode: %d", (int)r);
		free(out);
		return NULL;
	}
	*out_len = pos;
	return out;
}

/* An .lzma file from lzma_alone_encoder: size unknown, end marker. */
static uint8_t *enc_lzma_alone(const struct enc *e, const uint8_t *in, size_t n, size_t *out_len)
{
	lzma_options_lzma o;
	lzma_stream s = LZMA_STREAM_INIT;

	lzma_opts(e, &o);
	return run_encoder(&s, lzma_alone_encoder(&s, &o), "lzma_alone_encoder", in, n, n + n / 8 + 4096,
			   out_len);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/* An .lzma file with a known size and no end marker: the raw LZMA1EXT
 * encoder (without LZMA_LZMA1EXT_ALLOW_EOPM) behind a hand-made header. */
static uint8_t *enc_lzma_known(const struct enc *e, const uint8_t *in, size_t n, size_t *out_len)
{
	lzma_options_lzma o;
	size_t cap = n + n / 8 + 4096, pos = 13;
	uint8_t *out = xmalloc(cap);
	lzma_ret r;

	lzma_opts(e, &o);
	o.ext_flags = 0;
	lzma_filter filters[] = { { LZMA_FILTER_LZMA1EXT, &o }, { LZMA_VLI_UNKNOWN, NULL } };
	r = lzma_raw_buffer_encode(filters, NULL, in, n, out, &pos, cap);
	if (r != LZMA_OK) {
		failf("raw LZMA1EXT encoder: %d", (int)r);
		free(out);
		return NULL;
	}
	out[0] = (uint8_t)((o.pb * 5 + o.lp) * 9 + o.lc);
	put_le32(out + 1, o.dict_size);
	put_le64(out + 5, n);
	*out_len = pos;
	return out;
}

/* liblzma's own opinion, for the sanity of the encoders above. */
static int lib_decodes(enum fmt f, const uint8_t *src, size_t src_len, const uint8_t *data, size_t n)
{
	uint8_t *out = xmalloc(n);
	int ok;

	if (f == FMT_XZ) {
		uint64_t memlimit = UINT64_MAX;
		size_t ip = 0, op = 0;
		lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, src, &ip, src_len, out, &op, n);

		ok = r == LZMA_OK && ip == src_len && op == n;
	} else if (n == 0) {
		/* liblzma's .lzma decoder looks at nothing without output
		 * room: it cannot say */
		ok = 1;
	} else {
		lzma_stream s = LZMA_STREAM_INIT;
		lzma_ret r = lzma_alone_decoder(&s, UINT64_MAX);

		if (r == LZMA_OK) {
			s.next_in = src;
			s.avail_in = src_len;
			s.next_out = out;
			s.avail_out = n;
			r = lzma_code(&s, LZMA_FINISH);
		}
		ok = r == LZMA_STREAM_END && s.avail_in == 0 && s.avail_out == 0;
		lzma_end(&s);
	}
	ok = ok && (n == 0 || memcmp(out, data, n) == 0);
	free(out);
	return ok;
}

/* ---- inputs ------------------------------------------------------------- */

static void xz_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)rng();
}

static void xz_text(uint8_t *p, size_t n)
{
	static const char *const words[] = {
		"the ", "kernel ", "decompress ", "stub ", "range ", "coder ", "literal ",
		"match ", "distance ", "LZMA2 ", "chunk ", "block ", "index ", "\n", ", ",
		"probability ", "state ", "x86 ", "call ", "jump ",
	};
	size_t i = 0;

	while (i < n) {
		const char *w = words[rng_below(sizeof words / sizeof words[0])];

		for (; *w && i < n; w++)
			p[i++] = (uint8_t)*w;
	}
}

/* No-ops and calls. */
static void gen_nops_calls(uint8_t *p, size_t n)
{
	for (size_t k = 0; k < n; k++)
		p[k] = (uint8_t)(rng_below(4) ? 0x90 + rng_below(8) : 0xE8);
}

/* Something earlier again, at a random distance (no-ops and calls at the
 * start, where there is nothing before). */
static void copy_repeat(uint8_t *p, size_t at, size_t len)
{
	if (at == 0) {
		gen_nops_calls(p, len);
		return;
	}
	size_t d = 1 + rng_below(at);

	for (size_t k = 0; k < len; k++)
		p[at + k] = p[at + k - d];
}

/* Text, zeros, random runs and x86-ish bytes, in stretches
 * (tests/testgen.h). */
static void xz_mixed(uint8_t *p, size_t n)
{
	static const struct stretch_kind kinds[] = {
		{ xz_text, NULL }, { gen_zeros, NULL }, { xz_random, NULL }, { NULL, copy_repeat },
		{ gen_nops_calls, NULL },
	};
	static const struct stretch_mix mix = { rng_below, 1, 4096, 5, kinds };

	gen_stretches(p, n, &mix);
}

/* Bytes that exercise every branch of the BCJ filter: many E8/E9
 * opcodes, close together, operands whose bytes are often 00 or FF. */
static void gen_x86ish(uint8_t *p, size_t n)
{
	static const uint8_t pick[] = { 0xE8, 0xE9, 0x00, 0xFF, 0xE8, 0x00, 0xFF, 0x90 };

	for (size_t i = 0; i < n; i++)
		p[i] = rng_below(4) ? pick[rng_below(sizeof pick)] : (uint8_t)rng();
}

/* ---- round trips -------------------------------------------------------- */

static void roundtrip_xz(const char *name, const struct enc *e, const uint8_t *data, size_t n)
{
	size_t len;
	uint8_t *x;

	begin_case();
	x = enc_xz(e, data, n, &len);
	if (x) {
		if (!lib_decodes(FMT_XZ, x, len, data, n))
			failf("liblzma does not decode its own stream");
		expect_roundtrip(FMT_XZ, x, len, data, n);
	}
	free(x);
	end_case(name);
}

static void roundtrip_lzma(const char *name, const struct enc *e, const uint8_t *data, size_t n)
{
	size_t len;
	uint8_t *x;

	begin_case();
	/* size unknown, end marker */
	x = enc_lzma_alone(e, data, n, &len);
	if (x) {
		expect_roundtrip(FMT_LZMA, x, len, data, n);
		/* the same stream with the size filled in: known size + marker */
		put_le64(x + 5, n);
		if (!lib_decodes(FMT_LZMA, x, len, data, n))
			failf("liblzma does not decode known size + end marker");
		expect_roundtrip(FMT_LZMA, x, len, data, n);
	}
	free(x);
	/* known size, no end marker */
	x = enc_lzma_known(e, data, n, &len);
	if (x) {
		if (!lib_decodes(FMT_LZMA, x, len, data, n))
			failf("liblzma does not decode known size without marker");
		expect_roundtrip(FMT_LZMA, x, len, data, n);
	}
	free(x);
	end_case(name);
}

typedef void (*gen_fn)(uint8_t *, size_t);

static void test_presets(void)
{
	static const struct {
		const char *name;
		gen_fn gen;
	} gens[] = { { "text", xz_text }, { "mixed", xz_mixed }, { "random", xz_random },
		     { "zero", gen_zeros }, { "x86ish", gen_x86ish } };
	static const size_t sizes[] = { 0, 1, 2, 5, 13, 100, 4096, 70001, 300000 };
	static const uint32_t presets[] = { 0, 6, 9 | LZMA_PRESET_EXTREME };
	char name[128];

	for (size_t g = 0; g < sizeof gens / sizeof gens[0]; g++)
		for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
			const size_t n = sizes[s];
			uint8_t *data = xmalloc(n);

			gens[g].gen(data, n);
			for (size_t p = 0; p < sizeof presets / sizeof presets[0]; p++) {
				struct enc e = enc_default(presets[p]);

				/* keep the encoder's memory small */
				e.dict = 1u << 20;
				snprintf(name, sizeof name, "xz %s %zu preset %u%s", gens[g].name, n,
					 presets[p] & 0xF, presets[p] & LZMA_PRESET_EXTREME ? "e" : "");
				roundtrip_xz(name, &e, data, n);
				snprintf(name, sizeof name, "lzma %s %zu preset %u%s", gens[g].name, n,
					 presets[p] & 0xF, presets[p] & LZMA_PRESET_EXTREME ? "e" : "");
				roundtrip_lzma(name, &e, data, n);
			}
			free(data);
		}
}

static void test_dict_sizes(void)
{
	static const uint32_t dicts[] = { 4096, 6144, 65536, 1u << 20, 3u << 20 };
	const size_t n = 600000;
	uint8_t *data = xmalloc(n);
	char name[128];

	xz_mixed(data, n);
	for (size_t i = 0; i < sizeof dicts / sizeof dicts[0]; i++) {
		struct enc e = enc_default(6);

		e.dict = dicts[i];
		snprintf(name, sizeof name, "xz dict %u", dicts[i]);
		roundtrip_xz(name, &e, data, n);
		snprintf(name, sizeof name, "lzma dict %u", dicts[i]);
		roundtrip_lzma(name, &e, data, n);
	}
	free(data);
}

static void test_lclppb(void)
{
	const size_t n = 50000;
	uint8_t *data = xmalloc(n);
	char name[128];

	xz_mixed(data, n);
	for (int lc = 0; lc <= 4; lc++)
		for (int lp = 0; lc + lp <= 4; lp++)
			for (int pb = 0; pb <= 4; pb++) {
				struct enc e = enc_default(1);

				e.lc = lc;
				e.lp = lp;
				e.pb = pb;
				snprintf(name, sizeof name, "xz lc=%d lp=%d pb=%d", lc, lp, pb);
				roundtrip_xz(name, &e, data, n);
				snprintf(name, sizeof name, "lzma lc=%d lp=%d pb=%d", lc, lp, pb);
				roundtrip_lzma(name, &e, data, n);
			}
	free(data);
}

static void test_checks(void)
{
	static const struct {
		lzma_check check;
		const char *name;
	} checks[] = { { LZMA_CHECK_NONE, "none" }, { LZMA_CHECK_CRC32, "crc32" },
		       { LZMA_CHECK_CRC64, "crc64" } };
	const size_t n = 100000;
	uint8_t *data = xmalloc(n);
	char name[128];

	xz_mixed(data, n);
	for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
		struct enc e = enc_default(6);

		e.check = checks[i].check;
		snprintf(name, sizeof name, "xz check %s", checks[i].name);
		roundtrip_xz(name, &e, data, n);
		e.block_size = 8192;
		snprintf(name, sizeof name, "xz check %s, 8 KiB blocks", checks[i].name);
		roundtrip_xz(name, &e, data, n);
	}
	{
		struct enc e = enc_default(6);
		size_t len;
		uint8_t *x;

		begin_case();
		e.check = LZMA_CHECK_SHA256;
		x = enc_xz(&e, data, n, &len);
		if (x)
			expect_status(FMT_XZ, x, len, n, DECODE_CORRUPT, "SHA-256 is unsupported");
		free(x);
		end_case("xz check sha256 refused");
	}
	free(data);
}

static void test_multiblock(void)
{
	static const size_t block_sizes[] = { 4096, 65536, 250000 };
	const size_t n = 1000000;
	uint8_t *data = xmalloc(n);
	char name[128];

	xz_mixed(data, n);
	for (size_t i = 0; i < sizeof block_sizes / sizeof block_sizes[0]; i++)
		for (int bcj = 0; bcj <= 1; bcj++) {
			struct enc e = enc_default(6);

			e.block_size = block_sizes[i];
			e.bcj = bcj;
			snprintf(name, sizeof name, "xz blocks of %zu%s", block_sizes[i], bcj ? " bcj" : "");
			roundtrip_xz(name, &e, data, n);
		}
	free(data);
}

static void test_bcj(void)
{
	static const uint32_t starts[] = { 0, 1, 4096, 0x12345678u, 0xFFFFFFF0u };
	char name[128];

	/* every small size: the filter's end (the last 4 bytes are left) */
	begin_case();
	for (size_t n = 0; n <= 64; n++)
		for (int rep = 0; rep < 20; rep++) {
			uint8_t data[64];
			struct enc e = enc_default(0);
			size_t len;
			uint8_t *x;

			gen_x86ish(data, n);
			e.bcj = 1;
			x = enc_xz(&e, data, n, &len);
			if (x)
				expect_decodes(FMT_XZ, x, len, data, n);
			free(x);
		}
	end_case("xz bcj sizes 0..64");

	for (size_t s = 0; s < sizeof starts / sizeof starts[0]; s++)
		for (int g = 0; g < 2; g++) {
			const size_t n = 200000;
			uint8_t *data = xmalloc(n);
			struct enc e = enc_default(6);

			(g ? xz_mixed : gen_x86ish)(data, n);
			e.bcj = 1;
			e.bcj_start = starts[s];
			snprintf(name, sizeof name, "xz bcj start 0x%x %s", starts[s], g ? "mixed" : "x86ish");
			roundtrip_xz(name, &e, data, n);
			free(data);
		}
}

/* Random input: LZMA2 stores it in uncompressed chunks; mixed with text,
 * uncompressed and LZMA chunks alternate (state resets, new props). */
static void test_uncompressed_chunks(void)
{
	const size_t n = 400000;
	uint8_t *data = xmalloc(n);
	struct enc e = enc_default(6);

	xz_random(data, n);
	roundtrip_xz("xz random (uncompressed chunks)", &e, data, n);
	for (size_t i = 0; i < n; i += 100000)
		xz_text(data + i, 40000);
	roundtrip_xz("xz random and text (both chunk kinds)", &e, data, n);
	e.bcj = 1;
	roundtrip_xz("xz random and text, bcj", &e, data, n);
	free(data);
}

static void test_empty(void)
{
	struct enc e = enc_default(6);

	roundtrip_xz("xz empty", &e, NULL, 0);
	e.block_size = 4096;
	roundtrip_xz("xz empty, MT encoder", &e, NULL, 0);
	roundtrip_lzma("lzma empty", &e, NULL, 0);
	begin_case();
	{
		/* NULL buffers with zero lengths */
		void *w = xmalloc(DECODE_WORKSPACE_xz);
		int st = xz_decode(NULL, 0, NULL, 0, w);

		if (st != DECODE_TRUNCATED)
			failf("xz_decode(NULL, 0): %s", status_name(st));
		st = lzma_decode(NULL, 0, NULL, 0, w);
		if (st != DECODE_TRUNCATED)
			failf("lzma_decode(NULL, 0): %s", status_name(st));
		free(w);
	}
	end_case("empty input is truncated");
}

/* ---- hand-assembled .xz streams ----------------------------------------- */

/* One block: raw compressed data (LZMA2 chunks) and what it decodes to. */
struct hblock {
	const uint8_t *data;
	size_t len;
	const uint8_t *out;     /* the uncompressed bytes (for the check) */
	size_t out_len;
	int bcj;
	int sizes_in_header;
};

struct stream {
	uint8_t *p;
	size_t n, cap;
};

static void s_put(struct stream *s, const void *d, size_t n)
{
	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2 + 64;
		s->p = realloc(s->p, s->cap);
		if (!s->p)
			exit(2);
	}
	if (n)
		memcpy(s->p + s->n, d, n);
	s->n += n;
}

/* Builds a stream of the blocks with liblzma's header, block header,
 * index and footer encoders; index_usize_delta is added to the last
 * record's uncompressed size (0: a correct index). */
static uint8_t *assemble(const struct hblock *b, size_t nb, lzma_check check, int64_t index_usize_delta,
			 size_t *out_len)
{
	struct stream s = { NULL, 0, 0 };
	lzma_stream_flags sf = { .version = 0, .check = check };
	uint8_t hdr[LZMA_STREAM_HEADER_SIZE];
	lzma_index *idx = lzma_index_init(NULL);
	lzma_options_lzma o;

	lzma_lzma_preset(&o, 6);
	o.dict_size = 1u << 20;
	if (lzma_stream_header_encode(&sf, hdr) != LZMA_OK)
		exit(2);
	s_put(&s, hdr, sizeof hdr);
	for (size_t i = 0; i < nb; i++) {
		lzma_filter filters[3];
		size_t k = 0;
		lzma_block blk;
		uint8_t bh[LZMA_BLOCK_HEADER_SIZE_MAX];
		uint8_t chk[LZMA_CHECK_SIZE_MAX];
		static const uint8_t zeros[4];

		if (b[i].bcj)
			filters[k++] = (lzma_filter){ LZMA_FILTER_X86, NULL };
		filters[k++] = (lzma_filter){ LZMA_FILTER_LZMA2, &o };
		filters[k] = (lzma_filter){ LZMA_VLI_UNKNOWN, NULL };
		memset(&blk, 0, sizeof blk);
		blk.version = 0;
		blk.check = check;
		blk.filters = filters;
		blk.compressed_size = b[i].sizes_in_header ? b[i].len : LZMA_VLI_UNKNOWN;
		blk.uncompressed_size = b[i].sizes_in_header ? b[i].out_len : LZMA_VLI_UNKNOWN;
		if (lzma_block_header_size(&blk) != LZMA_OK || lzma_block_header_encode(&blk, bh) != LZMA_OK) {
			fprintf(stderr, "test_xz: block header encoding failed\n");
			exit(2);
		}
		s_put(&s, bh, blk.header_size);
		s_put(&s, b[i].data, b[i].len);
		s_put(&s, zeros, (4 - b[i].len % 4) % 4);
		if (check == LZMA_CHECK_CRC32) {
			put_le32(chk, lzma_crc32(b[i].out, b[i].out_len, 0));
		} else if (check == LZMA_CHECK_CRC64) {
			put_le64(chk, lzma_crc64(b[i].out, b[i].out_len, 0));
		}
		s_put(&s, chk, lzma_check_size(check));
		lzma_vli usize = b[i].out_len + (i + 1 == nb ? index_usize_delta : 0);
		if (lzma_index_append(idx, NULL, blk.header_size + b[i].len + lzma_check_size(check), usize) != LZMA_OK)
			exit(2);
	}
	{
		size_t isz = (size_t)lzma_index_size(idx), pos = 0;
		uint8_t *ib = xmalloc(isz);

		if (lzma_index_buffer_encode(idx, ib, &pos, isz) != LZMA_OK)
			exit(2);
		s_put(&s, ib, pos);
		free(ib);
		sf.backward_size = lzma_index_size(idx);
		if (lzma_stream_footer_encode(&sf, hdr) != LZMA_OK)
			exit(2);
		s_put(&s, hdr, sizeof hdr);
	}
	lzma_index_end(idx, NULL);
	*out_len = s.n;
	return s.p;
}

/* Raw LZMA2 data (chunks and the end byte) from liblzma. */
static uint8_t *raw_lzma2(const uint8_t *in, size_t n, size_t *out_len)
{
	lzma_options_lzma o;
	size_t cap = n + n / 8 + 4096, pos = 0;
	uint8_t *out = xmalloc(cap);

	lzma_lzma_preset(&o, 6);
	o.dict_size = 1u << 20;
	lzma_filter filters[] = { { LZMA_FILTER_LZMA2, &o }, { LZMA_VLI_UNKNOWN, NULL } };
	if (lzma_raw_buffer_encode(filters, NULL, in, n, out, &pos, cap) != LZMA_OK) {
		fprintf(stderr, "test_xz: raw LZMA2 encoding failed\n");
		exit(2);
	}
	*out_len = pos;
	return out;
}

/* want: a status; ANY_ERROR: any but DECODE_OK; AGREE: whatever liblzma
 * says (OK with the same bytes, or an error). */
#define ANY_ERROR (-1)
#define AGREE     (-2)

static void expect_assembled(const char *name, const uint8_t *chunks, size_t len, const uint8_t *out,
			     size_t out_len, int want)
{
	struct hblock b = { chunks, len, out, out_len, 0, 0 };
	size_t n;
	uint8_t *x;

	begin_case();
	x = assemble(&b, 1, want == AGREE ? LZMA_CHECK_NONE : LZMA_CHECK_CRC32, 0, &n);
	if (want == AGREE) {
		uint8_t *lib = xmalloc(out_len), *ours;
		uint64_t memlimit = UINT64_MAX;
		size_t ip = 0, op = 0;
		lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, x, &ip, n, lib, &op, out_len);
		int lib_ok = r == LZMA_OK && ip == n && op == out_len;
		int st = run_decode(FMT_XZ, x, n, out_len, &ours);

		if (lib_ok != (st == DECODE_OK))
			failf("liblzma %s (%d), ours %s", lib_ok ? "decodes it" : "does not", (int)r,
			      status_name(st));
		else if (lib_ok && out_len && memcmp(lib, ours, out_len) != 0)
			failf("output differs from liblzma's at %zu", first_diff(lib, ours, out_len));
		free(lib);
		free(ours);
	} else if (want == ANY_ERROR) {
		if (run_decode(FMT_XZ, x, n, out_len, NULL) == DECODE_OK)
			failf("decodes OK");
	} else if (want == DECODE_OK) {
		if (!lib_decodes(FMT_XZ, x, n, out, out_len))
			failf("liblzma does not decode it");
		expect_decodes(FMT_XZ, x, n, out, out_len);
	} else {
		expect_status(FMT_XZ, x, n, out_len, want, name);
	}
	free(x);
	end_case(name);
}

static void test_handmade(void)
{
	static const uint8_t hello[] = "hello, world";
	const size_t hn = sizeof hello - 1;
	uint8_t c[256];
	size_t k;

	/* uncompressed chunk with a dictionary reset, then one without */
	k = 0;
	c[k++] = 0x01; c[k++] = 0; c[k++] = (uint8_t)(hn - 1);
	memcpy(c + k, hello, hn); k += hn;
	c[k++] = 0x02; c[k++] = 0; c[k++] = (uint8_t)(hn - 1);
	memcpy(c + k, hello, hn); k += hn;
	c[k++] = 0x00;
	{
		uint8_t two[64];

		memcpy(two, hello, hn);
		memcpy(two + hn, hello, hn);
		expect_assembled("lzma2 copy chunks 01 02", c, k, two, 2 * hn, DECODE_OK);
	}
	/* the first chunk must reset the dictionary */
	c[0] = 0x02;
	expect_assembled("lzma2 first chunk 02 (no dict reset)", c, k, c + 3, 2 * hn, DECODE_CORRUPT);
	c[0] = 0x03;
	expect_assembled("lzma2 control 03", c, k, c + 3, 2 * hn, DECODE_CORRUPT);
	c[0] = 0x7F;
	expect_assembled("lzma2 control 7f", c, k, c + 3, 2 * hn, DECODE_CORRUPT);

	/* no end byte: the data runs into the block padding / check */
	k = 0;
	c[k++] = 0x01; c[k++] = 0; c[k++] = (uint8_t)(hn - 1);
	memcpy(c + k, hello, hn); k += hn;
	expect_assembled("lzma2 without end byte", c, k, hello, hn, DECODE_CORRUPT);

	/* LZMA chunks from liblzma, their control byte changed */
	{
		const size_t n = 30000;
		uint8_t *data = xmalloc(n);
		size_t len;
		uint8_t *raw;

		xz_text(data, n);
		raw = raw_lzma2(data, n, &len);
		if (raw[0] != 0xE0) {
			begin_case();
			failf("expected liblzma's first LZMA2 chunk to be 0xE0, got 0x%02x", raw[0]);
			end_case("lzma2 raw chunk");
		} else {
			expect_assembled("lzma2 liblzma chunk e0", raw, len, data, n, DECODE_OK);
			raw[0] = 0xC0;  /* props + state, but no dict reset */
			expect_assembled("lzma2 first chunk c0 (no dict reset)", raw, len, data, n, DECODE_CORRUPT);
			raw[0] = 0x80;
			expect_assembled("lzma2 first chunk 80", raw, len, data, n, DECODE_CORRUPT);
			raw[0] = 0xE0;
			{
				/* lc + lp > 4 in the props byte (lc 4, lp 1): refused */
				uint8_t keep = raw[5];

				raw[5] = (0 * 5 + 1) * 9 + 4;
				expect_assembled("lzma2 props lc+lp=5", raw, len, data, n, DECODE_CORRUPT);
				raw[5] = 225;
				expect_assembled("lzma2 props 225", raw, len, data, n, DECODE_CORRUPT);
				raw[5] = keep;
			}
			/* the chunk claims one byte more than it makes */
			{
				unsigned us = ((raw[0] & 0x1Fu) << 16 | raw[1] << 8 | raw[2]) + 1;
				unsigned ps = (raw[3] << 8 | raw[4]) + 1;

				if (ps + 6 + 1 == len) {
					uint8_t *d2 = xmalloc(us + 1);

					memcpy(d2, data, us);

					raw[1] = (uint8_t)(us >> 8);
					raw[2] = (uint8_t)us;
					d2[us] = 0;
					expect_assembled("lzma2 chunk usize + 1", raw, len, d2, us + 1, ANY_ERROR);
					raw[1] = (uint8_t)((us - 2) >> 8);
					raw[2] = (uint8_t)(us - 2);
					expect_assembled("lzma2 chunk usize - 1", raw, len, data, us - 1, ANY_ERROR);
					free(d2);
				}
			}
			/* an uncompressed chunk with a dict reset, then an LZMA chunk
			 * that does not set new properties */
			{
				uint8_t *c2 = xmalloc(len + 3 + hn);
				uint8_t *d2 = xmalloc(hn + n);

				k = 0;
				c2[k++] = 0x01; c2[k++] = 0; c2[k++] = (uint8_t)(hn - 1);
				memcpy(c2 + k, hello, hn); k += hn;
				memcpy(c2 + k, raw, len);
				c2[k] = 0xA0;   /* state reset only */
				memcpy(d2, hello, hn);
				memcpy(d2 + hn, data, n);
				expect_assembled("lzma2 01 then a0 (props needed)", c2, k + len, d2, hn + n,
						 DECODE_CORRUPT);
				/* new props, no dict reset: valid, but the LZMA data
				 * now sees "hello" before it: same as liblzma */
				c2[k] = 0xC0;
				expect_assembled("lzma2 01 then c0", c2, k + len, d2, hn + n, AGREE);
				free(c2);
				free(d2);
			}
		}
		free(raw);
		free(data);
	}

	/* index and footer inconsistencies */
	{
		const size_t n = 20000;
		uint8_t *data = xmalloc(n);
		size_t len, rlen;
		uint8_t *raw, *x;

		xz_mixed(data, n);
		raw = raw_lzma2(data, n, &rlen);
		struct hblock b[2] = { { raw, rlen, data, n, 0, 1 }, { raw, rlen, data, n, 0, 0 } };
		uint8_t *d2 = xmalloc(2 * n);

		memcpy(d2, data, n);
		memcpy(d2 + n, data, n);

		begin_case();
		x = assemble(b, 2, LZMA_CHECK_CRC64, 0, &len);
		if (!lib_decodes(FMT_XZ, x, len, d2, 2 * n))
			failf("liblzma does not decode it");
		expect_roundtrip(FMT_XZ, x, len, d2, 2 * n);
		free(x);
		end_case("assembled two blocks, crc64, sizes in one header");

		begin_case();
		x = assemble(b, 2, LZMA_CHECK_CRC32, 1, &len);
		/* the index promises one byte more than the blocks make */
		expect_status(FMT_XZ, x, len, 2 * n + 1, DECODE_CORRUPT, "index usize + 1");
		expect_status(FMT_XZ, x, len, 2 * n, DECODE_OUTPUT_OVERRUN, "index sum > dst_len");
		free(x);
		x = assemble(b, 2, LZMA_CHECK_CRC32, -1, &len);
		expect_status(FMT_XZ, x, len, 2 * n - 1, DECODE_OUTPUT_OVERRUN, "index usize - 1");
		expect_status(FMT_XZ, x, len, 2 * n, DECODE_SHORT_OUTPUT, "index sum < dst_len");
		free(x);
		end_case("index record sizes that disagree");

		begin_case();
		x = assemble(b, 1, LZMA_CHECK_NONE, 0, &len);
		/* the block header's compressed size, one too small (header CRC fixed) */
		{
			uint8_t *h = x + 12;
			size_t hs = ((size_t)h[0] + 1) * 4;

			if ((h[1] & 0x40) && (h[2] & 0x7F)) {
				h[2]--;         /* the VLI's low 7 bits, not its length */
				put_le32(h + hs - 4, lzma_crc32(h, hs - 4, 0));
				expect_status(FMT_XZ, x, len, n, DECODE_CORRUPT, "header csize - 1");
				h[2]++;
				put_le32(h + hs - 4, lzma_crc32(h, hs - 4, 0));
			}
			expect_decodes(FMT_XZ, x, len, data, n);
			/* a reserved block flag bit (CRC fixed) */
			h[1] |= 0x04;
			put_le32(h + hs - 4, lzma_crc32(h, hs - 4, 0));
			expect_status(FMT_XZ, x, len, n, DECODE_CORRUPT, "reserved block flag");
			h[1] &= (uint8_t)~0x04;
			/* a non-zero header padding byte (CRC fixed) */
			if (h[hs - 5] == 0) {
				h[hs - 5] = 1;
				put_le32(h + hs - 4, lzma_crc32(h, hs - 4, 0));
				expect_status(FMT_XZ, x, len, n, DECODE_CORRUPT, "header padding");
				h[hs - 5] = 0;
			}
			put_le32(h + hs - 4, lzma_crc32(h, hs - 4, 0));
			/* the footer's flags differ from the header's (CRC fixed) */
			uint8_t *f = x + len - 12;
			f[9] = LZMA_CHECK_CRC32;
			put_le32(f, lzma_crc32(f + 4, 6, 0));
			expect_status(FMT_XZ, x, len, n, DECODE_CORRUPT, "footer flags differ");
			f[9] = 0;
			/* backward size one word too large (CRC fixed) */
			put_le32(f + 4, (uint32_t)(f[4] | f[5] << 8) + 1);
			put_le32(f, lzma_crc32(f + 4, 6, 0));
			if (run_decode(FMT_XZ, x, len, n, NULL) == DECODE_OK)
				failf("backward size + 4 decodes OK");
		}
		free(x);
		end_case("block header and footer fields");

		free(d2);
		free(raw);
		free(data);
	}
}

/* ---- damage ------------------------------------------------------------- */

static void test_damaged_checks(void)
{
	const size_t n = 50000;
	uint8_t *data = xmalloc(n);
	static const lzma_check checks[] = { LZMA_CHECK_CRC32, LZMA_CHECK_CRC64 };
	char name[128];

	/* random: stored in uncompressed chunks, so a flipped data byte still
	 * decodes and only the check can tell */
	xz_random(data, n);
	for (size_t i = 0; i < 2; i++) {
		struct enc e = enc_default(6);
		size_t len;
		uint8_t *x;

		e.check = checks[i];
		begin_case();
		x = enc_xz(&e, data, n, &len);
		if (x) {
			const size_t csize = lzma_check_size(checks[i]);
			const size_t isize = ((size_t)(x[len - 8] | x[len - 7] << 8 | x[len - 6] << 16) + 1) * 4;
			uint8_t *check = x + len - 12 - isize - csize;
			uint8_t *bh = x + 12;

			expect_decodes(FMT_XZ, x, len, data, n);
			check[0] ^= 0x01;
			expect_status(FMT_XZ, x, len, n, DECODE_CHECK_MISMATCH, "block check");
			check[0] ^= 0x01;
			check[csize - 1] ^= 0x80;
			expect_status(FMT_XZ, x, len, n, DECODE_CHECK_MISMATCH, "block check, last byte");
			check[csize - 1] ^= 0x80;
			/* a data byte in the middle of an uncompressed chunk */
			x[12 + (bh[0] + 1) * 4 + 1000] ^= 0x10;
			expect_status(FMT_XZ, x, len, n, DECODE_CHECK_MISMATCH, "stored data byte");
			x[12 + (bh[0] + 1) * 4 + 1000] ^= 0x10;
			/* the stream header's flags */
			x[7] ^= 0x01;
			expect_status(FMT_XZ, x, len, n, DECODE_CHECK_MISMATCH, "stream header");
			x[7] ^= 0x01;
			x[9] ^= 0x01;
			expect_status(FMT_XZ, x, len, n, DECODE_CHECK_MISMATCH, "stream header CRC");
			x[9] ^= 0x01;
			/* the block header */
			bh[1] ^= 0x40;
			expect_status(FMT_XZ, x, len, n, DECODE_CHECK_MISMATCH, "block header");
			bh[1] ^= 0x40;
			/* the index */
			x[len - 12 - isize + 2] ^= 0x01;
			expect_status(FMT_XZ, x, len, n, DECODE_CHECK_MISMATCH, "index");
			x[len - 12 - isize + 2] ^= 0x01;
			x[len - 13] ^= 0x01;
			expect_status(FMT_XZ, x, len, n, DECODE_CHECK_MISMATCH, "index CRC");
			x[len - 13] ^= 0x01;
			/* the footer */
			x[len - 12] ^= 0x01;
			expect_status(FMT_XZ, x, len, n, DECODE_CHECK_MISMATCH, "footer CRC");
			x[len - 12] ^= 0x01;
			x[len - 8] ^= 0x01;
			expect_status(FMT_XZ, x, len, n, DECODE_CHECK_MISMATCH, "footer backward size");
			x[len - 8] ^= 0x01;
			x[len - 1] ^= 0x01;
			expect_status(FMT_XZ, x, len, n, DECODE_TRUNCATED, "footer magic");
			x[len - 1] ^= 0x01;
			x[0] ^= 0x01;
			expect_status(FMT_XZ, x, len, n, DECODE_CORRUPT, "header magic");
			x[0] ^= 0x01;
			expect_decodes(FMT_XZ, x, len, data, n);
		}
		free(x);
		snprintf(name, sizeof name, "xz damaged checks (%s)", i ? "crc64" : "crc32");
		end_case(name);
	}
	free(data);
}

/* ---- damaged streams ----------------------------------------------------
 * The truncation and bit-flip cases each run over a table of streams:
 * mixed data encoded by one of the encoders above with the settings in
 * the table (lzma_opts reads preset, dict, lc, lp, pb and nice_len; the
 * rest is .xz's).  The encoding is part of the case, so an encoder that
 * refuses fails it instead of going unnoticed. */

enum encoder {
	ENC_XZ,
	ENC_LZMA_ALONE,         /* size unknown, end marker */
	ENC_LZMA_ALONE_SIZED,   /* the same, with the size written into the header too */
	ENC_LZMA_KNOWN,         /* known size, no end marker */
};

struct stream_case {
	enum encoder how;
	const char *what;       /* the case name's parenthesis */
	struct enc e;
};

/* enc_default(6) as an initializer. */
#define ENC_PRESET6 { .preset = 6, .lc = -1, .lp = -1, .pb = -1, .check = LZMA_CHECK_CRC32 }

static uint8_t *encode_stream(const struct stream_case *c, const uint8_t *data, size_t n, size_t *len)
{
	uint8_t *x;

	switch (c->how) {
	case ENC_XZ:
		return enc_xz(&c->e, data, n, len);
	case ENC_LZMA_ALONE:
		return enc_lzma_alone(&c->e, data, n, len);
	case ENC_LZMA_ALONE_SIZED:
		x = enc_lzma_alone(&c->e, data, n, len);
		if (x)
			put_le64(x + 5, n);
		return x;
	case ENC_LZMA_KNOWN:
		return enc_lzma_known(&c->e, data, n, len);
	}
	return NULL;
}

/* One case per stream of cases[0..count): "FMT LABEL (WHAT)", check run
 * over the stream of n bytes of mixed data. */
static void run_stream_cases(const struct stream_case *cases, size_t count, size_t n, const char *label,
			     void (*check)(enum fmt f, const uint8_t *x, size_t len, size_t n))
{
	uint8_t *data = xmalloc(n);

	xz_mixed(data, n);
	for (size_t i = 0; i < count; i++) {
		enum fmt f = cases[i].how == ENC_XZ ? FMT_XZ : FMT_LZMA;
		size_t len;
		uint8_t *x;

		begin_case();
		x = encode_stream(&cases[i], data, n, &len);
		if (x)
			check(f, x, len, n);
		free(x);
		end_casef("%s %s (%s)", fmt_name(f), label, cases[i].what);
	}
	free(data);
}

/* Every prefix of a stream fails, and so does a byte too many. */
static void truncations(enum fmt f, const uint8_t *x, size_t len, size_t n)
{
	for (size_t cut = 0; cut < len && !case_failed; cut++) {
		int st = run_decode(f, x, cut, n, NULL);

		if (st == DECODE_OK)
			failf("cut at %zu of %zu decodes OK", cut, len);
	}
	uint8_t *y = xmalloc(len + 1);

	memcpy(y, x, len);
	y[len] = 0;
	if (run_decode(f, y, len + 1, n, NULL) == DECODE_OK)
		failf("a trailing zero byte decodes OK");
	free(y);
}

static void test_truncation(void)
{
	static const struct stream_case cases[] = {
		{ ENC_XZ, "bcj, crc32",
		  { .preset = 6, .lc = -1, .lp = -1, .pb = -1, .check = LZMA_CHECK_CRC32, .bcj = 1 } },
		{ ENC_XZ, "4 KiB blocks, crc64",
		  { .preset = 6, .lc = -1, .lp = -1, .pb = -1, .check = LZMA_CHECK_CRC64, .bcj = 1,
		    .block_size = 4096 } },
		{ ENC_LZMA_ALONE, "end marker", ENC_PRESET6 },
		{ ENC_LZMA_ALONE_SIZED, "known size and end marker", ENC_PRESET6 },
		{ ENC_LZMA_KNOWN, "known size", ENC_PRESET6 },
	};

	run_stream_cases(cases, sizeof cases / sizeof cases[0], 20000, "truncated at every cut", truncations);
}

/* Every single-bit flip of small streams, then random byte damage: any
 * status is fine, a stray access is not (ASan), nor a bogus status. */
static void flips(enum fmt f, const uint8_t *x, size_t len, size_t n)
{
	uint8_t *y = xdup(x, len);

	for (size_t bit = 0; bit < 8 * len && !case_failed; bit++) {
		y[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		run_decode(f, y, len, n, NULL);
		y[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	for (int rep = 0; rep < 3000 && !case_failed; rep++) {
		memcpy(y, x, len);
		for (int k = 1 + (int)rng_below(8); k > 0; k--)
			y[rng_below(len)] = (uint8_t)rng();
		run_decode(f, y, len, n, NULL);
		run_decode(f, y, len, n + rng_below(64), NULL);
		run_decode(f, y, len, rng_below(n + 1), NULL);
	}
	free(y);
}

static void test_flips(void)
{
	static const struct stream_case cases[] = {
		{ ENC_XZ, "bcj",
		  { .preset = 6, .lc = -1, .lp = -1, .pb = -1, .check = LZMA_CHECK_CRC32, .bcj = 1 } },
		{ ENC_XZ, "blocks, no check, lc0 lp4 pb4",
		  { .preset = 6, .lc = 0, .lp = 4, .pb = 4, .check = LZMA_CHECK_NONE, .block_size = 1000 } },
		{ ENC_LZMA_ALONE, "end marker", ENC_PRESET6 },
		{ ENC_LZMA_KNOWN, "known size", ENC_PRESET6 },
	};

	run_stream_cases(cases, sizeof cases / sizeof cases[0], 3000, "bit flips and damage", flips);
}

static void test_garbage(void)
{
	begin_case();
	for (int rep = 0; rep < 20000 && !case_failed; rep++) {
		size_t len = rng_below(600), n = rng_below(2000);
		uint8_t *y = xmalloc(len + 13);

		xz_random(y, len + 13);
		if (rep & 1) {
			/* a plausible .lzma header: small props, small dict */
			y[0] = (uint8_t)rng_below(LZMA_LCLP_MAX * 9 + 1);
			if (rep & 2)
				put_le64(y + 5, n);
			run_decode(FMT_LZMA, y, len + 13, n, NULL);
		} else if (len >= 24) {
			/* an .xz frame around junk */
			static const uint8_t magic[6] = { 0xFD, '7', 'z', 'X', 'Z', 0 };

			memcpy(y, magic, 6);
			y[6] = 0;
			y[7] = (uint8_t)(rep & 4 ? LZMA_CHECK_CRC32 : LZMA_CHECK_NONE);
			put_le32(y + 8, lzma_crc32(y + 6, 2, 0));
			y[len - 4] = 0;
			y[len - 3] = y[7];
			y[len - 2] = 'Y';
			y[len - 1] = 'Z';
			put_le32(y + len - 8, (uint32_t)rng_below(((len - 24) / 4) + 1));
			put_le32(y + len - 12, lzma_crc32(y + len - 8, 6, 0));
			run_decode(FMT_XZ, y, len, n, NULL);
		} else {
			run_decode(FMT_XZ, y, len, n, NULL);
		}
		free(y);
	}
	end_case("garbage");

	begin_case();
	{
		/* .lzma properties the workspace cannot hold, or out of range */
		const size_t n = 1000;
		uint8_t *data = xmalloc(n);
		struct enc e = enc_default(1);
		size_t len;
		uint8_t *x;

		xz_text(data, n);
		x = enc_lzma_alone(&e, data, n, &len);
		if (x) {
			x[0] = (0 * 5 + 0) * 9 + 5;     /* lc 5 */
			expect_status(FMT_LZMA, x, len, n, DECODE_CORRUPT, "lc 5");
			x[0] = (0 * 5 + 2) * 9 + 3;     /* lc 3, lp 2 */
			expect_status(FMT_LZMA, x, len, n, DECODE_CORRUPT, "lc 3 lp 2");
			x[0] = 225;
			expect_status(FMT_LZMA, x, len, n, DECODE_CORRUPT, "props 225");
		}
		free(x);
		free(data);
	}
	end_case("lzma properties refused");
}

/* ---- files -------------------------------------------------------------- */

static void test_files(int argc, char **argv)
{
	char name[512];

	for (int i = 1; i < argc; i++) {
		size_t n;
		uint8_t *data = read_whole_file(argv[i], &n);

		if (!data) {
			snprintf(name, sizeof name, "file:%s", argv[i]);
			skip_case(name, strerror(errno));
			continue;
		}
		struct enc e = enc_default(9 | LZMA_PRESET_EXTREME);

		e.dict = 8u << 20;
		e.bcj = 1;
		snprintf(name, sizeof name, "xz 9e bcj %s", argv[i]);
		roundtrip_xz(name, &e, data, n);
		e.block_size = 1u << 20;
		e.check = LZMA_CHECK_CRC64;
		snprintf(name, sizeof name, "xz 6 bcj 1 MiB blocks crc64 %s", argv[i]);
		e.preset = 6;
		roundtrip_xz(name, &e, data, n);
		e = enc_default(9 | LZMA_PRESET_EXTREME);
		e.dict = 8u << 20;
		snprintf(name, sizeof name, "lzma 9e %s", argv[i]);
		roundtrip_lzma(name, &e, data, n);
		free(data);
	}
}

int main(int argc, char **argv)
{
	test_empty();
	test_presets();
	test_dict_sizes();
	test_lclppb();
	test_checks();
	test_multiblock();
	test_bcj();
	test_uncompressed_chunks();
	test_handmade();
	test_damaged_checks();
	test_truncation();
	test_flips();
	test_garbage();
	test_files(argc, argv);
	return finish_tests("test_xz");
}
