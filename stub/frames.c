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
 * frames_run() is the boot CPU's part: it wakes the other CPUs (smp.c on
 * the BIOS path, efi_smp.c's firmware MP services on the UEFI path) to
 * run frames_work() while it takes frames like any other CPU, then waits
 * until every frame has an outcome and reports the first failure.  The
 * decode therefore succeeds only if every frame's checksum held and every
 * frame decoded to exactly its range. */
#include "smp.h"
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
		/* Release: the frame's output and cycles are written before
		 * the boot CPU may see its outcome. */
		__atomic_store_n(&job->status[i], status, __ATOMIC_RELEASE);
	}
}

/* What smp_run() runs on each CPU. */
static void frames_cpu(void *job, unsigned cpu)
{
	frames_work(job, cpu);
}

const char *frames_run(struct frames_job *job, struct boot_params *bp, struct efi_boot_services *bs,
		       const char **detail)
{
	/* No more CPUs than frames, nor than decoder workspaces: each CPU's
	 * number is below both. */
	unsigned max = job->count < job->workspaces ? job->count : job->workspaces;

	job->cpus_why = 0;
	if (!job->parallel) {
		frames_work(job, 0);
		job->cpus = 1;
		job->cpus_why = "in-place";
	} else if (sizeof(void *) == 8 && bs) {         /* 64-bit stubs only have a UEFI path */
		job->cpus = smp_run_efi(bs, bp, max, frames_cpu, job, &job->cpus_why);
	} else {
		job->cpus = smp_run(bp, max, frames_cpu, job, &job->cpus_why);
	}
	if (job->cpus == 1 && !job->cpus_why)
		job->cpus_why = "one-frame";
	/* smp_run() returns once every other CPU is done, smp_run_efi() once
	 * the firmware says so (or gave up waiting): a frame another CPU
	 * took may then still be decoding. */
	for (unsigned i = 0; i < job->count; i++)
		while (__atomic_load_n(&job->status[i], __ATOMIC_ACQUIRE) == FRAME_PENDING)
			PAUSE();

	for (unsigned i = 0; i < job->count; i++) {
		uint8_t s = job->status[i];
		if (s == FRAME_BAD_CHECKSUM)
			return job->crc->hw ? "frame checksum mismatch (CRC32C)" : "frame checksum mismatch (XXH3)";
		if (s != FRAME_OK) {
			*detail = decode_status_name((enum decode_status)(s - FRAME_DECODE_FAILED));
			return "decompression of a frame failed: ";
		}
	}
	return 0;
}
