/* bench_cmd.c - `bzpack bench`: pack a kernel with every codec, boot each
 * image under QEMU and report what each codec costs and saves.
 *
 *   bzpack bench [-c LIST] [--storage-mbps MBPS] [--runs N] [--json FILE]
 *                [--svg FILE] [--save FILE] [--check FILE] [--tolerance PCT]
 *                [--qemu-timeout SECONDS] [--pack-cache DIR]
 *                [--ovmf CODE --ovmf-vars VARS] [-h] KERNEL...
 *   bzpack bench --check FILE --compare SAVED [--tolerance PCT]
 *
 * Per kernel and codec: the image is packed as `bzpack -c CODEC` packs it,
 * into a temporary directory; our decoder is timed on this host
 * (decode_speed.h); the image is booted under -icount until the stub's
 * report line (cycles=, exact and repeatable: what --check gates on); and
 * booted --runs more times under plain TCG, timed from the stub's entry
 * to the kernel's through the gdbstub.  With --ovmf, each 64-bit image is
 * also booted under that UEFI firmware, through the EFI entry, under
 * icount only: a cell of its own (bench_boot.h says why its icount clock
 * runs differently).  A Linux bzImage is also booted
 * unchanged and its own decompressor counted exactly, entry to kernel
 * entry (bench_boot.h: boot_count_instructions), and timed by the
 * gdbstub; our images of its kernel are counted the same way, so the
 * two stand side by side in one unit.
 *
 * Exit status: 0 measured (or QEMU missing and no --check), 1 a failure,
 * a failed --check or bad input, 2 bad usage. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_boot.h"
#include "bzimage.h"
#include "codecs.h"
#include "decode_speed.h"
#include "image.h"
#include "payload_cache.h"
#include "kernel.h"

#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define RUNS_DEFAULT 3
#define TOLERANCE_DEFAULT 2.0    /* percent; icount cycles are exact, so small */
#define TIMEOUT_DEFAULT 300.0    /* seconds: xz on a 60 MB vmlinux under icount */
#define HOST_MIN_RUNS 3          /* decode_speed_measure: at least these runs... */
#define HOST_MIN_SECONDS 0.3     /* ...and this long */
/* Linux needs nokaslr for its kernel to land at the ELF's physical entry,
 * where the breakpoint waits.  No earlyprintk: a decompressor built with
 * CONFIG_X86_VERBOSE_BOOTUP would then poll the UART for each character,
 * and the count would measure the console, not the decompressor. */
#define LINUX_APPEND "nokaslr console=ttyS0"

struct bench_options {
	const struct codec *codecs[64];
	size_t ncodecs;
	double storage_mbps, tolerance, timeout;
	unsigned runs;
	const char *json, *svg, *save, *check;
	const char *compare;            /* --compare: gate a --save file, boot nothing */
	const char *cache_dir;          /* --pack-cache (payload_cache.h) */
	struct uefi_firmware ovmf;      /* --ovmf, --ovmf-vars: code NULL when not asked */
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: bzpack bench [options] KERNEL...\n"
		"       bzpack bench --check=FILE --compare=SAVED [--tolerance=PCT]\n"
		"Pack each KERNEL (a vmlinux or a bzImage) with every codec, boot each image\n"
		"under QEMU and print what it costs: image bytes, ratio, icount cycles to\n"
		"decompress, cycles per byte, our decoder's speed on this host, the estimated\n"
		"time to kernel, and wall time from the stub's entry to the kernel's.  A Linux\n"
		"bzImage's own decompressor, and ours on its kernel, are counted exactly too:\n"
		"guest instructions from the entry to the kernel's entry (the cell\n"
		"KERNEL/CODEC/BITS/linux that --save and --check gate).\n"
		"\n"
		"  -c, --codecs=LIST        comma-separated codecs (default: all: %s)\n"
		"      --storage-mbps=MBPS  storage read speed for the estimate (default %.0f,\n"
		"                           a typical SATA SSD)\n"
		"      --runs=N             wall-clock boots per image, median taken (default %d;\n"
		"                           0: icount only)\n"
		"      --json=FILE          write the results as JSON\n"
		"      --svg=FILE           write a chart of time to kernel\n"
		"      --save=FILE          write a baseline of every cell's cycles and size\n"
		"      --check=FILE         exit 1 if a cell is worse than the baseline FILE\n"
		"      --tolerance=PCT      what --check lets pass (default %g%%)\n"
		"      --compare=SAVED      --check the cells of SAVED (written by --save)\n"
		"                           instead of measuring: no KERNEL, no QEMU\n"
		"      --qemu-timeout=SECS  give up on a boot after this long (default %.0f)\n"
		"      --pack-cache=DIR     keep compressed payloads in DIR and reuse them\n"
		"      --ovmf=CODE          also boot each 64-bit image under this UEFI firmware\n"
		"                           (OVMF's pflash code) through the EFI entry: cells\n"
		"                           KERNEL/CODEC/64/ovmf, icount only; needs --ovmf-vars\n"
		"      --ovmf-vars=VARS     OVMF's variable store (copied afresh for every boot)\n"
		"  -h, --help               this help\n"
		"Exit status: 0 done (also without QEMU, unless --check), 1 a cell that would\n"
		"not pack or boot, bad input, or a failed --check, 2 bad usage.\n",
		codec_names(), STORAGE_MBPS_DEFAULT, RUNS_DEFAULT, TOLERANCE_DEFAULT, TIMEOUT_DEFAULT);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A positive number for option name; -1 after saying why. */
static double positive_number(const char *name, const char *s, int allow_zero)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);

	if (errno || end == s || *end || !(allow_zero ? v >= 0 : v > 0) || v > 1e12) {
		fprintf(stderr, "bzpack: bench: --%s takes a %s number, not '%s'\n", name,
			allow_zero ? "non-negative" : "positive", s);
		return -1;
	}
	return v;
}

static int codec_list(struct bench_options *o, const char *list)
{
	char name[64];

	o->ncodecs = 0;
	while (*list) {
		size_t len = strcspn(list, ",");
		if (len == 0 || len >= sizeof(name)) {
			fprintf(stderr, "bzpack: bench: bad codec list '%s'\n", list);
			return -1;
		}
		memcpy(name, list, len);
		name[len] = '\0';
		const struct codec *c = codec_by_name(name);
		if (!c) {
			fprintf(stderr, "bzpack: bench: unknown codec '%s' (%s)\n", name, codec_names());
			return -1;
		}
		for (size_t i = 0; i < o->ncodecs; i++) {
			if (o->codecs[i] == c) {
				fprintf(stderr, "bzpack: bench: codec '%s' given twice\n", name);
				return -1;
			}
		}
		if (o->ncodecs == sizeof(o->codecs) / sizeof(o->codecs[0])) {
			fprintf(stderr, "bzpack: bench: too many codecs in '%s'\n", list);
			return -1;
		}
		o->codecs[o->ncodecs++] = c;
		list += len + (list[len] == ',');
	}
	if (o->ncodecs == 0) {
		fprintf(stderr, "bzpack: bench: -c needs at least one codec\n");
		return -1;
	}
	return 0;
}

/* 0, -1 (bad usage, said), or 1 for --help. */
static int parse_options(int argc, char **argv, struct bench_options *o)
{
	static const struct option options[] = {
		{ "codecs", required_argument, 0, 'c' },
		{ "storage-mbps", required_argument, 0, 'S' },
		{ "runs", required_argument, 0, 'r' },
		{ "json", required_argument, 0, 'j' },
		{ "svg", required_argument, 0, 'g' },
		{ "save", required_argument, 0, 's' },
		{ "check", required_argument, 0, 'k' },
		{ "tolerance", required_argument, 0, 't' },
		{ "compare", required_argument, 0, 'C' },
		{ "qemu-timeout", required_argument, 0, 'T' },
		{ "pack-cache", required_argument, 0, 'P' },
		{ "ovmf", required_argument, 0, 'O' },
		{ "ovmf-vars", required_argument, 0, 'V' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	/* The options that take a number, and where it goes. */
	const struct { int opt; const char *name; double *to; int allow_zero; } numbers[] = {
		{ 'S', "storage-mbps", &o->storage_mbps, 0 },
		{ 't', "tolerance", &o->tolerance, 1 },
		{ 'T', "qemu-timeout", &o->timeout, 0 },
	};
	int opt;
	double v;

	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < codec_count && i < sizeof(o->codecs) / sizeof(o->codecs[0]); i++)
		o->codecs[o->ncodecs++] = &codecs[i];
	o->storage_mbps = STORAGE_MBPS_DEFAULT;
	o->tolerance = TOLERANCE_DEFAULT;
	o->timeout = TIMEOUT_DEFAULT;
	o->runs = RUNS_DEFAULT;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "c:h", options, NULL)) != -1) {
		size_t n = 0;
		while (n < sizeof(numbers) / sizeof(numbers[0]) && numbers[n].opt != opt)
			n++;
		if (n < sizeof(numbers) / sizeof(numbers[0])) {
			if ((*numbers[n].to = positive_number(numbers[n].name, optarg, numbers[n].allow_zero)) < 0)
				return -1;
			continue;
		}
		switch (opt) {
		case 'c':
			if (codec_list(o, optarg) < 0)
				return -1;
			break;
		case 'r':
			if ((v = positive_number("runs", optarg, 1)) < 0 || v > 1000 || v != (unsigned)v) {
				if (v >= 0)
					fprintf(stderr, "bzpack: bench: --runs takes a whole number up to 1000\n");
				return -1;
			}
			o->runs = (unsigned)v;
			break;
		case 'P': o->cache_dir = optarg; break;
		case 'O': o->ovmf.code = optarg; break;
		case 'V': o->ovmf.vars = optarg; break;
		case 'j': o->json = optarg; break;
		case 'g': o->svg = optarg; break;
		case 's': o->save = optarg; break;
		case 'k': o->check = optarg; break;
		case 'C': o->compare = optarg; break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			if (optopt && optopt != '?')
				fprintf(stderr, "bzpack: bench: option -%c %s\n", optopt,
					optopt == 'c' ? "needs an argument" : "is unknown");
			else
				fprintf(stderr, "bzpack: bench: unknown option or missing argument '%s'\n",
					argv[optind - 1]);
			return -1;
		}
	}
	if (!o->ovmf.code != !o->ovmf.vars) {
		fprintf(stderr, "bzpack: bench: --ovmf and --ovmf-vars go together (OVMF's code and its variable store)\n");
		return -1;
	}
	if (o->compare) {
		if (!o->check || optind < argc || o->json || o->svg || o->save || o->ovmf.code) {
			fprintf(stderr, "bzpack: bench: --compare goes with --check (and --tolerance) alone, no KERNEL\n");
			return -1;
		}
		return 0;
	}
	if (optind >= argc) {
		fprintf(stderr, "bzpack: bench: no KERNEL given\n");
		return -1;
	}
	/* Cells are keyed by the file's name: two alike would share keys. */
	for (int i = optind; i < argc; i++) {
		for (int j = optind; j < i; j++) {
			if (strcmp(base_name(argv[i]), base_name(argv[j])) == 0) {
				fprintf(stderr, "bzpack: bench: %s and %s have the same name; "
						"cells are keyed by it\n", argv[j], argv[i]);
				return -1;
			}
		}
	}
	return 0;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* --runs boots through one timing method; the median and the spread. */
typedef int (*wall_fn)(const struct boot_env *env, const void *arg, double *ms, struct error *err);

static void wall_runs(const struct boot_env *env, unsigned runs, const char *method, wall_fn fn,
		      const void *arg, struct bench_wall *w)
{
	double ms[1000];
	struct error err;

	w->method = NULL;
	if (runs == 0) {
		snprintf(w->why, sizeof(w->why), "--runs 0");
		return;
	}
	for (unsigned i = 0; i < runs; i++) {
		if (fn(env, arg, &ms[i], &err) != 0) {
			snprintf(w->why, sizeof(w->why), "%s", err.msg);
			return;
		}
	}
	qsort(ms, runs, sizeof(ms[0]), compare_doubles);
	w->method = method;
	w->runs = runs;
	w->min_ms = ms[0];
	w->max_ms = ms[runs - 1];
	w->median_ms = runs % 2 ? ms[runs / 2] : (ms[runs / 2 - 1] + ms[runs / 2]) / 2;
}

/* What one timed boot runs: the image, its command line, and for the
 * gdbstub its entry and the kernel's. */
struct boot_target {
	const char *image, *append;
	int bits;
	uint64_t entry, kernel;
};

static int gdb_once(const struct boot_env *env, const void *arg, double *ms, struct error *err)
{
	const struct boot_target *t = arg;

	return boot_gdbstub_ms(env, t->image, t->bits, t->append, t->entry, t->kernel, ms, err);
}

/* The 32-bit entry a loader jumps to (code32_start), from the image's
 * own header. */
static int image_entry(const struct buffer *image, uint64_t *entry, struct error *err)
{
	struct bzimage_info info;

	if (bzimage_extract(image, NULL, &info, err) < 0)
		return -1;
	*entry = info.code32_start;
	return 0;
}

struct bench_run {
	const struct bench_options *o;
	struct bench_result *r;
	struct boot_env env;
	int qemu32, qemu64;        /* each QEMU binary is on PATH */
	int failures;              /* cells QEMU was there for but that did not measure */
};

static struct bench_cell *new_cell(struct bench_result *r)
{
	struct bench_cell *grown = realloc(r->cells, (r->ncells + 1) * sizeof(*grown));

	if (!grown)
		return NULL;
	r->cells = grown;
	memset(&r->cells[r->ncells], 0, sizeof(r->cells[0]));
	return &r->cells[r->ncells++];
}

/* Boot the image at path under icount, by the cell's loader, and keep
 * its report line in the cell, or why there is none. */
static void boot_cell(struct bench_run *b, const char *name, struct bench_cell *cell,
		      const char *path, const struct uefi_firmware *fw)
{
	struct report rep;
	struct error why;

	fprintf(stderr, "bzpack bench: %s: %s: booting under icount%s\n", name, cell->codec,
		fw ? " and OVMF" : "");
	if (boot_icount(&b->env, path, cell->bits, cell->codec, fw, &rep, &why) < 0) {
		snprintf(cell->error, sizeof(cell->error), "%s", why.msg);
		snprintf(cell->wall.why, sizeof(cell->wall.why), "the icount boot failed");
		fprintf(stderr, "bzpack: %s: %s%s: %s\n", name, cell->codec, fw ? " under OVMF" : "", why.msg);
		b->failures++;
		return;
	}
	cell->booted = 1;
	cell->cycles = rep.cycles;
	cell->total = rep.total;
	cell->icount_shift = rep.icount_shift;
	cell->error[0] = '\0';
	snprintf(cell->report, sizeof(cell->report), "%s", rep.line);
}

/* The same image under OVMF, through the EFI entry: a cell of its own,
 * icount only (the firmware loads the PE where it likes, so there is no
 * fixed entry address for the gdbstub's breakpoint). */
static int bench_ovmf(struct bench_run *b, const char *name, const char *path, size_t bios_cell,
		      struct error *err)
{
	struct bench_cell *cell = new_cell(b->r);

	if (!cell)
		return fail_with(err, "out of memory");
	*cell = b->r->cells[bios_cell];   /* the same image: its sizes and host columns */
	cell->loader = BENCH_LOADER_OVMF;
	cell->booted = 0;
	cell->cycles = 0;
	cell->total = 0;
	cell->report[0] = '\0';
	memset(&cell->wall, 0, sizeof(cell->wall));
	snprintf(cell->error, sizeof(cell->error), "%s not on PATH", qemu_binary(64));
	snprintf(cell->wall.why, sizeof(cell->wall.why), "%s", b->qemu64 ? "OVMF: icount only" : "no QEMU");
	if (b->qemu64)
		boot_cell(b, name, cell, path, &b->o->ovmf);
	return 0;
}

/* Exact instructions from t's entry to its kernel's, into n; a failure
 * is counted and said. */
static void count_to_kernel(struct bench_run *b, const char *name, const char *what,
			    const struct boot_target *t, struct bench_count *n)
{
	struct error why;

	fprintf(stderr, "bzpack bench: %s: %s: counting instructions, entry to kernel entry\n", name, what);
	if (boot_count_instructions(&b->env, t->image, t->bits, t->append, t->entry, t->kernel,
				    &n->instructions, &why) < 0) {
		n->counted = 0;
		snprintf(n->why, sizeof(n->why), "%s", why.msg);
		fprintf(stderr, "bzpack: %s: %s: instruction count: %s\n", name, what, why.msg);
		b->failures++;
		return;
	}
	n->counted = 1;
	n->why[0] = '\0';
}

/* Pack k with c into the temporary directory, time our decoder, boot. */
static int bench_codec(struct bench_run *b, const char *name, const char *id, const struct kernel *k,
		       const struct codec *c, int linux_image, struct error *err)
{
	struct buffer payload = { 0, 0 }, image = { 0, 0 };
	struct image_layout layout;
	struct decode_speed speed;
	char path[4096];
	int r = -1, have_qemu = k->bits == 32 ? b->qemu32 : b->qemu64;
	struct bench_cell *cell = new_cell(b->r);
	size_t index = b->r->ncells - 1;

	if (!cell)
		return fail_with(err, "out of memory");
	snprintf(cell->kernel, sizeof(cell->kernel), "%s", name);
	snprintf(cell->kernel_id, sizeof(cell->kernel_id), "%s", id);
	cell->codec = c->name;
	cell->bits = k->bits;
	cell->loader = BENCH_LOADER_BIOS;
	cell->out_bytes = k->blob.size;
	snprintf(cell->wall.why, sizeof(cell->wall.why), "no QEMU");
	snprintf(cell->error, sizeof(cell->error), "%s not on PATH", qemu_binary(k->bits));
	snprintf(cell->to_kernel.why, sizeof(cell->to_kernel.why), "%s",
		 linux_image ? "no QEMU" : "counted for a Linux bzImage's kernel only");

	fprintf(stderr, "bzpack bench: %s: %s: packing %zu bytes\n", name, c->name, k->blob.size);
	if (codec_compress_cached(b->o->cache_dir, c, LEVEL_DEFAULT, &k->blob, &payload, NULL, err) < 0 ||
	    image_build(k, c, LEVEL_DEFAULT, &payload, NULL, NULL, 0, &image, &layout, err) < 0)
		goto done;
	cell->image_bytes = image.size;
	fprintf(stderr, "bzpack bench: %s: %s: timing our decoder on this host\n", name, c->name);
	if (decode_speed_measure(c, &payload, k->blob.size, 0, HOST_MIN_RUNS, HOST_MIN_SECONDS, &speed,
				 err) < 0)
		goto done;
	cell->host_mbps = speed.best_mbps;
	cell->ttk_ms = time_to_kernel_ms(image.size, k->blob.size, b->o->storage_mbps, speed.best_mbps, 1.0);
	r = 0;
	if (!have_qemu)
		goto ovmf;

	/* nokaslr: a kernel with a relocation table would otherwise run at a
	 * random address (stub/kaslr.c), not at the entry the breakpoint
	 * waits at. */
	struct boot_target t = { path, "nokaslr", k->bits, 0, k->entry };
	snprintf(path, sizeof(path), "%s/%s.img", b->env.dir, c->name);
	if (write_file_atomic(path, image.data, image.size, err) < 0 || image_entry(&image, &t.entry, err) < 0) {
		r = -1;
		goto done;
	}
	boot_cell(b, name, cell, path, NULL);
	if (cell->booted && linux_image)
		count_to_kernel(b, name, c->name, &t, &cell->to_kernel);
	if (cell->booted) {
		if (b->o->runs)
			fprintf(stderr, "bzpack bench: %s: %s: %u wall-clock boots (gdbstub)\n", name, c->name,
				b->o->runs);
		wall_runs(&b->env, b->o->runs, "gdbstub", gdb_once, &t, &cell->wall);
		if (!cell->wall.method && b->o->runs) {
			fprintf(stderr, "bzpack: %s: %s: wall clock: %s\n", name, c->name, cell->wall.why);
			b->failures++;
		}
	}
ovmf:
	/* Only 64-bit stubs have the EFI entry.  Without QEMU the OVMF cell
	 * is there all the same, not measured, so that --check names it. */
	if (k->bits == 64 && b->o->ovmf.code)
		r = bench_ovmf(b, name, path, index, err);
done:
	free(payload.data);
	free(image.data);
	return r;
}

/* Linux's own decompressor: the bzImage as given, counted exactly, then
 * --runs wall-clock boots. */
static int bench_linux(struct bench_run *b, const char *path, const char *name, const char *id,
		       const struct buffer *file, const struct bzimage_info *info, const struct kernel *k,
		       struct error *err)
{
	struct bench_result *r = b->r;
	struct bench_linux *grown = realloc(r->linux_runs, (r->nlinux + 1) * sizeof(*grown));

	if (!grown)
		return fail_with(err, "out of memory");
	r->linux_runs = grown;
	struct bench_linux *l = &r->linux_runs[r->nlinux++];
	memset(l, 0, sizeof(*l));
	snprintf(l->kernel, sizeof(l->kernel), "%s", name);
	snprintf(l->kernel_id, sizeof(l->kernel_id), "%s", id);
	l->codec = info->codec;
	l->bits = k->bits;
	l->image_bytes = file->size;
	l->out_bytes = k->blob.size;
	snprintf(l->gdbstub.why, sizeof(l->gdbstub.why), "no QEMU");
	snprintf(l->count.why, sizeof(l->count.why), "no QEMU");
	if (!(k->bits == 32 ? b->qemu32 : b->qemu64))
		return 0;

	struct boot_target t = { path, LINUX_APPEND, k->bits, info->code32_start, k->entry };
	char what[64];
	snprintf(what, sizeof(what), "Linux's own %s decompressor", info->codec);
	count_to_kernel(b, name, what, &t, &l->count);
	if (b->o->runs == 0) {
		snprintf(l->gdbstub.why, sizeof(l->gdbstub.why), "--runs 0");
		return 0;
	}
	fprintf(stderr, "bzpack bench: %s: %s: %u wall-clock boots (gdbstub)\n", name, what, b->o->runs);
	wall_runs(&b->env, b->o->runs, "gdbstub", gdb_once, &t, &l->gdbstub);
	if (!l->gdbstub.method) {
		fprintf(stderr, "bzpack: %s: Linux's decompressor, gdbstub: %s\n", name, l->gdbstub.why);
		b->failures++;
	}
	return 0;
}

static int bench_kernel(struct bench_run *b, const char *path, struct error *err)
{
	struct buffer file = { 0, 0 };
	struct bzimage_info info;
	struct kernel k;
	int r = -1, linux_image = 0;

	memset(&k, 0, sizeof(k));
	if (read_file(path, &file, err) < 0)
		goto done;
	if (bzimage_detect(&file)) {
		if (bzimage_kernel(&file, 0, &k, &info, err) < 0)
			goto done;
		linux_image = !info.ours;
	} else if (kernel_from_elf(&file, 0, &k, err) < 0) {
		goto done;
	}
	const char *name = base_name(path);
	/* A Linux bzImage is known by its version string, which names its
	 * build (a distribution's next kernel is another one); a kernel of
	 * our own by its name. */
	char id[BENCH_ID_MAX];
	if (linux_image)
		snprintf(id, sizeof(id), BENCH_LINUX_ID "%s", info.kernel_version);
	else
		snprintf(id, sizeof(id), "%s", name);
	for (size_t i = 0; i < b->o->ncodecs; i++)
		if (bench_codec(b, name, id, &k, b->o->codecs[i], linux_image, err) < 0)
			goto done;
	r = linux_image ? bench_linux(b, path, name, id, &file, &info, &k, err) : 0;
done:
	free(file.data);
	free(k.blob.data);
	return r;
}

/* Remove the temporary directory and what the run left in it. */
static void remove_dir(const char *dir)
{
	char path[4096 + 256 + 2];  /* dir, '/', a d_name */
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		remove(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int bench_main(int argc, char **argv)
{
	struct bench_options o;
	struct bench_result r = { .cells = NULL };
	struct bench_run b = { &o, &r, { NULL, 0 }, 0, 0, 0 };
	struct error err;
	char dir[4096];
	int status = EXIT_FAILED, p = parse_options(argc, argv, &o);

	if (p < 0)  /* after the one line saying what was wrong, as bzpack's own */
		fprintf(stderr, "Try 'bzpack bench --help' for more information.\n");
	if (p != 0)
		return p > 0 ? 0 : EXIT_USAGE;
	if (o.compare) {
		int c = bench_check_saved(o.check, o.compare, o.tolerance, &err);
		if (c < 0)
			fprintf(stderr, "bzpack: %s\n", err.msg);
		return c == 0 ? 0 : EXIT_FAILED;
	}
	/* Firmware that is not there is bad input, said once, before any boot. */
	const char *firmware[] = { o.ovmf.code, o.ovmf.vars };
	for (int i = 0; i < 2; i++) {
		if (firmware[i] && access(firmware[i], R_OK) != 0) {
			fprintf(stderr, "bzpack: %s: %s\n", firmware[i], strerror(errno));
			return EXIT_FAILED;
		}
	}
	r.storage_mbps = o.storage_mbps;
	r.ovmf = o.ovmf.code != NULL;
	b.env.timeout = o.timeout;
	b.qemu32 = qemu_on_path(qemu_binary(32));
	b.qemu64 = qemu_on_path(qemu_binary(64));
	r.qemu = b.qemu32 && b.qemu64;
	if (!b.qemu64 || !b.qemu32)
		fprintf(stderr, "bzpack bench: %s not on PATH: the QEMU columns are not measured\n",
			!b.qemu64 && !b.qemu32 ? "qemu-system-x86_64 and qemu-system-i386" :
			qemu_binary(b.qemu64 ? 32 : 64));
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/bzpack-bench.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "bzpack: %s: %s\n", dir, strerror(errno));
		return EXIT_FAILED;
	}
	b.env.dir = dir;

	for (int i = optind; i < argc; i++) {
		if (bench_kernel(&b, argv[i], &err) < 0) {
			fprintf(stderr, "bzpack: %s: %s\n", argv[i], err.msg);
			goto out;
		}
	}
	bench_print_table(&r);
	const char *culprit = NULL;
	if (o.json && bench_write_json(o.json, &r, &err) < 0)
		culprit = o.json;
	else if (o.svg && bench_write_svg(o.svg, &r, &err) < 0)
		culprit = o.svg;
	else if (o.save && bench_save(o.save, &r, &err) < 0)
		culprit = o.save;
	if (culprit) {
		fprintf(stderr, "bzpack: %s: %s\n", culprit, err.msg);
		goto out;
	}
	status = b.failures ? EXIT_FAILED : 0;
	if (o.check) {
		int c = bench_check(o.check, &r, o.tolerance, &err);
		if (c < 0)   /* err names the file */
			fprintf(stderr, "bzpack: %s\n", err.msg);
		if (c != 0)
			status = EXIT_FAILED;
	}
out:
	remove_dir(dir);
	free(r.cells);
	free(r.linux_runs);
	return status;
}
