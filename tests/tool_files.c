/* tool_files.c - decode what Debian's command-line compressors make of the
 * test kernels with our decoders, linking no compression library: the
 * test the -m32 builds rely on, since liblzma, libzstd, libbz2 and zlib
 * have no i386 -dev package installable here and the stub's 32-bit
 * decoders are this same C (only -m32 has a 32-bit size_t).  Built in all
 * four variants all the same: the tools' own encoders are a second
 * opinion beside the libraries the native tests use.
 *
 * usage: tool_files FILE...
 *
 * One row of `rows` per (codec, tool command): xz and lzma through `xz`
 * (presets 0/6/9e, checks none/CRC64, x86 BCJ, 32 KiB blocks, odd
 * lc/lp/pb, .lzma), gzip through `gzip` (-1/-6/-9, with and without the
 * FNAME header), bzip2 through `bzip2` (-1 gives several 100k blocks, -9
 * one), zstd through `zstd` (-1/-19/--ultra -22, with and without the
 * checksum and the content size; anything over 128 KiB is several
 * blocks).  lzo is not here: lzop writes its own container (header,
 * per-block sizes and checksums) around lzo1x streams, not the bare
 * stream lzo_decode() takes, and pulling the streams out is a parser of
 * its own (test_lzo covers lzo -m32 against liblzo2, which has an i386
 * build).  Most rows compress the first 256 KiB of each FILE, one row per
 * codec the whole FILE, to keep the run short.
 *
 * Each result must decode to exactly its input; dst_len + 1 must give
 * DECODE_SHORT_OUTPUT and dst_len - 1 DECODE_OUTPUT_OVERRUN (zstd: not
 * DECODE_OK, see struct row); cutting the file short must fail (every cut
 * in the first 64 bytes, the last few, some evenly spaced ones between:
 * struct effort); random damage (bit flips, bytes overwritten) may give
 * any status but must stay inside the buffers.  Every buffer, the workspace included, has exactly
 * its declared size: the ASan builds catch stray accesses.
 *
 * A row whose tool is not installed prints "skip: tool_files: ROW: no
 * TOOL" and does not fail; if every row skipped, nothing was tested and
 * the exit status is 77, which ci/tests/test-host.sh counts as a skip.
 * Prints "ok ..."/"FAIL ..." lines and "tool_files: N passed, M failed". */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"

#define PART_SIZE (256u << 10)

/* The decoder and its workspace size, both from decode.h, so a codec's
 * workspace is never restated here. */
#define DEC(ident) #ident, ident##_decode, DECODE_WORKSPACE_##ident

static const struct row {
	const char *codec;
	decode_fn fn;
	size_t ws_size;
	const char *tool, *opts;
	int whole;      /* the whole FILE, else its first 256 KiB */
	/* zstd: a wrong dst_len may surface as a frame that disagrees
	 * with its Frame_Content_Size (DECODE_CORRUPT) or with the output
	 * (DECODE_OUTPUT_OVERRUN) before it could be a short output, so
	 * only "not DECODE_OK" is demanded of dst_len +- 1 (as test_zstd
	 * does). */
	int loose_sizes;
} rows[] = {
	{ DEC(xz), "xz", "-0", 0, 0 },
	{ DEC(xz), "xz", "-6", 0, 0 },
	{ DEC(xz), "xz", "-9e", 0, 0 },
	{ DEC(xz), "xz", "-6 --check=none", 0, 0 },
	{ DEC(xz), "xz", "-6 --check=crc64", 0, 0 },
	{ DEC(xz), "xz", "--x86 --lzma2=preset=6", 0, 0 },
	{ DEC(xz), "xz", "-T2 --block-size=32KiB --check=crc64 --x86 --lzma2=preset=6", 0, 0 },
	{ DEC(xz), "xz", "--lzma2=preset=6,lc=0,lp=4,pb=4", 0, 0 },
	{ DEC(xz), "xz", "--x86 --lzma2=preset=3", 1, 0 },
	{ DEC(lzma), "xz", "--format=lzma -9e", 0, 0 },
	{ DEC(lzma), "xz", "--format=lzma --lzma1=preset=6,lc=1,lp=3,pb=0", 0, 0 },
	{ DEC(lzma), "xz", "--format=lzma -3", 1, 0 },
	/* -n leaves the name out; without it gzip stores "part" (FNAME). */
	{ DEC(gzip), "gzip", "-1 -n", 0, 0 },
	{ DEC(gzip), "gzip", "-6 -n", 0, 0 },
	{ DEC(gzip), "gzip", "-6", 0, 0 },
	{ DEC(gzip), "gzip", "-9", 1, 0 },
	{ DEC(bzip2), "bzip2", "-1", 0, 0 },
	{ DEC(bzip2), "bzip2", "-9", 0, 0 },
	{ DEC(bzip2), "bzip2", "-1", 1, 0 },
	/* The zstd tool writes the content size and a checksum unless
	 * told not to, when it reads a file. */
	{ DEC(zstd), "zstd", "-1", 0, 1 },
	{ DEC(zstd), "zstd", "-19", 0, 1 },
	{ DEC(zstd), "zstd", "--ultra -22", 0, 1 },
	{ DEC(zstd), "zstd", "-3 --no-check", 0, 1 },
	{ DEC(zstd), "zstd", "-3 --no-content-size", 0, 1 },
	{ DEC(zstd), "zstd", "-3 --content-size --check", 0, 1 },
	{ DEC(zstd), "zstd", "-6 --no-check --no-content-size", 1, 1 },
};

/* How hard check_file() tries.  Every cut or damaged copy that reaches
 * the end of the stream costs a whole decode, so the whole-file rows
 * (3 MB each, there to cover long streams: many blocks, windows and sizes
 * past 256 KiB) take few of them; the 256 KiB rows of the same encoders
 * take more.  The cuts in the first 64 bytes are cheap (little input,
 * little output) and cover every header byte, so all are taken. */
static const struct effort {
	unsigned tail_cuts;     /* every cut in the last tail_cuts bytes */
	unsigned mid_cuts;      /* about as many evenly spaced ones between */
	unsigned damage;        /* damaged copies decoded */
} part_effort = { 12, 24, 32 }, whole_effort = { 4, 8, 8 };

#define N_ROWS (sizeof rows / sizeof rows[0])

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

/* Decodes src[0..n) with row r into a fresh buffer of exactly dst_len
 * bytes; input and workspace are copied into buffers of exactly their
 * size too, so that ASan sees any access past them. */
static int decode(const struct row *r, const uint8_t *src, size_t n, size_t dst_len, uint8_t **out)
{
	uint8_t *s = malloc(n ? n : 1), *d = malloc(dst_len ? dst_len : 1);
	void *ws = malloc(r->ws_size ? r->ws_size : 1);
	int st;

	if (!s || !d || !ws)
		exit(2);
	memcpy(s, src, n);
	/* Contents are undefined on entry (decode.h): not zeros. */
	memset(ws, 0xA5, r->ws_size);
	st = r->fn(s, n, d, dst_len, ws);
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

static void result(int ok, const char *what, const char *label, const char *why)
{
	if (ok) {
		printf("ok %s %s\n", what, label);
		n_pass++;
	} else {
		printf("FAIL %s %s: %s\n", what, label, why);
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
static void check_file(const struct row *r, const char *label, const uint8_t *c, size_t n,
		       const uint8_t *orig, size_t on)
{
	const struct effort *e = r->whole ? &whole_effort : &part_effort;
	char why[256];
	uint8_t *out;
	int st, ok;

	st = decode(r, c, n, on, &out);
	ok = st == DECODE_OK && memcmp(out, orig, on) == 0;
	snprintf(why, sizeof why, "%s%s", decode_status_name(st),
		 st == DECODE_OK ? ", but the bytes differ" : "");
	result(ok, "decode", label, why);
	free(out);

	st = decode(r, c, n, on + 1, NULL);
	result(r->loose_sizes ? st != DECODE_OK : st == DECODE_SHORT_OUTPUT, "dst_len+1", label,
	       decode_status_name(st));
	if (on) {
		st = decode(r, c, n, on - 1, NULL);
		result(r->loose_sizes ? st != DECODE_OK : st == DECODE_OUTPUT_OVERRUN, "dst_len-1",
		       label, decode_status_name(st));
	}

	ok = 1;
	for (size_t cut = 0; cut < n && ok; cut++) {
		if (cut >= 64 && cut + e->tail_cuts < n && cut % (n / e->mid_cuts + 1) != 0)
			continue;
		if (decode(r, c, cut, on, NULL) == DECODE_OK) {
			snprintf(why, sizeof why, "cut at %zu of %zu decodes OK", cut, n);
			ok = 0;
		}
	}
	result(ok, "truncations", label, why);

	for (unsigned rep = 0; rep < e->damage; rep++) {
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
		decode(r, d, n, on, NULL);
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

/* Whether TOOL is on PATH (`command -v` is POSIX sh, unlike `which`;
 * `TOOL --version` would not do: bzip2 has no clean --version). */
static int have_tool(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "command -v %s > /dev/null 2>&1", tool);
	return system(cmd) == 0;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/tool_files.XXXXXX";
	char part[64], path[64], cmd[8600], label[4400];
	int have[N_ROWS], any = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: tool_files FILE...\n");
		return 2;
	}
	for (size_t i = 0; i < N_ROWS; i++) {
		have[i] = have_tool(rows[i].tool);
		if (have[i])
			any = 1;
		else
			printf("skip: tool_files: %s %s%s: no %s\n", rows[i].tool, rows[i].opts,
			       rows[i].whole ? " (whole file)" : "", rows[i].tool);
	}
	if (!any)
		return 77;
	if (!mkdtemp(dir)) {
		perror(dir);
		return 2;
	}
	/* The compressed file's name stays "part" in gzip's FNAME. */
	snprintf(part, sizeof part, "%s/part", dir);
	snprintf(path, sizeof path, "%s/out", dir);
	for (int a = 1; a < argc; a++) {
		size_t on;
		uint8_t *orig;
		size_t pn;

		/* The name goes into a shell command between single quotes. */
		if (strchr(argv[a], '\'') != NULL || strlen(argv[a]) > 4000) {
			fprintf(stderr, "tool_files: %s: unsupported file name\n", argv[a]);
			return 2;
		}
		orig = read_file(argv[a], &on);
		pn = on < PART_SIZE ? on : PART_SIZE;
		write_file(part, orig, pn);
		for (size_t i = 0; i < N_ROWS; i++) {
			const struct row *r = &rows[i];
			size_t n;
			uint8_t *c;

			if (!have[i])
				continue;
			/* Always from a file, never stdin: zstd writes the
			 * content size only when it knows it up front. */
			snprintf(cmd, sizeof cmd, "%s -q -c %s '%s' > '%s'", r->tool, r->opts,
				 r->whole ? argv[a] : part, path);
			snprintf(label, sizeof label, "%s: %s %s on %s%s", r->codec, r->tool, r->opts,
				 argv[a], r->whole ? "" : ", first 256 KiB");
			if (system(cmd) != 0) {
				result(0, r->tool, label, "the tool failed");
				continue;
			}
			c = read_file(path, &n);
			check_file(r, label, c, n, orig, r->whole ? on : pn);
			free(c);
			remove(path);
		}
		free(orig);
	}
	remove(part);
	rmdir(dir);
	printf("tool_files: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
