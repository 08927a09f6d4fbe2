/* bench_qemu.c - see bench_qemu.h.  COM1 goes to QEMU's stdout
 * (-serial stdio), which is a pipe, so a line's arrival time is taken
 * when it arrives rather than when a log file is next polled. */
#include "bench_qemu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QEMU_MEMORY "512M"      /* Debian's kernels decompress to ~66 MB */
#define QEMU_MEMORY_UEFI "1G"   /* what ci/tests/test-efi.sh boots Debian's kernel with under OVMF */
#define QEMU_ARGS_MAX 40

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *qemu_binary(int bits)
{
	return bits == 32 ? "qemu-system-i386" : "qemu-system-x86_64";
}

int qemu_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char file[4096];

	while (path && *path) {
		size_t len = strcspn(path, ":");
		if (len > 0 && (size_t)snprintf(file, sizeof(file), "%.*s/%s", (int)len, path, name) <
				       sizeof(file) &&
		    access(file, X_OK) == 0)
			return 1;
		path += len + (path[len] == ':');
	}
	return 0;
}

int qemu_start(const char *image, const struct qemu_options *o, struct qemu_run *q,
	       struct error *err)
{
	char gdb_arg[4200], code_arg[4200], vars_arg[4200], icount_arg[4200];
	const char *argv[QEMU_ARGS_MAX];
	int n = 0, pipefd[2];

	argv[n++] = qemu_binary(o->bits);
	argv[n++] = "-nodefaults";
	argv[n++] = "-display";
	argv[n++] = "none";
	argv[n++] = "-no-reboot";
	argv[n++] = "-m";
	argv[n++] = o->pflash_code ? QEMU_MEMORY_UEFI : QEMU_MEMORY;
	if (o->pflash_code) {
		if ((size_t)snprintf(code_arg, sizeof(code_arg), "if=pflash,format=raw,unit=0,readonly=on,file=%s",
				     o->pflash_code) >= sizeof(code_arg) ||
		    (size_t)snprintf(vars_arg, sizeof(vars_arg), "if=pflash,format=raw,unit=1,file=%s",
				     o->pflash_vars) >= sizeof(vars_arg))
			return fail_with(err, "firmware path too long");
		argv[n++] = "-drive";
		argv[n++] = code_arg;
		argv[n++] = "-drive";
		argv[n++] = vars_arg;
	}
	argv[n++] = "-serial";
	argv[n++] = "stdio";
	argv[n++] = "-kernel";
	argv[n++] = image;
	if (o->append) {
		argv[n++] = "-append";
		argv[n++] = o->append;
	}
	if (o->icount) {
		if ((size_t)snprintf(icount_arg, sizeof(icount_arg), "shift=%d,sleep=off%s%s", o->icount_shift,
				     o->rr_file ? ",rr=record,rrfile=" : "", o->rr_file ? o->rr_file : "") >=
		    sizeof(icount_arg))
			return fail_with(err, "record/replay file path too long");
		argv[n++] = "-icount";
		argv[n++] = icount_arg;
	}
	if (o->gdb_socket) {
		if ((size_t)snprintf(gdb_arg, sizeof(gdb_arg), "unix:%s,server=on,wait=off",
				     o->gdb_socket) >= sizeof(gdb_arg))
			return fail_with(err, "gdbstub socket path too long");
		argv[n++] = "-gdb";
		argv[n++] = gdb_arg;
		argv[n++] = "-S";
	}
	argv[n] = NULL;

	if (pipe(pipefd) < 0)
		return fail_with(err, "pipe: %s", strerror(errno));
	fflush(NULL);
	q->pid = fork();
	if (q->pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return fail_with(err, "fork: %s", strerror(errno));
	}
	if (q->pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int log = open(o->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (in < 0 || log < 0 || dup2(in, 0) < 0 || dup2(pipefd[1], 1) < 0 || dup2(log, 2) < 0)
			_exit(127);
		close(pipefd[0]);
		/* argv's strings outlive the exec; the cast is execvp's old prototype. */
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	q->serial_fd = pipefd[0];
	q->pending_len = 0;
	return 0;
}

/* A complete line from pending, if there is one. */
static int take_line(struct qemu_run *q, char *line, size_t size)
{
	char *nl = memchr(q->pending, '\n', q->pending_len);
	size_t len, used;

	if (!nl) {
		/* A line longer than the buffer is cut here, not lost. */
		if (q->pending_len < sizeof(q->pending))
			return 0;
		len = used = q->pending_len;
	} else {
		len = (size_t)(nl - q->pending);
		used = len + 1;
	}
	while (len > 0 && q->pending[len - 1] == '\r')
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(line, q->pending, len);
	line[len] = '\0';
	memmove(q->pending, q->pending + used, q->pending_len - used);
	q->pending_len -= used;
	return 1;
}

int qemu_read_line(struct qemu_run *q, char *line, size_t size, double deadline, double *when)
{
	for (;;) {
		if (take_line(q, line, size)) {
			*when = bench_now();
			return 1;
		}
		double left = deadline - bench_now();
		if (left <= 0 || q->serial_fd < 0)
			return 0;
		struct pollfd p = { q->serial_fd, POLLIN, 0 };
		int r = poll(&p, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR)
			return 0;
		if (r <= 0)
			continue;
		ssize_t got = read(q->serial_fd, q->pending + q->pending_len,
				   sizeof(q->pending) - q->pending_len);
		if (got <= 0) {         /* QEMU exited: what is left is the last line */
			close(q->serial_fd);
			q->serial_fd = -1;
			if (q->pending_len == 0)
				return 0;
			if (q->pending_len < sizeof(q->pending))
				q->pending[q->pending_len++] = '\n';
			continue;
		}
		q->pending_len += (size_t)got;
	}
}

int qemu_running(struct qemu_run *q)
{
	if (q->pid > 0 && waitpid(q->pid, NULL, WNOHANG) == q->pid)
		q->pid = 0;
	return q->pid > 0;
}

void qemu_stop(struct qemu_run *q)
{
	if (q->pid > 0) {
		kill(q->pid, SIGKILL);
		waitpid(q->pid, NULL, 0);
		q->pid = 0;
	}
	if (q->serial_fd >= 0) {
		close(q->serial_fd);
		q->serial_fd = -1;
	}
}
