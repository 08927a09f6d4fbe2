/* bench_gate.c - `bzpack bench --save FILE` and `--check FILE`: a CI gate
 * on the icount cycles and the image size of every cell.
 *
 * The baseline is our own small JSON document:
 *   {"bzpack_bench_baseline": 1,
 *    "cells": {"KERNEL/CODEC/BITS": {"cycles": N, "image_bytes": N}, ...}}
 * and the reader below accepts exactly that (any key order, whitespace
 * anywhere): anything else, a duplicate key, a missing field or a
 * number that is not a positive integer rejects the whole file, because
 * a gate that half-reads its baseline passes by accident.
 *
 * The gate fails closed: a baseline cell that was not measured (not
 * asked for, no QEMU, the boot failed), a measured cell the baseline
 * lacks, or an unreadable baseline all fail, each named. */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BASELINE_FORMAT "bzpack_bench_baseline"
#define BASELINE_VERSION 1

struct base_cell {
	char key[BENCH_KEY_MAX];
	uint64_t cycles, image_bytes;
	int used;                  /* matched by a measured cell */
};

struct baseline {
	struct base_cell *cells;
	size_t n;
};

/* What the gate sees of one cell, ours or Linux's own decompressor's:
 * for Linux's, "cycles" are its exact instructions from entry to the
 * kernel's entry (it prints no report line). */
struct gated {
	char key[BENCH_KEY_MAX];
	int measured;
	uint64_t cycles, image_bytes;
	const char *why;
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
		g[*n].measured = c->booted;
		g[*n].cycles = c->cycles;
		g[*n].image_bytes = c->image_bytes;
		g[*n].why = c->error[0] ? c->error : "no QEMU";
	}
	for (size_t i = 0; i < r->nlinux; i++, (*n)++) {
		const struct bench_linux *l = &r->linux_runs[i];
		bench_linux_key(l, g[*n].key, sizeof(g[*n].key));
		g[*n].measured = l->count.counted;
		g[*n].cycles = l->count.instructions;
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
		fprintf(f, ": {\"cycles\": %llu, \"image_bytes\": %llu}%s\n", (unsigned long long)g[i].cycles,
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

static int cell(struct cursor *c, struct base_cell *b)
{
	char name[32];
	int have_cycles = 0, have_bytes = 0, r;

	if (expect(c, '{') < 0)
		return -1;
	for (int first = 1; (r = next_member(c, first)) == 0; first = 0) {
		if (string(c, name, sizeof(name)) < 0 || expect(c, ':') < 0)
			return -1;
		int *have = strcmp(name, "cycles") == 0 ? &have_cycles :
			    strcmp(name, "image_bytes") == 0 ? &have_bytes : NULL;
		if (!have || *have)
			return bad(c, have ? "a field given twice" : "unknown field in a cell");
		*have = 1;
		if (positive(c, have == &have_cycles ? &b->cycles : &b->image_bytes) < 0)
			return -1;
	}
	if (r < 0)
		return -1;
	if (!have_cycles || !have_bytes)
		return fail_with(c->err, "not a bzpack bench baseline: cell %s lacks %s", b->key,
				 have_cycles ? "image_bytes" : "cycles");
	return 0;
}

static int cells(struct cursor *c, struct baseline *b)
{
	int r;

	if (expect(c, '{') < 0)
		return -1;
	for (int first = 1; (r = next_member(c, first)) == 0; first = 0) {
		struct base_cell *grown = realloc(b->cells, (b->n + 1) * sizeof(*grown));
		if (!grown)
			return fail_with(c->err, "out of memory");
		b->cells = grown;
		struct base_cell *e = &b->cells[b->n];
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
	return r;
}

/* 1 if measured is worse than base by more than tolerance percent. */
static int worse(uint64_t measured, uint64_t base, double tolerance_pct, double *pct)
{
	*pct = 100.0 * ((double)measured - (double)base) / (double)base;
	return *pct > tolerance_pct;
}

int bench_check(const char *path, const struct bench_result *r, double tolerance_pct,
		struct error *err)
{
	struct baseline b = { NULL, 0 };
	size_t checked = 0, failed = 0, n;
	double pct;
	struct gated *g = NULL;

	if (read_baseline(path, &b, err) < 0 || !(g = gated_cells(r, &n, err))) {
		free(b.cells);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct gated *c = &g[i];
		struct base_cell *base = NULL;
		for (size_t j = 0; j < b.n && !base; j++)
			if (strcmp(b.cells[j].key, c->key) == 0)
				base = &b.cells[j];
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
		checked++;
		if (worse(c->cycles, base->cycles, tolerance_pct, &pct)) {
			fprintf(stderr, "bzpack: %s: %s: %s %llu, baseline %llu (%+.2f%%, %.2fx, tolerance %g%%)\n",
				path, c->key, strstr(c->key, "/linux") ? "instructions" : "cycles",
				(unsigned long long)c->cycles, (unsigned long long)base->cycles, pct,
				(double)c->cycles / (double)base->cycles, tolerance_pct);
			failed++;
		}
		if (worse(c->image_bytes, base->image_bytes, tolerance_pct, &pct)) {
			fprintf(stderr, "bzpack: %s: %s: image %llu bytes, baseline %llu (%+.2f%%, tolerance %g%%)\n",
				path, c->key, (unsigned long long)c->image_bytes,
				(unsigned long long)base->image_bytes, pct, tolerance_pct);
			failed++;
		}
	}
	for (size_t j = 0; j < b.n; j++) {
		if (!b.cells[j].used) {
			fprintf(stderr, "bzpack: %s: %s: in the baseline but not measured\n", path,
				b.cells[j].key);
			failed++;
		}
	}
	printf("bzpack bench: checked %zu of %zu baseline cells against %s (tolerance %g%%): %s\n",
	       checked, b.n, path, tolerance_pct, failed ? "FAILED" : "ok");
	free(b.cells);
	free(g);
	return failed ? 1 : 0;
}
