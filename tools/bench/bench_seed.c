/* bench_seed.c - `make bench-seed` (and `make bench-native`): the LZO-RLE
 * patchset's experiment (../shared/seeds/lzo-rle-patchset.txt) on our
 * decoders.  Its claim: with few zero bytes in a page LZO-RLE decodes no
 * faster than LZO; above ~75 % zeros it is clearly faster.
 *
 * usage: bench_seed [-o JSON] [-p PAGES] [-t SECONDS] [-n REPS]
 *   -o JSON     also write the results there (the "seed" section that
 *               ci/benchmarks/nativejson.py puts into build/bench/native.json)
 *   -p PAGES    pages per zero fraction (default 1024: 4 MiB)
 *   -t SECONDS  time each decoder on each corpus for at least this long
 *               (default 0.3)
 *   -n REPS     and at least this many whole-corpus decodes (default 5)
 *
 * The corpora.  For each zero fraction (0, 25, 50, 75, 90, 99 %), PAGES
 * pages of 4096 bytes from a splitmix64 generator seeded with a constant
 * plus the percentage, so every run and every machine times the same
 * bytes.  Each page has exactly round(fraction * 4096) zero bytes, in
 * 1..16 runs (as many as the zeros allow) of random lengths (a random
 * composition of the total) at random places, kept apart by at least one
 * non-zero byte.  The other bytes are never zero and mildly compressible:
 * a stream of random literal pieces (1..16 bytes, values 1..255) and
 * copies of earlier bytes of the same stream (4..32 bytes from up to 2 KiB
 * back).  Random bytes alone would make the pages with few zeros
 * incompressible, which zram stores raw and never decodes; copies make
 * the decoders run their match paths as they do on real memory.  (Real
 * memory also has isolated zero bytes - small integers, pointers' high
 * bytes; here every zero byte is in a run, so the fraction is exact.)
 *
 * The experiment.  Every page is compressed on its own, as zram does,
 * through the packer's codec table (codec_compress, the codec's default
 * level, which also checks our decoder on it): "lzo" is liblzo2's
 * lzo1x_999, "lzo-rle" our own optimal-parsing compressor.  Then the whole
 * corpus is decoded page by page into a corpus-sized buffer (each page to
 * its own place, like pages swapped back in) by lzo_decode and liblzo2's
 * lzo1x_decompress_safe (the lzo streams) and by lzo_rle_decode (the
 * lzo-rle streams).  Each decoder's output is first checked byte for byte
 * (the buffer prefilled with the complement of the corpus), then the
 * three are timed in alternation, the first of each round rotating, until
 * each has run for SECONDS and REPS; a decoder's speed is its best
 * repetition (and its median), in 1e6 bytes of output per second.
 *
 * This is not the seed's measurement: it timed Linux's lzo1x_1 compressor
 * and decompressor together ("weighted roundtrip throughput") on 4178
 * pages of a Chromebook's memory.  Here only decoding is timed, of
 * streams from stronger compressors, on synthetic pages.
 *
 * Table on stdout, progress on stderr; any failure exits with status 1.
 */
#define _XOPEN_SOURCE 700       /* posix_memalign() */

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzo/lzo1x.h>

#include "codecs.h"
#include "decode.h"
#include "decode_speed.h"      /* cpu_seconds() */
#include "bench_out.h"
#include "util.h"

#ifndef BENCH_OURS_CFLAGS
#define BENCH_OURS_CFLAGS "unknown"     /* tools/bench/bench.mk passes the real flags */
#endif

#define PAGE_BYTES          4096u       /* zram's unit */
#define DEFAULT_PAGES       1024u       /* 4 MiB per fraction */
#define DEFAULT_MIN_SECONDS 0.3
#define DEFAULT_MIN_REPS    5u
#define MAX_REPS            100000u

/* The generator: one stream per fraction, so that adding a fraction never
 * changes the others' pages. */
#define PRNG_SEED           0x5eed1a2b3c4d5e6fu
#define MAX_RUNS            16u         /* zero runs per page, at most */
#define LIT_MAX             16u         /* literal piece: 1..16 bytes */
#define COPY_MIN            4u          /* copy: 4..32 bytes ... */
#define COPY_MAX            32u
#define COPY_DIST_MAX       2048u       /* ... from up to 2 KiB back */
#define COPY_PERCENT        25u         /* pieces that are copies */

static const unsigned zero_percents[] = { 0, 25, 50, 75, 90, 99 };
#define N_FRACTIONS (sizeof zero_percents / sizeof zero_percents[0])

/* ---- the corpus ------------------------------------------------------------ */

/* splitmix64: tiny, fast, and the same everywhere (rand() is not). */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* A number in [0, n), n >= 1: the top 32 bits scaled (the bias, below
 * n / 2^32, does not matter here). */
static size_t below(uint64_t *s, size_t n)
{
	return (size_t)(((next_u64(s) >> 32) * (uint64_t)n) >> 32);
}

/* Splits total into parts[0..k) >= 0 at k - 1 uniform cut points. */
static void compose(uint64_t *s, size_t total, unsigned k, size_t *parts)
{
	size_t cut[MAX_RUNS + 1];

	for (unsigned i = 0; i + 1 < k; i++) {
		size_t c = below(s, total + 1);
		unsigned j = i;

		/* Insertion keeps the cuts sorted: k is at most 17. */
		for (; j > 0 && cut[j - 1] > c; j--)
			cut[j] = cut[j - 1];
		cut[j] = c;
	}
	for (unsigned i = 0; i < k; i++) {
		size_t lo = i ? cut[i - 1] : 0, hi = i + 1 < k ? cut[i] : total;

		parts[i] = hi - lo;
	}
}

/* n bytes, none zero: literal pieces and copies from earlier in the same
 * stream (a copy may overlap itself, repeating a short pattern). */
static void fill_content(uint64_t *s, uint8_t *out, size_t n)
{
	size_t pos = 0;

	while (pos < n) {
		size_t len;

		if (pos >= COPY_MIN && below(s, 100) < COPY_PERCENT) {
			size_t dist = 1 + below(s, pos < COPY_DIST_MAX ? pos : COPY_DIST_MAX);

			len = COPY_MIN + below(s, COPY_MAX - COPY_MIN + 1);
			if (len > n - pos)
				len = n - pos;
			for (size_t i = 0; i < len; i++)
				out[pos + i] = out[pos + i - dist];
		} else {
			len = 1 + below(s, LIT_MAX);
			if (len > n - pos)
				len = n - pos;
			for (size_t i = 0; i < len; i++)
				out[pos + i] = (uint8_t)(1 + below(s, 255));
		}
		pos += len;
	}
}

/* One page with exactly zeros zero bytes, in runs. */
static void make_page(uint64_t *s, uint8_t *page, size_t zeros)
{
	size_t content = PAGE_BYTES - zeros, runs[MAX_RUNS], gaps[MAX_RUNS + 1];
	unsigned k = 0;
	uint8_t bytes[PAGE_BYTES];
	uint8_t *p = page;
	const uint8_t *c = bytes;

	if (zeros) {
		size_t most = zeros < MAX_RUNS ? zeros : MAX_RUNS;

		/* k - 1 separating bytes must fit between the runs. */
		if (most > content + 1)
			most = content + 1;
		k = 1 + (unsigned)below(s, most);
		compose(s, zeros - k, k, runs);
		for (unsigned i = 0; i < k; i++)
			runs[i]++;
	}
	/* k + 1 gaps: before, between (>= 1 byte) and after the runs. */
	compose(s, content - (k ? k - 1 : 0), k + 1, gaps);
	for (unsigned i = 1; i < k; i++)
		gaps[i]++;
	fill_content(s, bytes, content);
	for (unsigned i = 0; i <= k; i++) {
		memcpy(p, c, gaps[i]);
		p += gaps[i];
		c += gaps[i];
		if (i < k) {
			memset(p, 0, runs[i]);
			p += runs[i];
		}
	}
	if (p != page + PAGE_BYTES)
		bench_die("internal error: a page of %zu bytes", (size_t)(p - page));
}

static uint8_t *make_corpus(unsigned percent, size_t pages)
{
	uint8_t *corpus = bench_xmalloc(pages * PAGE_BYTES);
	uint64_t s = PRNG_SEED + percent;
	/* Round to nearest: 99 % is 4055 zeros. */
	size_t zeros = (PAGE_BYTES * percent + 50) / 100;

	for (size_t i = 0; i < pages; i++) {
		uint8_t *page = corpus + i * PAGE_BYTES;
		size_t z = 0;

		make_page(&s, page, zeros);
		for (size_t j = 0; j < PAGE_BYTES; j++)
			z += page[j] == 0;
		if (z != zeros)
			bench_die("internal error: page %zu has %zu zeros, not %zu", i, z, zeros);
	}
	return corpus;
}

/* ---- compressed pages ------------------------------------------------------ */

struct pages {
	uint8_t *data;          /* the streams, back to back */
	size_t *off, *len;      /* page i: data[off[i] .. off[i] + len[i]) */
	size_t total;
};

/* Each page compressed on its own by codec c at its default level. */
static struct pages compress_pages(const struct codec *c, const uint8_t *corpus, size_t n)
{
	struct pages z;
	size_t cap = 0;
	struct error err;

	z.off = bench_xmalloc(n * sizeof *z.off);
	z.len = bench_xmalloc(n * sizeof *z.len);
	z.data = NULL;
	z.total = 0;
	for (size_t i = 0; i < n; i++) {
		struct buffer in = { (uint8_t *)corpus + i * PAGE_BYTES, PAGE_BYTES }, out = { NULL, 0 };

		if (codec_compress(c, LEVEL_DEFAULT, &in, &out, &err) < 0)
			bench_die("%s: page %zu: %s", c->name, i, err.msg);
		if (z.total + out.size > cap) {
			cap = 2 * cap + out.size + PAGE_BYTES;
			if (!(z.data = realloc(z.data, cap)))
				bench_die("out of memory (%zu bytes)", cap);
		}
		memcpy(z.data + z.total, out.data, out.size);
		z.off[i] = z.total;
		z.len[i] = out.size;
		z.total += out.size;
		free(out.data);
	}
	return z;
}

/* ---- the decoders ----------------------------------------------------------- */

struct timing {
	double *secs;           /* one per whole-corpus decode */
	unsigned reps;
	double total, best_mbps, median_mbps;
};

struct decoder {
	const char *name;               /* lzo_decode, lzo1x_decompress_safe */
	const struct codec *ours;       /* NULL: liblzo2 */
	void *workspace;
	const struct pages *z;
	struct timing t;
};

/* Decodes every page of d->z into its place in dst; NULL or why not. */
static const char *decode_corpus(const struct decoder *d, uint8_t *dst, size_t n)
{
	static char why[160];
	const struct pages *z = d->z;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *src = z->data + z->off[i];
		uint8_t *out = dst + i * PAGE_BYTES;

		if (d->ours) {
			enum decode_status s = d->ours->decode(src, z->len[i], out, PAGE_BYTES,
							       d->workspace);

			if (s != DECODE_OK) {
				snprintf(why, sizeof why, "page %zu: %s", i, decode_status_name(s));
				return why;
			}
		} else {
			lzo_uint got = PAGE_BYTES;
			int r = lzo1x_decompress_safe(src, z->len[i], out, &got, NULL);

			if (r != LZO_E_OK || got != PAGE_BYTES) {
				snprintf(why, sizeof why, "page %zu: returned %d, %lu bytes", i, r,
					 (unsigned long)got);
				return why;
			}
		}
	}
	return NULL;
}

/* One decode into dst, prefilled with the complement of the corpus so
 * that a byte never written cannot pass, compared with the corpus. */
static void verify(const struct decoder *d, const uint8_t *corpus, uint8_t *dst, size_t n,
		   unsigned percent)
{
	size_t bytes = n * PAGE_BYTES;
	const char *err;

	for (size_t i = 0; i < bytes; i++)
		dst[i] = (uint8_t)~corpus[i];
	if ((err = decode_corpus(d, dst, n)))
		bench_die("%u %% zeros: %s failed: %s", percent, d->name, err);
	if (memcmp(dst, corpus, bytes) != 0) {
		size_t i = 0;

		while (dst[i] == corpus[i])
			i++;
		bench_die("%u %% zeros: %s output differs at byte %zu", percent, d->name, i);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int timing_done(const struct timing *t, double min_secs, unsigned min_reps)
{
	return t->reps >= MAX_REPS || (t->reps >= min_reps && t->total >= min_secs);
}

/* Rounds of one decode each, the first decoder of a round rotating (no
 * decoder always runs right after the same other one), until all are done:
 * equal repetition counts, the same machine for all. */
static void time_decoders(struct decoder *d, unsigned nd, uint8_t *dst, size_t n,
			  double min_secs, unsigned min_reps, unsigned percent)
{
	double bytes = (double)(n * PAGE_BYTES);
	int done = 0;

	for (unsigned k = 0; k < nd; k++) {
		memset(&d[k].t, 0, sizeof d[k].t);
		d[k].t.secs = bench_xmalloc(MAX_REPS * sizeof(double));
	}
	for (unsigned round = 0; !done; round++) {
		done = 1;
		for (unsigned j = 0; j < nd; j++) {
			struct decoder *x = &d[(round + j) % nd];
			double t0 = cpu_seconds();
			const char *err = decode_corpus(x, dst, n);
			double dt = cpu_seconds() - t0;

			if (err)
				bench_die("%u %% zeros: %s failed while timing: %s", percent, x->name, err);
			x->t.secs[x->t.reps++] = dt;
			x->t.total += dt;
		}
		for (unsigned k = 0; k < nd; k++)
			done &= timing_done(&d[k].t, min_secs, min_reps);
	}
	for (unsigned k = 0; k < nd; k++) {
		struct timing *t = &d[k].t;
		double med;

		qsort(t->secs, t->reps, sizeof *t->secs, cmp_double);
		med = t->reps % 2 ? t->secs[t->reps / 2]
				  : (t->secs[t->reps / 2 - 1] + t->secs[t->reps / 2]) / 2;
		t->best_mbps = bytes / t->secs[0] / 1e6;
		t->median_mbps = bytes / med / 1e6;
		free(t->secs);
		t->secs = NULL;
	}
}

/* ---- output ------------------------------------------------------------------ */

struct result {
	unsigned percent;
	size_t bytes, lzo_bytes, rle_bytes;
	struct timing lzo_ours, lzo_ref, rle_ours;
};


/* One row in bench_native's format (see its json_row), plus the page
 * geometry and the zero fraction.  ref == NULL: ours alone. */
static void json_row(FILE *f, const struct result *res, size_t pages, const struct codec *c,
		     const char *ours_name, size_t compressed, const struct timing *ours,
		     const struct timing *ref)
{
	const struct codec_compressor *z = c->compressor;

	fputs("   {\"codec\": ", f);
	bench_json_string(f, c->name);
	fprintf(f, ", \"level\": \"%d\", \"label\": ", z->default_level);
	/* As bench_native names its rows: the level only when there is a
	 * choice of levels. */
	if (z->min_level == z->max_level)
		bench_json_string(f, c->name);
	else
		fprintf(f, "\"%s-%d\"", c->name, z->default_level);
	fprintf(f, ", \"input\": \"seed-zeros-%u\", \"zero_percent\": %u", res->percent, res->percent);
	fprintf(f, ", \"pages\": %zu, \"page_bytes\": %u", pages, PAGE_BYTES);
	fprintf(f, ", \"bytes\": %zu, \"compressed_bytes\": %zu, \"compression_ratio\": %.4f",
		res->bytes, compressed, (double)res->bytes / (double)compressed);
	fprintf(f, ", \"format\": \"bzpack %s payload, codec_compress level %d, one stream per "
		"%u-byte page\"", c->name, z->default_level, PAGE_BYTES);
	fputs(",\n    \"ours\": ", f);
	bench_json_string(f, ours_name);
	fprintf(f, ", \"ours_mbps\": %.1f, \"ours_median_mbps\": %.1f, \"ours_reps\": %u",
		ours->best_mbps, ours->median_mbps, ours->reps);
	bench_json_member(f, "ours_cflags", BENCH_OURS_CFLAGS);
	fputs(",\n    \"ref\": ", f);
	if (!ref) {
		fputs("null, \"ref_func\": null, \"ref_version\": null, \"ref_mbps\": null, "
		      "\"ref_median_mbps\": null, \"ref_reps\": 0, \"ours_over_ref\": null}", f);
		return;
	}
	fputs("\"liblzo2\", \"ref_func\": \"lzo1x_decompress_safe\", \"ref_version\": ", f);
	bench_json_string(f, lzo_version_string());
	fprintf(f, ", \"ref_mbps\": %.1f, \"ref_median_mbps\": %.1f, \"ref_reps\": %u", ref->best_mbps,
		ref->median_mbps, ref->reps);
	fprintf(f, ", \"ours_over_ref\": %.4f}", ours->best_mbps / ref->best_mbps);
}

static void write_json(const char *path, const struct result *rs, size_t n, size_t pages,
		       const struct codec *lzo, const struct codec *rle, double min_secs,
		       unsigned min_reps)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = bench_output_open_or_die(&buf, &len);

	fputs("{\"what\": \"the LZO-RLE patchset's experiment: synthetic pages with a given "
	      "fraction of zero bytes in runs, each compressed on its own, the corpus decoded page "
	      "by page (tools/bench/bench_seed.c)\",\n", f);
	fprintf(f, " \"page_bytes\": %u, \"pages\": %zu, \"prng\": \"splitmix64, seed 0x%016llx + "
		"zero percent\",\n", PAGE_BYTES, pages, (unsigned long long)PRNG_SEED);
	fprintf(f, " \"zero_runs\": \"exactly round(fraction * %u) zero bytes a page, in 1..%u runs "
		"of random lengths at random places, apart\",\n", PAGE_BYTES, MAX_RUNS);
	fprintf(f, " \"content\": \"non-zero bytes: %u%% copies of %u..%u earlier bytes from up to "
		"%u back, else random pieces of 1..%u bytes of 1..255\",\n", COPY_PERCENT, COPY_MIN,
		COPY_MAX, COPY_DIST_MAX, LIT_MAX);
	fprintf(f, " \"min_seconds\": %.3f, \"min_reps\": %u, \"timing\": \"best whole-corpus "
		"decode of >= min_reps, three decoders in rotating alternation\",\n", min_secs,
		min_reps);
	fputs(" \"rows\": [\n", f);
	for (size_t i = 0; i < n; i++) {
		json_row(f, &rs[i], pages, lzo, "lzo_decode", rs[i].lzo_bytes, &rs[i].lzo_ours,
			 &rs[i].lzo_ref);
		fputs(",\n", f);
		json_row(f, &rs[i], pages, rle, "lzo_rle_decode", rs[i].rle_bytes, &rs[i].rle_ours,
			 NULL);
		fputs(i + 1 < n ? ",\n" : "\n", f);
	}
	fputs(" ]}\n", f);
	bench_output_close_or_die(f, &buf, &len, path);
}

static void print_header(void)
{
	printf("%6s  %9s %9s  %12s %12s %12s  %8s\n", "zeros", "lzo size", "rle size",
	       "lzo ours", "lzo liblzo2", "lzo-rle ours", "rle/lzo");
	printf("%6s  %9s %9s  %12s %12s %12s  %8s\n", "", "(c/o)", "(c/o)", "MB/s", "MB/s", "MB/s",
	       "(ours)");
	fflush(stdout);
}

static void print_row(const struct result *r)
{
	printf("%5u%%  %9.4f %9.4f  %12.1f %12.1f %12.1f  %8.3f\n", r->percent,
	       (double)r->lzo_bytes / (double)r->bytes, (double)r->rle_bytes / (double)r->bytes,
	       r->lzo_ours.best_mbps, r->lzo_ref.best_mbps, r->rle_ours.best_mbps,
	       r->rle_ours.best_mbps / r->lzo_ours.best_mbps);
	fflush(stdout);
}

/* ---- main -------------------------------------------------------------------- */

static const struct codec *need_codec(const char *name)
{
	const struct codec *c = codec_by_name(name);

	if (!c)
		bench_die("no codec %s in the packer's table", name);
	return c;
}

static void *workspace_for(const struct codec *c)
{
	void *w = NULL;

	/* Aligned as codec_decode() aligns it (decoders may assume 16). */
	if (c->workspace_size && posix_memalign(&w, 64, c->workspace_size) != 0)
		bench_die("out of memory (%zu bytes of %s workspace)", c->workspace_size, c->name);
	return w;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_seed [-o JSON] [-p PAGES] [-t SECONDS] [-n REPS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *json = NULL;
	size_t pages = DEFAULT_PAGES;
	double min_secs = DEFAULT_MIN_SECONDS, t_start = cpu_seconds();
	unsigned min_reps = DEFAULT_MIN_REPS;
	struct result results[N_FRACTIONS];
	const struct codec *lzo, *rle;
	int opt;

	bench_tool = "bench_seed";
	while ((opt = getopt(argc, argv, "o:p:t:n:h")) != -1) {
		switch (opt) {
		case 'o': json = optarg; break;
		case 'p': pages = (size_t)atol(optarg); break;
		case 't': min_secs = atof(optarg); break;
		case 'n': min_reps = (unsigned)atoi(optarg); break;
		default: usage();
		}
	}
	if (optind != argc || pages < 1 || pages > (1u << 20) || min_secs < 0 || min_reps < 1 ||
	    min_reps > MAX_REPS)
		usage();
	if (lzo_init() != LZO_E_OK)
		bench_die("lzo_init failed");
	lzo = need_codec("lzo");
	rle = need_codec("lzo-rle");
	bench_progress("%zu pages of %u bytes per fraction; ours built with %s; each decoder >= %.2f s "
		 "and >= %u reps", pages, PAGE_BYTES, BENCH_OURS_CFLAGS, min_secs, min_reps);
	print_header();

	for (size_t i = 0; i < N_FRACTIONS; i++) {
		unsigned percent = zero_percents[i];
		uint8_t *corpus = make_corpus(percent, pages);
		uint8_t *dst = bench_xmalloc(pages * PAGE_BYTES);
		struct pages zlzo, zrle;
		struct decoder d[3];
		double t = cpu_seconds();
		struct result *r = &results[i];

		zlzo = compress_pages(lzo, corpus, pages);
		zrle = compress_pages(rle, corpus, pages);
		bench_progress("%u %% zeros: compressed in %.1f s; verifying, timing", percent, cpu_seconds() - t);
		d[0] = (struct decoder){ "lzo_decode", lzo, workspace_for(lzo), &zlzo, { 0 } };
		d[1] = (struct decoder){ "lzo1x_decompress_safe", NULL, NULL, &zlzo, { 0 } };
		d[2] = (struct decoder){ "lzo_rle_decode", rle, workspace_for(rle), &zrle, { 0 } };
		for (unsigned k = 0; k < 3; k++)
			verify(&d[k], corpus, dst, pages, percent);
		time_decoders(d, 3, dst, pages, min_secs, min_reps, percent);

		r->percent = percent;
		r->bytes = pages * PAGE_BYTES;
		r->lzo_bytes = zlzo.total;
		r->rle_bytes = zrle.total;
		r->lzo_ours = d[0].t;
		r->lzo_ref = d[1].t;
		r->rle_ours = d[2].t;
		print_row(r);

		for (unsigned k = 0; k < 3; k++)
			free(d[k].workspace);
		free(zlzo.data);
		free(zlzo.off);
		free(zlzo.len);
		free(zrle.data);
		free(zrle.off);
		free(zrle.len);
		free(dst);
		free(corpus);
	}

	if (json) {
		write_json(json, results, N_FRACTIONS, pages, lzo, rle, min_secs, min_reps);
		bench_progress("wrote %s", json);
	}
	bench_progress("done in %.1f s", cpu_seconds() - t_start);
	return 0;
}
