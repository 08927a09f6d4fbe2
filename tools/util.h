/* util.h - files and errors for the host tools. */
#ifndef UTIL_H
#define UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Every failure is reported once, by main, as "bzpack: <file>: <reason>";
 * the functions below fill an error buffer instead of printing. */
#define ERR_MAX 256
struct error {
	char msg[ERR_MAX];
};
int fail_with(struct error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct buffer {
	uint8_t *data;
	size_t size;
};

int read_file(const char *path, struct buffer *out, struct error *err);

/* Write to a temporary file beside path, then rename it into place: a
 * failed run never leaves a half-written output or clobbers the old one. */
int write_file_atomic(const char *path, const uint8_t *data, size_t size, struct error *err);

static inline uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

#endif
