/* testlib.h - what the host decoder tests (tests/test_*.c) share:
 * counting cases, exact-size buffers with guard bytes, the decode_status
 * names, a deterministic PRNG, running a decoder and the checks every
 * decoder test makes of it, the round trips and sweeps over a test's
 * inputs and compressors, rounds of damaged streams, and reading an input
 * file.  A test keeps only what is its codec's own: its decoder and
 * references, its compressors, and its hand-made streams.
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

#include "decode.h"

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

/* ---- running a decoder ---- */

/* fn on an exact copy of src[0..src_len) into a fresh exact dst of
 * dst_len bytes (filled with 0x5C first), with the workspace ws->p (ws
 * NULL: none; its contents are the caller's).  Records a failure if a
 * guard byte of src, dst or ws was touched or the status is not a
 * decode_status.  The output, if out is given, is copied to *out
 * (malloc'ed, dst_len bytes).  Returns the status. */
int decode_exact(decode_fn fn, const uint8_t *src, size_t src_len, size_t dst_len, struct buf *ws,
		 uint8_t **out);

/* A test's way to run its decoder (decode_exact with its decoder and
 * workspace, and whatever it checks on every call), same arguments. */
typedef int (*run_fn)(const uint8_t *src, size_t src_len, size_t dst_len, uint8_t **out);

/* Inside the current case: stream s[0..clen) decodes at the exact size n
 * to data.  Returns the status; the output, if out is given, in *out. */
int expect_exact(run_fn run, const uint8_t *data, size_t n, const uint8_t *s, size_t clen,
		 const char *what, uint8_t **out);
/* What expect_wrong_sizes holds a decoder to. */
enum wrong_sizes {
	/* one byte less of dst is OUTPUT_OVERRUN, one more SHORT_OUTPUT */
	SIZES_STATUS,
	/* the same, and the SHORT_OUTPUT has data in front */
	SIZES_STATUS_BYTES,
	/* any status but OK (a format whose decoder may see the wrong size
	 * first as a corrupt stream) */
	SIZES_NOT_OK,
};

/* Inside the current case: stream s[0..clen) of data[0..n) decoded with
 * a dst one byte short and one byte long, as `how` says. */
void expect_wrong_sizes(run_fn run, const uint8_t *data, size_t n, const uint8_t *s, size_t clen,
			const char *what, enum wrong_sizes how);

/* One case NAME: s[0..len), decoded at dst_len, gives status want (and,
 * for DECODE_OK with want_out given, the bytes want_out[0..dst_len)). */
void expect_case(run_fn run, const char *name, const uint8_t *s, size_t len, size_t dst_len, int want,
		 const void *want_out);

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

/* ---- sweeps over streams ---- */

/* An input of a sweep: gen makes its n bytes; its cases are named after
 * it. */
struct gen_input {
	const char *name;
	size_t n;
	void (*gen)(uint8_t *, size_t);
};

/* A test's stream makers (its compressors): count of them, names[k] for
 * case names, and make(k, data, n, &clen) a malloc'ed stream of
 * data[0..n) by maker k. */
struct stream_makers {
	unsigned count;
	const char *const *names;
	uint8_t *(*make)(unsigned k, const uint8_t *data, size_t n, size_t *clen);
};

/* For each of the count inputs and each maker k: one case
 * "PREFIX-INPUT/MAKER" in which check(k, data, n, s, clen) runs on maker
 * k's stream s of the input. */
void each_stream(const struct stream_makers *z, const char *prefix, const struct gen_input *in,
		 size_t count, void (*check)(unsigned k, const uint8_t *data, size_t n, const uint8_t *s,
					     size_t clen));

/* Inside the current case: every proper prefix of s[0..clen), decoded at
 * the full size n, gives a status in accept (a mask of 1 << status); up to
 * the first that does not. */
void expect_prefixes(run_fn run, size_t n, const uint8_t *s, size_t clen, unsigned accept);

/* ---- garbage ---- */

/* One way to damage a stream s[0..*clen) of an n-byte input, in place
 * (and perhaps shortening it); NULL in a list: leave it intact. */
typedef void (*damage_fn)(uint8_t *s, size_t *clen, size_t n);

/* A test's rounds of damaged streams (garbage_rounds). */
struct garbage {
	unsigned rounds;
	/* round r's input: 1 + rng_below(large) bytes every large_every-th
	 * round, else 1 + rng_below(small), made by gens[r % n_gens] */
	size_t small, large;
	unsigned large_every, n_gens;
	void (*const *gens)(uint8_t *, size_t);
	/* round r's stream of data[0..n), malloc'ed, its size in *clen */
	uint8_t *(*make)(unsigned r, const uint8_t *data, size_t n, size_t *clen);
	/* each round's damage: damages[rng_below(n_damages)] */
	const damage_fn *damages;
	unsigned n_damages;
	run_fn run;
	/* ours said st (and, if OK, out[0..dst_len)) on s[0..clen): failf
	 * where the reference disagrees */
	void (*judge)(unsigned r, const uint8_t *s, size_t clen, size_t dst_len, int st, const uint8_t *out);
};

/* One case NAME: g's rounds, each an input, its stream, damaged, decoded
 * with a wrong size now and then (garbage_dst_len) and judged, up to the
 * first failure.  Returns how many rounds ours decoded OK. */
unsigned garbage_rounds(const struct garbage *g, const char *name);
/* A dst_len for a damaged stream of n bytes: mostly n or near it, now
 * and then anything up to twice n. */
size_t garbage_dst_len(size_t n);

/* Damage for garbage_rounds' lists: one byte replaced; one to eight bit
 * flips; one bit flip and a cut to a random length. */
void damage_byte(uint8_t *s, size_t *clen, size_t n);
void damage_flips(uint8_t *s, size_t *clen, size_t n);
void damage_flip_cut(uint8_t *s, size_t *clen, size_t n);
/* One bit of s[0..len) flipped, at random. */
void flip_random_bit(uint8_t *s, size_t len);

/* ---- files ---- */

/* The whole of a regular file, malloc'ed, its size in *n; NULL with errno
 * set if it cannot be opened, sized or read. */
uint8_t *read_whole_file(const char *path, size_t *n);

#endif
