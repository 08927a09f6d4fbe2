/* bench_native.c - `make bench-native`: our decoders, compiled for the host
 * at the stub's optimisation level (see tools/bench.mk), against the
 * reference decoders of the Debian libraries, on the same inputs in the
 * same run.
 *
 * usage: bench_native [-o JSON] [-c CACHEDIR] [-t SECONDS] [-n REPS]
 *                     [-k LIST] FILE...
 *   -o JSON      also write the results as a JSON list of objects to JSON
 *                (through a temporary file and a rename)
 *   -c CACHEDIR  keep compressed inputs there, keyed by the input's real
 *                path, size and mtime, the codec, its level and the
 *                compressing library's version (xz -6e and zstd -19 take
 *                tens of seconds on a 60 MB kernel)
 *   -t SECONDS   time each cell for at least this long (default 0.3)
 *   -n REPS      and at least this many repetitions (default 5)
 *   -k LIST      only these rows: comma-separated labels, codecs or
 *                reference names (e.g. "lz4,memcpy")
 *
 * For every input and every row: compress (or load from the cache), then
 * check that each decoder reproduces the input byte for byte (the output
 * buffer is first filled with the complement of the input, so a byte the
 * decoder never wrote cannot pass), then time.  Where we have a decoder of
 * our own, its repetitions alternate with the reference's, so that both
 * see the same machine.  Each repetition is timed on its own with
 * CLOCK_MONOTONIC; a row reports the best and the median.  MB/s are 1e6
 * bytes of decompressed output per second.  The table goes to stdout,
 * progress to stderr; any failure ends the run with exit status 1.
 */
#define _XOPEN_SOURCE 700       /* realpath() */

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>
#include <lz4.h>
#include <lz4hc.h>
#include <lzma.h>
#include <lzo/lzo1x.h>
#define ZLIB_CONST
#include <zlib.h>
#include <zstd.h>

#include "decode.h"
#include "util.h"

#ifndef BENCH_OURS_CFLAGS
#define BENCH_OURS_CFLAGS "unknown"     /* tools/bench.mk passes the real flags */
#endif

#define DEFAULT_MIN_SECONDS 0.3
#define DEFAULT_MIN_REPS    5
#define MAX_REPS            100000


/* ---- errors ------------------------------------------------------------- */

static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("bench_native: FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void progress(const char *fmt, ...)
{
	va_list ap;

	fputs("bench_native: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory (%zu bytes)", n);
	return p;
}

/* A decoder's reason for failing, for the messages: decoders return NULL
 * on success or a string, often formatted into this buffer. */
static char why_buf[160];

static const char *why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why_buf, sizeof why_buf, fmt, ap);
	va_end(ap);
	return why_buf;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the codecs ---------------------------------------------------------
 * Per codec: a compressor (input -> malloc'd blob; returns NULL or a
 * reason) and the decoders.  A decoder must produce exactly dst_len bytes
 * from all of src; it returns NULL, or why not. */

typedef const char *(*compress_fn)(const struct buffer *in, struct buffer *out);
typedef const char *(*bench_decode_fn)(const uint8_t *src, size_t src_len,
				       uint8_t *dst, size_t dst_len);

/* lz4: one block, as bzpack ships it (tools/compress.c). */
static const char *compress_lz4(const struct buffer *in, struct buffer *out)
{
	int bound = LZ4_compressBound((int)in->size);
	int n;

	out->data = xmalloc((size_t)bound);
	n = LZ4_compress_HC((const char *)in->data, (char *)out->data, (int)in->size, bound,
			    LZ4HC_CLEVEL_MAX);
	if (n <= 0)
		return "LZ4_compress_HC failed";
	out->size = (size_t)n;
	return NULL;
}

static const char *decode_ours_lz4(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	enum decode_status s = lz4_decode(src, src_len, dst, dst_len, NULL);

	return s == DECODE_OK ? NULL : decode_status_name(s);
}

static const char *decode_liblz4(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);

	return r == (int)dst_len ? NULL : why("LZ4_decompress_safe returned %d", r);
}

/* lzo1x: the LZO1X-999 compressor, the bounds-checked decoder. */
static const char *compress_lzo1x(const struct buffer *in, struct buffer *out)
{
	lzo_uint n = in->size + in->size / 16 + 64 + 3;   /* LZO1X's worst case */
	void *work = xmalloc(LZO1X_999_MEM_COMPRESS);
	int r;

	out->data = xmalloc(n);
	r = lzo1x_999_compress(in->data, in->size, out->data, &n, work);
	free(work);
	if (r != LZO_E_OK)
		return why("lzo1x_999_compress returned %d", r);
	out->size = n;
	return NULL;
}

static const char *decode_liblzo2(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	lzo_uint n = dst_len;
	int r = lzo1x_decompress_safe(src, src_len, dst, &n, NULL);

	if (r != LZO_E_OK)
		return why("lzo1x_decompress_safe returned %d", r);
	return n == dst_len ? NULL : why("lzo1x_decompress_safe produced %lu bytes", (unsigned long)n);
}

/* deflate through zlib: a raw stream (no zlib or gzip wrapper), level 9. */
static const char *compress_zlib(const struct buffer *in, struct buffer *out)
{
	z_stream z;
	int r;

	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return "deflateInit2 failed";
	out->size = deflateBound(&z, (uLong)in->size);
	out->data = xmalloc(out->size);
	z.next_in = in->data;
	z.avail_in = (uInt)in->size;
	z.next_out = out->data;
	z.avail_out = (uInt)out->size;
	r = deflate(&z, Z_FINISH);
	out->size = z.total_out;
	deflateEnd(&z);
	return r == Z_STREAM_END ? NULL : why("deflate returned %d", r);
}

static const char *decode_zlib(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	z_stream z;
	int r;

	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, -15) != Z_OK)
		return "inflateInit2 failed";
	z.next_in = src;
	z.avail_in = (uInt)src_len;
	z.next_out = dst;
	z.avail_out = (uInt)dst_len;
	r = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (r != Z_STREAM_END)
		return why("inflate returned %d", r);
	if (z.avail_in != 0 || z.total_out != dst_len)
		return why("inflate left %u input bytes, produced %lu", z.avail_in, z.total_out);
	return NULL;
}

/* deflate through libdeflate: a raw stream, libdeflate's level 12. */
static const char *compress_libdeflate(const struct buffer *in, struct buffer *out)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(12);
	size_t bound;

	if (!c)
		return "libdeflate_alloc_compressor failed";
	bound = libdeflate_deflate_compress_bound(c, in->size);
	out->data = xmalloc(bound);
	out->size = libdeflate_deflate_compress(c, in->data, in->size, out->data, bound);
	libdeflate_free_compressor(c);
	return out->size ? NULL : "libdeflate_deflate_compress failed";
}

static const char *decode_libdeflate(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	/* One decompressor for the whole run, as libdeflate intends; it
	 * rebuilds its tables for every block anyway. */
	static struct libdeflate_decompressor *d;
	enum libdeflate_result r;
	size_t n = 0;

	if (!d && !(d = libdeflate_alloc_decompressor()))
		return "libdeflate_alloc_decompressor failed";
	r = libdeflate_deflate_decompress(d, src, src_len, dst, dst_len, &n);
	if (r != LIBDEFLATE_SUCCESS)
		return why("libdeflate_deflate_decompress returned %d", (int)r);
	return n == dst_len ? NULL : why("libdeflate_deflate_decompress produced %zu bytes", n);
}

/* zstd: one frame, level 19, single-threaded. */
static const char *compress_zstd(const struct buffer *in, struct buffer *out)
{
	size_t bound = ZSTD_compressBound(in->size);

	out->data = xmalloc(bound);
	out->size = ZSTD_compress(out->data, bound, in->data, in->size, 19);
	return ZSTD_isError(out->size) ? ZSTD_getErrorName(out->size) : NULL;
}

static const char *decode_libzstd(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	size_t r = ZSTD_decompress(dst, dst_len, src, src_len);

	if (ZSTD_isError(r))
		return ZSTD_getErrorName(r);
	return r == dst_len ? NULL : why("ZSTD_decompress produced %zu bytes", r);
}

/* xz: an .xz stream (one LZMA2 filter, no BCJ) with a CRC32 check, as the
 * kernel's xz payloads have; preset 6 | EXTREME.  Decoding includes the
 * CRC32 check. */
static const char *compress_xz(const struct buffer *in, struct buffer *out)
{
	size_t bound = lzma_stream_buffer_bound(in->size);
	size_t pos = 0;
	lzma_ret r;

	out->data = xmalloc(bound);
	r = lzma_easy_buffer_encode(6 | LZMA_PRESET_EXTREME, LZMA_CHECK_CRC32, NULL,
				    in->data, in->size, out->data, &pos, bound);
	out->size = pos;
	return r == LZMA_OK ? NULL : why("lzma_easy_buffer_encode returned %d", (int)r);
}

static const char *decode_liblzma(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	uint64_t memlimit = UINT64_MAX;
	size_t in_pos = 0, out_pos = 0;
	lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, src, &in_pos, src_len,
					       dst, &out_pos, dst_len);

	if (r != LZMA_OK)
		return why("lzma_stream_buffer_decode returned %d", (int)r);
	if (in_pos != src_len || out_pos != dst_len)
		return why("lzma_stream_buffer_decode read %zu of %zu, wrote %zu", in_pos, src_len, out_pos);
	return NULL;
}

/* memcpy: the ceiling.  Its "compressed" input is the input itself. */
static const char *decode_memcpy(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
	if (src_len != dst_len)
		return "size mismatch";
	memcpy(dst, src, dst_len);
	return NULL;
}

static const char *version_liblz4(void) { return LZ4_versionString(); }
static const char *version_liblzo2(void) { return lzo_version_string(); }
static const char *version_zlib(void) { return zlibVersion(); }
static const char *version_libdeflate(void) { return LIBDEFLATE_VERSION_STRING; }
static const char *version_libzstd(void) { return ZSTD_versionString(); }
static const char *version_liblzma(void) { return lzma_version_string(); }

struct codec {
	const char *label;      /* table row name, cache key, -k */
	const char *codec;      /* JSON "codec" */
	const char *level;      /* JSON "level"; NULL for memcpy */
	const char *format;     /* what the compressed bytes are */
	compress_fn compress;   /* NULL: decode the input itself */
	const char *(*version)(void);   /* the compressing library's */
	bench_decode_fn ours;   /* NULL: no decoder of our own yet */
	const char *ours_name;
	bench_decode_fn ref;
	const char *ref_name;   /* short, for the table and JSON "ref" */
	const char *ref_func;   /* the call that is timed */
};

static const struct codec codecs[] = {
	{ "lz4-hc12", "lz4", "hc12", "lz4 block (no frame), LZ4_compress_HC level 12",
	  compress_lz4, version_liblz4,
	  decode_ours_lz4, "lz4_decode", decode_liblz4, "liblz4", "LZ4_decompress_safe" },
	{ "lzo1x-999", "lzo1x", "999", "lzo1x stream, lzo1x_999_compress",
	  compress_lzo1x, version_liblzo2,
	  NULL, NULL, decode_liblzo2, "liblzo2", "lzo1x_decompress_safe" },
	{ "deflate-9", "deflate", "9", "raw deflate, zlib deflate level 9",
	  compress_zlib, version_zlib,
	  NULL, NULL, decode_zlib, "zlib", "inflate" },
	{ "deflate-12", "deflate", "12", "raw deflate, libdeflate level 12",
	  compress_libdeflate, version_libdeflate,
	  NULL, NULL, decode_libdeflate, "libdeflate", "libdeflate_deflate_decompress" },
	{ "zstd-19", "zstd", "19", "zstd frame, ZSTD_compress level 19",
	  compress_zstd, version_libzstd,
	  NULL, NULL, decode_libzstd, "libzstd", "ZSTD_decompress" },
	{ "xz-6e", "xz", "6e", ".xz stream (LZMA2, no BCJ, CRC32 check), preset 6|EXTREME",
	  compress_xz, version_liblzma,
	  NULL, NULL, decode_liblzma, "liblzma", "lzma_stream_buffer_decode" },
	{ "memcpy", "memcpy", NULL, "the input itself",
	  NULL, NULL,
	  NULL, NULL, decode_memcpy, "memcpy", "memcpy" },
};
#define N_CODECS (sizeof codecs / sizeof codecs[0])

/* ---- files -------------------------------------------------------------- */

/* The whole file, and its stat for the cache key; any failure is fatal. */
static struct buffer load_file(const char *path, struct stat *st)
{
	struct buffer b;
	struct error err;

	if (stat(path, st) != 0)
		die("%s: %s", path, strerror(errno));
	if (read_file(path, &b, &err) < 0)
		die("%s: %s", path, err.msg);
	return b;
}

/* Like `mkdir -p dir`. */
static void make_dirs(const char *dir)
{
	char *p;

	if (!*dir)
		return;
	p = xmalloc(strlen(dir) + 1);
	strcpy(p, dir);
	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, 0777) != 0 && errno != EEXIST)
				die("mkdir %s: %s", p, strerror(errno));
			*s = c;
			if (c == '\0')
				break;
		}
	}
	free(p);
}

static void save_file(const char *path, const void *data, size_t size)
{
	struct error err;

	if (write_file_atomic(path, data, size, &err) < 0)
		die("%s: %s", path, err.msg);
}

/* ---- the compressed-input cache ----------------------------------------- */

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	while (*s) {
		h ^= (uint8_t)*s++;
		h *= 0x100000001b3u;
	}
	return h;
}

/* CACHEDIR/BASENAME.LABEL.HASH.bin, the hash over everything that decides
 * the compressed bytes. */
static void cache_path(char *out, size_t cap, const char *dir, const char *input,
		       const struct stat *st, const struct codec *c)
{
	char key[8192], real[4096], base[64];
	const char *slash = strrchr(input, '/');
	size_t i;

	if (!realpath(input, real))
		snprintf(real, sizeof real, "%s", input);
	snprintf(key, sizeof key, "%s|%lld|%lld.%09ld|%s|%s|%s", real, (long long)st->st_size,
		 (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec, c->label,
		 c->level ? c->level : "", c->version ? c->version() : "");
	snprintf(base, sizeof base, "%s", slash ? slash + 1 : input);
	for (i = 0; base[i]; i++)
		if (!(base[i] == '.' || base[i] == '-' || base[i] == '_' ||
		      (base[i] >= '0' && base[i] <= '9') ||
		      (base[i] >= 'a' && base[i] <= 'z') || (base[i] >= 'A' && base[i] <= 'Z')))
			base[i] = '_';
	snprintf(out, cap, "%s/%s.%s.%016llx.bin", dir, base, c->label,
		 (unsigned long long)fnv1a64(key));
}

/* The compressed input for codec c: from the cache when there is one and
 * it holds it (*from_cache = 1), else compressed now (and stored). */
static struct buffer get_compressed(const struct codec *c, const char *input, const struct stat *st,
				  const struct buffer *in, const char *cache_dir, int *from_cache)
{
	char path[4096];
	struct buffer z = { NULL, 0 };
	const char *err;
	double t;

	*from_cache = 0;
	if (cache_dir) {
		struct stat cst;

		cache_path(path, sizeof path, cache_dir, input, st, c);
		if (stat(path, &cst) == 0) {
			z = load_file(path, &cst);
			progress("  %-10s cached: %zu bytes (%s)", c->label, z.size, path);
			*from_cache = 1;
			return z;
		}
	}
	progress("  %-10s compressing %zu bytes ...", c->label, in->size);
	t = now();
	err = c->compress(in, &z);
	if (err)
		die("%s: %s: %s", input, c->label, err);
	progress("  %-10s -> %zu bytes in %.1f s", c->label, z.size, now() - t);
	if (cache_dir) {
		make_dirs(cache_dir);
		save_file(path, z.data, z.size);
	}
	return z;
}

/* ---- checking and timing ------------------------------------------------ */

/* Decodes z once into dst and compares with in.  dst is first filled with
 * the complement of in: every byte the decoder fails to write differs. */
static void verify(const char *input, const struct codec *c, const char *who, bench_decode_fn dec,
		   const struct buffer *z, const struct buffer *in, uint8_t *dst, int from_cache)
{
	const char *hint = from_cache ? " (the compressed input came from the cache: delete it?)" : "";
	const char *err;

	for (size_t i = 0; i < in->size; i++)
		dst[i] = (uint8_t)~in->data[i];
	err = dec(z->data, z->size, dst, in->size);
	if (err)
		die("%s: %s: %s failed: %s%s", input, c->label, who, err, hint);
	if (memcmp(dst, in->data, in->size) != 0) {
		size_t i = 0;

		while (dst[i] == in->data[i])
			i++;
		die("%s: %s: %s output differs from the input at byte %zu of %zu%s", input,
		    c->label, who, i, in->size, hint);
	}
}

struct timing {
	double *secs;           /* one per repetition */
	unsigned reps;
	double total;
	double best_mbps, median_mbps;
};

static void time_once(struct timing *tm, const char *input, const struct codec *c, const char *who,
		      bench_decode_fn dec, const struct buffer *z, uint8_t *dst, size_t n)
{
	double t0 = now();
	const char *err = dec(z->data, z->size, dst, n);
	double dt = now() - t0;

	if (err)
		die("%s: %s: %s failed while timing: %s", input, c->label, who, err);
	tm->secs[tm->reps++] = dt;
	tm->total += dt;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void summarise(struct timing *tm, size_t n)
{
	double med;

	qsort(tm->secs, tm->reps, sizeof *tm->secs, cmp_double);
	med = tm->reps % 2 ? tm->secs[tm->reps / 2]
			   : (tm->secs[tm->reps / 2 - 1] + tm->secs[tm->reps / 2]) / 2;
	tm->best_mbps = (double)n / tm->secs[0] / 1e6;
	tm->median_mbps = (double)n / med / 1e6;
}

static int cell_done(const struct timing *tm, double min_secs, unsigned min_reps)
{
	return tm->reps >= MAX_REPS || (tm->reps >= min_reps && tm->total >= min_secs);
}

/* Times ours (if any) and the reference, alternating repetitions, until
 * each has run for min_secs and min_reps. */
static void time_row(const char *input, const struct codec *c, const struct buffer *z, uint8_t *dst,
		     size_t n, double min_secs, unsigned min_reps, struct timing *ours, struct timing *ref)
{
	ours->secs = c->ours ? xmalloc(MAX_REPS * sizeof(double)) : NULL;
	ref->secs = xmalloc(MAX_REPS * sizeof(double));
	/* Both keep running until both are done: equal repetition counts. */
	while (!cell_done(ref, min_secs, min_reps) ||
	       (c->ours && !cell_done(ours, min_secs, min_reps))) {
		if (c->ours && ours->reps < MAX_REPS)
			time_once(ours, input, c, c->ours_name, c->ours, z, dst, n);
		if (ref->reps < MAX_REPS)
			time_once(ref, input, c, c->ref_name, c->ref, z, dst, n);
	}
	if (c->ours)
		summarise(ours, n);
	summarise(ref, n);
}

/* ---- output ------------------------------------------------------------- */

struct result {
	const struct codec *c;
	const char *input;
	size_t bytes, compressed;
	struct timing ours, ref;
};

static int input_width = 10;

static void print_header(void)
{
	printf("%-10s  %-*s  %10s  %9s %9s  %-10s  %9s %9s  %8s  %10s  %6s\n", "codec", input_width,
	       "input", "bytes", "ours best", "ours med", "ref", "ref best", "ref med", "ours/ref",
	       "compressed", "ratio");
}

static void print_row(const struct result *r)
{
	printf("%-10s  %-*s  %10zu  ", r->c->label, input_width, r->input, r->bytes);
	if (r->c->ours)
		printf("%9.1f %9.1f  ", r->ours.best_mbps, r->ours.median_mbps);
	else
		printf("%9s %9s  ", "-", "-");
	printf("%-10s  %9.1f %9.1f  ", r->c->ref_name, r->ref.best_mbps, r->ref.median_mbps);
	if (r->c->ours)
		printf("%8.3f  ", r->ours.best_mbps / r->ref.best_mbps);
	else
		printf("%8s  ", "-");
	if (r->c->compress)
		printf("%10zu  %6.3f\n", r->compressed, (double)r->bytes / (double)r->compressed);
	else
		printf("%10s  %6s\n", "-", "-");
	fflush(stdout);
}

/* Appends s as a JSON string. */
static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, int present, double v)
{
	if (present)
		fprintf(f, "%.1f", v);
	else
		fputs("null", f);
}

static void json_row(FILE *f, const struct result *r)
{
	const struct codec *c = r->c;
	int ours = c->ours != NULL, z = c->compress != NULL;

	fputs("  {\"codec\": ", f);
	json_str(f, c->codec);
	fputs(", \"level\": ", f);
	json_str(f, c->level);
	fputs(", \"label\": ", f);
	json_str(f, c->label);
	fputs(", \"input\": ", f);
	json_str(f, r->input);
	fprintf(f, ", \"bytes\": %zu, \"compressed_bytes\": ", r->bytes);
	if (z)
		fprintf(f, "%zu, \"compression_ratio\": %.4f", r->compressed,
			(double)r->bytes / (double)r->compressed);
	else
		fputs("null, \"compression_ratio\": null", f);
	fputs(", \"format\": ", f);
	json_str(f, c->format);
	fputs(",\n   \"ours\": ", f);
	json_str(f, c->ours_name);
	fputs(", \"ours_mbps\": ", f);
	json_num(f, ours, r->ours.best_mbps);
	fputs(", \"ours_median_mbps\": ", f);
	json_num(f, ours, r->ours.median_mbps);
	fprintf(f, ", \"ours_reps\": %u, \"ours_cflags\": ", r->ours.reps);
	json_str(f, ours ? BENCH_OURS_CFLAGS : NULL);
	fputs(",\n   \"ref\": ", f);
	json_str(f, c->ref_name);
	fputs(", \"ref_func\": ", f);
	json_str(f, c->ref_func);
	fputs(", \"ref_version\": ", f);
	json_str(f, c->version ? c->version() : NULL);
	fputs(", \"ref_mbps\": ", f);
	json_num(f, 1, r->ref.best_mbps);
	fputs(", \"ref_median_mbps\": ", f);
	json_num(f, 1, r->ref.median_mbps);
	fprintf(f, ", \"ref_reps\": %u, \"ours_over_ref\": ", r->ref.reps);
	if (ours)
		fprintf(f, "%.4f", r->ours.best_mbps / r->ref.best_mbps);
	else
		fputs("null", f);
	fputs("}", f);
}

static void write_json(const char *path, const struct result *rs, size_t n)
{
	char *buf = NULL, *slash;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		die("open_memstream: %s", strerror(errno));
	fputs("[\n", f);
	for (size_t i = 0; i < n; i++) {
		json_row(f, &rs[i]);
		fputs(i + 1 < n ? ",\n" : "\n", f);
	}
	fputs("]\n", f);
	if (fclose(f) != 0)
		die("open_memstream: write failed");

	slash = strrchr(path, '/');
	if (slash && slash != path) {
		char *dir = xmalloc((size_t)(slash - path) + 1);

		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
		make_dirs(dir);
		free(dir);
	}
	save_file(path, buf, len);
	free(buf);
}

/* ---- main ----------------------------------------------------------------- */

/* Does -k LIST select codec c? */
static int selected(const char *list, const struct codec *c)
{
	const char *p = list;

	if (!list)
		return 1;
	while (*p) {
		size_t n = strcspn(p, ",");

		if ((strlen(c->label) == n && strncmp(p, c->label, n) == 0) ||
		    (strlen(c->codec) == n && strncmp(p, c->codec, n) == 0) ||
		    (strlen(c->ref_name) == n && strncmp(p, c->ref_name, n) == 0))
			return 1;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_native [-o JSON] [-c CACHEDIR] [-t SECONDS] [-n REPS] "
		"[-k LIST] FILE...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *json = NULL, *cache_dir = NULL, *only = NULL;
	double min_secs = DEFAULT_MIN_SECONDS;
	unsigned min_reps = DEFAULT_MIN_REPS;
	struct result *results;
	size_t n_results = 0;
	double t_start = now();
	int opt;

	while ((opt = getopt(argc, argv, "o:c:t:n:k:h")) != -1) {
		switch (opt) {
		case 'o': json = optarg; break;
		case 'c': cache_dir = optarg; break;
		case 't': min_secs = atof(optarg); break;
		case 'n': min_reps = (unsigned)atoi(optarg); break;
		case 'k': only = optarg; break;
		default: usage();
		}
	}
	if (optind >= argc || min_secs < 0 || min_reps < 1 || min_reps > MAX_REPS)
		usage();
	if (lzo_init() != LZO_E_OK)
		die("lzo_init failed");

	for (int i = optind; i < argc; i++)
		if ((int)strlen(argv[i]) > input_width)
			input_width = (int)strlen(argv[i]);
	results = xmalloc((size_t)(argc - optind) * N_CODECS * sizeof *results);
	progress("ours built with %s; each cell >= %.2f s and >= %u reps", BENCH_OURS_CFLAGS,
		 min_secs, min_reps);
	print_header();

	for (int i = optind; i < argc; i++) {
		const char *input = argv[i];
		struct stat st;
		struct buffer in = load_file(input, &st);
		uint8_t *dst;

		if (in.size == 0)
			die("%s: empty", input);
		if (in.size > LZ4_MAX_INPUT_SIZE)
			die("%s: %zu bytes is more than one LZ4 block can hold", input, in.size);
		progress("%s: %zu bytes", input, in.size);
		dst = xmalloc(in.size);

		for (size_t k = 0; k < N_CODECS; k++) {
			const struct codec *c = &codecs[k];
			struct result *r = &results[n_results];
			struct buffer z = in;
			int cached = 0;

			if (!selected(only, c))
				continue;
			memset(r, 0, sizeof *r);
			r->c = c;
			r->input = input;
			r->bytes = in.size;
			if (c->compress)
				z = get_compressed(c, input, &st, &in, cache_dir, &cached);
			r->compressed = z.size;
			if (c->ours)
				verify(input, c, c->ours_name, c->ours, &z, &in, dst, cached);
			verify(input, c, c->ref_name, c->ref, &z, &in, dst, cached);
			progress("  %-10s verified; timing", c->label);
			time_row(input, c, &z, dst, in.size, min_secs, min_reps, &r->ours, &r->ref);
			free(r->ours.secs);
			free(r->ref.secs);
			r->ours.secs = r->ref.secs = NULL;
			if (z.data != in.data)
				free(z.data);
			print_row(r);
			n_results++;
		}
		free(dst);
		free(in.data);
	}

	if (json) {
		write_json(json, results, n_results);
		progress("wrote %s", json);
	}
	progress("done in %.1f s", now() - t_start);
	free(results);
	return 0;
}
