/* bench_boot.c - see bench_boot.h. */
#include "bench_boot.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_gdb.h"

#define REPORT_PREFIX "bzpack: codec="
#define ERROR_PREFIX "bzpack: error:"
#define PATH_MAX_BENCH 4096

static void qemu_stderr_path(const struct boot_env *env, char *path, size_t size)
{
	snprintf(path, size, "%s/qemu.stderr", env->dir);
}

/* QEMU's first complaint, for a boot that produced nothing. */
static int qemu_failed(const struct boot_env *env, const char *what, struct error *err)
{
	char path[PATH_MAX_BENCH], line[200] = "";
	FILE *f;

	qemu_stderr_path(env, path, sizeof(path));
	if ((f = fopen(path, "r"))) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	line[strcspn(line, "\n")] = '\0';
	return fail_with(err, "%s%s%s", what, line[0] ? "; QEMU: " : "", line);
}

/* The value of " key=" in a report line as a number; -1 if absent or not
 * all digits. */
static int report_number(const char *line, const char *key, uint64_t *v)
{
	char pat[40];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	if (!(p = strstr(line, pat)))
		return -1;
	p += strlen(pat);
	if (*p < '0' || *p > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(p, &end, 10);
	if (errno || (*end && *end != ' '))
		return -1;
	*v = n;
	return 0;
}

/* 1 if the report line carries the word " key=value". */
static int report_has(const char *line, const char *key, const char *value)
{
	char pat[64];
	const char *p;
	size_t len = (size_t)snprintf(pat, sizeof(pat), " %s=%s", key, value);

	for (p = strstr(line, pat); p; p = strstr(p + 1, pat))
		if (p[len] == ' ' || p[len] == '\0')
			return 1;
	return 0;
}

static int parse_report(const char *line, int bits, const char *codec, int efi, struct report *r,
			struct error *err)
{
	const char *c = line + strlen(REPORT_PREFIX);
	size_t len = strcspn(c, " ");

	snprintf(r->line, sizeof(r->line), "%s", line);
	if (len >= sizeof(r->codec))
		return fail_with(err, "report line: codec name too long");
	memcpy(r->codec, c, len);
	r->codec[len] = '\0';
	static const char *const keys[] = { "in", "out", "cycles", "total", "bits" };
	uint64_t *vals[] = { &r->in, &r->out, &r->cycles, &r->total, &r->bits };
	for (int i = 0; i < 5; i++)
		if (report_number(line, keys[i], vals[i]) < 0)
			return fail_with(err, "report line has no number %s=: %.200s", keys[i], line);
	if (strcmp(r->codec, codec) != 0 || r->bits != (uint64_t)bits)
		return fail_with(err, "report line is for codec=%s bits=%" PRIu64 ", not %s/%d", r->codec,
				 r->bits, codec, bits);
	if (efi && !report_has(line, "entry", "efi"))
		return fail_with(err, "booted under UEFI, but the report line does not say entry=efi: %.200s", line);
	r->cycles >>= r->icount_shift;
	r->total >>= r->icount_shift;
	/* rdtsc under icount counts at least the decoder's instructions. */
	if (r->cycles == 0 || r->total == 0 || r->out == 0)
		return fail_with(err, "report line with cycles=0, total=0 or out=0 is not a measurement");
	return 0;
}

/* A fresh copy of the firmware's variable store for one boot. */
static int copy_vars(const struct uefi_firmware *fw, const char *to, struct error *err)
{
	struct buffer vars = { 0, 0 };
	struct error why;
	int r = -1;

	if (read_file(fw->vars, &vars, &why) < 0)
		fail_with(err, "UEFI variable store: %s", why.msg);
	else
		r = write_file_atomic(to, vars.data, vars.size, err);
	free(vars.data);
	return r;
}

int boot_icount(const struct boot_env *env, const char *image, int bits, const char *codec,
		const struct uefi_firmware *fw, struct report *r, struct error *err)
{
	char path[PATH_MAX_BENCH], vars[PATH_MAX_BENCH], line[QEMU_LINE_MAX];
	struct qemu_options o = { .bits = bits, .icount = 1, .stderr_path = path };
	struct qemu_run q;
	double when, deadline = bench_now() + env->timeout;
	int status = -1;

	qemu_stderr_path(env, path, sizeof(path));
	r->icount_shift = 0;
	if (fw) {
		snprintf(vars, sizeof(vars), "%s/uefi-vars.fd", env->dir);
		if (copy_vars(fw, vars, err) < 0)
			return -1;
		o.pflash_code = fw->code;
		o.pflash_vars = vars;
		o.icount_shift = r->icount_shift = UEFI_ICOUNT_SHIFT;
	}
	if (qemu_start(image, &o, &q, err) < 0)
		return -1;
	for (;;) {
		if (!qemu_read_line(&q, line, sizeof(line), deadline, &when)) {
			if (bench_now() >= deadline)
				fail_with(err, "no report line within %g s", env->timeout);
			else
				qemu_failed(env, "QEMU exited without a report line", err);
			break;
		}
		if (strncmp(line, ERROR_PREFIX, strlen(ERROR_PREFIX)) == 0) {
			fail_with(err, "the stub failed: %.200s", line);
			break;
		}
		if (strncmp(line, REPORT_PREFIX, strlen(REPORT_PREFIX)) == 0) {
			status = parse_report(line, bits, codec, fw != NULL, r, err);
			break;
		}
	}
	qemu_stop(&q);
	return status;
}

/* QEMU makes its gdbstub socket a moment after it starts: retry until
 * then, but not past the deadline or QEMU's own exit. */
static int connect_gdbstub(const struct boot_env *env, struct qemu_run *q, struct gdb_conn *g,
			   const char *sock, double deadline, struct error *err)
{
	while (gdb_connect(g, sock, err) < 0) {
		if (!qemu_running(q))
			return qemu_failed(env, "QEMU exited before its gdbstub answered", err);
		if (bench_now() >= deadline)
			return -1;
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	return 0;
}

/* One boot stopped at entry and then at kernel (hardware breakpoints, so
 * each address counts only its first execution: the entry's breakpoint
 * is swapped for the kernel's).  With count, under -icount shift=0 and
 * rr=record, *count is the instructions between the two stops; without,
 * plain TCG, *ms the wall time. */
static int gdb_stretch(const struct boot_env *env, const char *image, int bits, const char *append,
		       uint64_t entry, uint64_t kernel, double *ms, uint64_t *count, struct error *err)
{
	char path[PATH_MAX_BENCH], sock[PATH_MAX_BENCH], rr[PATH_MAX_BENCH];
	struct qemu_options o = { .bits = bits, .append = append, .gdb_socket = sock, .stderr_path = path };
	struct qemu_run q;
	struct gdb_conn g = { -1 };
	double resumed, deadline = bench_now() + env->timeout;
	uint64_t at_entry = 0, at_kernel = 0;
	int status = -1;

	qemu_stderr_path(env, path, sizeof(path));
	snprintf(sock, sizeof(sock), "%s/gdb.sock", env->dir);
	snprintf(rr, sizeof(rr), "%s/replay.bin", env->dir);
	remove(sock);
	if (count) {
		o.icount = 1;
		o.rr_file = rr;
	}
	if (qemu_start(image, &o, &q, err) < 0)
		return -1;
	if (connect_gdbstub(env, &q, &g, sock, deadline, err) < 0 || gdb_hw_break(&g, entry, 1, deadline, err) < 0 ||
	    gdb_continue(&g, &resumed, deadline, err) < 0 ||
	    (count && gdb_icount(&g, &at_entry, deadline, err) < 0) ||
	    gdb_hw_break(&g, entry, 0, deadline, err) < 0 ||
	    gdb_hw_break(&g, kernel, 1, deadline, err) < 0 ||
	    gdb_continue(&g, &resumed, deadline, err) < 0)
		goto done;
	if (ms)
		*ms = (bench_now() - resumed) * 1e3;
	if (count) {
		if (gdb_icount(&g, &at_kernel, deadline, err) < 0)
			goto done;
		if (at_kernel <= at_entry) {
			fail_with(err, "instruction count did not advance (%" PRIu64 " to %" PRIu64 ")",
				  at_entry, at_kernel);
			goto done;
		}
		*count = at_kernel - at_entry;
	}
	status = 0;
done:
	gdb_close(&g);
	qemu_stop(&q);
	remove(sock);
	remove(rr);
	return status;
}

int boot_gdbstub_ms(const struct boot_env *env, const char *image, int bits, const char *append,
		    uint64_t entry, uint64_t kernel, double *ms, struct error *err)
{
	return gdb_stretch(env, image, bits, append, entry, kernel, ms, NULL, err);
}

int boot_count_instructions(const struct boot_env *env, const char *image, int bits, const char *append,
			    uint64_t entry, uint64_t kernel, uint64_t *count, struct error *err)
{
	return gdb_stretch(env, image, bits, append, entry, kernel, NULL, count, err);
}
