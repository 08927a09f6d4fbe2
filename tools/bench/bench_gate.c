/* bench_gate.c - `bzpack bench --save FILE` and `--check FILE`: a CI gate
 * on the icount cycles, the total and the image size of every cell.
 *
 * The baseline is our own small JSON document:
 *   {"bzpack_bench_baseline": 2,
 *    "cells": {"KERNEL/CODEC/BITS[/ovmf|/linux]":
 *              {"kernel": ID, "cycles": N, "total": N, "image_bytes": N}, ...}}
 * cycles is the stub's decompression (cycles=), total its setup or EFI
 * entry to the hand-off (total=), both in guest instructions; for Linux's
 * own decompressor (/linux) both are its instructions from the entry to
 * the kernel's entry.  ID is the kernel's identity (bench.h,
 * BENCH_ID_MAX).  The reader below accepts exactly that (any key order,
 * whitespace anywhere): anything else, a duplicate key, a missing field
 * or a number that is not a positive integer rejects the whole file,
 * because a gate that half-reads its baseline passes by accident.
 *
 * The gate fails closed: a baseline cell that was not measured (not
 * asked for, no QEMU, the boot failed), a measured cell the baseline
 * lacks, or an unreadable baseline all fail, each named.  Two things are
 * skipped instead, each named and counted: a cell of another Linux release
 * than the baseline's (a distribution's kernel moves on; its numbers say
 * nothing about ours; the same release built again is compared,
 * same_kernel()), and the OVMF cells when no --ovmf was given (no
 * firmware on this machine).  Under OVMF the total is shown, not gated:
 * it counts the firmware's boot services calls, which are not our code. */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BASELINE_FORMAT "bzpack_bench_baseline"
#define BASELINE_VERSION 2

/* One cell as the gate sees it, measured or read from a file: ours, or
 * Linux's own decompressor's (whose cycles and total are both its exact
 * instructions from entry to the kernel's entry: it prints no report line). */
struct gated {
	char key[BENCH_KEY_MAX];
	char id[BENCH_ID_MAX];
	int measured;
	uint64_t cycles, total, image_bytes;
	const char *why;           /* why not measured */
	int used;                  /* a baseline cell matched by a measured one */
};

struct baseline {
	struct gated *cells;
	size_t n;
};

/* Every cell of r, ours then Linux's; the caller frees. */
static struct gated *gated_cells(const struct bench_result *r, size_t *n, struct error *err)
{
	struct gated *g = calloc(r->ncells + r->nlinux + 1, sizeof(*g));

	if (!g) {
		fail_with(err, "out of memory");
		return NULL;
	}
	*n = 0;
	for (size_t i = 0; i < r->ncells; i++, (*n)++) {
		const struct bench_cell *c = &r->cells[i];
		bench_cell_key(c, g[*n].key, sizeof(g[*n].key));
		snprintf(g[*n].id, sizeof(g[*n].id), "%s", c->kernel_id);
		g[*n].measured = c->booted;
		g[*n].cycles = c->cycles;
		g[*n].total = c->total;
		g[*n].image_bytes = c->image_bytes;
		g[*n].why = c->error[0] ? c->error : "no QEMU";
	}
	for (size_t i = 0; i < r->nlinux; i++, (*n)++) {
		const struct bench_linux *l = &r->linux_runs[i];
		bench_linux_key(l, g[*n].key, sizeof(g[*n].key));
		snprintf(g[*n].id, sizeof(g[*n].id), "%s", l->kernel_id);
		g[*n].measured = l->count.counted;
		g[*n].cycles = l->count.instructions;
		g[*n].total = l->count.instructions;
		g[*n].image_bytes = l->image_bytes;
		g[*n].why = l->count.why[0] ? l->count.why : "no QEMU";
	}
	return g;
}

int bench_save(const char *path, const struct bench_result *r, struct error *err)
{
	char *buf = NULL;
	size_t len = 0, saved = 0, n;
	struct gated *g = gated_cells(r, &n, err);

	if (!g)
		return -1;
	for (size_t i = 0; i < n; i++)
		saved += g[i].measured;
	if (saved == 0 || saved < n) {
		if (saved == 0)
			fail_with(err, "no cell was measured under QEMU: no baseline written");
		else
			fail_with(err, "%zu of %zu cells were not measured: no baseline written", n - saved, n);
		free(g);
		return -1;
	}
	FILE *f = bench_output_open(&buf, &len, err);
	if (!f) {
		free(g);
		return -1;
	}
	fprintf(f, "{\n  \"%s\": %d,\n  \"cells\": {\n", BASELINE_FORMAT, BASELINE_VERSION);
	for (size_t i = 0; i < n; i++) {
		fputs("    ", f);
		bench_json_string(f, g[i].key);
		fputs(": {\"kernel\": ", f);
		bench_json_string(f, g[i].id);
		fprintf(f, ", \"cycles\": %llu, \"total\": %llu, \"image_bytes\": %llu}%s\n",
			(unsigned long long)g[i].cycles, (unsigned long long)g[i].total,
			(unsigned long long)g[i].image_bytes, i + 1 < n ? "," : "");
	}
	fputs("  }\n}\n", f);
	free(g);
	return bench_output_close(f, &buf, &len, path, err);
}

/* The reader: a cursor over the file, one function per construct. */
struct cursor {
	const char *p, *end;
	struct error *err;
};

static int bad(struct cursor *c, const char *what)
{
	const char *near = c->p < c->end ? c->p : "end of file";
	int len = c->p < c->end ? (int)(c->end - c->p < 20 ? c->end - c->p : 20) : 11;

	return fail_with(c->err, "not a bzpack bench baseline: %s at '%.*s'", what, len, near);
}

static void skip_space(struct cursor *c)
{
	while (c->p < c->end && strchr(" \t\r\n", *c->p))
		c->p++;
}

static int expect(struct cursor *c, char ch)
{
	char what[32];

	skip_space(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return 0;
	}
	snprintf(what, sizeof(what), "expected '%c'", ch);
	return bad(c, what);
}

/* A string; the escapes our writer produces for \" and \\ only. */
static int string(struct cursor *c, char *out, size_t size)
{
	size_t n = 0;

	if (expect(c, '"') < 0)
		return -1;
	for (;;) {
		if (c->p >= c->end || (unsigned char)*c->p < 0x20)
			return bad(c, "unterminated string");
		char ch = *c->p++;
		if (ch == '"')
			break;
		if (ch == '\\') {
			if (c->p >= c->end || (*c->p != '"' && *c->p != '\\'))
				return bad(c, "unsupported escape in a string");
			ch = *c->p++;
		}
		if (n + 1 >= size)
			return bad(c, "string too long");
		out[n++] = ch;
	}
	out[n] = '\0';
	return 0;
}

static int positive(struct cursor *c, uint64_t *v)
{
	skip_space(c);
	if (c->p >= c->end || *c->p < '1' || *c->p > '9')
		return bad(c, "expected a positive integer");
	uint64_t n = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		if (n > (UINT64_MAX - 9) / 10)
			return bad(c, "number too large");
		n = n * 10 + (uint64_t)(*c->p++ - '0');
	}
	if (c->p < c->end && strchr(".eE", *c->p))
		return bad(c, "expected an integer");
	*v = n;
	return 0;
}

/* '}' ends the object (returns 1), ',' means another member (0). */
static int next_member(struct cursor *c, int first)
{
	skip_space(c);
	if (c->p < c->end && *c->p == '}') {
		c->p++;
		return 1;
	}
	return first ? 0 : expect(c, ',');
}

static int cell(struct cursor *c, struct gated *b)
{
	static const char *const names[] = { "kernel", "cycles", "total", "image_bytes" };
	uint64_t *numbers[] = { NULL, &b->cycles, &b->total, &b->image_bytes };
	int have[4] = { 0, 0, 0, 0 }, r;
	char name[32];
	size_t i;

	if (expect(c, '{') < 0)
		return -1;
	for (int first = 1; (r = next_member(c, first)) == 0; first = 0) {
		if (string(c, name, sizeof(name)) < 0 || expect(c, ':') < 0)
			return -1;
		for (i = 0; i < 4 && strcmp(name, names[i]) != 0; i++)
			;
		if (i == 4 || have[i])
			return bad(c, i < 4 ? "a field given twice" : "unknown field in a cell");
		have[i] = 1;
		if (numbers[i] ? positive(c, numbers[i]) < 0 : string(c, b->id, sizeof(b->id)) < 0)
			return -1;
	}
	if (r < 0)
		return -1;
	for (i = 0; i < 4; i++)
		if (!have[i])
			return fail_with(c->err, "not a bzpack bench baseline: cell %s lacks \"%s\"", b->key,
					 names[i]);
	if (!b->id[0])
		return fail_with(c->err, "not a bzpack bench baseline: cell %s has an empty \"kernel\"", b->key);
	b->measured = 1;
	return 0;
}

static int cells(struct cursor *c, struct baseline *b)
{
	int r;

	if (expect(c, '{') < 0)
		return -1;
	for (int first = 1; (r = next_member(c, first)) == 0; first = 0) {
		struct gated *grown = realloc(b->cells, (b->n + 1) * sizeof(*grown));
		if (!grown)
			return fail_with(c->err, "out of memory");
		b->cells = grown;
		struct gated *e = &b->cells[b->n];
		memset(e, 0, sizeof(*e));
		if (string(c, e->key, sizeof(e->key)) < 0 || expect(c, ':') < 0 || cell(c, e) < 0)
			return -1;
		for (size_t i = 0; i < b->n; i++)
			if (strcmp(b->cells[i].key, e->key) == 0)
				return fail_with(c->err, "not a bzpack bench baseline: cell %s given twice",
						 e->key);
		b->n++;
	}
	return r < 0 ? -1 : 0;
}

/* path as a baseline, or -1 with err saying what is wrong, and where. */
static int read_baseline(const char *path, struct baseline *b, struct error *err)
{
	struct buffer file = { 0, 0 };
	char name[64];
	int have_version = 0, have_cells = 0, r = -1, m;

	if (read_file(path, &file, err) < 0)
		return -1;
	struct cursor c = { (const char *)file.data, (const char *)file.data + file.size, err };
	if (memchr(file.data, '\0', file.size)) {
		fail_with(err, "not a bzpack bench baseline: a NUL byte");
		goto done;
	}
	if (expect(&c, '{') < 0)
		goto done;
	for (int first = 1; (m = next_member(&c, first)) == 0; first = 0) {
		if (string(&c, name, sizeof(name)) < 0 || expect(&c, ':') < 0)
			goto done;
		if (strcmp(name, BASELINE_FORMAT) == 0 && !have_version) {
			uint64_t v;
			if (positive(&c, &v) < 0)
				goto done;
			if (v != BASELINE_VERSION) {
				fail_with(err, "baseline version %llu, this bzpack reads %d",
					  (unsigned long long)v, BASELINE_VERSION);
				goto done;
			}
			have_version = 1;
		} else if (strcmp(name, "cells") == 0 && !have_cells) {
			if (cells(&c, b) < 0)
				goto done;
			have_cells = 1;
		} else {
			bad(&c, "unknown or repeated key");
			goto done;
		}
	}
	if (m < 0)
		goto done;
	skip_space(&c);
	if (c.p != c.end)
		bad(&c, "text after the document");
	else if (!have_version || !have_cells)
		fail_with(err, "not a bzpack bench baseline: no \"%s\"",
			  have_version ? "cells" : BASELINE_FORMAT);
	else if (b->n == 0)
		fail_with(err, "the baseline has no cells: nothing to check");
	else
		r = 0;
done:
	free(file.data);
	if (r < 0) {
		struct error why = *err;
		fail_with(err, "%s: %s", path, why.msg);
	}
	return r;
}

/* The difference in percent; 1 if measured is worse than base by more
 * than tolerance percent, -1 if better by more, 0 within it. */
static int compare(uint64_t measured, uint64_t base, double tolerance_pct, double *pct)
{
	*pct = 100.0 * ((double)measured - (double)base) / (double)base;
	return *pct > tolerance_pct ? 1 : *pct < -tolerance_pct ? -1 : 0;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && strcmp(s + n - t, tail) == 0;
}

/* One measured cell against its baseline cell: 1 if it fails. */
static int gate_cell(const char *path, const struct gated *c, const struct gated *base, double tolerance_pct)
{
	/* Linux's own decompressor has one figure, its instructions from
	 * entry to kernel entry, stored as both cycles and total: gated once. */
	int linux_cell = ends_with(c->key, "/linux");
	int ovmf = ends_with(c->key, "/" BENCH_LOADER_OVMF), failed = 0;
	const struct { const char *what; uint64_t got, want; int gated; } m[] = {
		{ linux_cell ? "instructions" : "cycles", c->cycles, base->cycles, 1 },
		{ "total", c->total, base->total, !ovmf },
		{ "image bytes", c->image_bytes, base->image_bytes, 1 },
	};
	double pct;

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		if (linux_cell && i == 1)
			continue;
		int d = compare(m[i].got, m[i].want, tolerance_pct, &pct);
		if (!m[i].gated) {
			printf("info    %s %s: %llu, baseline %llu (%+.2f%%): not gated, it counts OVMF's boot services calls\n",
			       c->key, m[i].what, (unsigned long long)m[i].got, (unsigned long long)m[i].want, pct);
		} else if (d > 0) {
			fprintf(stderr, "bzpack: %s: %s: %s %llu, baseline %llu (%+.2f%%, %.2fx, tolerance %g%%)\n",
				path, c->key, m[i].what, (unsigned long long)m[i].got, (unsigned long long)m[i].want,
				pct, (double)m[i].got / (double)m[i].want, tolerance_pct);
			failed = 1;
		} else if (d < 0) {
			printf("better  %s %s: %llu, baseline %llu (%+.2f%%): save a new baseline to keep it\n",
			       c->key, m[i].what, (unsigned long long)m[i].got, (unsigned long long)m[i].want, pct);
		}
	}
	return failed;
}

/* Whether two kernel identities name the same kernel.  A Linux version
 * string is its release, then " #N" and the build's date: the same tree
 * built again (a kernel developer's CI, each commit; the seed's
 * regression put back) differs only there, and must be compared, or the
 * gate would check nothing on exactly the builds it is for.  Another
 * release (a distribution's kernel that moved on) is another kernel. */
static int same_kernel(const char *a, const char *b)
{
	const char *ha = strstr(a, " #"), *hb = strstr(b, " #");
	size_t la = ha ? (size_t)(ha - a) : strlen(a), lb = hb ? (size_t)(hb - b) : strlen(b);

	return la == lb && memcmp(a, b, la) == 0;
}

/* measured (n cells) against the baseline b read from path.  ovmf: the
 * OVMF cells were asked for, so a missing one fails. */
static int gate(const char *path, struct baseline *b, const struct gated *measured, size_t n, int ovmf,
		double tolerance_pct)
{
	size_t checked = 0, failed = 0, other = 0, no_ovmf = 0;

	for (size_t i = 0; i < n; i++) {
		const struct gated *c = &measured[i];
		struct gated *base = NULL;
		for (size_t j = 0; j < b->n && !base; j++)
			if (strcmp(b->cells[j].key, c->key) == 0)
				base = &b->cells[j];
		if (!base) {
			fprintf(stderr, "bzpack: %s: %s: measured but not in the baseline\n", path, c->key);
			failed++;
			continue;
		}
		base->used = 1;
		if (!c->measured) {
			fprintf(stderr, "bzpack: %s: %s: not measured: %s\n", path, c->key, c->why);
			failed++;
			continue;
		}
		if (!same_kernel(c->id, base->id)) {
			int linux_builds = strncmp(c->id, BENCH_LINUX_ID, strlen(BENCH_LINUX_ID)) == 0 &&
					   strncmp(base->id, BENCH_LINUX_ID, strlen(BENCH_LINUX_ID)) == 0;
			if (linux_builds) {
				printf("skip    %s: not comparable: the baseline is for %s, this is %s\n", c->key,
				       base->id, c->id);
				other++;
			} else {
				fprintf(stderr, "bzpack: %s: %s: the baseline is for kernel %s, this is %s\n", path,
					c->key, base->id, c->id);
				failed++;
			}
			continue;
		}
		checked++;
		failed += gate_cell(path, c, base, tolerance_pct);
	}
	for (size_t j = 0; j < b->n; j++) {
		if (b->cells[j].used)
			continue;
		if (!ovmf && ends_with(b->cells[j].key, "/" BENCH_LOADER_OVMF)) {
			printf("skip    %s: not booted: no --ovmf\n", b->cells[j].key);
			no_ovmf++;
			continue;
		}
		fprintf(stderr, "bzpack: %s: %s: in the baseline but not measured\n", path, b->cells[j].key);
		failed++;
	}
	if (no_ovmf)
		printf("skip: bench-check: %zu OVMF cells: no --ovmf\n", no_ovmf);
	/* A gate that compared nothing has checked nothing: fail closed. */
	if (!checked && !failed) {
		fprintf(stderr, "bzpack: %s: no cell could be compared with the baseline\n", path);
		failed++;
	}
	printf("bzpack bench: checked %zu of %zu baseline cells against %s (tolerance %g%%): %s"
	       " (%zu failed, %zu not comparable, %zu OVMF cells not booted)\n",
	       checked, b->n, path, tolerance_pct, failed ? "FAILED" : "ok", failed, other, no_ovmf);
	return failed ? 1 : 0;
}

int bench_check(const char *path, const struct bench_result *r, double tolerance_pct,
		struct error *err)
{
	struct baseline b = { NULL, 0 };
	struct gated *g = NULL;
	size_t n;
	int status = -1;

	if (read_baseline(path, &b, err) == 0 && (g = gated_cells(r, &n, err)))
		status = gate(path, &b, g, n, r->ovmf, tolerance_pct);
	free(b.cells);
	free(g);
	return status;
}

int bench_check_saved(const char *path, const char *saved, double tolerance_pct, struct error *err)
{
	struct baseline b = { NULL, 0 }, m = { NULL, 0 };
	int status = -1;

	/* A saved file holds OVMF cells only when they were asked for, so
	 * it is held to all of them then. */
	if (read_baseline(path, &b, err) == 0 && read_baseline(saved, &m, err) == 0) {
		int ovmf = 0;
		for (size_t i = 0; i < m.n; i++)
			ovmf |= ends_with(m.cells[i].key, "/" BENCH_LOADER_OVMF);
		status = gate(path, &b, m.cells, m.n, ovmf, tolerance_pct);
	}
	free(b.cells);
	free(m.cells);
	return status;
}
