/* codec_auto.c - see codec_auto.h.
 *
 * The estimate is the time-to-kernel model, decode_speed.h's time_to_kernel_ms():
 * image bytes / storage bandwidth + kernel bytes / our decoder's speed on
 * this host x CPU scale.  Image bytes are the whole file the loader reads
 * (setup, stub, header, payload), from the image as it would be written.
 *
 * none is not a candidate.  The model credits it with this host's memcpy
 * and charges nothing for what grows with the image: the stub's CRC32C of
 * the payload and the loader's own copy of four times the bytes.  It would
 * pick none only at storage so fast that a few milliseconds of decoding
 * outweigh reading four times the bytes, which is where those left-out
 * costs matter most.  A stored image is one -c none away. */
#include "codec_auto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_speed.h"
#include "frames_pack.h"
#include "image.h"
#include "payload_cache.h"
#include "x86_filter.h"

/* Each decoder is timed for at least this many runs and this long: enough
 * for a steady best run, short beside the compression itself. */
#define AUTO_MIN_RUNS 3
#define AUTO_MIN_SECONDS 0.3

struct candidate {
	const struct codec *codec;
	uint32_t flags;                 /* BZPACK_FLAG_X86: the x86-filtered kernel */
	uint64_t image_bytes;
	double decode_mbps;             /* best run: the least disturbed by other jobs; framed, the
					   kernel's bytes over the busiest CPU's time */
	unsigned frames;                /* in the payload; 1: one stream */
	double read_ms, decode_ms, total_ms;
};

static int codec_auto_candidate(const struct codec *c)
{
	return c->id != BZPACK_CODEC_none;
}

/* Least estimated time first; equal estimates in the codec table's order. */
static int by_estimate(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->total_ms != y->total_ms)
		return x->total_ms < y->total_ms ? -1 : 1;
	if (x->codec != y->codec)
		return (x->codec > y->codec) - (x->codec < y->codec);
	return (x->flags > y->flags) - (x->flags < y->flags);
}

/* The best decode speed of a framed payload on cpus CPUs, in MB/s of the
 * kernel's bytes: each frame timed alone, the frames handed out in table
 * order to whichever CPU is free first (as stub/frames.c's queue does),
 * and then the un-filter of the first unfilter_size bytes of the filtered
 * kernel, which the stub runs on the boot CPU after every frame is done. */
static int framed_mbps(const struct codec *c, const struct buffer *payload, size_t out_size,
		       const uint8_t *filtered, size_t unfilter_size, unsigned cpus, double *mbps, struct error *err)
{
	const struct bzpack_frames *t = (const void *)payload->data;
	double busy[BZPACK_MAX_CPUS] = { 0 }, span = 0;

	for (uint32_t i = 0; i < t->count; i++) {
		struct bzpack_frame f;
		struct decode_speed speed;
		memcpy(&f, &t->frame[i], sizeof(f));
		struct buffer one = { payload->data + f.in_offset, f.in_size };
		if (decode_speed_measure(c, &one, f.out_size, 0, AUTO_MIN_RUNS, AUTO_MIN_SECONDS / t->count, &speed,
					 err) < 0)
			return -1;
		unsigned cpu = 0;
		for (unsigned p = 1; p < cpus; p++)
			if (busy[p] < busy[cpu])
				cpu = p;
		busy[cpu] += (double)f.out_size / (speed.best_mbps * 1e6);
	}
	for (unsigned p = 0; p < cpus; p++)
		if (busy[p] > span)
			span = busy[p];
	if (unfilter_size) {
		uint8_t *copy = malloc(unfilter_size);
		double best = 0;
		if (!copy)
			return fail_with(err, "out of memory");
		for (unsigned run = 0; run < AUTO_MIN_RUNS; run++) {
			memcpy(copy, filtered, unfilter_size);
			double t0 = cpu_seconds();
			x86_unfilter(copy, unfilter_size);
			double took = cpu_seconds() - t0;
			if (!run || took < best)
				best = took;
		}
		free(copy);
		span += best;
	}
	*mbps = span > 0 ? (double)out_size / (span * 1e6) : 1e12;
	return 0;
}

/* Compress, lay out and time one codec on k (the kernel as is, or
 * x86-filtered: then the timing includes the un-filter, as the stub runs
 * it), in s->cpus frames when that is above 1.  The payload stays in
 * *payload. */
static int measure(const struct kernel *k, const struct codec *c, const struct auto_settings *s,
		   struct candidate *row, struct buffer *payload, struct error *err)
{
	struct buffer image = { 0, 0 };
	struct image_layout layout;
	struct decode_speed speed = { 0, 0, 0 };
	size_t unfilter = k->flags & BZPACK_FLAG_X86 ? kernel_size(k) : 0;
	unsigned frames = 1;
	int framed = s->cpus > 1;

	if (framed ? frames_compress(c, LEVEL_DEFAULT, &k->blob, s->cpus, payload, &frames, err) < 0
		   : codec_compress_cached(s->cache_dir, c, LEVEL_DEFAULT, &k->blob, payload, NULL, err) < 0)
		return -1;
	struct image_extras extras = { .frames = frames };
	if (image_build(k, c, LEVEL_DEFAULT, payload, frames > 1 ? &extras : NULL, NULL, 0, &image, &layout, err) < 0 ||
	    (frames > 1 ? framed_mbps(c, payload, k->blob.size, k->blob.data, unfilter, s->cpus, &speed.best_mbps, err)
			: decode_speed_measure(c, payload, k->blob.size, unfilter, AUTO_MIN_RUNS, AUTO_MIN_SECONDS,
					       &speed, err)) < 0) {
		free(image.data);
		return -1;
	}
	free(image.data);
	row->codec = c;
	row->flags = k->flags;
	row->frames = frames;
	row->image_bytes = image.size;
	row->decode_mbps = speed.best_mbps;
	row->read_ms = time_to_kernel_ms(image.size, 0, s->storage_mbps, 1.0, 0.0);
	row->total_ms = time_to_kernel_ms(image.size, k->blob.size, s->storage_mbps,
					  speed.best_mbps, s->cpu_scale);
	row->decode_ms = row->total_ms - row->read_ms;
	return 0;
}

/* Why the winner won, in the words the figures allow. */
static const char *reason(const struct candidate *rows, size_t n)
{
	int smallest = 1, fastest = 1;

	for (size_t i = 1; i < n; i++) {
		smallest &= rows[0].image_bytes <= rows[i].image_bytes;
		fastest &= rows[0].decode_mbps >= rows[i].decode_mbps;
	}
	if (smallest && fastest)
		return "the smallest image and the fastest decoder";
	if (smallest)
		return "the smallest image";
	if (fastest)
		return "the fastest decoder";
	return "the best trade of size for decoding speed";
}

static void report(FILE *out, const char *input, const struct auto_settings *s,
		   struct candidate *rows, size_t n)
{
	fprintf(out, "  %-12s %12s %12s %10s %10s %10s\n", "codec", "image bytes", "decode MB/s",
		"read ms", "decode ms", "total ms");
	for (size_t i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof name, "%s%s", rows[i].codec->name, x86_filter_suffix(rows[i].flags));
		fprintf(out, "  %-12s %12llu %12.0f %10.2f %10.2f %10.2f\n", name,
			(unsigned long long)rows[i].image_bytes, rows[i].decode_mbps, rows[i].read_ms,
			rows[i].decode_ms, rows[i].total_ms);
	}
	fprintf(out,
		"bzpack: %s: --codec auto chose %s%s, %s: %.2f ms to kernel (%.2f ms reading %llu bytes at "
		"%.10g MB/s + %.2f ms decoding at %.0f MB/s x CPU scale %.10g",
		input, rows[0].codec->name, x86_filter_suffix(rows[0].flags), reason(rows, n), rows[0].total_ms, rows[0].read_ms,
		(unsigned long long)rows[0].image_bytes, s->storage_mbps, rows[0].decode_ms,
		rows[0].decode_mbps, s->cpu_scale);
	if (rows[0].frames > 1)
		fprintf(out, ", %u frames on %u CPUs", rows[0].frames, s->cpus);
	fputc(')', out);
	if (n > 1)
		fprintf(out, "; next best %s%s, %.2f ms", rows[1].codec->name, x86_filter_suffix(rows[1].flags),
			rows[1].total_ms);
	fputc('\n', out);
}

int codec_auto(const char *input, struct kernel *k, const struct auto_settings *s,
	       const struct codec **chosen, struct buffer *payload, unsigned *frames, struct error *err)
{
	/* Each codec twice: on the kernel as is, and on its x86-filtered copy
	 * (but a codec whose stream has the filter inside, codec_filters_x86). */
	struct candidate *rows = calloc(2 * codec_count, sizeof(*rows));
	struct buffer best = { 0, 0 };
	struct kernel filtered = *k;
	size_t n = 0, total = 0, lead = 0;

	filtered.blob.data = rows ? malloc(k->blob.size ? k->blob.size : 1) : NULL;
	if (!rows || !filtered.blob.data) {
		free(rows);
		free(filtered.blob.data);
		return fail_with(err, "out of memory");
	}
	memcpy(filtered.blob.data, k->blob.data, k->blob.size);
	kernel_x86_filter(&filtered);
	const struct kernel *variants[] = { k, &filtered };
	for (size_t i = 0; i < codec_count; i++)
		total += codec_auto_candidate(&codecs[i]) ? 2 - (size_t)codec_filters_x86(&codecs[i]) : 0;
	note("bzpack: %s: --codec auto: %zu candidates, storage %.10g MB/s, CPU scale %.10g, %u CPU%s\n",
		input, total, s->storage_mbps, s->cpu_scale, s->cpus, s->cpus == 1 ? "" : "s");
	for (size_t i = 0; i < 2 * codec_count; i++) {
		const struct codec *c = &codecs[i / 2];
		const struct kernel *v = variants[i % 2];
		struct buffer p = { 0, 0 };
		struct error why;

		if (!codec_auto_candidate(c) || (v->flags && codec_filters_x86(c)))
			continue;
		if (s->progress)
			fprintf(stderr, "bzpack: %s: --codec auto: %s%s (%zu of %zu)...\n", input, c->name,
				x86_filter_suffix(v->flags), n + 1, total);
		if (measure(v, c, s, &rows[n], &p, &why) < 0) {
			free(p.data);
			free(best.data);
			free(rows);
			free(filtered.blob.data);
			return fail_with(err, "--codec auto: %s%s: %s", c->name, x86_filter_suffix(v->flags),
					 why.msg);
		}
		/* Keep only the best payload so far: sixteen of a 60 MB kernel's add up.
		 * by_estimate also orders the report, whose first row is this one. */
		if (!best.data || by_estimate(&rows[n], &rows[lead]) < 0) {
			lead = n;
			free(best.data);
			best = p;
		} else {
			free(p.data);
		}
		n++;
	}
	if (!n) {
		free(rows);
		free(filtered.blob.data);
		return fail_with(err, "--codec auto: no candidate codec is built in");
	}
	qsort(rows, n, sizeof(rows[0]), by_estimate);
	if (!quiet)
		report(stderr, input, s, rows, n);
	*chosen = rows[0].codec;
	*frames = rows[0].frames;
	*payload = best;
	/* The payload is of the filtered kernel: from here on, k is that one. */
	if (rows[0].flags & BZPACK_FLAG_X86) {
		free(k->blob.data);
		k->blob = filtered.blob;
		k->flags = filtered.flags;
	} else {
		free(filtered.blob.data);
	}
	free(rows);
	return 0;
}
