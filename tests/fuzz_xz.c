/* fuzz_xz.c - libFuzzer target for decode/xz_decode.c and
 * decode/lzma_decode.c, differential against liblzma.
 *
 * Input: [mode byte][le32 v][stream].  Bit 0 of the mode byte picks the
 * container: 0 .xz (xz_decode), 1 .lzma (lzma_decode).  The output size is
 *     dst_len = min(v & 0x1fffff, FUZZ_MAX_OUT) >> (v >> 28)
 * at most 1 MiB; the seeds (top nibble 0) give their exact sizes.
 *
 * Each run decodes the stream twice, each time into its own buffer of
 * exactly dst_len bytes (malloc'd, so ASan sees any access past it; the
 * stream and our workspace are exact-size copies too, the workspace full
 * of junk as the contract allows):
 *
 *   ours  xz_decode() / lzma_decode(), what the stub runs;
 *   lib   liblzma: lzma_stream_buffer_decode() (one stream, no flags) or
 *         lzma_alone_decoder(), with a 64 MiB memory limit;
 *
 * and aborts (a crash, for libFuzzer) when
 *
 *   1. liblzma decodes the whole stream to exactly dst_len bytes and ours
 *      does not say DECODE_OK with the same bytes, unless the stream uses
 *      what our decoder refuses on purpose: a check other than None, CRC32
 *      or CRC64 (liblzma skips checks it does not know), or a filter chain
 *      other than LZMA2 or x86 BCJ + LZMA2 (told with liblzma's own index
 *      and block header decoders);
 *   2. ours says DECODE_OK and liblzma does not decode exactly the same
 *      dst_len bytes from the whole stream (skipped when liblzma hits its
 *      memory limit, and for .lzma with dst_len 0: liblzma's .lzma decoder
 *      reads nothing without output room).
 *
 * Built with -DFUZZ_MKSEEDS instead, this file is the seed generator:
 *   mkseeds_xz DIR   writes small inputs compressed by liblzma (xz at
 *                    several presets, checks, BCJ and block sizes; .lzma
 *                    with and without end marker), one file each.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lzma.h>

#include "decode.h"
#include "fuzzlib.h"

#define HDR_BYTES     (1 + FUZZ_HDR_BYTES)
#define MODE_LZMA     1
#define LIB_MEMLIMIT  ((uint64_t)64 << 20)

#ifndef FUZZ_MKSEEDS

enum lib_result { LIB_OK, LIB_FAIL, LIB_SKIP };

static enum lib_result lib_xz(const uint8_t *src, size_t n, uint8_t *out, size_t dst_len)
{
	uint64_t memlimit = LIB_MEMLIMIT;
	size_t ip = 0, op = 0;
	lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, src, &ip, n, out, &op, dst_len);

	if (r == LZMA_MEMLIMIT_ERROR || r == LZMA_MEM_ERROR)
		return LIB_SKIP;
	return r == LZMA_OK && ip == n && op == dst_len ? LIB_OK : LIB_FAIL;
}

static enum lib_result lib_lzma(const uint8_t *src, size_t n, uint8_t *out, size_t dst_len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;

	if (dst_len == 0)
		return LIB_SKIP;
	if (lzma_alone_decoder(&s, LIB_MEMLIMIT) != LZMA_OK)
		abort();
	s.next_in = src;
	s.avail_in = n;
	s.next_out = out;
	s.avail_out = dst_len;
	do
		r = lzma_code(&s, LZMA_FINISH);
	while (r == LZMA_OK && (s.avail_in || s.avail_out));
	/* A stream that is complete when the output is: one more call says
	 * so (or complains about what follows). */
	if (r == LZMA_OK)
		r = lzma_code(&s, LZMA_FINISH);
	enum lib_result res = r == LZMA_MEMLIMIT_ERROR || r == LZMA_MEM_ERROR ? LIB_SKIP
			      : r == LZMA_STREAM_END && s.avail_in == 0 && s.avail_out == 0 ? LIB_OK
			      : LIB_FAIL;
	lzma_end(&s);
	return res;
}

/* A valid .xz stream (liblzma decoded it) that uses a check or a filter
 * chain we refuse on purpose. */
static int xz_uses_unsupported(const uint8_t *src, size_t n)
{
	lzma_stream_flags hf, ff;
	lzma_index *idx = NULL;
	uint64_t memlimit = LIB_MEMLIMIT;
	size_t pos = 0;
	lzma_index_iter it;
	int unsupported = 0;

	if (lzma_stream_header_decode(&hf, src) != LZMA_OK ||
	    lzma_stream_footer_decode(&ff, src + n - LZMA_STREAM_HEADER_SIZE) != LZMA_OK)
		abort();        /* liblzma just decoded it */
	if (hf.check != LZMA_CHECK_NONE && hf.check != LZMA_CHECK_CRC32 && hf.check != LZMA_CHECK_CRC64)
		return 1;
	const size_t index_start = n - LZMA_STREAM_HEADER_SIZE - (size_t)ff.backward_size;

	if (lzma_index_buffer_decode(&idx, &memlimit, NULL, src + index_start, &pos,
				     (size_t)ff.backward_size) != LZMA_OK)
		abort();
	lzma_index_iter_init(&it, idx);
	while (!unsupported && !lzma_index_iter_next(&it, LZMA_INDEX_ITER_BLOCK)) {
		lzma_filter filters[LZMA_FILTERS_MAX + 1];
		lzma_block blk;
		const uint8_t *h = src + it.block.compressed_file_offset;
		size_t k = 0;

		memset(&blk, 0, sizeof blk);
		blk.version = 1;
		blk.check = hf.check;
		blk.filters = filters;
		blk.header_size = lzma_block_header_size_decode(h[0]);
		if (lzma_block_header_decode(&blk, NULL, h) != LZMA_OK)
			abort();
		while (filters[k].id != LZMA_VLI_UNKNOWN)
			k++;
		unsupported = !(k == 1 && filters[0].id == LZMA_FILTER_LZMA2) &&
			      !(k == 2 && filters[0].id == LZMA_FILTER_X86 &&
				filters[1].id == LZMA_FILTER_LZMA2);
		for (size_t i = 0; i < k; i++)
			free(filters[i].options);
	}
	lzma_index_end(idx, NULL);
	return unsupported;
}

static void check_run(const struct fuzz_input *in)
{
	const int is_lzma = in->mode & MODE_LZMA;
	const size_t dst_len = in->dst_len, n = in->n;
	const uint8_t *src = in->src;
	const size_t ws_size = is_lzma ? DECODE_WORKSPACE_lzma : DECODE_WORKSPACE_xz;
	uint8_t *ours = fuzz_exact(dst_len), *lib = fuzz_exact(dst_len);
	void *ws = fuzz_exact(ws_size);

	memset(ws, 0xA5, ws_size);

	enum decode_status st = is_lzma ? lzma_decode(src, n, ours, dst_len, ws)
					: xz_decode(src, n, ours, dst_len, ws);
	enum lib_result lr = is_lzma ? lib_lzma(src, n, lib, dst_len) : lib_xz(src, n, lib, dst_len);

	if (!fuzz_valid_status(st))
		abort();
	if (lr == LIB_OK) {
		if (st != DECODE_OK) {
			if (!(st == DECODE_CORRUPT && !is_lzma && xz_uses_unsupported(src, n))) {
				fprintf(stderr, "liblzma decodes it, ours says %s\n", fuzz_status_name(st));
				abort();
			}
		} else if (memcmp(ours, lib, dst_len) != 0) {
			fprintf(stderr, "both decode it, the bytes differ\n");
			abort();
		}
	} else if (lr == LIB_FAIL && st == DECODE_OK) {
		fprintf(stderr, "ours decodes it, liblzma does not\n");
		abort();
	}
	free(ours);
	free(lib);
	free(ws);
}

FUZZ_ENTRY(1, check_run)

#else /* FUZZ_MKSEEDS */

static uint32_t rng_state = 0x243F6A88u;

static uint32_t rng(void)
{
	return fuzz_xorshift32(&rng_state);
}

static void gen(uint8_t *p, size_t n, int kind)
{
	static const char *const words[] = { "call ", "jmp ", "kernel ", "lzma ", "\n", "xz " };

	for (size_t i = 0; i < n;) {
		if (kind == 0) {
			for (const char *w = words[rng() % 6]; *w && i < n; w++)
				p[i++] = (uint8_t)*w;
		} else if (kind == 1) {
			p[i++] = rng() % 3 ? (uint8_t)(0xE8 + rng() % 2) : (uint8_t)rng();
		} else {
			p[i++] = (uint8_t)rng();
		}
	}
}

static int seed_no;

static void put_seed(const char *dir, int mode, size_t dst_len, const uint8_t *s, size_t n)
{
	char path[4096];
	FILE *f;
	uint8_t hdr[HDR_BYTES] = { (uint8_t)mode, (uint8_t)dst_len, (uint8_t)(dst_len >> 8),
				   (uint8_t)(dst_len >> 16), 0 };

	snprintf(path, sizeof path, "%s/seed-%03d", dir, seed_no++);
	f = fopen(path, "wb");
	if (!f || fwrite(hdr, 1, HDR_BYTES, f) != HDR_BYTES || fwrite(s, 1, n, f) != n || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 0, 1, 100, 3000, 20000 };
	uint8_t in[20000], out[40000];

	if (argc != 2) {
		fprintf(stderr, "usage: mkseeds_xz DIR\n");
		return 2;
	}
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
		for (int kind = 0; kind < 3; kind++) {
			const size_t n = sizes[si];
			lzma_options_lzma o;
			size_t pos;

			gen(in, n, kind);
			for (int variant = 0; variant < 4; variant++) {
				lzma_lzma_preset(&o, variant == 3 ? 9 | LZMA_PRESET_EXTREME : (uint32_t)variant * 3);
				o.dict_size = 1u << 16;
				lzma_filter f[3];
				size_t k = 0;

				if (variant & 1)
					f[k++] = (lzma_filter){ LZMA_FILTER_X86, NULL };
				f[k++] = (lzma_filter){ LZMA_FILTER_LZMA2, &o };
				f[k] = (lzma_filter){ LZMA_VLI_UNKNOWN, NULL };
				static const lzma_check checks[] = { LZMA_CHECK_CRC32, LZMA_CHECK_NONE,
								     LZMA_CHECK_CRC64, LZMA_CHECK_CRC32 };
				pos = 0;
				if (lzma_stream_buffer_encode(f, checks[variant], NULL, in, n, out, &pos,
							      sizeof out) == LZMA_OK)
					put_seed(argv[1], 0, n, out, pos);
			}
			/* several blocks */
			{
				lzma_stream s = LZMA_STREAM_INIT;
				lzma_mt mt;
				lzma_filter f[] = { { LZMA_FILTER_X86, NULL }, { LZMA_FILTER_LZMA2, &o },
						    { LZMA_VLI_UNKNOWN, NULL } };

				lzma_lzma_preset(&o, 1);
				memset(&mt, 0, sizeof mt);
				mt.threads = 1;
				mt.block_size = 1024;
				mt.filters = f;
				mt.check = LZMA_CHECK_CRC32;
				if (lzma_stream_encoder_mt(&s, &mt) == LZMA_OK) {
					s.next_in = in;
					s.avail_in = n;
					s.next_out = out;
					s.avail_out = sizeof out;
					lzma_ret r;

					do
						r = lzma_code(&s, LZMA_FINISH);
					while (r == LZMA_OK);
					if (r == LZMA_STREAM_END)
						put_seed(argv[1], 0, n, out, sizeof out - s.avail_out);
					lzma_end(&s);
				}
			}
			/* .lzma: end marker (size unknown), then the same with
			 * the size filled in */
			{
				lzma_stream s = LZMA_STREAM_INIT;

				lzma_lzma_preset(&o, kind == 2 ? 0 : 6);
				o.dict_size = 1u << 16;
				if (lzma_alone_encoder(&s, &o) == LZMA_OK) {
					s.next_in = in;
					s.avail_in = n;
					s.next_out = out;
					s.avail_out = sizeof out;
					if (lzma_code(&s, LZMA_FINISH) == LZMA_STREAM_END) {
						pos = sizeof out - s.avail_out;
						put_seed(argv[1], MODE_LZMA, n, out, pos);
						for (int b = 0; b < 8; b++)
							out[5 + b] = (uint8_t)((uint64_t)n >> (8 * b));
						put_seed(argv[1], MODE_LZMA, n, out, pos);
					}
					lzma_end(&s);
				}
			}
		}
	return 0;
}

#endif
