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

/* A positive, finite number (a speed, a scale) from a command-line
 * argument: 0, or -1 when text is anything else. */
int parse_positive(const char *text, double *out);

/* Little-endian fields of a file, at any alignment. */
static inline uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

static inline uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

#endif
