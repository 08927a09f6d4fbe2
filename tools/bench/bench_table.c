/* bench_table.c - `bzpack bench`'s table on stdout: a block per kernel,
 * a row per codec, then the same under OVMF when measured, then Linux's
 * own decompressor when the kernel was a Linux bzImage, then what the
 * columns mean. */
#include "bench.h"

#include <string.h>

/* Median, "[min-max]" (the spread of the runs), method; or why the
 * method named `tried` measured nothing. */
static void print_wall(const struct bench_wall *w, const char *tried)
{
	char spread[48];

	if (!w->method) {
		printf("%8s %-16s %s: none (%s)", "-", "", tried, w->why);
		return;
	}
	snprintf(spread, sizeof(spread), "[%.1f-%.1f]", w->min_ms, w->max_ms);
	printf("%8.1f %-16s %s, n=%u", w->median_ms, spread, w->method, w->runs);
}

/* Instructions from the entry to the kernel's, and per output byte. */
static void print_count(const struct bench_count *n, uint64_t out_bytes)
{
	if (n->counted)
		printf("%12llu %6.2f ", (unsigned long long)n->instructions,
		       (double)n->instructions / (double)out_bytes);
	else
		printf("%12s %6s ", "-", "-");
}

/* One loader's rows, a block per kernel. */
static void print_cells(const struct bench_result *r, const char *loader)
{
	const char *shown = "";
	int ovmf = strcmp(loader, BENCH_LOADER_OVMF) == 0;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct bench_cell *c = &r->cells[i];
		if (strcmp(c->loader, loader) != 0)
			continue;
		if (strcmp(c->kernel, shown) != 0) {
			shown = c->kernel;
			printf("\n%s%s: %d-bit kernel, %llu bytes; storage %.0f MB/s\n", c->kernel,
			       ovmf ? " under OVMF (the EFI entry)" : "", c->bits,
			       (unsigned long long)c->out_bytes, r->storage_mbps);
			printf("%-8s %10s %6s %12s %6s %12s %6s %9s %8s %9s %8s %-16s %s\n", "codec", "image",
			       "ratio", "cycles", "cyc/B", "to kernel", "ins/B", "host MB/s", "ttk ms", "icount ms",
			       "wall ms", "[min-max]", "method");
		}
		printf("%-8s %10llu %6.2f ", c->codec, (unsigned long long)c->image_bytes,
		       (double)c->out_bytes / (double)c->image_bytes);
		if (c->booted)
			printf("%12llu %6.2f ", (unsigned long long)c->cycles,
			       (double)c->cycles / (double)c->out_bytes);
		else
			printf("%12s %6s ", "-", "-");
		print_count(&c->to_kernel, c->out_bytes);
		printf("%9.0f %8.1f ", c->host_mbps, c->ttk_ms);
		if (c->booted)
			printf("%9.1f ", bench_ttk_icount_ms(c, r->storage_mbps));
		else
			printf("%9s ", "-");
		print_wall(&c->wall, "gdbstub");
		printf("\n");
	}
}

void bench_print_table(const struct bench_result *r)
{
	print_cells(r, BENCH_LOADER_BIOS);
	print_cells(r, BENCH_LOADER_OVMF);
	for (size_t i = 0; i < r->nlinux; i++) {
		const struct bench_linux *l = &r->linux_runs[i];
		printf("\n%s: Linux's own %s decompressor, %llu-byte image, entry to kernel entry\n",
		       l->kernel, l->codec, (unsigned long long)l->image_bytes);
		printf("%-8s %10llu %6.2f %12s %6s ", "linux", (unsigned long long)l->image_bytes,
		       (double)l->out_bytes / (double)l->image_bytes, "-", "-");
		print_count(&l->count, l->out_bytes);
		printf("%9s %8s %9s ", "-", "-", "-");
		print_wall(&l->gdbstub, "gdbstub");
		if (!l->count.counted)
			printf("\n%-8s to kernel: not counted (%s)", "linux", l->count.why);
		printf("\n");
	}
	printf("\ncycles: the report line's, decompression alone, in guest instructions; to kernel:\n"
	       "exact guest instructions from the image's entry (code32_start) to the kernel's\n"
	       "(counted for a Linux bzImage's kernel, ours and Linux's own), ins/B per output\n"
	       "byte; ttk ms: reading the image at the storage speed, then decoding at this host's\n"
	       "speed (host MB/s); icount ms: the same with the stub's icount cycles at %.0f GHz,\n"
	       "one instruction a cycle; wall ms: wall clock under TCG, entry to kernel entry,\n"
	       "median of n.\n",
	       BENCH_ICOUNT_HZ / 1e9);
	for (size_t i = 0; i < r->ncells; i++) {
		if (strcmp(r->cells[i].loader, BENCH_LOADER_OVMF) == 0) {
			printf("Under OVMF, cycles are instructions too (rdtsc under -icount shift=%d,\n"
			       "divided by %d), firmware timer interrupts during decompression included.\n",
			       r->cells[i].icount_shift, 1 << r->cells[i].icount_shift);
			break;
		}
	}
}
