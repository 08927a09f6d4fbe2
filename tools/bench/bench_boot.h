/* bench_boot.h - the ways `bzpack bench` measures a boot under QEMU:
 *   icount       the stub's report line under -icount (exact cycles),
 *                under QEMU's SeaBIOS or under UEFI firmware (OVMF)
 *   count        the instructions between two hardware breakpoints,
 *                exact, for any image (Linux's own decompressor too)
 *   gdbstub      wall time between two hardware breakpoints (plain TCG)
 * Each boots once; the caller repeats the wall clock and takes medians. */
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

/* UEFI firmware to boot under instead of SeaBIOS: OVMF's code, and the
 * variable store that each boot gets a fresh copy of (so that no boot
 * sees the boot entries another one left). */
struct uefi_firmware {
	const char *code, *vars;
};

/* Under UEFI the guest clock runs 2^UEFI_ICOUNT_SHIFT ns per instruction.
 * At shift=0 (one ns, SeaBIOS's setting) OVMF spends half a minute of
 * this machine's time before our entry, nearly all of it polling the ACPI
 * PM timer through the TPM probe's 750 ms timeouts, which need 750 million
 * instructions of virtual time; at 16 ns an instruction the boot takes
 * about as long as a plain TCG boot (~5 s).  rdtsc still counts
 * instructions, times 2^shift: the report line's numbers are divided back.
 * The firmware's timer interrupts fire 16 times as often in instructions,
 * so its handlers add ~0.3% to a cell's cycles: a fixed, repeatable cost. */
#define UEFI_ICOUNT_SHIFT 4

/* The stub's report line, read by key; cycles are instructions (rdtsc
 * divided by 2^icount_shift). */
struct report {
	char line[QEMU_LINE_MAX];
	char codec[32];
	uint64_t in, out, cycles, total, bits; /* cycles, total: in instructions */
	int icount_shift;
};

/* Boot an image of ours under icount until its report line: under SeaBIOS
 * (fw NULL), or under the UEFI firmware fw, where the line must say
 * entry=efi.  -1 with err set if it printed "bzpack: error:", no report
 * line, or one without the fields or for another codec/word size/entry. */
int boot_icount(const struct boot_env *env, const char *image, int bits, const char *codec,
		const struct uefi_firmware *fw, struct report *r, struct error *err);

/* Wall milliseconds from the first execution of entry to the first of
 * kernel (hardware breakpoints through the gdbstub, plain TCG). */
int boot_gdbstub_ms(const struct boot_env *env, const char *image, int bits, const char *append,
		    uint64_t entry, uint64_t kernel, double *ms, struct error *err);

/* The guest instructions from the first execution of entry to the first
 * of kernel, exactly: QEMU under -icount shift=0,sleep=off,rr=record
 * stops at the two hardware breakpoints and its monitor's `info replay`
 * gives the instruction counter at each (the gdbstub's qRcmd).  The
 * counter is the one icount advances per guest instruction, and a
 * repeated string instruction (rep movs) counts once per iteration, as
 * TCG translates each iteration as one execution of the instruction. The
 * stops themselves do not move it, where they do move the guest's TSC. */
int boot_count_instructions(const struct boot_env *env, const char *image, int bits, const char *append,
			    uint64_t entry, uint64_t kernel, uint64_t *count, struct error *err);

#endif
