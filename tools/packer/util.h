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

/* Progress and notes go to stderr through note(), which -q (quiet = 1)
 * silences; errors are not notes. */
extern int quiet;
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct buffer {
	uint8_t *data;
	size_t size;
};

/* The whole of a regular file, or of standard input when path is "-" (or
 * names standard input, as /dev/stdin does).  Any other kind of file is
 * refused: a FIFO or a device could block or never end. */
int read_file(const char *path, struct buffer *out, struct error *err);

/* Write data as binutils and the compressors do, so that a failed run
 * leaves what was there (and no temporary file):
 *   - a new file, or a regular file with one link: a temporary file beside
 *     it, synced, renamed over it (keeping an old file's mode, and its
 *     owner when we are root), then its directory synced;
 *   - a symlink: followed, its target written so;
 *   - a regular file with several links: written in place once the data
 *     is complete, its room reserved first, so no link is broken;
 *   - a device or a FIFO: written through, never replaced;
 *   - "-": standard output (not a terminal). */
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
