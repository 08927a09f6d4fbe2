/* util.c - files and errors for the host tools. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STREAM_MAX   (2ull << 30)   /* standard input: no kernel is this large */
#define STREAM_CHUNK (1u << 20)
#define SYMLINK_MAX  40             /* Linux's MAXSYMLINKS */

int quiet;

int fail_with(struct error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void note(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* ---- reading ---------------------------------------------------------- */

static int read_all(int fd, struct buffer *out, size_t size, struct error *err)
{
	out->size = size;
	out->data = malloc(size);
	if (!out->data)
		return fail_with(err, "out of memory reading %zu bytes", size);
	for (size_t done = 0; done < size;) {
		ssize_t n = read(fd, out->data + done, size - done);
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;
			free(out->data);
			out->data = NULL;
			return fail_with(err, "read error: %s", n < 0 ? strerror(e) : "the file shrank");
		}
		done += (size_t)n;
	}
	return 0;
}

/* A pipe or a terminal: read to the end, growing the buffer. */
static int read_stream(int fd, struct buffer *out, struct error *err)
{
	size_t cap = 0, size = 0;
	uint8_t *data = NULL;

	for (;;) {
		if (size == cap) {
			if (cap >= STREAM_MAX) {
				free(data);
				return fail_with(err, "more than %llu bytes", (unsigned long long)STREAM_MAX);
			}
			cap = cap ? cap * 2 : STREAM_CHUNK;
			uint8_t *bigger = realloc(data, cap);
			if (!bigger) {
				free(data);
				return fail_with(err, "out of memory reading %zu bytes", cap);
			}
			data = bigger;
		}
		ssize_t n = read(fd, data + size, cap - size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(data);
			return fail_with(err, "read error: %s", strerror(e));
		}
		if (n == 0)
			break;
		size += (size_t)n;
	}
	if (!size) {
		free(data);
		return fail_with(err, "empty input");
	}
	out->data = data;
	out->size = size;
	return 0;
}

int read_file(const char *path, struct buffer *out, struct error *err)
{
	struct stat st, in;

	*out = (struct buffer){ 0, 0 };
	if (strcmp(path, "-") == 0) {
		if (fstat(STDIN_FILENO, &st) < 0)
			return fail_with(err, "standard input: %s", strerror(errno));
		if (S_ISREG(st.st_mode) && st.st_size > 0 && lseek(STDIN_FILENO, 0, SEEK_CUR) == 0)
			return read_all(STDIN_FILENO, out, (size_t)st.st_size, err);
		return read_stream(STDIN_FILENO, out, err);
	}
	/* O_NONBLOCK: a FIFO must not hang us before fstat can refuse it. */
	int fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fail_with(err, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		close(fd);
		return fail_with(err, "cannot stat: %s", strerror(errno));
	}
	int r;
	if (S_ISDIR(st.st_mode)) {
		r = fail_with(err, "is a directory");
	} else if (!S_ISREG(st.st_mode)) {
		/* /dev/stdin, /proc/self/fd/0: standard input by another name. */
		if (fstat(STDIN_FILENO, &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino &&
		    in.st_rdev == st.st_rdev) {
			close(fd);
			return read_file("-", out, err);
		}
		r = fail_with(err, "not a regular file (give - to read standard input)");
	} else if (st.st_size == 0) {
		r = fail_with(err, "empty file");
	} else {
		r = read_all(fd, out, (size_t)st.st_size, err);
	}
	close(fd);
	return r;
}

/* ---- writing ---------------------------------------------------------- */

/* The temporary file being written, removed if a signal ends us first. */
static volatile sig_atomic_t tmp_live;
static char tmp_path[PATH_MAX + 32];

static void remove_tmp_and_die(int sig)
{
	if (tmp_live)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void guard_tmp(int on)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on ? remove_tmp_and_die : SIG_DFL);
	tmp_live = on;
}

static int write_all(int fd, const uint8_t *data, size_t size)
{
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

/* fsync, but a device or a pipe that cannot sync is no failure. */
static int sync_fd(int fd)
{
	return fsync(fd) < 0 && errno != EINVAL && errno != ENOTSUP && errno != EROFS ? -1 : 0;
}

/* path with its symlinks followed to what they name (which need not exist
 * yet): the file to write, and the directory the temporary file goes in. */
static int resolve(const char *path, char *out, size_t out_size, struct error *err)
{
	char link[PATH_MAX];
	struct stat st;

	if (strlen(path) >= out_size)
		return fail_with(err, "path too long");
	strcpy(out, path);
	for (int hops = 0; lstat(out, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
		if (hops == SYMLINK_MAX)
			return fail_with(err, "too many levels of symbolic links");
		ssize_t n = readlink(out, link, sizeof(link) - 1);
		if (n < 0)
			return fail_with(err, "readlink: %s", strerror(errno));
		link[n] = 0;
		char *slash = strrchr(out, '/');
		size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - out) + 1;
		if (dir + (size_t)n >= out_size)
			return fail_with(err, "symbolic link target too long");
		memcpy(out + dir, link, (size_t)n + 1);
	}
	return 0;
}

static void dir_of(const char *path, char *dir, size_t dir_size)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, dir_size, ".");
	else if (slash == path)
		snprintf(dir, dir_size, "/");
	else
		snprintf(dir, dir_size, "%.*s", (int)(slash - path), path);
}

/* A new file, or one with a single link: a temporary file beside it,
 * synced, renamed over it, then the directory synced.  old: the file it
 * replaces (its mode and owner are kept), or NULL. */
static int replace_file(const char *path, const struct stat *old, const uint8_t *data, size_t size,
			struct error *err)
{
	const char *what = NULL;
	int e = 0;

	if ((size_t)snprintf(tmp_path, sizeof(tmp_path), "%s.tmp.XXXXXX", path) >= sizeof(tmp_path))
		return fail_with(err, "path too long");
	guard_tmp(1);
	int fd = mkstemp(tmp_path);
	if (fd < 0) {
		e = errno;
		guard_tmp(0);
		return fail_with(err, "cannot create a temporary file beside it: %s", strerror(e));
	}
	mode_t mask = umask(0);
	umask(mask);
	mode_t mode = old ? old->st_mode & 07777 : 0666 & ~mask;
	if (write_all(fd, data, size) < 0)
		what = "write error", e = errno;
	/* Owner first: chown may clear the set-id bits fchmod then restores. */
	if (!what && old && geteuid() == 0 && fchown(fd, old->st_uid, old->st_gid) < 0)
		what = "chown", e = errno;
	if (!what && fchmod(fd, mode) < 0)
		what = "chmod", e = errno;
	if (!what && fsync(fd) < 0)
		what = "fsync", e = errno;
	if (close(fd) < 0 && !what)
		what = "close", e = errno;
	if (!what && rename(tmp_path, path) < 0)
		what = "rename", e = errno;
	if (what) {
		unlink(tmp_path);
		guard_tmp(0);
		return fail_with(err, "%s: %s", what, strerror(e));
	}
	guard_tmp(0);
	char dir[PATH_MAX];
	dir_of(path, dir, sizeof(dir));
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0 || (fsync(dfd) < 0 && errno != EINVAL)) {
		e = errno;
		if (dfd >= 0)
			close(dfd);
		return fail_with(err, "written, but its directory %s not synced: %s", dir, strerror(e));
	}
	close(dfd);
	return 0;
}

/* A file with several hard links, a device, a FIFO: written through, the
 * image complete in memory already.  A file's room is reserved first, so
 * that a full disk fails before a byte changes. */
static int write_through(int fd, int regular, const uint8_t *data, size_t size, struct error *err)
{
	int e;

	if (regular && (e = posix_fallocate(fd, 0, (off_t)size)) != 0 && e != EOPNOTSUPP && e != EINVAL)
		return fail_with(err, "cannot reserve %zu bytes: %s", size, strerror(e));
	if (write_all(fd, data, size) < 0)
		return fail_with(err, "write error: %s", strerror(errno));
	if (regular && ftruncate(fd, (off_t)size) < 0)
		return fail_with(err, "truncate: %s", strerror(errno));
	if (sync_fd(fd) < 0)
		return fail_with(err, "fsync: %s", strerror(errno));
	return 0;
}

int write_file_atomic(const char *path, const uint8_t *data, size_t size, struct error *err)
{
	char target[PATH_MAX];
	struct stat st;

	if (strcmp(path, "-") == 0) {
		if (isatty(STDOUT_FILENO))
			return fail_with(err, "standard output is a terminal: not writing a binary image there");
		if (fstat(STDOUT_FILENO, &st) < 0)
			return fail_with(err, "standard output: %s", strerror(errno));
		return write_through(STDOUT_FILENO, 0, data, size, err);
	}
	if (resolve(path, target, sizeof(target), err) < 0)
		return -1;
	if (stat(target, &st) < 0) {
		if (errno != ENOENT)
			return fail_with(err, "cannot stat: %s", strerror(errno));
		return replace_file(target, NULL, data, size, err);
	}
	if (S_ISDIR(st.st_mode))
		return fail_with(err, "is a directory");
	if (S_ISREG(st.st_mode) && st.st_nlink == 1)
		return replace_file(target, &st, data, size, err);
	if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISFIFO(st.st_mode))
		return fail_with(err, "neither a file, a device nor a FIFO: not written");
	/* No O_TRUNC: a hard-linked file keeps its old bytes until the new
	 * ones are ready to go in. */
	int fd = open(target, O_WRONLY | O_NOCTTY);
	if (fd < 0)
		return fail_with(err, "cannot open: %s", strerror(errno));
	int r = write_through(fd, S_ISREG(st.st_mode), data, size, err);
	if (close(fd) < 0 && r == 0)
		r = fail_with(err, "close: %s", strerror(errno));
	return r;
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
