/* frames.c - decoding a framed payload (BZPACK_FLAG_FRAMES).
 *
 * The frames are independent streams with disjoint input and output
 * ranges (bzpack_frames_check()), so any number of CPUs may decode them
 * at once: frames_work() takes the next frame from a shared counter,
 * verifies that frame's own checksum, decodes it into its range with its
 * CPU's decoder workspace and records the outcome in the frame's status
 * slot.  Nothing in it depends on which CPU runs it but the workspace
 * (cpu selects one), and it writes no memory shared with another CPU but
 * the counter and the status slots of the frames it took.
 *
 * frames_run() is the boot CPU's part: it takes frames like any other CPU,
 * then waits until every frame has an outcome and reports the first
 * failure.  The decode therefore succeeds only if every frame's checksum
 * held and every frame decoded to exactly its range. */
#include "stub.h"

#define PAUSE() __asm__ volatile("pause")

/* Which frame next; counts past the last when the queue is empty. */
static unsigned next_frame(struct frames_job *job)
{
	return __atomic_fetch_add(&job->next, 1, __ATOMIC_RELAXED);
}

void frames_work(struct frames_job *job, unsigned cpu)
{
	/* A CPU without a workspace of its own takes no frame. */
	if (job->workspace_stride && cpu >= job->workspaces)
		return;
	void *workspace = job->workspace + (uintptr_t)cpu * job->workspace_stride;

	for (unsigned i; (i = next_frame(job)) < job->count;) {
		const struct bzpack_frame *f = &job->frame[i];
		const uint8_t *in = job->payload + f->in_offset;
		uint64_t t0 = read_tsc();
		uint8_t status = FRAME_BAD_CHECKSUM;

		const char *check;
		if (!stub_checksum_bad(job->crc, in, f->in_size, f->crc, f->xxh3, &check)) {
			uint64_t t1 = read_tsc();
			job->verify_cycles[i] = t1 - t0;
			enum decode_status s = stub_decode(in, f->in_size, job->out + f->out_offset, f->out_size,
							   workspace);
			job->decode_cycles[i] = read_tsc() - t1;
			status = s == DECODE_OK ? FRAME_OK : (uint8_t)(FRAME_DECODE_FAILED + s);
		}
		job->cpu[i] = (uint8_t)cpu;
		/* Release: the frame's output and cycles are written before
		 * the boot CPU may see its outcome. */
		__atomic_store_n(&job->status[i], status, __ATOMIC_RELEASE);
	}
}

const char *frames_run(struct frames_job *job, const char **detail)
{
	/* The other CPUs, when there are any, join here: each runs
	 * frames_work(job, its number) while the boot CPU takes its share,
	 * only when job->parallel (never in place). */
	frames_work(job, 0);
	/* Frames another CPU took may still be decoding. */
	for (unsigned i = 0; i < job->count; i++)
		while (__atomic_load_n(&job->status[i], __ATOMIC_ACQUIRE) == FRAME_PENDING)
			PAUSE();

	uint32_t seen = 0;              /* CPU n took a frame: bit n % 32 */
	for (unsigned i = 0; i < job->count; i++) {
		uint8_t s = job->status[i];
		if (s == FRAME_BAD_CHECKSUM)
			return job->crc->hw ? "frame checksum mismatch (CRC32C)" : "frame checksum mismatch (XXH3)";
		if (s != FRAME_OK) {
			*detail = decode_status_name((enum decode_status)(s - FRAME_DECODE_FAILED));
			return "decompression of a frame failed: ";
		}
		seen |= 1u << (job->cpu[i] % 32);
	}
	/* Counted bit by bit: a popcount builtin would call libgcc. */
	for (job->cpus = 0; seen; seen &= seen - 1)
		job->cpus++;
	return 0;
}
