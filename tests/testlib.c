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
