/* bench_gdb.h - just enough of GDB's remote serial protocol to time a
 * stretch of guest code under QEMU's gdbstub: hardware breakpoints (Z1),
 * continue, wait for the stop; and count the instructions of that
 * stretch through QEMU's monitor (qRcmd).  Used where the guest prints nothing
 * to time by (Linux's decompressor without CONFIG_X86_VERBOSE_BOOTUP). */
#ifndef BENCH_GDB_H
#define BENCH_GDB_H

#include <stdint.h>

#include "util.h"

struct gdb_conn {
	int fd;
};

/* Connect to QEMU's -gdb unix socket, once (QEMU may not have made it
 * yet: the caller retries). */
int gdb_connect(struct gdb_conn *g, const char *socket_path, struct error *err);

/* Set (set = 1) or remove a hardware breakpoint at a guest address. */
int gdb_hw_break(struct gdb_conn *g, uint64_t addr, int set, double deadline, struct error *err);

/* Let the guest run and wait for it to stop (a breakpoint), until
 * deadline.  *resumed is the monotonic time the continue was sent. */
int gdb_continue(struct gdb_conn *g, double *resumed, double deadline, struct error *err);

/* The guest instructions QEMU has executed so far, from its monitor's
 * `info replay` (sent as a qRcmd packet): only under -icount with
 * rr=record, where that counter is the one the recording is kept by. */
int gdb_icount(struct gdb_conn *g, uint64_t *count, double deadline, struct error *err);

void gdb_close(struct gdb_conn *g);

#endif
