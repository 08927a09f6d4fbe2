/* bench_out.h - what every benchmark program writes with: its JSON (the
 * one writer: strings escaped one way, files written whole and
 * atomically) and, for the native benchmarks, their messages.  Linked by
 * `bzpack bench` and by bench_native and bench_seed (tools/bench/bench.mk). */
#ifndef BENCH_OUT_H
#define BENCH_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

/* A JSON string, escaped, quotes included; NULL writes null. */
void bench_json_string(FILE *out, const char *s);

/* ", \"name\": " and the string s as above: one member after the first. */
void bench_json_member(FILE *out, const char *name, const char *s);

/* Build a file in memory (open_memstream) and write it atomically:
 * open returns the stream (NULL with err set), close writes path. */
FILE *bench_output_open(char **buf, size_t *len, struct error *err);
int bench_output_close(FILE *f, char **buf, size_t *len, const char *path, struct error *err);

/* The native benchmarks' messages on stderr, each prefixed with
 * bench_tool (set by main): progress, and a failure that ends the run
 * with exit status 1.  bench_xmalloc dies rather than return NULL. */
extern const char *bench_tool;
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *bench_xmalloc(size_t n);
/* bench_output_open/close for them: a failure is the end of the run. */
FILE *bench_output_open_or_die(char **buf, size_t *len);
void bench_output_close_or_die(FILE *f, char **buf, size_t *len, const char *path);

#endif
