/* bench_qemu.h - run one QEMU for `bzpack bench`: boot an image with
 * -kernel (under QEMU's SeaBIOS, or under UEFI firmware given as pflash),
 * its COM1 on a pipe we read line by line with arrival times, optionally
 * stopped at reset behind a gdbstub socket; then kill it. */
#ifndef BENCH_QEMU_H
#define BENCH_QEMU_H

#include <stddef.h>
#include <sys/types.h>

#include "util.h"

#define QEMU_LINE_MAX 512

struct qemu_options {
	int bits;                  /* 32: qemu-system-i386, 64: qemu-system-x86_64 */
	int icount;                /* -icount shift=N,sleep=off: rdtsc counts instructions << N */
	int icount_shift;          /* N: 0 under SeaBIOS; see bench_boot.h for UEFI */
	const char *rr_file;       /* with icount: record (rr=record) to this file, so that
				    * the monitor's `info replay` counts instructions */
	const char *pflash_code;   /* UEFI firmware code (read-only pflash), or NULL: SeaBIOS */
	const char *pflash_vars;   /* its variable store, a fresh copy for this boot */
	const char *append;        /* kernel command line, or NULL */
	const char *gdb_socket;    /* a unix socket path: -gdb there and -S, or NULL */
	const char *stderr_path;   /* where QEMU's own messages go */
};

struct qemu_run {
	pid_t pid;
	int serial_fd;             /* read end of the pipe QEMU's COM1 writes to */
	char pending[QEMU_LINE_MAX]; /* a line not yet complete */
	size_t pending_len;
};

/* The QEMU binary for a word size. */
const char *qemu_binary(int bits);

/* 1 if name is an executable file in a PATH directory, else 0. */
int qemu_on_path(const char *name);

int qemu_start(const char *image, const struct qemu_options *o, struct qemu_run *q,
	       struct error *err);

/* The next COM1 line (without its \r\n) into line, with the monotonic
 * time it arrived in *when.  Returns 1 for a line, 0 when QEMU exited or
 * the deadline (monotonic seconds) passed first. */
int qemu_read_line(struct qemu_run *q, char *line, size_t size, double deadline, double *when);

/* 1 while QEMU runs; 0 once it has exited (it is then reaped). */
int qemu_running(struct qemu_run *q);

/* Kill QEMU (if still running) and reap it. */
void qemu_stop(struct qemu_run *q);

/* Monotonic seconds, the clock every bench timing uses. */
double bench_now(void);

#endif
