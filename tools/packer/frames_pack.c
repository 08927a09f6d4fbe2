/* frames_pack.c - see frames_pack.h. */
#include "frames_pack.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32c.h"
#include "xxh3.h"

#define FRAME_ALIGN 4096        /* frames start on pages of the kernel */

unsigned frames_auto(size_t kernel_size)
{
	size_t n = kernel_size / FRAMES_AUTO_BYTES;
	return n < 1 ? 1 : n > BZPACK_MAX_CPUS ? BZPACK_MAX_CPUS : (unsigned)n;
}

/* The work the threads share: frame i is in[i * piece, ...). */
struct work {
	const struct codec *c;
	int level;
	const struct buffer *in;
	size_t piece;
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
		size_t at = i * w->piece, len = w->in->size - at < w->piece ? w->in->size - at : w->piece;
		struct buffer piece = { (uint8_t *)w->in->data + at, len };
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
		size_t out_at = i * w->piece;
		struct bzpack_frame f = {
			.in_offset = (uint32_t)at, .in_size = (uint32_t)b->size, .out_offset = (uint32_t)out_at,
			.out_size = (uint32_t)(w->in->size - out_at < w->piece ? w->in->size - out_at : w->piece),
			.crc = crc32c_update(&crc, 0, b->data, b->size), .xxh3 = xxh3_64(b->data, b->size),
		};
		memcpy(out->data + sizeof(head) + i * sizeof(f), &f, sizeof(f));
		memcpy(out->data + at, b->data, b->size);
		at += b->size;
	}
	return 0;
}

int frames_compress(const struct codec *c, int level, const struct buffer *in, unsigned n, struct buffer *out,
		    unsigned *count, struct error *err)
{
	size_t piece = n > 1 ? align_up((in->size + n - 1) / n, FRAME_ALIGN) : in->size;
	unsigned frames = piece && in->size > piece ? (unsigned)((in->size + piece - 1) / piece) : 1;

	*count = frames;
	if (frames < 2)
		return codec_compress(c, level, in, out, err);
	struct work w = { c, level, in, piece, frames, 0, calloc(frames, sizeof(struct buffer)),
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
