/* fuzz_gzip.c - libFuzzer target for decode/gzip_decode.c, differential
 * against zlib's inflate with gzip framing (inflateInit2, windowBits 31).
 *
 * Input: [le32 v][gzip member].  The output size is
 *     dst_len = min(v & 0x1fffff, FUZZ_MAX_OUT) >> (v >> 28)
 * at most 1 MiB; the seeds (top nibble 0) give their exact sizes, and
 * mutated values mostly give small ones.
 *
 * Every run decodes the member into an exact-size buffer of dst_len bytes
 * (malloc'd, so ASan sees any write past it; the member and the workspace
 * are exact-size copies too) with gzip_decode(), and once more with zlib,
 * and aborts (a crash, for libFuzzer) when
 *
 *   1. gzip_decode returns something that is not a decode_status;
 *   2. one accepts and the other does not.  zlib accepts when inflate()
 *      ends the member (Z_STREAM_END: header, data, CRC-32 and ISIZE
 *      checked) having consumed all the input and produced exactly
 *      dst_len bytes; gzip_decode.c documents that it takes exactly the
 *      streams zlib takes;
 *   3. both accept and the bytes differ;
 *   4. the decoder built without its fast loop (GZIP_SAFE_LOOP_ONLY,
 *      linked as gzip_decode_safe, tests/gzip_decode_safe.c) gives another status
 *      or, accepting, other bytes: the fast loop must change nothing.
 *
 * Built with -DFUZZ_MKSEEDS instead, this file is the seed generator:
 *   mkseeds_gzip DIR   writes small members from libdeflate (levels 1, 6,
 *                      12) and zlib (levels 0, 1, 9, Z_FIXED), and members
 *                      with every optional header field, one file each.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "decode.h"
#include "fuzzlib.h"
#include "zlib_inflate.h"


#ifndef FUZZ_MKSEEDS

static void die(const char *what, size_t dst_len, size_t n, int ours, int zok)
{
	fprintf(stderr, "fuzz_gzip: %s (dst_len %zu, member %zu bytes): ours %s, zlib %s\n", what,
		dst_len, n, fuzz_status_name(ours), zok ? "accepts" : "rejects");
	abort();
}

enum decode_status gzip_decode_safe(const uint8_t *src, size_t src_len, uint8_t *dst,
				    size_t dst_len, void *workspace);
static void check_run(const struct fuzz_input *in)
{
	const size_t dst_len = in->dst_len, n = in->n;
	uint8_t *ours = fuzz_exact(dst_len), *ref = fuzz_exact(dst_len);
	void *ws = fuzz_exact(DECODE_WORKSPACE_gzip);

	int st = (int)gzip_decode(in->src, n, ours, dst_len, ws);
	int zok = zlib_inflates(in->src, n, ref, dst_len);

	if (!fuzz_valid_status(st))
		die("not a decode_status", dst_len, n, st, zok);
	if ((st == DECODE_OK) != zok)
		die("verdicts differ", dst_len, n, st, zok);
	if (zok && memcmp(ours, ref, dst_len) != 0)
		die("both accept, bytes differ", dst_len, n, st, zok);

	uint8_t *safe = fuzz_exact(dst_len);
	int st_safe = (int)gzip_decode_safe(in->src, n, safe, dst_len, ws);
	if (st_safe != st) {
		fprintf(stderr, "fuzz_gzip: the safe loop alone says %s\n", fuzz_status_name(st_safe));
		die("fast and safe loops differ", dst_len, n, st, zok);
	}
	if (st == DECODE_OK && memcmp(ours, safe, dst_len) != 0)
		die("fast and safe loops produce different bytes", dst_len, n, st, zok);

	free(ours);
	free(ref);
	free(safe);
	free(ws);
}

FUZZ_ENTRY(0, check_run)

#else /* FUZZ_MKSEEDS */

#include <libdeflate.h>

static void zlib_seed(const uint8_t *in, size_t n, int level, int strategy, const char *how)
{
	static uint8_t out[200000];
	z_stream s;

	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, level, Z_DEFLATED, 31, 8, strategy) != Z_OK)
		fuzz_seed_failed(n);
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = sizeof(out);
	if (deflate(&s, Z_FINISH) != Z_STREAM_END)
		fuzz_seed_failed(n);
	fuzz_seed(how, n, out, s.total_out);
	deflateEnd(&s);
}

static void libdeflate_seed(const uint8_t *in, size_t n, int level, const char *how)
{
	static uint8_t out[200000];
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
	size_t clen = libdeflate_gzip_compress(c, in, n, out, sizeof(out));

	libdeflate_free_compressor(c);
	if (!clen)
		fuzz_seed_failed(n);
	fuzz_seed(how, n, out, clen);
}

/* Variants: libdeflate at levels 1, 6 and 12, zlib at 0, 1 and 9 and
 * with fixed codes only. */
static void write_seed(const uint8_t *in, size_t n, unsigned v)
{
	static const struct {
		const char *tag;
		int zlib, level, strategy;
	} how[] = {
		{ "ld1", 0, 1, 0 },
		{ "ld6", 0, 6, 0 },
		{ "ld12", 0, 12, 0 },
		{ "zl0", 1, 0, Z_DEFAULT_STRATEGY },
		{ "zl1", 1, 1, Z_DEFAULT_STRATEGY },
		{ "zl9", 1, 9, Z_DEFAULT_STRATEGY },
		{ "zlfixed", 1, 6, Z_FIXED },
	};

	if (how[v].zlib)
		zlib_seed(in, n, how[v].level, how[v].strategy, how[v].tag);
	else
		libdeflate_seed(in, n, how[v].level, how[v].tag);
}

/* A member with every optional header field, by hand around zlib's raw
 * DEFLATE. */
static void header_seed(const uint8_t *in, size_t n)
{
	static uint8_t m[4096];
	size_t p = 0;
	z_stream s;

	static const uint8_t head[] = { 0x1f, 0x8b, 8, 0x1e, 1, 2, 3, 4, 0, 3, 6, 0,
					'A', 'p', 2, 0, 7, 7 };
	memcpy(m, head, sizeof(head));
	p = sizeof(head);
	memcpy(m + p, "name", 5);
	p += 5;
	memcpy(m + p, "comment", 8);
	p += 8;
	uint32_t hc = (uint32_t)crc32(0, m, (uInt)p);
	m[p++] = (uint8_t)hc;
	m[p++] = (uint8_t)(hc >> 8);
	memset(&s, 0, sizeof(s));
	if (deflateInit2(&s, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		fuzz_seed_failed(n);
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)n;
	s.next_out = m + p;
	s.avail_out = (uInt)(sizeof(m) - p - 8);
	if (deflate(&s, Z_FINISH) != Z_STREAM_END)
		fuzz_seed_failed(n);
	p += s.total_out;
	deflateEnd(&s);
	uint32_t c = (uint32_t)crc32(0, in, (uInt)n);
	for (int i = 0; i < 4; i++)
		m[p++] = (uint8_t)(c >> (8 * i));
	for (int i = 0; i < 4; i++)
		m[p++] = (uint8_t)(n >> (8 * i));
	fuzz_seed("header", n, m, p);
}

static void make_seeds(void)
{
	static uint8_t buf[70000];
	static const char text[] = FUZZ_SEED_TEXT;
	/* every small-distance copy path */
	static const size_t periods[] = { 1, 2, 3, 5, 7, 8, 9, 16 };
	uint32_t x = 0x2545f491u;

	fuzz_seed_small();
	header_seed((const uint8_t *)text, sizeof(text) - 1);
	fuzz_seed_periods(buf, 400, periods, sizeof periods / sizeof periods[0]);
	/* random: stored blocks, long codes */
	fuzz_fill_random(buf, sizeof(buf), &x);
	fuzz_seeds(buf, 600);
	/* skewed literals: codes of 1 to 15 bits */
	for (size_t i = 0; i < 3000; i++) {
		unsigned z = (unsigned)__builtin_ctz(fuzz_xorshift32(&x) | 0x10000u);

		buf[i] = (uint8_t)(z < 12 ? z : x >> 24);
	}
	fuzz_seeds(buf, 3000);
	/* 40 KiB of text: distances up to 32 KiB, several blocks */
	fuzz_seed_text(buf, 40000);
}

static const struct fuzz_seeder seeder = { "mkseeds_gzip", 7, write_seed, make_seeds };
FUZZ_SEEDS_MAIN(seeder)

#endif
