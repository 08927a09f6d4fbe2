/* test_xxh3.c - decode/xxh3.c against libxxhash's XXH3_64bits: every
 * length up to 2100 at every alignment 0-7 (each short and mid-size path,
 * the long path's first blocks and every place its last stripe can
 * fall), then lengths around block boundaries up to 70 KB, where the
 * scrambles run.  The -m32 builds (the 32-bit stub's code: i686 with SSE2,
 * tests/tests.mk) have no libxxhash (no i386 build in ci/deps.sh): they
 * check a digest of all those values, which the native build checks
 * against libxxhash's values of the same inputs.  And a flipped bit
 * anywhere in a payload-sized input changes the value. */
#include <stdio.h>
#include <stdlib.h>

#include "xxh3.h"
#ifndef REFERENCE_I386
#include <xxhash.h>
#endif

/* The digest of the values below, as libxxhash computes them. */
#define DIGEST_WANT 0x6141423ebe179036ull

static unsigned passed, failed;

static void expect(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	ok ? passed++ : failed++;
}

#define BUF 70000

/* The inputs, in order: what both the comparison and the digest run. */
struct input { size_t off, len; };

static int next_input(struct input *in, unsigned i)
{
	if (i < 2101 * 8) {
		in->off = i % 8;
		in->len = i / 8;
		return 1;
	}
	i -= 2101 * 8;
	/* Around each of the first 64 block ends: 1024 k - 65 .. 1024 k + 65. */
	if (i < 64 * 131) {
		in->off = i % 3;
		in->len = 1024 * (i / 131 + 2) - 65 + i % 131;
		return 1;
	}
	i -= 64 * 131;
	if (i < 200) {
		in->off = 5;
		in->len = BUF - 8 - i * 37;
		return 1;
	}
	return 0;
}

int main(void)
{
	uint8_t *buf = malloc(BUF);
	uint32_t x = 2463534242u;
	char what[128];

	if (!buf)
		return 1;
	for (size_t i = 0; i < BUF; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (uint8_t)x;
	}

	uint64_t digest = 0;
	unsigned n = 0;
	struct input in;
	for (; next_input(&in, n); n++)
		digest = digest * 0x100000001b3ull ^ xxh3_64(buf + in.off, in.len);
	snprintf(what, sizeof(what), "digest of %u values: 0x%016llx, libxxhash's 0x%016llx", n,
		 (unsigned long long)digest, DIGEST_WANT);
	expect(n > 20000 && digest == DIGEST_WANT, what);

#ifndef REFERENCE_I386
	uint64_t ref_digest = 0;
	unsigned bad = 0;
	for (unsigned i = 0; next_input(&in, i); i++) {
		uint64_t want = XXH3_64bits(buf + in.off, in.len);
		if (xxh3_64(buf + in.off, in.len) != want && bad++ < 5)
			printf("  differs: offset %zu, %zu bytes\n", in.off, in.len);
		ref_digest = ref_digest * 0x100000001b3ull ^ want;
	}
	snprintf(what, sizeof(what), "equals libxxhash's XXH3_64bits: %u inputs, %u differ", n, bad);
	expect(bad == 0, what);
	snprintf(what, sizeof(what), "the digest the -m32 builds check is libxxhash's (0x%016llx)",
		 (unsigned long long)ref_digest);
	expect(ref_digest == DIGEST_WANT, what);
#else
	printf("skip: libxxhash comparison: no i386 libxxhash (the digest above stands in)\n");
#endif

	/* A flipped bit anywhere changes the value (what the stub relies on). */
	uint64_t ref = xxh3_64(buf, 65536);
	unsigned same = 0, tried = 0;
	for (size_t bit = 0; bit < 65536 * 8; bit += 61, tried++) {
		buf[bit / 8] ^= (uint8_t)(1u << bit % 8);
		same += xxh3_64(buf, 65536) == ref;
		buf[bit / 8] ^= (uint8_t)(1u << bit % 8);
	}
	snprintf(what, sizeof(what), "every single-bit flip tried changes the value: %u flips, %u did not",
		 tried, same);
	expect(same == 0, what);
	free(buf);
#ifdef REFERENCE_I386
	printf("test_xxh3: %u passed, %u failed, 1 skipped\n", passed, failed);
#else
	printf("test_xxh3: %u passed, %u failed, 0 skipped\n", passed, failed);
#endif
	return failed != 0;
}
