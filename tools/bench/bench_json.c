/* bench_json.c - `bzpack bench --json FILE`: the measurements as one JSON
 * document (the format is described in README.md, "bzpack bench").
 * A cell not measured carries null and, where known, why. */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void bench_cell_key(const struct bench_cell *c, char *key, size_t size)
{
	int ovmf = strcmp(c->loader, BENCH_LOADER_OVMF) == 0;

	snprintf(key, size, "%s/%s/%d%s", c->kernel, c->codec, c->bits, ovmf ? "/" BENCH_LOADER_OVMF : "");
}

void bench_linux_key(const struct bench_linux *l, char *key, size_t size)
{
	snprintf(key, size, "%s/%s/%d/linux", l->kernel, l->codec, l->bits);
}

static void wall(FILE *f, const struct bench_wall *w)
{
	if (!w->method) {
		fputs("{\"method\": null, \"why\": ", f);
		bench_json_string(f, w->why);
		fputs("}", f);
		return;
	}
	fputs("{\"method\": ", f);
	bench_json_string(f, w->method);
	fprintf(f, ", \"median_ms\": %.3f, \"min_ms\": %.3f, \"max_ms\": %.3f, \"runs\": %u}",
		w->median_ms, w->min_ms, w->max_ms, w->runs);
}

/* "to_kernel": {"instructions": N, "instructions_per_byte": X} or null + why */
static void count(FILE *f, const struct bench_count *n, uint64_t out_bytes)
{
	if (!n->counted) {
		fputs("{\"instructions\": null, \"why\": ", f);
		bench_json_string(f, n->why);
		fputs("}", f);
		return;
	}
	fprintf(f, "{\"instructions\": %llu, \"instructions_per_byte\": %.4f}",
		(unsigned long long)n->instructions, (double)n->instructions / (double)out_bytes);
}

static void cell(FILE *f, const struct bench_cell *c, double storage_mbps)
{
	char key[BENCH_KEY_MAX];

	bench_cell_key(c, key, sizeof(key));
	fputs("    ", f);
	bench_json_string(f, key);
	fputs(": {\"kernel\": ", f);
	bench_json_string(f, c->kernel);
	bench_json_member(f, "codec", c->codec);
	bench_json_member(f, "loader", c->loader);
	fprintf(f, ", \"icount_shift\": %d", c->icount_shift);
	fprintf(f, ", \"bits\": %d, \"image_bytes\": %llu, \"out_bytes\": %llu, \"ratio\": %.4f,\n", c->bits,
		(unsigned long long)c->image_bytes, (unsigned long long)c->out_bytes,
		(double)c->out_bytes / (double)c->image_bytes);
	fprintf(f, "      \"host_mbps\": %.1f, \"ttk_ms\": %.3f,\n", c->host_mbps, c->ttk_ms);
	if (c->booted) {
		fprintf(f, "      \"cycles\": %llu, \"total\": %llu, \"cycles_per_byte\": %.4f, \"ttk_icount_ms\": %.3f",
			(unsigned long long)c->cycles, (unsigned long long)c->total,
			(double)c->cycles / (double)c->out_bytes, bench_ttk_icount_ms(c, storage_mbps));
		bench_json_member(f, "report", c->report);
	} else {
		fputs("      \"cycles\": null, \"total\": null, \"cycles_per_byte\": null, \"ttk_icount_ms\": null, \"why\": ", f);
		bench_json_string(f, c->error);
	}
	fputs(",\n      \"to_kernel\": ", f);
	count(f, &c->to_kernel, c->out_bytes);
	fputs(",\n      \"wall\": ", f);
	wall(f, &c->wall);
	fputs("}", f);
}

static void linux_run(FILE *f, const struct bench_linux *l)
{
	char key[BENCH_KEY_MAX];

	bench_linux_key(l, key, sizeof(key));
	fputs("    {\"key\": ", f);
	bench_json_string(f, key);
	bench_json_member(f, "kernel", l->kernel);
	bench_json_member(f, "codec", l->codec);
	fprintf(f, ", \"bits\": %d, \"image_bytes\": %llu, \"out_bytes\": %llu,\n", l->bits,
		(unsigned long long)l->image_bytes, (unsigned long long)l->out_bytes);
	fputs("      \"to_kernel\": ", f);
	count(f, &l->count, l->out_bytes);
	fputs(",\n      \"gdbstub\": ", f);
	wall(f, &l->gdbstub);
	fputs("}", f);
}

int bench_write_json(const char *path, const struct bench_result *r, struct error *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = bench_output_open(&buf, &len, err);

	if (!f)
		return -1;
	fprintf(f, "{\n  \"bzpack_bench\": 1,\n  \"storage_mbps\": %.1f,\n  \"icount_hz\": %.0f,\n",
		r->storage_mbps, BENCH_ICOUNT_HZ);
	fprintf(f, "  \"qemu\": %s,\n  \"cells\": {\n", r->qemu ? "true" : "false");
	for (size_t i = 0; i < r->ncells; i++) {
		cell(f, &r->cells[i], r->storage_mbps);
		fputs(i + 1 < r->ncells ? ",\n" : "\n", f);
	}
	fputs("  },\n  \"linux\": [\n", f);
	for (size_t i = 0; i < r->nlinux; i++) {
		linux_run(f, &r->linux_runs[i]);
		fputs(i + 1 < r->nlinux ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	return bench_output_close(f, &buf, &len, path, err);
}
