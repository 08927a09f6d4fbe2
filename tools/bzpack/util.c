/* util.c - files and errors for the host tools. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fail_with(struct error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int read_file(const char *path, struct buffer *out, struct error *err)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO must not hang us before fstat can refuse it. */
	int fd = open(path, O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return fail_with(err, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		close(fd);
		return fail_with(err, "cannot stat: %s", strerror(errno));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return fail_with(err, "is a directory");
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail_with(err, "not a regular file");
	}
	if (st.st_size == 0) {
		close(fd);
		return fail_with(err, "empty file");
	}
	out->size = (size_t)st.st_size;
	out->data = malloc(out->size);
	if (!out->data) {
		close(fd);
		return fail_with(err, "out of memory reading %zu bytes", out->size);
	}
	for (size_t done = 0; done < out->size;) {
		ssize_t n = read(fd, out->data + done, out->size - done);
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			close(fd);
			free(out->data);
			out->data = NULL;
			return fail_with(err, "read error: %s", strerror(e));
		}
		done += (size_t)n;
	}
	close(fd);
	return 0;
}

int write_file_atomic(const char *path, const uint8_t *data, size_t size, struct error *err)
{
	size_t len = strlen(path);
	char *tmp = malloc(len + 16);

	if (!tmp)
		return fail_with(err, "out of memory");
	snprintf(tmp, len + 16, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		fail_with(err, "cannot create a temporary file beside it: %s", strerror(errno));
		free(tmp);
		return -1;
	}
	const char *what = NULL;
	int e = 0;
	for (size_t done = 0; done < size && !what;) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0) {
			what = "write error";
			e = n < 0 ? errno : EIO;
		} else {
			done += (size_t)n;
		}
	}
	if (!what && fchmod(fd, 0644) < 0)
		what = "chmod", e = errno;
	if (close(fd) < 0 && !what)
		what = "close", e = errno;
	if (!what && rename(tmp, path) < 0)
		what = "rename", e = errno;
	if (what) {
		unlink(tmp);
		free(tmp);
		return fail_with(err, "%s: %s", what, strerror(e));
	}
	free(tmp);
	return 0;
}

int parse_positive(const char *text, double *out)
{
	char *end;
	double v = strtod(text, &end);

	if (!*text || *end || !(v > 0) || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}
