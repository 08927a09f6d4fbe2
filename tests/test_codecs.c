/* test_codecs.c - every codec of the packer's table, the same way.
 *
 * Linked with tools/compress/codecs.c, every compressor glue and every
 * decoder (tests/tests.mk derives the list from decode/codecs.def), so a
 * codec added there is tested here without an edit.  For each codec:
 *
 *   table      its entry is consistent: found by name and id, levels in
 *              order, levels outside them refused by codec_compress;
 *   round trip for each input (empty, one byte, small text, zeros, random,
 *              mixed, and the files named on the command line, i.e. the
 *              test kernels) at the codec's min, default and max level:
 *              codec_compress succeeds, the decoder gives back the input
 *              (called directly and through codec_decode), and then
 *   wrong size a dst_len shorter or longer than the input is not DECODE_OK;
 *   truncated  the block cut at several points is not DECODE_OK (except
 *              for an empty input, where nothing can be lost);
 *   bit flips  any status will do, but it must be a decode_status;
 *   in place   at the default level: the payload decodes in place at the
 *              offset tools/compress/inplace.c finds, and a grain below
 *              what it found as the minimum it does not.
 *
 * Every decoder call gets its own src, dst and workspace in mappings with
 * an inaccessible page on each side, twice: once with each buffer ending
 * right at its guard page, once with it starting right after one.  So any
 * access outside the buffer, read or write, lands in a guard page (a
 * SIGSEGV, reported with the case's name) or, for a write that stays
 * within the page, on canary bytes checked after the call.  Both calls
 * must give the same status: a decoder's answer may not depend on where
 * its buffers are.  The decoder must not write to its input either.
 * Built plain and with ASan + UBSan (tests/tests.mk).
 *
 * usage: test_codecs [file...]   (a file that cannot be read fails)
 * Prints "ok CASE" / "FAIL CASE: why" per case, then
 * "test_codecs: N passed, M failed, 0 skipped"; exits 1 if anything failed.
 */
#define _DEFAULT_SOURCE         /* MAP_ANONYMOUS */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codecs.h"
#include "inplace.h"
#include "testgen.h"
#include "testlib.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#endif
#endif
#ifdef HAVE_ASAN
#include <sanitizer/asan_interface.h>
#endif

#define CANARY 0xA7

/* ---- case bookkeeping ---------------------------------------------------
 * One case is one codec at one level on one input; its first failure is
 * the one reported (tests/testlib.h counts them).  The name is kept where
 * a crash report can read it. */

static char case_name[256];

static void begin_named_case(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void begin_named_case(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(case_name, sizeof case_name, fmt, ap);
	va_end(ap);
	begin_case();
}

static void die(const char *what)
{
	fprintf(stderr, "test_codecs: %s\n", what);
	exit(2);
}

/* ---- crashes -------------------------------------------------------------
 * A guard page hit is a SIGSEGV.  Without ASan our handler names the case
 * (the output so far says only which cases passed); with ASan its own
 * report is better, and the death callback adds the case's name to it. */

#ifdef HAVE_ASAN
static void on_death(void)
{
	fprintf(stderr, "FAIL %s: sanitizer report above\n", case_name);
}
#else
static void put(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(STDOUT_FILENO, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Only async-signal-safe calls: write(2) and _exit(2). */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	char hex[2 * sizeof(uintptr_t) + 1];
	uintptr_t a = (uintptr_t)si->si_addr;

	(void)uc;
	for (int i = (int)sizeof(hex) - 2; i >= 0; i--, a >>= 4)
		hex[i] = "0123456789abcdef"[a & 15];
	hex[sizeof(hex) - 1] = '\0';
	put("FAIL ");
	put(case_name);
	put(sig == SIGSEGV ? ": SIGSEGV at 0x" : ": SIGBUS at 0x");
	put(hex);
	put(" (a guard page: the decoder went outside src, dst or its workspace)\n");
	_exit(1);
}
#endif

static void catch_crashes(void)
{
#ifdef HAVE_ASAN
	__asan_set_death_callback(on_death);
#else
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL) != 0 || sigaction(SIGBUS, &sa, NULL) != 0)
		die("cannot install the SIGSEGV handler");
#endif
}

/* ---- deterministic PRNG (64-bit LCG, high bits) -------------------------
 * Not testlib's rng(): the cases below are tuned to the inputs this
 * generator makes, so it stays as it is. */

static uint64_t lcg_state = 0x243F6A8885A308D3ull;

static uint32_t lcg32(void)
{
	lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(lcg_state >> 32);
}

static size_t lcg_below(size_t n)
{
	return n ? (size_t)(((uint64_t)lcg32() << 32 | lcg32()) % n) : 0;
}

/* ---- guarded buffers -------------------------------------------------------
 * [guard page][body: whole pages][guard page].  The buffer sits at the
 * start of the body or at its end (rounded down to `align`); the rest of
 * the body holds CANARY bytes. */

static size_t page;

struct gbuf {
	uint8_t *map, *body, *p;
	size_t map_len, body_len, n;
};

static void gbuf_new(struct gbuf *g, size_t n, size_t align, int at_end)
{
	g->n = n;
	g->body_len = (n / page + 1) * page;    /* at least one byte of slack */
	g->map_len = g->body_len + 2 * page;
	g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		die("mmap failed");
	g->body = g->map + page;
	if (mprotect(g->map, page, PROT_NONE) != 0 ||
	    mprotect(g->body + g->body_len, page, PROT_NONE) != 0)
		die("mprotect failed");
	g->p = at_end ? g->body + ((g->body_len - n) & ~(align - 1)) : g->body;
	memset(g->body, CANARY, g->body_len);
}

/* The first canary byte that changed, as an offset from the buffer's
 * start (negative: before it), in *where; 0 if none did. */
static int gbuf_touched(const struct gbuf *g, long *where)
{
	for (const uint8_t *q = g->body; q < g->p; q++)
		if (*q != CANARY) {
			*where = -(long)(g->p - q);
			return 1;
		}
	for (const uint8_t *q = g->p + g->n; q < g->body + g->body_len; q++)
		if (*q != CANARY) {
			*where = (long)(q - g->p);
			return 1;
		}
	return 0;
}

static void gbuf_free(struct gbuf *g)
{
	munmap(g->map, g->map_len);
}

/* ---- the decoder, guarded ------------------------------------------------ */

static const char *status_str(int st)
{
	return valid_status(st) ? decode_status_name((enum decode_status)st) : "(not a decode_status)";
}

/* Runs c->decode on src[0..src_len) into dst_len bytes, with buffers at
 * the ends of their pages and then at the starts (see the top).  Records
 * a failure for anything outside the buffers, an invalid status, two
 * different statuses, or (with want != NULL) DECODE_OK with an output
 * other than want.  Returns the status. */
static int decode_guarded(const struct codec *c, const uint8_t *src, size_t src_len,
			  size_t dst_len, const uint8_t *want, const char *what)
{
	static const char *const where_name[2] = { "at page starts", "at page ends" };
	int st[2];

	for (int at_end = 1; at_end >= 0; at_end--) {
		struct gbuf s, d, w;
		long where;

		gbuf_new(&s, src_len, 1, at_end);
		if (src_len)
			memcpy(s.p, src, src_len);
		gbuf_new(&d, dst_len, 1, at_end);
		/* decode.h promises 16-byte alignment; the stub gives 4 KiB */
		if (c->workspace_size)
			gbuf_new(&w, c->workspace_size, 16, at_end);

		st[at_end] = c->decode(s.p, src_len, d.p, dst_len, c->workspace_size ? w.p : NULL);

		if (!valid_status(st[at_end]))
			failf("%s: returned %d, not a decode_status (%s)", what, st[at_end],
			      where_name[at_end]);
		if (gbuf_touched(&d, &where))
			failf("%s: wrote dst[%ld], outside dst[0..%zu) (%s, status %s)", what, where,
			      dst_len, where_name[at_end], status_str(st[at_end]));
		if (gbuf_touched(&s, &where) || (src_len && memcmp(s.p, src, src_len) != 0))
			failf("%s: wrote to its input (%s)", what, where_name[at_end]);
		if (c->workspace_size && gbuf_touched(&w, &where))
			failf("%s: wrote workspace[%ld], outside its %zu bytes (%s)", what, where,
			      c->workspace_size, where_name[at_end]);
		if (want && st[at_end] == DECODE_OK && dst_len && memcmp(d.p, want, dst_len) != 0)
			failf("%s: DECODE_OK but the output is not the input (%s)", what,
			      where_name[at_end]);
		gbuf_free(&s);
		gbuf_free(&d);
		if (c->workspace_size)
			gbuf_free(&w);
	}
	if (st[0] != st[1])
		failf("%s: status %s %s, %s %s", what, status_str(st[1]), where_name[1],
		      status_str(st[0]), where_name[0]);
	return st[1];
}

/* ---- inputs --------------------------------------------------------------- */

struct input {
	char name[300];
	struct buffer data;
};

static void lcg_random(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)lcg32();
}

static void lcg_text(uint8_t *p, size_t n)
{
	static const char *const words[] = {
		"packs", "an", "x86", "kernel", "behind", "a", "tiny", "stub", "that",
		"checks", "it", "decompresses", "and", "enters", "the", "boot", "protocol",
	};
	size_t i = 0;

	while (i < n) {
		const char *w = words[lcg_below(sizeof words / sizeof words[0])];

		for (; *w && i < n; w++)
			p[i++] = (uint8_t)*w;
		if (i < n)
			p[i++] = lcg_below(10) ? ' ' : '\n';
	}
}

/* A copy of earlier data from up to 100000 bytes back (random bytes at
 * the start, where there is nothing to copy). */
static void copy_back(uint8_t *p, size_t at, size_t len)
{
	if (at == 0) {
		lcg_random(p, len);
		return;
	}
	size_t dist = 1 + lcg_below(at < 100000 ? at : 100000);

	for (size_t k = 0; k < len; k++)
		p[at + k] = p[at + k - dist];
}

/* Stretches (tests/testgen.h) of zeros, random bytes, text, and copies of
 * earlier data at near and far distances: what makes a compressor use
 * every kind of match and literal run. */
static void lcg_mixed(uint8_t *p, size_t n)
{
	static const struct stretch_kind kinds[] = {
		{ gen_zeros, NULL }, { lcg_random, NULL }, { lcg_text, NULL }, { NULL, copy_back },
	};
	static const struct stretch_mix mix = { lcg_below, 1, 3000, 4, kinds };

	gen_stretches(p, n, &mix);
}

static void add_generated(struct input *in, size_t *count, const char *name, size_t n,
			  void (*gen)(uint8_t *, size_t))
{
	struct input *x = &in[(*count)++];

	snprintf(x->name, sizeof x->name, "%s", name);
	x->data.data = xmalloc(n);
	x->data.size = n;
	if (gen)
		gen(x->data.data, n);
	else
		memset(x->data.data, 0, n);
}

/* ---- checks ----------------------------------------------------------------- */

static void check_table(const struct codec *c)
{
	const struct codec_compressor *z = c->compressor;

	begin_named_case("%s/table", c->name);
	if (!c->name[0] || codec_by_name(c->name) != c)
		failf("codec_by_name(\"%s\") does not find it (empty or duplicate name)", c->name);
	if (codec_by_id(c->id) != c)
		failf("codec_by_id(%u) does not find it (duplicate id)", c->id);
	if (!c->decode || !z || !z->compress)
		failf("no decoder or no compressor");
	else if (!(z->min_level <= z->default_level && z->default_level <= z->max_level))
		failf("levels out of order: min %d, default %d, max %d", z->min_level,
		      z->default_level, z->max_level);
	else {
		static const uint8_t byte = 'x';
		const struct buffer in = { (uint8_t *)&byte, 1 };
		int bad[2] = { z->min_level - 1, z->max_level + 1 };

		for (int i = 0; i < 2; i++) {
			struct buffer out = { NULL, 0 };
			struct error err = { "" };

			/* min - 1 may be LEVEL_DEFAULT, which is valid */
			if (bad[i] == LEVEL_DEFAULT)
				continue;
			if (codec_compress(c, bad[i], &in, &out, &err) == 0)
				failf("codec_compress accepted level %d (levels %d..%d)", bad[i],
				      z->min_level, z->max_level);
			free(out.data);
		}
	}
	end_case(case_name);
}

static void check_wrong_sizes(const struct codec *c, const struct buffer *blk, size_t n)
{
	size_t sizes[6], count = 0;
	char what[96];

	if (n > 0) {
		sizes[count++] = n - 1;
		sizes[count++] = n / 2;
		sizes[count++] = 0;
	}
	sizes[count++] = n + 1;
	sizes[count++] = n + 4096;
	sizes[count++] = 2 * n + 16;
	for (size_t i = 0; i < count && !case_failed; i++) {
		if (sizes[i] == n || (i && sizes[i] == sizes[i - 1]))
			continue;
		snprintf(what, sizeof what, "dst_len %zu for %zu bytes", sizes[i], n);
		int st = decode_guarded(c, blk->data, blk->size, sizes[i], NULL, what);
		if (st == DECODE_OK)
			failf("%s: DECODE_OK", what);
	}
}

static void check_truncations(const struct codec *c, const struct buffer *blk, size_t n)
{
	size_t clen = blk->size, cuts[10], count = 0;
	char what[96];

	cuts[count++] = 0;
	cuts[count++] = 1;
	cuts[count++] = 2;
	cuts[count++] = clen / 4;
	cuts[count++] = clen / 2;
	cuts[count++] = clen - 2;
	cuts[count++] = clen - 1;
	for (int i = 0; i < 3; i++)
		cuts[count++] = lcg_below(clen);
	for (size_t i = 0; i < count && !case_failed; i++) {
		/* clen - 2 may wrap for tiny blocks; a cut must leave bytes out */
		if (cuts[i] >= clen)
			continue;
		snprintf(what, sizeof what, "cut to %zu of %zu bytes", cuts[i], clen);
		int st = decode_guarded(c, blk->data, cuts[i], n, NULL, what);
		/* An empty output is all there by definition; a cut is fine. */
		if (st == DECODE_OK && n > 0)
			failf("%s: DECODE_OK", what);
	}
}

static void check_bit_flips(const struct codec *c, const struct buffer *blk, size_t n)
{
	size_t clen = blk->size;
	uint8_t *bad;
	char what[96];

	if (clen == 0)
		return;
	bad = xmalloc(clen);
	for (int round = 0; round < 16 && !case_failed; round++) {
		/* single flips in the first and last bytes (headers,
		 * trailers), then anywhere; the last rounds flip several */
		size_t at = round == 0 ? 0 : round == 1 ? clen - 1 : lcg_below(clen);
		int flips = round < 12 ? 1 : 2 + (int)lcg_below(7);

		memcpy(bad, blk->data, clen);
		bad[at] ^= (uint8_t)(1u << lcg_below(8));
		for (int k = 1; k < flips; k++)
			bad[lcg_below(clen)] ^= (uint8_t)(1u << lcg_below(8));
		snprintf(what, sizeof what, "%d bit flip(s) from byte %zu of %zu", flips, at, clen);
		decode_guarded(c, bad, clen, n, NULL, what);
	}
	free(bad);
}

static void check_roundtrip(const struct codec *c, int level, const struct input *in)
{
	const size_t n = in->data.size;
	struct buffer blk = { NULL, 0 };
	struct error err = { "" };

	begin_named_case("%s/level-%d/%s", c->name, level, in->name);
	if (codec_compress(c, level, &in->data, &blk, &err) != 0) {
		failf("codec_compress: %s", err.msg);
	} else {
		int st = decode_guarded(c, blk.data, blk.size, n, in->data.data, "exact size");
		if (st != DECODE_OK)
			failf("exact size: %s", status_str(st));
		if (!case_failed) {
			/* The table's own glue: the workspace it allocates. */
			uint8_t *out = xmalloc(n);

			st = codec_decode(c, blk.data, blk.size, out, n);
			if (st != DECODE_OK || (n && memcmp(out, in->data.data, n) != 0))
				failf("codec_decode: %s%s", status_str(st),
				      st == DECODE_OK ? ", output differs" : "");
			free(out);
		}
		if (!case_failed)
			check_wrong_sizes(c, &blk, n);
		if (!case_failed)
			check_truncations(c, &blk, n);
		if (!case_failed)
			check_bit_flips(c, &blk, n);
	}
	free(blk.data);
	end_case(case_name);
}

/* The in-place margin (tools/compress/inplace.c): the payload at the offset
 * found decodes in place, exactly; and the simulation found a real
 * boundary: one grain below the minimum it found (the offset less its
 * slack), the output overtakes input not yet read and the decode goes
 * wrong.  Inputs whose payload may end with the output (the search's
 * floor, out - in) have no boundary above the floor to find. */
static unsigned in_place_boundaries;   /* cases that checked one */

static void check_in_place(const struct codec *c, const struct input *in)
{
	const size_t n = in->data.size;
	struct buffer blk = { NULL, 0 };
	struct error err = { "" };
	uint64_t d;

	begin_named_case("%s/in-place/%s", c->name, in->name);
	if (codec_compress(c, LEVEL_DEFAULT, &in->data, &blk, &err) != 0) {
		failf("codec_compress: %s", err.msg);
	} else if (inplace_offset(c, 0, &blk, &in->data, 0, &d, &err) != 0) {
		failf("inplace_offset: %s", err.msg);
	} else {
		uint64_t floor = inplace_floor(n, blk.size);
		uint8_t *buf = xmalloc(d + blk.size + 1);
		memcpy(buf + d, blk.data, blk.size);
		int st = codec_decode(c, buf + d, blk.size, buf, n);
		if (st != DECODE_OK || (n && memcmp(buf, in->data.data, n) != 0))
			failf("at offset %llu: %s%s", (unsigned long long)d, status_str(st),
			      st == DECODE_OK ? ", output differs" : "");
		if (!case_failed && d - INPLACE_SLACK >= floor + INPLACE_GRAIN) {
			uint64_t below = d - INPLACE_SLACK - INPLACE_GRAIN;
			in_place_boundaries++;
			memcpy(buf + below, blk.data, blk.size);
			st = codec_decode(c, buf + below, blk.size, buf, n);
			if (st == DECODE_OK && memcmp(buf, in->data.data, n) == 0)
				failf("also decodes at %llu, a grain below the minimum found: not minimal",
				      (unsigned long long)below);
		}
		free(buf);
	}
	free(blk.data);
	end_case(case_name);
}

int main(int argc, char **argv)
{
	static struct input inputs[32];
	size_t n_inputs = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page = (size_t)sysconf(_SC_PAGESIZE);
	catch_crashes();

	add_generated(inputs, &n_inputs, "empty", 0, NULL);
	add_generated(inputs, &n_inputs, "one-byte", 1, lcg_random);
	add_generated(inputs, &n_inputs, "text-300", 300, lcg_text);
	add_generated(inputs, &n_inputs, "zeros-64K", 65536, NULL);
	add_generated(inputs, &n_inputs, "random-64K", 65536, lcg_random);
	add_generated(inputs, &n_inputs, "mixed-256K", 262144, lcg_mixed);
	for (int i = 1; i < argc; i++) {
		struct input *x;
		struct error err = { "" };

		if (n_inputs == sizeof inputs / sizeof inputs[0])
			die("too many files");
		x = &inputs[n_inputs];
		snprintf(x->name, sizeof x->name, "file:%s", argv[i]);
		if (read_file(argv[i], &x->data, &err) != 0) {
			begin_named_case("%s", x->name);
			failf("%s", err.msg);
			end_case(case_name);
			continue;
		}
		n_inputs++;
	}

	if (codec_count == 0) {
		begin_named_case("codec table");
		failf("the table has no codec: nothing to test");
		end_case(case_name);
	}
	for (size_t i = 0; i < codec_count; i++) {
		const struct codec *c = &codecs[i];
		const struct codec_compressor *z = c->compressor;

		check_table(c);
		if (!z || !z->compress || !c->decode)
			continue;       /* check_table failed it */
		int levels[3] = { z->min_level, z->default_level, z->max_level };
		printf("note: %s: levels %d (min), %d (default), %d (max), workspace %zu bytes\n",
		       c->name, levels[0], levels[1], levels[2], c->workspace_size);
		for (int l = 0; l < 3; l++) {
			if (l && levels[l] == levels[l - 1])
				continue;       /* each distinct level once */
			if (l == 2 && levels[2] == levels[0])
				continue;
			for (size_t k = 0; k < n_inputs; k++)
				check_roundtrip(c, levels[l], &inputs[k]);
		}
		in_place_boundaries = 0;
		for (size_t k = 0; k < n_inputs; k++)
			check_in_place(c, &inputs[k]);
		/* Some input must have had a boundary above the floor, or the
		 * minimality was never checked for this codec; except for the
		 * stored payload, which is its own output: a copy down runs in
		 * place from the floor (offset 0). */
		begin_named_case("%s/in-place/boundaries", c->name);
		if (c->id == BZPACK_CODEC_none ? in_place_boundaries != 0 : !in_place_boundaries)
			failf("%u inputs had an in-place boundary to check", in_place_boundaries);
		else
			printf("note: %s: in-place boundary checked on %u inputs\n", c->name, in_place_boundaries);
		end_case(case_name);
	}

	for (size_t k = 0; k < n_inputs; k++)
		free(inputs[k].data.data);
	return finish_tests("test_codecs");
}
