/* bench_boot.h - the three ways `bzpack bench` times a boot under QEMU:
 *   icount       the stub's report line under -icount (exact cycles)
 *   gdbstub      wall time between two hardware breakpoints (plain TCG)
 *   serial-lines wall time between two lines Linux's decompressor prints
 * Each boots once; the caller repeats and takes medians. */
#ifndef BENCH_BOOT_H
#define BENCH_BOOT_H

#include <stdint.h>

#include "bench_qemu.h"
#include "util.h"

/* Where the run's scratch files go (QEMU's stderr, the gdb socket) and
 * how long a boot may take. */
struct boot_env {
	const char *dir;
	double timeout;
};

/* The stub's report line, read by key. */
struct report {
	char line[QEMU_LINE_MAX];
	char codec[32];
	uint64_t in, out, cycles, bits;
};

/* Boot an image of ours under icount until its report line.  -1 with err
 * set if it printed "bzpack: error:", no report line, or one without
 * the fields or for another codec/word size. */
int boot_icount(const struct boot_env *env, const char *image, int bits, const char *codec,
		struct report *r, struct error *err);

/* Wall milliseconds from the first execution of entry to the first of
 * kernel (hardware breakpoints through the gdbstub, plain TCG). */
int boot_gdbstub_ms(const struct boot_env *env, const char *image, int bits, const char *append,
		    uint64_t entry, uint64_t kernel, double *ms, struct error *err);

/* Wall milliseconds between the serial lines containing first and then.
 * Returns 0 with *ms, 1 when the boot reached `absent_after` (a line that
 * comes later) or ended without them, -1 with err on a failure. */
int boot_serial_ms(const struct boot_env *env, const char *image, int bits, const char *append,
		   const char *first, const char *then, const char *absent_after, double *ms,
		   struct error *err);

#endif
