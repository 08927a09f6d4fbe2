/* testlib.c - the shared scaffolding of the host decoder tests
 * (tests/testlib.h). */
#include "testlib.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

/* ---- cases ---- */

unsigned n_pass, n_fail, n_skip;
int case_failed;
static char fail_msg[512];

void begin_case(void)
{
	case_failed = 0;
	fail_msg[0] = '\0';
}

void failf(const char *fmt, ...)
{
	va_list ap;

	if (case_failed)
		return;         /* keep the first reason */
	case_failed = 1;
	va_start(ap, fmt);
	vsnprintf(fail_msg, sizeof fail_msg, fmt, ap);
	va_end(ap);
}

void end_case(const char *name)
{
	if (case_failed) {
		printf("FAIL %s: %s\n", name, fail_msg);
		n_fail++;
	} else {
		printf("ok %s\n", name);
		n_pass++;
	}
	fflush(stdout);
}

void end_casef(const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	end_case(name);
}

/* Said and counted, never an "ok": ci/tests/test-host.sh turns the line into a
 * skip. */
void skip_case(const char *name, const char *why)
{
	printf("skip: %s: %s\n", name, why);
	n_skip++;
	fflush(stdout);
}

int finish_tests(const char *prog)
{
	printf("%s: %u passed, %u failed, %u skipped\n", prog, n_pass, n_fail, n_skip);
	return n_fail ? 1 : 0;
}

/* ---- decode_status ---- */

const char *status_name(int st)
{
	switch (st) {
	case DECODE_OK: return "OK";
	case DECODE_TRUNCATED: return "TRUNCATED";
	case DECODE_OUTPUT_OVERRUN: return "OUTPUT_OVERRUN";
	case DECODE_BAD_OFFSET: return "BAD_OFFSET";
	case DECODE_SHORT_OUTPUT: return "SHORT_OUTPUT";
	case DECODE_CHECK_MISMATCH: return "CHECK_MISMATCH";
	case DECODE_CORRUPT: return "CORRUPT";
	default: return "(not a decode_status)";
	}
}

int valid_status(int st)
{
	return st >= DECODE_OK && st <= DECODE_CORRUPT;
}

/* ---- deterministic PRNG ---- */

/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift
 * generators, scrambled", 2016). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

uint64_t rng(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

size_t rng_below(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

/* ---- memory ---- */

void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p && n == 0)
		p = malloc(1);  /* a libc whose malloc(0) is NULL */
	if (!p) {
		fprintf(stderr, "test: out of memory (%zu bytes)\n", n);
		exit(2);
	}
	return p;
}

struct buf buf_new(size_t n)
{
	struct buf b;

	b.n = n;
	b.base = xmalloc(n + 2 * GUARD);
	b.p = b.base + GUARD;
#if GUARD
	memset(b.base, GUARD_BYTE, GUARD);
	memset(b.p + n, GUARD_BYTE, GUARD);
#endif
	return b;
}

struct buf buf_from(const void *data, size_t n)
{
	struct buf b = buf_new(n);

	if (n)
		memcpy(b.p, data, n);
	return b;
}

int buf_guards_ok(const struct buf *b)
{
#if GUARD
	for (size_t i = 0; i < GUARD; i++)
		if (b->base[i] != GUARD_BYTE || b->p[b->n + i] != GUARD_BYTE)
			return 0;
#else
	(void)b;
#endif
	return 1;
}

void buf_free(struct buf *b)
{
	free(b->base);
	b->base = b->p = NULL;
}

size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return i;
	return n;
}

/* ---- running a decoder ---- */

int decode_exact(decode_fn fn, const uint8_t *src, size_t src_len, size_t dst_len, struct buf *ws,
		 uint8_t **out)
{
	struct buf s = buf_from(src, src_len);
	struct buf d = buf_new(dst_len);
	int st;

	memset(d.p, 0x5C, dst_len);
	st = fn(s.p, src_len, d.p, dst_len, ws ? ws->p : NULL);
	if (!buf_guards_ok(&d))
		failf("wrote outside dst (dst_len %zu, status %s)", dst_len, status_name(st));
	if (!buf_guards_ok(&s))
		failf("wrote outside src (status %s)", status_name(st));
	if (ws && !buf_guards_ok(ws))
		failf("wrote outside its workspace (status %s)", status_name(st));
	if (!valid_status(st))
		failf("returned %d, not a decode_status", st);
	if (out) {
		*out = xmalloc(dst_len);
		if (dst_len)
			memcpy(*out, d.p, dst_len);
	}
	buf_free(&s);
	buf_free(&d);
	return st;
}

int expect_exact(run_fn run, const uint8_t *data, size_t n, const uint8_t *s, size_t clen,
		 const char *what, uint8_t **out)
{
	uint8_t *got = NULL;
	size_t at;
	int st = run(s, clen, n, &got);

	if (st != DECODE_OK)
		failf("%s: n=%zu clen=%zu: status %s", what, n, clen, status_name(st));
	else if ((at = first_diff(got, data, n)) != n)
		failf("%s: n=%zu: output differs from the input at byte %zu", what, n, at);
	if (out)
		*out = got;
	else
		free(got);
	return st;
}

void expect_wrong_sizes(run_fn run, const uint8_t *data, size_t n, const uint8_t *s, size_t clen,
			const char *what, enum wrong_sizes how)
{
	const int loose = how == SIZES_NOT_OK;
	uint8_t *out = NULL;
	size_t at;
	int st;

	if (n > 0) {
		st = run(s, clen, n - 1, NULL);
		if (st == DECODE_OK || (!loose && st != DECODE_OUTPUT_OVERRUN))
			failf("%s: n=%zu: dst_len n-1 gave %s, want OUTPUT_OVERRUN", what, n, status_name(st));
	}
	st = run(s, clen, n + 1, &out);
	if (st == DECODE_OK || (!loose && st != DECODE_SHORT_OUTPUT))
		failf("%s: n=%zu: dst_len n+1 gave %s, want SHORT_OUTPUT", what, n, status_name(st));
	else if (how == SIZES_STATUS_BYTES && (at = first_diff(out, data, n)) != n)
		failf("%s: n=%zu: dst_len n+1 output differs at byte %zu", what, n, at);
	free(out);
}

void expect_case(run_fn run, const char *name, const uint8_t *s, size_t len, size_t dst_len, int want,
		 const void *want_out)
{
	uint8_t *out = NULL;
	int st;

	begin_case();
	st = run(s, len, dst_len, &out);
	if (st != want)
		failf("status %s, want %s", status_name(st), status_name(want));
	else if (want == DECODE_OK && want_out && first_diff(out, want_out, dst_len) != dst_len)
		failf("wrong output at byte %zu", first_diff(out, want_out, dst_len));
	free(out);
	end_case(name);
}

/* ---- round trips ---- */

void roundtrip_each(const struct compressors *z, const char *name, const uint8_t *data, size_t n)
{
	char full[400];

	for (unsigned k = 0; k < z->count; k++) {
		snprintf(full, sizeof full, "%s/%s", name, z->names[k]);
		begin_case();
		z->check(k, data, n, "roundtrip");
		end_case(full);
	}
}

void roundtrip_each_length(const struct compressors *z, const char *name, size_t lo, size_t hi,
			   void (*gen)(uint8_t *, size_t))
{
	char full[400], what[64];
	uint8_t *data = xmalloc(hi);

	for (unsigned k = 0; k < z->count; k++) {
		snprintf(full, sizeof full, "%s-%zu..%zu/%s", name, lo, hi, z->names[k]);
		begin_case();
		for (size_t n = lo; n <= hi && !case_failed; n++) {
			gen(data, n);
			snprintf(what, sizeof what, "length %zu", n);
			z->check(k, data, n, what);
		}
		end_case(full);
	}
	free(data);
}

/* ---- sweeps over streams ---- */

void each_stream(const struct stream_makers *z, const char *prefix, const struct gen_input *in,
		 size_t count, void (*check)(unsigned k, const uint8_t *data, size_t n, const uint8_t *s,
					     size_t clen))
{
	size_t most = 0;

	for (size_t i = 0; i < count; i++)
		most = in[i].n > most ? in[i].n : most;
	uint8_t *data = xmalloc(most);

	for (size_t i = 0; i < count; i++) {
		in[i].gen(data, in[i].n);
		for (unsigned k = 0; k < z->count; k++) {
			size_t clen;
			uint8_t *s = z->make(k, data, in[i].n, &clen);

			begin_case();
			check(k, data, in[i].n, s, clen);
			end_casef("%s-%s/%s", prefix, in[i].name, z->names[k]);
			free(s);
		}
	}
	free(data);
}

void expect_prefixes(run_fn run, size_t n, const uint8_t *s, size_t clen, unsigned accept)
{
	for (size_t cut = 0; cut < clen; cut++) {
		int st = run(s, cut, n, NULL);

		if (!valid_status(st) || !(accept & 1u << st)) {
			failf("prefix of %zu/%zu bytes gave %s", cut, clen, status_name(st));
			return;
		}
	}
}

/* ---- garbage ---- */

unsigned garbage_rounds(const struct garbage *g, const char *name)
{
	uint8_t *data = xmalloc(g->large > g->small ? g->large + 1 : g->small + 1);
	unsigned ok = 0;

	begin_case();
	for (unsigned r = 0; r < g->rounds && !case_failed; r++) {
		size_t n = 1 + rng_below(r % g->large_every == 0 ? g->large : g->small);
		size_t clen, dst_len;
		uint8_t *s, *out = NULL;
		damage_fn damage;
		int st;

		g->gens[r % g->n_gens](data, n);
		s = g->make(r, data, n, &clen);
		if ((damage = g->damages[rng_below(g->n_damages)]))
			damage(s, &clen, n);
		dst_len = garbage_dst_len(n);
		st = g->run(s, clen, dst_len, &out);
		ok += st == DECODE_OK;
		g->judge(r, s, clen, dst_len, st, out);
		free(out);
		free(s);
	}
	end_case(name);
	free(data);
	return ok;
}

size_t garbage_dst_len(size_t n)
{
	switch (rng_below(4)) {
	case 0: return rng_below(n * 2 + 8);
	case 1: return n + rng_below(8);
	case 2: return n > 8 ? n - rng_below(8) : n;
	default: return n;
	}
}

void flip_random_bit(uint8_t *s, size_t len)
{
	s[rng_below(len)] ^= (uint8_t)(1u << rng_below(8));
}

void damage_byte(uint8_t *s, size_t *clen, size_t n)
{
	(void)n;
	s[rng_below(*clen)] = (uint8_t)rng();
}

void damage_flips(uint8_t *s, size_t *clen, size_t n)
{
	(void)n;
	for (int k = 1 + (int)rng_below(8); k > 0; k--)
		flip_random_bit(s, *clen);
}

void damage_flip_cut(uint8_t *s, size_t *clen, size_t n)
{
	(void)n;
	flip_random_bit(s, *clen);
	*clen = rng_below(*clen + 1);
}

/* ---- files ---- */

/* read_whole_file's way out: errno as the failure left it, not as fclose does. */
static uint8_t *close_failed(FILE *f, uint8_t *p, int err)
{
	fclose(f);
	free(p);
	errno = err;
	return NULL;
}

uint8_t *read_whole_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		return close_failed(f, NULL, errno);
	p = xmalloc((size_t)len);
	if (fread(p, 1, (size_t)len, f) != (size_t)len)
		return close_failed(f, p, ferror(f) ? errno : EIO);  /* a short read sets none */
	fclose(f);
	*n = (size_t)len;
	return p;
}
