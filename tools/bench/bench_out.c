/* bench_out.c - see bench_out.h. */
#include "bench_out.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

const char *bench_tool = "bench";

void bench_json_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void bench_json_member(FILE *out, const char *name, const char *s)
{
	fprintf(out, ", \"%s\": ", name);
	bench_json_string(out, s);
}

FILE *bench_output_open(char **buf, size_t *len, struct error *err)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		fail_with(err, "out of memory");
	return f;
}

int bench_output_close(FILE *f, char **buf, size_t *len, const char *path, struct error *err)
{
	int bad = ferror(f);
	int r = -1;

	if (fclose(f) != 0 || bad)
		fail_with(err, "out of memory");
	else
		r = write_file_atomic(path, (const uint8_t *)*buf, *len, err);
	free(*buf);
	*buf = NULL;
	return r;
}

void bench_progress(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", bench_tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void bench_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: FAIL: ", bench_tool);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *bench_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		bench_die("out of memory (%zu bytes)", n);
	return p;
}

FILE *bench_output_open_or_die(char **buf, size_t *len)
{
	struct error err;
	FILE *f = bench_output_open(buf, len, &err);

	if (!f)
		bench_die("%s", err.msg);
	return f;
}

void bench_output_close_or_die(FILE *f, char **buf, size_t *len, const char *path)
{
	struct error err;

	if (bench_output_close(f, buf, len, path, &err) < 0)
		bench_die("%s: %s", path, err.msg);
}
