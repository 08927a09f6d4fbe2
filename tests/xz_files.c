/* xz_files.c - decode .xz and .lzma files made by the xz command-line tool
 * with decode/xz_decode.c and decode/lzma_decode.c, without liblzma: the
 * test the -m32 build runs (the i386 liblzma that test_xz needs is not
 * always installable beside the amd64 one).
 *
 * usage: xz_files FILE...
 *
 * For each FILE (the test kernels, as ci/test-host.sh passes them) it runs
 * `xz` with several option sets (presets 0/6/9e, checks none/CRC64, x86
 * BCJ, 32 KiB blocks, lc0/lp4/pb4, .lzma with lc1/lp3/pb0) on the first
 * 256 KiB, and on the whole file (BCJ + 9e, and .lzma), into a temporary
 * directory.  Each result (.xz when it starts with the xz magic, .lzma
 * otherwise) must decode to exactly its input; dst_len + 1 must give
 * DECODE_SHORT_OUTPUT and dst_len - 1 DECODE_OUTPUT_OVERRUN; cutting the
 * file short must fail (every cut in the first and last 64 bytes, 64
 * evenly spaced ones between); and random damage (bit flips, bytes
 * overwritten) may give any status but must stay inside the buffers.
 * Every buffer, the workspace included, has exactly its declared size:
 * build with -fsanitize=address,undefined to have stray accesses caught.
 * Without the xz tool nothing can be tested: it says so and exits 77, which
 * ci/test-host.sh counts as a skip.
 * Prints "ok ..."/"FAIL ..." lines and "xz_files: N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"

#define PART_SIZE (256u << 10)

/* name, xz options, on the whole file (else the 256 KiB prefix) */
static const struct variant {
	const char *name, *opts;
	int whole;
} variants[] = {
	{ "p0.xz", "-0", 0 },
	{ "p6.xz", "-6", 0 },
	{ "p9e.xz", "-9e", 0 },
	{ "none.xz", "-6 --check=none", 0 },
	{ "crc64.xz", "-6 --check=crc64", 0 },
	{ "bcj.xz", "--x86 --lzma2=preset=6", 0 },
	{ "blocks.xz", "-T2 --block-size=32KiB --check=crc64 --x86 --lzma2=preset=6", 0 },
	{ "lclp.xz", "--lzma2=preset=6,lc=0,lp=4,pb=4", 0 },
	{ "p9e.lzma", "--format=lzma -9e", 0 },
	{ "lclp.lzma", "--format=lzma --lzma1=preset=6,lc=1,lp=3,pb=0", 0 },
	{ "whole.xz", "--x86 --lzma2=preset=9e", 1 },
	{ "whole.lzma", "--format=lzma -6", 1 },
};

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

/* Checks one compressed file c[0..n) against orig[0..on). */
static void check_file(const char *label, const uint8_t *c, size_t n, const uint8_t *orig, size_t on)
{
	const int xz = is_xz(c, n);
	char why[256];
	uint8_t *out;
	int st, ok;

	st = decode(xz, c, n, on, &out);
	ok = st == DECODE_OK && memcmp(out, orig, on) == 0;
	snprintf(why, sizeof why, "%s%s", decode_status_name(st),
		 st == DECODE_OK ? ", but the bytes differ" : "");
	result(ok, "decode", label, why);
	free(out);

	st = decode(xz, c, n, on + 1, NULL);
	result(st == DECODE_SHORT_OUTPUT, "dst_len+1", label, decode_status_name(st));
	if (on) {
		st = decode(xz, c, n, on - 1, NULL);
		result(st == DECODE_OUTPUT_OVERRUN, "dst_len-1", label, decode_status_name(st));
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
	result(ok, "truncations", label, why);

	for (int rep = 0; rep < 200; rep++) {
		uint8_t *d = malloc(n);

		if (!d)
			exit(2);
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
	result(1, "damage (no stray access)", label, "");
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/xz_files.XXXXXX";
	char part[64], path[4200], cmd[8600], label[4300];

	if (argc < 2) {
		fprintf(stderr, "usage: xz_files FILE...\n");
		return 2;
	}
	if (system("xz --version > /dev/null 2>&1") != 0) {
		printf("skip: xz_files: no xz tool (Debian's xz-utils), nothing tested\n");
		return 77;
	}
	if (!mkdtemp(dir)) {
		perror(dir);
		return 2;
	}
	snprintf(part, sizeof part, "%s/part", dir);
	for (int a = 1; a < argc; a++) {
		size_t on;
		uint8_t *orig = read_file(argv[a], &on);
		const size_t pn = on < PART_SIZE ? on : PART_SIZE;

		if (strchr(argv[a], '\'') != NULL || strlen(argv[a]) > 4000) {
			fprintf(stderr, "xz_files: %s: unsupported file name\n", argv[a]);
			return 2;
		}
		write_file(part, orig, pn);
		for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
			size_t n;
			uint8_t *c;

			snprintf(path, sizeof path, "%s/%s", dir, variants[v].name);
			snprintf(cmd, sizeof cmd, "xz -c -k %s '%s' > '%s'", variants[v].opts,
				 variants[v].whole ? argv[a] : part, path);
			snprintf(label, sizeof label, "%s (%s%s)", argv[a], variants[v].opts,
				 variants[v].whole ? "" : ", first 256 KiB");
			if (system(cmd) != 0) {
				result(0, "xz", label, "the xz tool failed");
				continue;
			}
			c = read_file(path, &n);
			check_file(label, c, n, orig, variants[v].whole ? on : pn);
			free(c);
			remove(path);
		}
		free(orig);
	}
	remove(part);
	rmdir(dir);
	printf("xz_files: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
