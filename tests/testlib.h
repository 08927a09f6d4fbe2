/* testlib.h - what the host decoder tests (tests/test_*.c) share:
 * counting cases, exact-size buffers with guard bytes, the decode_status
 * names, a deterministic PRNG, the round trips over a test's compressors
 * and reading an input file.
 *
 * A test runs its checks as cases:
 *
 *	begin_case();
 *	... failf("what went wrong: %d", x) on each problem ...
 *	end_case("case name");
 *
 * end_case prints "ok NAME" or "FAIL NAME: <first reason>"; skip_case
 * prints "skip: NAME: WHY" for a case that cannot run here (ci/tests/test-host.sh
 * counts those as skips).  finish_tests prints the closing
 * "PROG: N passed, M failed, K skipped" line and gives the exit status.
 */
#ifndef TESTLIB_H
#define TESTLIB_H

#include <stddef.h>
#include <stdint.h>

/* Guard bytes on each side of a test buffer, checked after every call.
 * Under ASan none: its redzones watch the exact-size buffer instead. */
#if defined(__SANITIZE_ADDRESS__)
#define GUARD 0
#else
#define GUARD 64
#endif
#define GUARD_BYTE 0xA7

#define KIB 1024u
#define MIB (1024u * 1024u)

/* ---- cases ---- */

extern unsigned n_pass, n_fail, n_skip;
/* Set by failf until the next begin_case: lets a loop stop at the first
 * failure of its case. */
extern int case_failed;

void begin_case(void);
/* Records why the current case failed; only the first reason is kept. */
void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void end_case(const char *name);
/* end_case with a name built from a format. */
void end_casef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void skip_case(const char *name, const char *why);
/* Prints PROG's closing count line; returns the exit status (1 if any
 * case failed, else 0). */
int finish_tests(const char *prog);

/* ---- decode_status ---- */

/* The enumerator's name without its prefix ("OUTPUT_OVERRUN"). */
const char *status_name(int st);
/* Whether st is one of enum decode_status at all. */
int valid_status(int st);

/* ---- deterministic PRNG (xorshift64*) ---- */

/* The same sequence on every run and every host: a failure reproduces. */
uint64_t rng(void);
/* Uniform enough in [0, n); 0 for n == 0. */
size_t rng_below(size_t n);

/* ---- memory ---- */

/* malloc or exit(2).  malloc(0) is passed through (glibc and ASan return
 * a pointer to zero usable bytes), so even an empty buffer is exact. */
void *xmalloc(size_t n);

/* An exact-size buffer of n bytes at p, with GUARD canary bytes on each
 * side (base is what was allocated). */
struct buf {
	uint8_t *base;
	uint8_t *p;
	size_t n;
};

struct buf buf_new(size_t n);
/* buf_new(n) holding a copy of data[0..n). */
struct buf buf_from(const void *data, size_t n);
/* 0 if a guard byte on either side was overwritten. */
int buf_guards_ok(const struct buf *b);
void buf_free(struct buf *b);

/* The index of the first byte where a and b differ; n if none does. */
size_t first_diff(const uint8_t *a, const uint8_t *b, size_t n);

/* ---- round trips ---- */

/* A test's compressors, for the round-trip loops below: count of them,
 * names[k] the suffix of compressor k's case names, and check(k, ...)
 * compresses data[0..n) with compressor k, decodes the result and calls
 * failf on whatever is wrong (what: where, for its messages). */
struct compressors {
	unsigned count;
	const char *const *names;
	void (*check)(unsigned k, const uint8_t *data, size_t n, const char *what);
};

/* One case per compressor, "NAME/<compressor>": data[0..n). */
void roundtrip_each(const struct compressors *z, const char *name, const uint8_t *data, size_t n);
/* One case per compressor, "NAME-LO..HI/<compressor>": every length from
 * lo to hi, gen making each input afresh, up to the case's first failure. */
void roundtrip_each_length(const struct compressors *z, const char *name, size_t lo, size_t hi,
			   void (*gen)(uint8_t *, size_t));

/* ---- files ---- */

/* The whole of a regular file, malloc'ed, its size in *n; NULL with errno
 * set if it cannot be opened, sized or read. */
uint8_t *read_whole_file(const char *path, size_t *n);

#endif
