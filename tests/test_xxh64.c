/* test_xxh64.c - decode/xxh64.h: published XXH64 values (seed 0), then
 * against libxxhash's XXH64 on random data of every alignment and of
 * every length up to a few stripes (each tail path: 8-, 4- and 1-byte
 * steps, below and above one 32-byte stripe), and the streaming form
 * (whole stripes fed in pieces, as the zstd decoder does per block)
 * against the one-shot one.  Not -m32: libxxhash has no i386 build in
 * ci/deps.sh; tests/tool_files.c checks the -m32 build through zstd's
 * content checksums. */
#include <stdio.h>
#include <string.h>

#include <xxhash.h>

#include "xxh64.h"

static unsigned passed, failed;

static void expect(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	ok ? passed++ : failed++;
}

int main(void)
{
	/* From the xxHash project's documentation and its sanity checks
	 * (XXH64, seed 0), independent of the library build below. */
	static const struct { const char *in; uint64_t want; } known[] = {
		{ "", 0xef46db3751d8e999ull },
		{ "a", 0xd24ec4f1a98c6e5bull },
		{ "abc", 0x44bc2cf5ad770999ull },
		{ "Nobody inspects the spammish repetition", 0xfbcea83c8a378bf1ull },
	};
	static uint8_t buf[4096 + 8];
	uint32_t x = 2463534242u;
	char what[96];

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		snprintf(what, sizeof(what), "known value: XXH64(\"%.20s\"%s)", known[i].in,
			 strlen(known[i].in) > 20 ? "..." : "");
		expect(xxh64(known[i].in, strlen(known[i].in)) == known[i].want, what);
	}

	for (size_t i = 0; i < sizeof(buf); i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
	unsigned n = 0, bad = 0;
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len <= 300; len++, n++)
			bad += xxh64(buf + off, len) != XXH64(buf + off, len, 0);
	for (size_t len = 301; len <= 4096; len += 1 + len / 16, n++)
		bad += xxh64(buf + 3, len) != XXH64(buf + 3, len, 0);
	snprintf(what, sizeof(what), "equals libxxhash's XXH64: %u inputs, %u differ", n, bad);
	expect(n > 2000 && bad == 0, what);

	/* Fed a piece at a time: each xxh_update takes the whole stripes of
	 * what has arrived; xxh_final the rest. */
	bad = n = 0;
	for (size_t step = 1; step < 200; step += 7, n++) {
		struct xxh h;
		size_t len = sizeof(buf) - 8 - step;
		xxh_init(&h, buf);
		for (size_t have = 0; have < len; have += step)
			xxh_update(&h, buf + (have + step < len ? have + step : len));
		bad += xxh_final(&h, buf + len) != XXH64(buf, len, 0);
	}
	snprintf(what, sizeof(what), "streamed in pieces equals one call: %u step sizes, %u differ", n, bad);
	expect(bad == 0, what);

	/* A flipped bit anywhere changes the value (what the stub relies on). */
	uint64_t ref = xxh64(buf, 4096);
	bad = 0;
	for (size_t bit = 0; bit < 4096 * 8; bit += 61) {
		buf[bit / 8] ^= (uint8_t)(1u << bit % 8);
		bad += xxh64(buf, 4096) == ref;
		buf[bit / 8] ^= (uint8_t)(1u << bit % 8);
	}
	expect(bad == 0, "every single-bit flip tried changes the value");
	printf("test_xxh64: %u passed, %u failed, 0 skipped\n", passed, failed);
	return failed != 0;
}
