/* xz_files.c - decode .xz and .lzma files made by the xz command-line tool
 * with decode/xz_decode.c and decode/lzma_decode.c, without liblzma: the
 * test the -m32 build runs (the i386 liblzma that test_xz needs is not
 * always installable beside the amd64 one).
 *
 * usage: xz_files ORIGINAL COMPRESSED...
 *
 * Each COMPRESSED file (.xz when it starts with the xz magic, .lzma
 * otherwise) must decode to exactly ORIGINAL; dst_len + 1 must give
 * DECODE_SHORT_OUTPUT and dst_len - 1 DECODE_OUTPUT_OVERRUN; cutting the
 * file short must fail (every cut in the first and last 64 bytes, 64
 * evenly spaced ones between); and random damage (bit flips, bytes overwritten)
 * may give any status but must stay inside the buffers.  Every buffer,
 * the workspace included, has exactly its declared size: build with
 * -fsanitize=address,undefined to have stray accesses caught.
 * Prints "ok ..."/"FAIL ..." lines and "xz_files: N passed, M failed". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

static unsigned n_pass, n_fail;

static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	size_t cap = 0, len = 0, got;

	if (!f) {
		perror(path);
		exit(2);
	}
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			p = realloc(p, cap);
			if (!p)
				exit(2);
		}
		got = fread(p + len, 1, cap - len, f);
		len += got;
	} while (got);
	fclose(f);
	*n = len;
	return p;
}

static int is_xz(const uint8_t *p, size_t n)
{
	static const uint8_t magic[6] = { 0xFD, '7', 'z', 'X', 'Z', 0 };

	return n >= 6 && memcmp(p, magic, 6) == 0;
}

/* Decodes src[0..n) into a fresh buffer of exactly dst_len bytes. */
static int decode(int xz, const uint8_t *src, size_t n, size_t dst_len, uint8_t **out)
{
	const size_t ws_size = xz ? DECODE_WORKSPACE_xz : DECODE_WORKSPACE_lzma;
	uint8_t *s = malloc(n ? n : 1), *d = malloc(dst_len ? dst_len : 1);
	void *ws = malloc(ws_size);
	int st;

	if (!s || !d || !ws)
		exit(2);
	memcpy(s, src, n);
	memset(ws, 0xA5, ws_size);
	st = xz ? xz_decode(s, n, d, dst_len, ws) : lzma_decode(s, n, d, dst_len, ws);
	free(s);
	free(ws);
	if (out)
		*out = d;
	else
		free(d);
	if (st < DECODE_OK || st > DECODE_CORRUPT) {
		fprintf(stderr, "status %d is not a decode_status\n", st);
		exit(1);
	}
	return st;
}

static void result(int ok, const char *what, const char *file, const char *why)
{
	if (ok) {
		printf("ok %s %s\n", what, file);
		n_pass++;
	} else {
		printf("FAIL %s %s: %s\n", what, file, why);
		n_fail++;
	}
	fflush(stdout);
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

int main(int argc, char **argv)
{
	size_t on;
	uint8_t *orig;
	char why[256];

	if (argc < 3) {
		fprintf(stderr, "usage: xz_files ORIGINAL COMPRESSED...\n");
		return 2;
	}
	orig = read_file(argv[1], &on);
	for (int a = 2; a < argc; a++) {
		size_t n;
		uint8_t *c = read_file(argv[a], &n), *out;
		const int xz = is_xz(c, n);
		int st, ok;

		st = decode(xz, c, n, on, &out);
		ok = st == DECODE_OK && memcmp(out, orig, on) == 0;
		snprintf(why, sizeof why, "%s%s", decode_status_name(st),
			 st == DECODE_OK ? ", but the bytes differ" : "");
		result(ok, "decode", argv[a], why);
		free(out);

		st = decode(xz, c, n, on + 1, NULL);
		result(st == DECODE_SHORT_OUTPUT, "dst_len+1", argv[a], decode_status_name(st));
		if (on) {
			st = decode(xz, c, n, on - 1, NULL);
			result(st == DECODE_OUTPUT_OVERRUN, "dst_len-1", argv[a], decode_status_name(st));
		}

		ok = 1;
		for (size_t cut = 0; cut < n && ok; cut++) {
			/* every cut in the first and last 64 bytes, 64 between */
			if (cut >= 64 && cut + 64 < n && cut % (n / 64 + 1) != 0)
				continue;
			if (decode(xz, c, cut, on, NULL) == DECODE_OK) {
				snprintf(why, sizeof why, "cut at %zu of %zu decodes OK", cut, n);
				ok = 0;
			}
		}
		result(ok, "truncations", argv[a], why);

		for (int rep = 0; rep < 200; rep++) {
			uint8_t *d = malloc(n);

			memcpy(d, c, n);
			for (int k = 1 + (int)(rng() % 4); k > 0; k--) {
				size_t at = rng() % n;

				if (rng() & 1)
					d[at] ^= (uint8_t)(1u << (rng() % 8));
				else
					d[at] = (uint8_t)rng();
			}
			decode(xz, d, n, on, NULL);
			free(d);
		}
		result(1, "damage (no stray access)", argv[a], "");
		free(c);
	}
	printf("xz_files: %u passed, %u failed\n", n_pass, n_fail);
	free(orig);
	return n_fail ? 1 : 0;
}
