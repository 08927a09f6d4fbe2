/* decode_speed.h - how fast our own decoder (the one the stub runs) turns
 * a payload back into its kernel on this host.  `bzpack bench` reports it
 * and `--codec auto` divides by it, so both use this one measurement. */
#ifndef DECODE_SPEED_H
#define DECODE_SPEED_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "codecs.h"
#include "util.h"

/* Seconds of CPU time this thread has used: what every timing in
 * bzpack and tools/bench measures with.  CPU time, not the wall: on a
 * shared machine the wall clock also counts the time others had the
 * core. */
static inline double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct decode_speed {
	double best_mbps;       /* MB/s (1e6 bytes) of output, the fastest run */
	double median_mbps;     /* the median run: how noisy the host was */
	unsigned runs;          /* how many decodes were timed */
};

/* Decode payload (out_size bytes of output) with c's decoder, then
 * un-filter its first unfilter_size bytes (x86_filter.h; 0: none, the
 * payload of a kernel without BZPACK_FLAG_X86), as the stub does, at least
 * min_runs times and for at least min_seconds, checking every run's status.
 * Returns 0, or -1 with err set when the payload does not decode or memory
 * runs out. */
int decode_speed_measure(const struct codec *c, const struct buffer *payload, size_t out_size,
			 size_t unfilter_size, unsigned min_runs, double min_seconds, struct decode_speed *out,
			 struct error *err);

/* What `bzpack bench` and `--codec auto` assume storage reads at unless
 * --storage-mbps says otherwise: a typical SATA SSD's sequential read
 * (SATA III tops out near 550 MB/s; most drives sit around 500). */
#define STORAGE_MBPS_DEFAULT 500.0

/* Estimated time to kernel, in milliseconds: reading the image from
 * storage at storage_mbps, then decode_seconds of decompressing.  The one
 * time-to-kernel formula; its callers differ only in where the decode
 * time comes from: a measured speed (time_to_kernel_ms below) or the
 * stub's icount cycles (bench.h's bench_ttk_icount_ms). */
static inline double time_to_kernel_ms_after(uint64_t image_bytes, double storage_mbps,
					     double decode_seconds)
{
	return 1e3 * ((double)image_bytes / (storage_mbps * 1e6) + decode_seconds);
}

/* The same with out_bytes decoded at decode_mbps (our decoder measured on
 * this host) scaled by cpu_scale (how many times slower the target CPU is
 * than this host; 1.0 for the same). */
static inline double time_to_kernel_ms(uint64_t image_bytes, uint64_t out_bytes, double storage_mbps,
				       double decode_mbps, double cpu_scale)
{
	return time_to_kernel_ms_after(image_bytes, storage_mbps,
				       (double)out_bytes * cpu_scale / (decode_mbps * 1e6));
}

#endif
