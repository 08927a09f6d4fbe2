/* frames_pack.c - see frames_pack.h. */
#include "frames_pack.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lz4.h>

#include "crc32c.h"
#include "xxh3.h"

#define FRAME_ALIGN 4096        /* frames start on pages of the kernel */
#define PROBE_MAX (64u << 10)   /* the finest the cost is looked at, at most */
#define PROBES_PER_FRAME 16     /* and at least this many looks per frame */

unsigned frames_auto(size_t kernel_size)
{
	size_t n = kernel_size / FRAMES_AUTO_BYTES;
	return n < 1 ? 1 : n > BZPACK_MAX_CPUS ? BZPACK_MAX_CPUS : (unsigned)n;
}

/* The work the threads share: frame i is in[at[i], at[i + 1]). */
struct work {
	const struct codec *c;
	int level;
	const struct buffer *in;
	const size_t *at;
	unsigned count;
	unsigned next;                  /* the next frame to compress (atomic) */
	struct buffer *out;             /* per frame */
	struct error *err;              /* per frame */
	int *failed;                    /* per frame */
};

static void *compress_frames(void *arg)
{
	struct work *w = arg;

	for (unsigned i; (i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->count;) {
		struct buffer piece = { (uint8_t *)w->in->data + w->at[i], w->at[i + 1] - w->at[i] };
		w->failed[i] = codec_compress(w->c, w->level, &piece, &w->out[i], &w->err[i]) < 0;
	}
	return NULL;
}

static unsigned host_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

/* The table and the frames, one after the other, into out. */
static int lay_out(const struct work *w, struct buffer *out, struct error *err)
{
	static struct crc32c_table crc;
	size_t table = sizeof(struct bzpack_frames) + w->count * sizeof(struct bzpack_frame), size = table;

	for (unsigned i = 0; i < w->count; i++)
		size += w->out[i].size;
	if (size > UINT32_MAX)
		return fail_with(err, "framed payload larger than 4 GiB");
	out->size = size;
	out->data = calloc(1, size);
	if (!out->data)
		return fail_with(err, "out of memory");
	crc32c_init(&crc, 0);
	struct bzpack_frames head = { BZPACK_FRAMES_MAGIC, w->count };
	memcpy(out->data, &head, sizeof(head));
	size_t at = table;
	for (unsigned i = 0; i < w->count; i++) {
		const struct buffer *b = &w->out[i];
		struct bzpack_frame f = {
			.in_offset = (uint32_t)at, .in_size = (uint32_t)b->size, .out_offset = (uint32_t)w->at[i],
			.out_size = (uint32_t)(w->at[i + 1] - w->at[i]),
			.crc = crc32c_update(&crc, 0, b->data, b->size), .xxh3 = xxh3_64(b->data, b->size),
		};
		memcpy(out->data + sizeof(head) + i * sizeof(f), &f, sizeof(f));
		memcpy(out->data + at, b->data, b->size);
		at += b->size;
	}
	return 0;
}

/* What our decoder spends on in[from, from + len), by the codec's
 * FRAME_COST weights; at least 1, so that every stretch weighs. */
static int64_t stretch_cost(const struct frame_cost *fc, const uint8_t *p, size_t len, void *lz4_state,
			    char *lz4_out, int lz4_cap)
{
	size_t zeros = 0;
	for (size_t i = 0; i < len; i++)
		zeros += !p[i];
	int lz4 = LZ4_compress_fast_extState(lz4_state, (const char *)p, lz4_out, (int)len, lz4_cap, 1);
	int64_t cost = (int64_t)fc->lz4_byte * (lz4 > 0 ? lz4 : (int)len) + (int64_t)fc->byte * (int64_t)len +
		       (int64_t)fc->zero_byte * (int64_t)zeros;
	return cost > 0 ? cost : 1;
}

/* Cuts the probes (cum[k]: the first k probes' cost) into runs of at
 * most limit each: how many runs that takes, more than n if limit is too
 * small.  With first, the real cut: first[i] is run i's first probe,
 * each run leaves a probe for every run still to come and run n - 1
 * takes the rest, so there are at most n runs. */
static unsigned cut(const int64_t *cum, unsigned probes, unsigned n, int64_t limit, unsigned *first)
{
	unsigned runs = 0;
	for (unsigned k = 0; k < probes; runs++) {
		unsigned end = first && runs == n - 1 ? probes : k + 1;
		if (first)
			first[runs] = k;
		while (end < probes && cum[end + 1] - cum[k] <= limit && (!first || probes - end > n - runs - 1))
			end++;
		k = end;
	}
	return runs;
}

/* Frame boundaries at[0..n] over in (at[0] = 0, at[n] = in->size), on
 * page boundaries, such that the costliest frame costs the least: the
 * kernel is looked at in probes of whole pages, each weighed by
 * stretch_cost(), and the probes split into n runs by bisection on the
 * costliest run's cost (the linear partition problem; a run's cost is
 * a sum, so the greedy cut is optimal for a given limit).  A kernel's
 * text costs a decoder several times what its zero-filled data does, so
 * frames of equal bytes leave one CPU with most of the work.  Returns
 * the frames made, fewer than n when the kernel has fewer probes. */
static unsigned balance(const struct codec *c, const struct buffer *in, unsigned n, size_t *at,
			struct error *err)
{
	size_t probe = align_up(in->size / ((size_t)n * PROBES_PER_FRAME) + 1, FRAME_ALIGN);
	if (probe > PROBE_MAX)
		probe = PROBE_MAX;
	unsigned probes = (unsigned)((in->size + probe - 1) / probe);
	if (probes < n)
		n = probes;
	int64_t *cum = calloc(probes + 1, sizeof(*cum));
	void *state = malloc((size_t)LZ4_sizeofState());
	int cap = LZ4_compressBound((int)probe);
	char *scratch = malloc((size_t)cap);
	if (!cum || !state || !scratch) {
		free(cum), free(state), free(scratch);
		return fail_with(err, "out of memory"), 0;
	}
	for (unsigned k = 0; k < probes; k++) {
		size_t from = k * probe, len = in->size - from < probe ? in->size - from : probe;
		cum[k + 1] = cum[k] + stretch_cost(&c->compressor->cost, in->data + from, len, state, scratch, cap);
	}
	int64_t lo = 1, hi = cum[probes];
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (cut(cum, probes, n, mid, NULL) <= n)
			hi = mid;
		else
			lo = mid + 1;
	}
	unsigned first[BZPACK_FRAMES_MAX];
	n = cut(cum, probes, n, lo, first);
	for (unsigned i = 0; i < n; i++)
		at[i] = first[i] * probe;
	at[n] = in->size;
	free(cum), free(state), free(scratch);
	return n;
}

int frames_compress(const struct codec *c, int level, const struct buffer *in, unsigned n, struct buffer *out,
		    unsigned *count, struct error *err)
{
	size_t at[BZPACK_FRAMES_MAX + 1];
	unsigned frames = n > 1 && in->size > FRAME_ALIGN ? balance(c, in, n, at, err) : 1;

	if (!frames)
		return -1;
	*count = frames;
	if (frames < 2)
		return codec_compress(c, level, in, out, err);
	struct work w = { c, level, in, at, frames, 0, calloc(frames, sizeof(struct buffer)),
			  calloc(frames, sizeof(struct error)), calloc(frames, sizeof(int)) };
	pthread_t threads[BZPACK_FRAMES_MAX];
	unsigned started = 0, want = host_cores() < frames ? host_cores() : frames;
	int r = -1;

	if (!w.out || !w.err || !w.failed) {
		fail_with(err, "out of memory");
		goto out;
	}
	/* This thread compresses too; the others join it. */
	while (started + 1 < want && pthread_create(&threads[started], NULL, compress_frames, &w) == 0)
		started++;
	compress_frames(&w);
	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (unsigned i = 0; i < frames; i++)
		if (w.failed[i]) {
			*err = w.err[i];
			goto out;
		}
	r = lay_out(&w, out, err);
out:
	for (unsigned i = 0; w.out && i < frames; i++)
		free(w.out[i].data);
	free(w.out);
	free(w.err);
	free(w.failed);
	return r;
}

void frames_print(FILE *out, const uint8_t *payload, size_t size)
{
	if (size > UINT32_MAX || !bzpack_frames_size(payload, (uint32_t)size))
		return;
	const struct bzpack_frames *t = (const void *)payload;
	for (uint32_t i = 0; i < t->count; i++) {
		struct bzpack_frame f;
		memcpy(&f, &t->frame[i], sizeof(f));
		fprintf(out, "frame %-3u  in +0x%08x %9u bytes, out +0x%08x %9u bytes (%.2f%%), crc32c 0x%08x\n", i,
			f.in_offset, f.in_size, f.out_offset, f.out_size,
			f.out_size ? 100.0 * f.in_size / f.out_size : 0.0, f.crc);
	}
}
