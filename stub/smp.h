/* smp.h - the other CPUs: the boot CPU wakes them, all run one work
 * function, and the boot CPU goes on once each has finished and is parked
 * (stub/smp.c says how and where).  Linked into -frames stubs only: the
 * work is frames.c's frame queue. */
#ifndef SMP_H
#define SMP_H

#include "stub.h"

/* Runs work(arg, cpu) on up to max (at most BZPACK_MAX_CPUS) CPUs at
 * once: the boot CPU as cpu 0, each other CPU that started with its own
 * cpu < max (unique; not always consecutive: a CPU that did not start
 * leaves a gap) on its own stack of BZPACK_SMP_STACK bytes.  work must be safe to
 * run concurrently, and should take its share from a queue: a CPU that
 * does not start in time gets none.  Returns when every CPU that started
 * has finished and is parked (or halts with an error line if one does
 * not finish in time), with the number of CPUs that ran work; when that
 * is 1, *why_one says why (the report line's cpus=1(...)).  bp: what the
 * loader handed over (the command line, E820 and ACPI come from it; the
 * trampoline page becomes reserved in its E820 map). */
unsigned smp_run(struct boot_params *bp, unsigned max, void (*work)(void *arg, unsigned cpu), void *arg,
		 const char **why_one);

/* The same before ExitBootServices, through the firmware's MP services
 * (stub/efi_smp.c; 64-bit stubs only): each AP that runs work gets the
 * next cpu number; they run on the firmware's AP stacks. */
struct efi_boot_services;
unsigned smp_run_efi(struct efi_boot_services *bs, const struct boot_params *bp, unsigned max,
		     void (*work)(void *arg, unsigned cpu), void *arg, const char **why_one);

/* How many CPUs the command line allows (nosmp, maxcpus=N, bzpack.cpus=N),
 * at most max; *why: the option that cut it. */
unsigned smp_cmdline_cap(const struct boot_params *bp, unsigned max, const char **why);

/* What the trampoline calls on each other CPU (stub/smp_trampoline.asm). */
void smp_ap_main(struct smp_params *p, unsigned cpu);

#endif
