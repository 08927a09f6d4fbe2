/* bench.h - what `bzpack bench` measures, shared by the command
 * (bench_cmd.c), its JSON (bench_json.c), its chart (bench_svg.c) and its
 * gate (bench_gate.c). */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_out.h"        /* bench_json_string(), bench_output_*() */
#include "bench_qemu.h"
#include "decode_speed.h"     /* time_to_kernel_ms_after() */
#include "util.h"

#define BENCH_NAME_MAX 128
#define BENCH_KEY_MAX (BENCH_NAME_MAX + 48)
/* A kernel's identity in a baseline: "Linux " and a bzImage's version
 * string (setup_header.kernel_version), else the input file's base name. */
#define BENCH_ID_MAX (BENCH_NAME_MAX + 256)
#define BENCH_LINUX_ID "Linux "

/* The icount-based time-to-kernel column turns the stub's instruction
 * count into time at one instruction per nanosecond (1 GHz at one
 * instruction per cycle): a plain, stated assumption, for comparing codecs
 * with a column that does not depend on this host's speed. */
#define BENCH_ICOUNT_HZ 1e9

/* A wall-clock figure: the median of runs, with the spread. */
struct bench_wall {
	const char *method;        /* "gdbstub"; NULL if not measured */
	double median_ms, min_ms, max_ms;
	unsigned runs;
	char why[ERR_MAX];         /* why not measured, when method is NULL */
};

/* Exact guest instructions from an image's entry (code32_start) to the
 * kernel's entry (bench_boot.h: boot_count_instructions). */
struct bench_count {
	int counted;
	uint64_t instructions;
	char why[ERR_MAX];         /* why not counted, when counted is 0 */
};

/* How a cell's image was booted: QEMU's -kernel under SeaBIOS (the
 * real-mode entry), or under UEFI firmware (OVMF: the EFI entry). */
#define BENCH_LOADER_BIOS "bios"
#define BENCH_LOADER_OVMF "ovmf"

/* One kernel packed with one codec, booted by one loader. */
struct bench_cell {
	char kernel[BENCH_NAME_MAX]; /* the input file's base name */
	char kernel_id[BENCH_ID_MAX];
	const char *codec;
	int bits;
	const char *loader;        /* BENCH_LOADER_* */
	int icount_shift;          /* the -icount shift it booted with */
	uint64_t image_bytes, out_bytes;
	double host_mbps;          /* our decoder on this host, best run */
	double ttk_ms;             /* storage + decode at host_mbps */
	int booted;                /* icount boot gave a report line */
	uint64_t cycles;           /* its cycles=, in instructions (>> icount_shift) */
	uint64_t total;            /* its total=, the same way */
	char report[QEMU_LINE_MAX];
	char error[ERR_MAX];       /* why not booted, when QEMU was there */
	struct bench_count to_kernel; /* code32_start to the kernel's entry, for a
				    * Linux bzImage's kernel (beside Linux's own) */
	struct bench_wall wall;    /* stub entry to kernel entry */
};

/* Linux's own decompressor, for a Linux bzImage given as input. */
struct bench_linux {
	char kernel[BENCH_NAME_MAX];
	char kernel_id[BENCH_ID_MAX];
	const char *codec;         /* its payload's, e.g. "xz" */
	int bits;
	uint64_t image_bytes, out_bytes;
	struct bench_count count;  /* what --save and --check gate, as cell KERNEL/CODEC/BITS/linux */
	struct bench_wall gdbstub;
};

struct bench_result {
	double storage_mbps;
	int qemu;                  /* QEMU was on PATH: the QEMU columns were measured */
	int ovmf;                  /* --ovmf was given: the 64-bit images booted under OVMF too */
	struct bench_cell *cells;
	size_t ncells;
	struct bench_linux *linux_runs;
	size_t nlinux;
};

/* Time to kernel from the icount column: storage, then the stub's
 * instructions at BENCH_ICOUNT_HZ.  Only for a booted cell. */
static inline double bench_ttk_icount_ms(const struct bench_cell *c, double storage_mbps)
{
	return time_to_kernel_ms_after(c->image_bytes, storage_mbps, (double)c->cycles / BENCH_ICOUNT_HZ);
}

/* `bzpack bench ...` with argv[0] = "bench" (bench_cmd.c). */
int bench_main(int argc, char **argv);

/* "testkern64.elf/lz4/64", and "testkern64.elf/lz4/64/ovmf" under OVMF:
 * how a cell is named in JSON, baselines and messages. */
void bench_cell_key(const struct bench_cell *c, char *key, size_t size);

/* "bzImage/lz4/64/linux": Linux's own decompressor's cell. */
void bench_linux_key(const struct bench_linux *l, char *key, size_t size);

/* bench_table.c: the table, on stdout. */
void bench_print_table(const struct bench_result *r);

/* bench_json.c: the result document, written atomically. */
int bench_write_json(const char *path, const struct bench_result *r, struct error *err);

/* bench_svg.c: a bar chart of time to kernel per cell, written atomically. */
int bench_write_svg(const char *path, const struct bench_result *r, struct error *err);

/* bench_gate.c: --save writes every measured cell's kernel, cycles, total
 * and image bytes; --check compares.  bench_check returns 0 when every
 * cell is within tolerance, 1 (after naming each culprit on stderr)
 * otherwise, -1 with err set for a baseline it cannot read.
 * bench_check_saved does the same with the cells of a file --save wrote
 * (no boots: the gate on recorded results). */
int bench_save(const char *path, const struct bench_result *r, struct error *err);
int bench_check(const char *path, const struct bench_result *r, double tolerance_pct,
		struct error *err);
int bench_check_saved(const char *path, const char *saved, double tolerance_pct, struct error *err);

#endif
