/* bench_native.c - `make bench-native`: our decoders, compiled for the host
 * at the stub's optimisation level (see tools/bench/bench.mk), against the
 * reference decoders of the Debian libraries, on the same inputs in the
 * same run.
 *
 * usage: bench_native [-o JSON] [-c CACHEDIR] [-t SECONDS] [-n REPS]
 *                     [-k LIST] FILE...
 *   -o JSON      also write the results as a JSON list of objects to JSON
 *                (through a temporary file and a rename)
 *   -c CACHEDIR  keep compressed inputs there (the packer's payload cache,
 *                payload_cache.h: keyed by the input's content, a hit
 *                decoded and compared before use): xz -6e and zstd -19
 *                take tens of seconds on a 60 MB kernel
 *   -t SECONDS   time each cell for at least this long (default 0.3)
 *   -n REPS      and at least this many repetitions (default 15)
 *   -k LIST      only these rows: comma-separated labels, codecs or
 *                reference names (e.g. "lz4,memcpy")
 *
 * The rows: one per codec of the packer's table (tools/compress/codecs.c,
 * that is decode/codecs.def) paired with each reference decoder known for
 * its name (refs[] below), or alone when none is; then one row per
 * reference whose codec we do not have yet, compressed by the reference
 * library itself - the targets for codecs to come.  Our rows compress with
 * codec_compress() at the codec's default level, exactly what the packer
 * ships; the "none" codec's reference is memcpy, the ceiling.
 *
 * For every input and every row: compress (or load from the cache), then
 * check that each decoder reproduces the input byte for byte (the output
 * buffer is first filled with the complement of the input, so a byte the
 * decoder never wrote cannot pass), then time.  Where a row has both our
 * decoder and a reference, their repetitions alternate, so that both see
 * the same machine.  Each repetition is timed on its own with
 * CLOCK_THREAD_CPUTIME_ID (a shared machine's load then costs us little but
 * cache and memory bandwidth); a row reports the best and the median.  MB/s are 1e6
 * bytes of decompressed output per second.  The table goes to stdout,
 * progress to stderr; any failure ends the run with exit status 1.
 */
#define _XOPEN_SOURCE 700       /* realpath(), posix_memalign() */

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdeflate.h>
#include <lz4.h>
#include <lzma.h>
#include <lzo/lzo1x.h>
#define ZLIB_CONST
#include <zlib.h>
#include <zstd.h>
#include <bzlib.h>

#include "codecs.h"
#include "decode.h"
#include "decode_speed.h"      /* cpu_seconds() */
#include "payload_cache.h"
#include "reference.h"         /* the reference glue, decode/references.def */
#include "bench_out.h"
#include "util.h"

#ifndef BENCH_OURS_CFLAGS
#define BENCH_OURS_CFLAGS "unknown"     /* tools/bench/bench.mk passes the real flags */
#endif

#define DEFAULT_MIN_SECONDS 0.3
#define DEFAULT_MIN_REPS    15
#define MAX_REPS            100000


/* A string of our own, formatted: row labels and cache keys, made once. */
static char *xprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *s;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		bench_die("vsnprintf failed");
	s = bench_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

/* ---- the reference decoders --------------------------------------------
 * The glue is tools/reference/ (decode/references.def): per reference the
 * decoder (exactly dst_len bytes from all of src; NULL, or why not) and,
 * for when we have no codec of its name yet, its compressor at the
 * strongest variant. */

typedef ref_decode_fn bench_decode_fn;

static const char *version_libbz2(void) { return BZ2_bzlibVersion(); }
static const char *version_liblz4(void) { return LZ4_versionString(); }
static const char *version_liblzo2(void) { return lzo_version_string(); }
static const char *version_zlib(void) { return zlibVersion(); }
static const char *version_libdeflate(void) { return LIBDEFLATE_VERSION_STRING; }
static const char *version_libzstd(void) { return ZSTD_versionString(); }
static const char *version_liblzma(void) { return lzma_version_string(); }

/* A reference decoder, keyed by the name of the codec (in decode/codecs.def)
 * whose payloads it decodes.  When that codec is in the packer's table the
 * reference decodes what codec_compress() made and is timed against our
 * decoder; until then it gets a row of its own, from its own compressor.
 * A codec may have several references (gzip: zlib and libdeflate); one
 * with none is timed alone. */
struct bench_ref {
	const char *codec;      /* the codec name it serves; JSON "codec" of its own row */
	const char *label;      /* its own row's name: table, cache key, -k */
	const char *level;      /* its own row's JSON "level"; NULL for memcpy */
	const char *format;     /* what its own compressor's bytes are */
	ref_compress_fn compress;       /* its own compressor; NULL: the input itself */
	unsigned variant;       /* of decode/references.def, for compress */
	const char *(*version)(void);   /* the library's; NULL for memcpy */
	bench_decode_fn decode;
	const char *name;       /* short, for the table, -k and JSON "ref" */
	const char *func;       /* the call that is timed */
};

static const struct bench_ref refs[] = {
	{ "none", "memcpy", NULL, "the input itself",
	  NULL, 0, NULL, ref_copy_decode, "memcpy", "memcpy" },
	{ "lz4", "lz4-hc12", "hc12", "lz4 block (no frame), LZ4_compress_HC level 12",
	  ref_lz4_compress, 1, version_liblz4, ref_lz4_decode, "liblz4", "LZ4_decompress_safe" },
	{ "lzo", "lzo1x-999", "999", "lzo1x stream, lzo1x_999_compress",
	  ref_lzo1x_compress, 1, version_liblzo2, ref_lzo1x_decode, "liblzo2", "lzo1x_decompress_safe" },
	{ "gzip", "gzip-zlib9", "9", "gzip member, zlib deflate level 9",
	  ref_zlib_compress, 4, version_zlib, ref_zlib_decode, "zlib", "inflate" },
	{ "gzip", "gzip-12", "12", "gzip member, libdeflate level 12",
	  ref_libdeflate_compress, 2, version_libdeflate, ref_libdeflate_decode, "libdeflate",
	  "libdeflate_gzip_decompress" },
	{ "bzip2", "bzip2-9", "9", "bzip2 stream, BZ2_bzBuffToBuffCompress level 9",
	  ref_bz2_compress, 2, version_libbz2, ref_bz2_decode, "libbz2", "BZ2_bzDecompress" },
	{ "lzma", "lzma-9e", "9e", ".lzma (LZMA alone), preset 9|EXTREME",
	  ref_lzma_alone_compress, 2, version_liblzma, ref_lzma_alone_decode, "liblzma", "lzma_alone_decoder" },
	{ "zstd", "zstd-19", "19", "zstd frame, ZSTD_compress level 19",
	  ref_zstd_compress, 2, version_libzstd, ref_zstd_decode, "libzstd", "ZSTD_decompress" },
	{ "xz", "xz-6e", "6e", ".xz stream (LZMA2, no BCJ, CRC32 check), preset 6|EXTREME",
	  ref_xz_compress, 2, version_liblzma, ref_xz_decode, "liblzma", "lzma_stream_decoder" },
};
#define N_REFS (sizeof refs / sizeof refs[0])

/* What decode/codecs.def says of each codec that the packer's table does
 * not: the decoder's C name. */
static const struct {
	const char *name, *decoder;
} codec_sources[] = {
#define CODEC(ident, name, id, workspace) { name, #ident "_decode" },
#include "codecs.def"
#undef CODEC
};
#define N_CODEC_SOURCES (sizeof codec_sources / sizeof codec_sources[0])

/* ---- the rows -------------------------------------------------------------
 * A row is one line of the table: our decoder (ours != NULL), a reference
 * (ref != NULL), or both, timed against each other.  The rows are the same
 * for every input; rows sharing a codec share its compressed input. */

struct row {
	const char *label;      /* table row name, -k */
	const char *codec;      /* JSON "codec" */
	const char *level;      /* JSON "level" */
	const char *format;     /* what the compressed bytes are */
	const struct codec *ours;       /* NULL: a reference-only row */
	int ours_level;                 /* what codec_compress gets */
	const char *ours_name;          /* "lz4_decode" */
	const struct bench_ref *ref;    /* NULL: no reference known */
};

/* Rows of our codec c: one per reference of its name, or one alone. */
static size_t add_codec_rows(struct row *rows, const struct codec *c)
{
	const struct codec_compressor *z = c->compressor;
	const char *decoder = NULL;
	struct row r;
	size_t n = 0;

	for (size_t i = 0; i < N_CODEC_SOURCES; i++)
		if (strcmp(codec_sources[i].name, c->name) == 0)
			decoder = codec_sources[i].decoder;
	if (!decoder)
		bench_die("codec %s is in the packer's table but not in decode/codecs.def", c->name);

	memset(&r, 0, sizeof r);
	r.ours = c;
	r.ours_level = z->default_level;
	r.ours_name = decoder;
	r.codec = c->name;
	r.level = xprintf("%d", z->default_level);
	/* A codec with one level (none) needs no level in its name. */
	r.label = z->min_level == z->max_level ? c->name : xprintf("%s-%d", c->name, z->default_level);
	r.format = xprintf("bzpack %s payload, codec_compress level %d", c->name, z->default_level);

	for (size_t i = 0; i < N_REFS; i++)
		if (strcmp(refs[i].codec, c->name) == 0) {
			rows[n] = r;
			rows[n++].ref = &refs[i];
		}
	if (n == 0)
		rows[n++] = r;
	return n;
}

/* All the rows, ours first (in codecs.def order), then the references of
 * codecs to come; *n_rows is set. */
static struct row *make_rows(size_t *n_rows)
{
	struct row *rows = bench_xmalloc((codec_count + N_REFS) * sizeof *rows);
	size_t n = 0;

	for (size_t k = 0; k < codec_count; k++)
		n += add_codec_rows(rows + n, &codecs[k]);
	for (size_t i = 0; i < N_REFS; i++) {
		const struct bench_ref *f = &refs[i];

		if (codec_by_name(f->codec))
			continue;
		memset(&rows[n], 0, sizeof rows[n]);
		rows[n].label = f->label;
		rows[n].codec = f->codec;
		rows[n].level = f->level;
		rows[n].format = f->format;
		rows[n].ref = f;
		n++;
	}
	*n_rows = n;
	return rows;
}

/* ---- files and the compressed inputs ------------------------------------ */

/* The whole file; any failure is fatal. */
static struct buffer load_file(const char *path)
{
	struct buffer b;
	struct error err;

	if (read_file(path, &b, &err) < 0)
		bench_die("%s: %s", path, err.msg);
	return b;
}

/* A reference's own compressor and decoder, for the payload cache. */
static int ref_make(const void *arg, const struct buffer *in, struct buffer *out, struct error *err)
{
	const struct bench_ref *f = arg;
	uint8_t *p = NULL;
	size_t n = 0;
	const char *why_not = f->compress(f->variant, in->data, in->size, &p, &n);

	if (why_not)
		return fail_with(err, "%s", why_not);
	out->data = p;
	out->size = n;
	return 0;
}

static int ref_reproduces(const void *arg, const struct buffer *payload, const struct buffer *in)
{
	const struct bench_ref *f = arg;
	uint8_t *check = bench_xmalloc(in->size);
	int same = !f->decode(payload->data, payload->size, check, in->size) &&
		   memcmp(check, in->data, in->size) == 0;

	free(check);
	return same;
}

/* The compressed input for row r, through the payload cache (payload_cache.h:
 * keyed by content, a hit decoded and compared before use); *from_cache
 * says whether it was a hit.  Ours compress with the packer's
 * codec_compress, a reference-only row with its library's compressor. */
static struct buffer get_compressed(const struct row *r, const char *input, const struct buffer *in,
				    const char *cache_dir, int *from_cache)
{
	struct buffer z = { NULL, 0 };
	struct error err;
	char name[128];
	struct payload_maker ref = { name, ref_make, ref_reproduces, r->ref };
	int status;

	snprintf(name, sizeof name, "ref-%s", r->label);
	status = r->ours ? codec_compress_cached(cache_dir, r->ours, r->ours_level, in, &z, from_cache, &err)
			 : payload_cache_get(cache_dir, &ref, in, &z, from_cache, &err);
	if (status < 0)
		bench_die("%s: %s: %s", input, r->label, err.msg);
	bench_progress("  %-10s %zu bytes -> %zu%s", r->label, in->size, z.size,
		       *from_cache ? " (from the cache)" : "");
	return z;
}

/* ---- checking and timing ------------------------------------------------ */

/* One side of a row: our decoder from the packer's table, with the
 * workspace decode/codecs.def declares for it (allocated once per cell,
 * outside the timing), or a reference. */
struct decoder {
	const char *name;
	decode_fn ours;         /* NULL: the reference below */
	void *workspace;
	bench_decode_fn ref;
};

static const char *run_decoder(const struct decoder *d, const struct buffer *z, uint8_t *dst,
			       size_t n)
{
	enum decode_status s;

	if (!d->ours)
		return d->ref(z->data, z->size, dst, n);
	s = d->ours(z->data, z->size, dst, n, d->workspace);
	return s == DECODE_OK ? NULL : decode_status_name(s);
}

/* Decodes z once into dst and compares with in.  dst is first filled with
 * the complement of in: every byte the decoder fails to write differs. */
static void verify(const char *input, const struct row *r, const struct decoder *d,
		   const struct buffer *z, const struct buffer *in, uint8_t *dst, int from_cache)
{
	const char *hint = from_cache ? " (the compressed input came from the cache: delete it?)" : "";
	const char *err;

	for (size_t i = 0; i < in->size; i++)
		dst[i] = (uint8_t)~in->data[i];
	err = run_decoder(d, z, dst, in->size);
	/* A reference that cannot read our codec's bytes is keyed to the
	 * wrong codec in refs[], or decodes another framing of it. */
	if (err && r->ours && !d->ours)
		hint = " (is refs[] right that this reference decodes our codec's payloads?)";
	if (err)
		bench_die("%s: %s: %s failed: %s%s", input, r->label, d->name, err, hint);
	if (memcmp(dst, in->data, in->size) != 0) {
		size_t i = 0;

		while (dst[i] == in->data[i])
			i++;
		bench_die("%s: %s: %s output differs from the input at byte %zu of %zu%s", input,
		    r->label, d->name, i, in->size, hint);
	}
}

struct timing {
	double *secs;           /* one per repetition */
	unsigned reps;
	double total;
	double best_mbps, median_mbps;
};

static void time_once(struct timing *tm, const char *input, const struct row *r,
		      const struct decoder *d, const struct buffer *z, uint8_t *dst, size_t n)
{
	double t0 = cpu_seconds();
	const char *err = run_decoder(d, z, dst, n);
	double dt = cpu_seconds() - t0;

	if (err)
		bench_die("%s: %s: %s failed while timing: %s", input, r->label, d->name, err);
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

/* Times ours and the reference (either may be missing), alternating
 * repetitions, until each has run for min_secs and min_reps. */
static void time_row(const char *input, const struct row *r, const struct decoder *ours_d,
		     const struct decoder *ref_d, const struct buffer *z, uint8_t *dst, size_t n,
		     double min_secs, unsigned min_reps, struct timing *ours, struct timing *ref)
{
	ours->secs = ours_d ? bench_xmalloc(MAX_REPS * sizeof(double)) : NULL;
	ref->secs = ref_d ? bench_xmalloc(MAX_REPS * sizeof(double)) : NULL;
	/* Both keep running until both are done: equal repetition counts. */
	while ((ref_d && !cell_done(ref, min_secs, min_reps)) ||
	       (ours_d && !cell_done(ours, min_secs, min_reps))) {
		if (ours_d && ours->reps < MAX_REPS)
			time_once(ours, input, r, ours_d, z, dst, n);
		if (ref_d && ref->reps < MAX_REPS)
			time_once(ref, input, r, ref_d, z, dst, n);
	}
	if (ours_d)
		summarise(ours, n);
	if (ref_d)
		summarise(ref, n);
}

/* ---- output ------------------------------------------------------------- */

struct result {
	const struct row *row;
	const char *input;
	size_t bytes, compressed;
	struct timing ours, ref;
};

/* Did row r compress, or decode the input itself (memcpy on its own)? */
static int row_compresses(const struct row *r)
{
	return r->ours || r->ref->compress;
}

static int input_width = 10;

static void print_header(void)
{
	printf("%-10s  %-*s  %10s  %9s %9s  %-10s  %9s %9s  %8s  %10s  %6s\n", "codec", input_width,
	       "input", "bytes", "ours best", "ours med", "ref", "ref best", "ref med", "ours/ref",
	       "compressed", "ratio");
	fflush(stdout);         /* before the progress lines of the first row */
}

static void print_row(const struct result *res)
{
	const struct row *r = res->row;

	printf("%-10s  %-*s  %10zu  ", r->label, input_width, res->input, res->bytes);
	if (r->ours)
		printf("%9.1f %9.1f  ", res->ours.best_mbps, res->ours.median_mbps);
	else
		printf("%9s %9s  ", "-", "-");
	if (r->ref)
		printf("%-10s  %9.1f %9.1f  ", r->ref->name, res->ref.best_mbps, res->ref.median_mbps);
	else
		printf("%-10s  %9s %9s  ", "(no ref)", "-", "-");
	if (r->ours && r->ref)
		printf("%8.3f  ", res->ours.best_mbps / res->ref.best_mbps);
	else
		printf("%8s  ", "-");
	if (row_compresses(r))
		printf("%10zu  %6.3f\n", res->compressed, (double)res->bytes / (double)res->compressed);
	else
		printf("%10s  %6s\n", "-", "-");
	fflush(stdout);
}


static void json_num(FILE *f, int present, double v)
{
	if (present)
		fprintf(f, "%.1f", v);
	else
		fputs("null", f);
}

static void json_row(FILE *f, const struct result *res)
{
	const struct row *r = res->row;
	const struct bench_ref *ref = r->ref;
	int ours = r->ours != NULL;

	fputs("  {\"codec\": ", f);
	bench_json_string(f, r->codec);
	bench_json_member(f, "level", r->level);
	bench_json_member(f, "label", r->label);
	bench_json_member(f, "input", res->input);
	fprintf(f, ", \"bytes\": %zu, \"compressed_bytes\": ", res->bytes);
	if (row_compresses(r))
		fprintf(f, "%zu, \"compression_ratio\": %.4f", res->compressed,
			(double)res->bytes / (double)res->compressed);
	else
		fputs("null, \"compression_ratio\": null", f);
	bench_json_member(f, "format", r->format);
	fputs(",\n   \"ours\": ", f);
	bench_json_string(f, r->ours_name);
	fputs(", \"ours_mbps\": ", f);
	json_num(f, ours, res->ours.best_mbps);
	fputs(", \"ours_median_mbps\": ", f);
	json_num(f, ours, res->ours.median_mbps);
	fprintf(f, ", \"ours_reps\": %u, \"ours_cflags\": ", res->ours.reps);
	bench_json_string(f, ours ? BENCH_OURS_CFLAGS : NULL);
	fputs(",\n   \"ref\": ", f);
	bench_json_string(f, ref ? ref->name : NULL);
	bench_json_member(f, "ref_func", ref ? ref->func : NULL);
	bench_json_member(f, "ref_version", ref && ref->version ? ref->version() : NULL);
	fputs(", \"ref_mbps\": ", f);
	json_num(f, ref != NULL, res->ref.best_mbps);
	fputs(", \"ref_median_mbps\": ", f);
	json_num(f, ref != NULL, res->ref.median_mbps);
	fprintf(f, ", \"ref_reps\": %u, \"ours_over_ref\": ", res->ref.reps);
	if (ours && ref)
		fprintf(f, "%.4f", res->ours.best_mbps / res->ref.best_mbps);
	else
		fputs("null", f);
	fputs("}", f);
}

static void write_json(const char *path, const struct result *rs, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = bench_output_open_or_die(&buf, &len);

	fputs("[\n", f);
	for (size_t i = 0; i < n; i++) {
		json_row(f, &rs[i]);
		fputs(i + 1 < n ? ",\n" : "\n", f);
	}
	fputs("]\n", f);
	bench_output_close_or_die(f, &buf, &len, path);
}

/* ---- main ----------------------------------------------------------------- */

/* Is s, n bytes long, the string w? */
static int word_is(const char *s, size_t n, const char *w)
{
	return w && strlen(w) == n && strncmp(s, w, n) == 0;
}

/* Does -k LIST select row r? */
static int selected(const char *list, const struct row *r)
{
	const char *p = list;

	if (!list)
		return 1;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (word_is(p, n, r->label) || word_is(p, n, r->codec) ||
		    (r->ref && word_is(p, n, r->ref->name)))
			return 1;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* One codec on one input: its compressed bytes and our decoder's
 * workspace, shared by the codec's rows (one per reference). */
struct cell {
	const struct row *first;        /* NULL: none yet */
	struct buffer z;
	int cached;
	void *workspace;
	struct decoder ours;
};

static int same_cell(const struct cell *cell, const struct row *r)
{
	return cell->first && cell->first->ours && cell->first->ours == r->ours;
}

static void cell_free(struct cell *cell, const struct buffer *in)
{
	if (cell->z.data != in->data)
		free(cell->z.data);
	free(cell->workspace);
	memset(cell, 0, sizeof *cell);
}

/* Fills the cell for row r: compresses (or loads), sets up our decoder
 * with its workspace, and checks our decoder once. */
static void cell_start(struct cell *cell, const struct row *r, const char *input,
		       const struct buffer *in, const char *cache_dir,
		       uint8_t *dst)
{
	cell->first = r;
	cell->z = *in;
	if (row_compresses(r))
		cell->z = get_compressed(r, input, in, cache_dir, &cell->cached);
	if (!r->ours)
		return;
	/* Aligned as codec_decode() aligns it (decoders may assume 16). */
	if (r->ours->workspace_size &&
	    posix_memalign(&cell->workspace, 64, r->ours->workspace_size) != 0)
		bench_die("out of memory (%zu bytes of %s workspace)", r->ours->workspace_size, r->codec);
	cell->ours.name = r->ours_name;
	cell->ours.ours = r->ours->decode;
	cell->ours.workspace = cell->workspace;
	verify(input, r, &cell->ours, &cell->z, in, dst, cell->cached);
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
	struct row *rows;
	size_t n_rows, n_selected = 0, n_results = 0;
	double t_start = cpu_seconds();
	int opt;

	bench_tool = "bench_native";
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
		bench_die("lzo_init failed");

	rows = make_rows(&n_rows);
	for (size_t k = 0; k < n_rows; k++)
		n_selected += selected(only, &rows[k]);
	if (n_selected == 0)
		bench_die("-k %s selects no row", only);
	for (int i = optind; i < argc; i++)
		if ((int)strlen(argv[i]) > input_width)
			input_width = (int)strlen(argv[i]);
	results = bench_xmalloc((size_t)(argc - optind) * n_selected * sizeof *results);
	bench_progress("ours built with %s; each cell >= %.2f s and >= %u reps", BENCH_OURS_CFLAGS,
		 min_secs, min_reps);
	for (size_t k = 0; k < n_rows; k++)
		if (rows[k].ours && !rows[k].ref && selected(only, &rows[k]))
			bench_progress("%s: no reference decoder known (refs[] in %s): ours timed alone",
				 rows[k].codec, __FILE__);
	print_header();

	for (int i = optind; i < argc; i++) {
		const char *input = argv[i];
		struct buffer in = load_file(input);
		struct cell cell;
		uint8_t *dst;

		if (in.size == 0)
			bench_die("%s: empty", input);
		bench_progress("%s: %zu bytes", input, in.size);
		dst = bench_xmalloc(in.size);
		memset(&cell, 0, sizeof cell);

		for (size_t k = 0; k < n_rows; k++) {
			const struct row *r = &rows[k];
			struct result *res = &results[n_results];
			struct decoder ref;

			if (!selected(only, r))
				continue;
			if (!same_cell(&cell, r)) {
				cell_free(&cell, &in);
				cell_start(&cell, r, input, &in, cache_dir, dst);
			}
			memset(res, 0, sizeof *res);
			res->row = r;
			res->input = input;
			res->bytes = in.size;
			res->compressed = cell.z.size;
			if (r->ref) {
				memset(&ref, 0, sizeof ref);
				ref.name = r->ref->name;
				ref.ref = r->ref->decode;
				verify(input, r, &ref, &cell.z, &in, dst, cell.cached);
			}
			bench_progress("  %-10s verified; timing", r->label);
			time_row(input, r, r->ours ? &cell.ours : NULL, r->ref ? &ref : NULL, &cell.z,
				 dst, in.size, min_secs, min_reps, &res->ours, &res->ref);
			free(res->ours.secs);
			free(res->ref.secs);
			res->ours.secs = res->ref.secs = NULL;
			print_row(res);
			n_results++;
		}
		cell_free(&cell, &in);
		free(dst);
		free(in.data);
	}

	if (json) {
		write_json(json, results, n_results);
		bench_progress("wrote %s", json);
	}
	bench_progress("done in %.1f s", cpu_seconds() - t_start);
	free(results);
	return 0;
}
