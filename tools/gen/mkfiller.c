/*
 * mkfiller.c - deterministic "kernel-like" filler for the test kernels.
 *
 *   mkfiller SIZE OUT.bin OUT.h
 *
 * Writes SIZE bytes (the build uses 3 MiB) that compress with LZ4 roughly
 * like a real vmlinux does: a mix of x86-64-looking machine code (function
 * prologues and epilogues, calls with rel32 displacements, field loads and
 * stores), English-like text and log messages, runs of zeros (small gaps and
 * whole pages), tables of little-endian pointers into 0xffffffff81xxxxxx,
 * arrays of small structures, and a few percent of genuinely random bytes.
 *
 * Everything comes from one fixed-seed xorshift PRNG, so every run writes
 * the same bytes.  OUT.h gets FILLER_SIZE and FILLER_CRC32C (computed with
 * stub/crc32c.c, the same code the test kernels check it with).  Both
 * outputs are written to a temporary file beside the target and renamed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"

#define FILLER_SEED     0x62a7f11e5eed0b2eull
#define FILLER_MAX_SIZE (256u << 20)          /* sanity cap: 256 MiB */
#define KERNEL_VBASE    0xffffffff81000000ull /* __START_KERNEL_map + 16 MiB */
#define HOT_FUNCS       48                    /* printk, kmalloc, ... lookalikes */
#define PAGE            4096u

/* ---- PRNG: xorshift64* ------------------------------------------------ */

static uint64_t rng_state = FILLER_SEED;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Uniform enough in [0, n) for filler purposes; n > 0. */
static uint32_t below(uint32_t n)
{
	return (uint32_t)((rnd() >> 32) % n);
}

/* Uniform in [lo, hi]. */
static uint32_t range(uint32_t lo, uint32_t hi)
{
	return lo + below(hi - lo + 1);
}

/* True with probability pct percent. */
static int chance(uint32_t pct)
{
	return below(100) < pct;
}

/* ---- output buffer ---------------------------------------------------- */

static uint8_t *buf;
static size_t buf_size;
static size_t pos;

static void put8(uint32_t v)
{
	if (pos < buf_size)
		buf[pos++] = (uint8_t)v;
}

static void put16(uint32_t v)
{
	put8(v);
	put8(v >> 8);
}

static void put32(uint32_t v)
{
	put16(v);
	put16(v >> 16);
}

static void put64(uint64_t v)
{
	put32((uint32_t)v);
	put32((uint32_t)(v >> 32));
}

static void put_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n--)
		put8(*b++);
}

static void put_str(const char *s)
{
	put_bytes(s, strlen(s));
}

/* Decimal number as text. */
static void put_dec(uint64_t v)
{
	char tmp[24];
	snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	put_str(tmp);
}

static void put_hex(uint64_t v, int digits)
{
	char tmp[24];
	snprintf(tmp, sizeof(tmp), "%0*" PRIx64, digits, v);
	put_str(tmp);
}

static void align_with(size_t a, uint8_t fill)
{
	while (pos % a && pos < buf_size)
		put8(fill);
}

/* ---- machine code ----------------------------------------------------- */

/* Offsets (within the filler) of a few "popular" functions every code
 * chunk calls, like printk or kmalloc in a real kernel, and of every
 * function emitted so far (for calls back to earlier code). */
static uint32_t hot_func[HOT_FUNCS];
static uint32_t *funcs;
static size_t nfuncs, funcs_cap;

static void remember_func(uint32_t off)
{
	if (nfuncs == funcs_cap) {
		funcs_cap = funcs_cap ? funcs_cap * 2 : 1024;
		funcs = realloc(funcs, funcs_cap * sizeof(*funcs));
		if (!funcs) {
			perror("mkfiller: realloc");
			exit(1);
		}
	}
	funcs[nfuncs++] = off;
}

/* call rel32 to a hot function most of the time, else an earlier one. */
static void emit_call(void)
{
	uint32_t target;

	if (nfuncs == 0 || chance(65))
		target = hot_func[below(chance(50) ? 8 : HOT_FUNCS)];
	else
		target = funcs[below((uint32_t)nfuncs)];
	put8(0xe8);
	put32(target - (uint32_t)(pos + 4));
}

/* A random register 0..7 other than rsp (4) and rbp (5). */
static uint32_t greg(void)
{
	static const uint8_t regs[] = { 0, 1, 2, 3, 6, 7 };
	return regs[below(sizeof(regs))];
}

/* One instruction of a function body. */
static void emit_insn(void)
{
	uint32_t r = greg(), s = greg();

	switch (below(20)) {
	case 0: case 1:         /* mov r64, r64 */
		put8(0x48); put8(0x89); put8(0xc0 | s << 3 | r);
		break;
	case 2:                 /* mov r64, [rbp - 8k] */
		put8(0x48); put8(0x8b); put8(0x45 | r << 3); put8(0x100 - 8 * range(1, 8));
		break;
	case 3:                 /* mov [rbp - 8k], r64 */
		put8(0x48); put8(0x89); put8(0x45 | r << 3); put8(0x100 - 8 * range(1, 8));
		break;
	case 4: case 5:         /* mov r64, [rdi + 8k]: structure field */
		put8(0x48); put8(0x8b); put8(0x47 | r << 3); put8(8 * below(16));
		break;
	case 6:                 /* mov r32, imm32: small constants or -Exxx */
		put8(0xb8 | r);
		put32(chance(70) ? below(256) : 0u - range(1, 40));
		break;
	case 7: case 8:         /* test r32, r32; je/jne rel8 */
		put8(0x85); put8(0xc0 | r << 3 | r);
		put8(chance(50) ? 0x74 : 0x75); put8(range(2, 0x40));
		break;
	case 9:                 /* cmp r64, imm8; jbe rel8 */
		put8(0x48); put8(0x83); put8(0xf8 | r); put8(below(64));
		put8(0x76); put8(range(2, 0x30));
		break;
	case 10: case 11: case 12:
		emit_call();
		break;
	case 13:                /* lea rdi, [rip + disp32]: a string in rodata */
		put8(0x48); put8(0x8d); put8(0x3d);
		put32(0x00a00000u + below(0x40000) * 4 - (uint32_t)pos);
		break;
	case 14:                /* xor r32, r32 */
		put8(0x31); put8(0xc0 | r << 3 | r);
		break;
	case 15:                /* mov dword [rdi + 8k], imm32 */
		put8(0xc7); put8(0x47); put8(8 * below(16));
		put32(chance(80) ? below(16) : (uint32_t)rnd());
		break;
	case 16:                /* mov rax, gs:[current_task] (per-cpu) */
		put8(0x65); put8(0x48); put8(0x8b); put8(0x04); put8(0x25); put32(0x0001fdc0);
		break;
	case 17:                /* jmp/je rel32 */
		if (chance(50)) {
			put8(0xe9);
		} else {
			put8(0x0f); put8(0x84);
		}
		put32(range(0x10, 0x400));
		break;
	case 18:                /* mov r32, [rsi + 4k] */
		put8(0x8b); put8(0x46 | r << 3); put8(4 * below(32));
		break;
	default:                /* add/sub r64, imm8 */
		put8(0x48); put8(0x83); put8((chance(50) ? 0xc0 : 0xe8) | r); put8(below(128));
		break;
	}
}

/* One function: endbr64 / prologue / body / epilogue, int3-padded to 16. */
static void emit_function(void)
{
	/* push r15, r14, r13, r12, rbx; the pop of each is the push + 8 */
	static const uint8_t pushes[][2] = {
		{ 0x41, 0x57 }, { 0x41, 0x56 }, { 0x41, 0x55 }, { 0x41, 0x54 }, { 0x53, 0 },
	};
	uint32_t npush = below(6), frame = chance(40) ? 8 * range(1, 12) : 0;

	align_with(16, 0xcc);
	remember_func((uint32_t)pos);
	if (chance(70)) {       /* endbr64 */
		put8(0xf3); put8(0x0f); put8(0x1e); put8(0xfa);
	}
	if (chance(60)) {       /* call __fentry__ */
		put8(0xe8); put32(hot_func[0] - (uint32_t)(pos + 4));
	}
	put8(0x55); put8(0x48); put8(0x89); put8(0xe5);     /* push rbp; mov rbp, rsp */
	for (uint32_t i = 0; i < npush && i < 5; i++)
		put_bytes(pushes[i], pushes[i][1] ? 2 : 1);
	if (frame) {            /* sub rsp, imm8 */
		put8(0x48); put8(0x83); put8(0xec); put8(frame);
	}
	for (uint32_t n = range(3, 40); n; n--)
		emit_insn();
	if (frame) {            /* add rsp, imm8 */
		put8(0x48); put8(0x83); put8(0xc4); put8(frame);
	}
	for (uint32_t i = npush < 5 ? npush : 5; i--; ) {   /* pops, reverse order */
		if (pushes[i][1]) {
			put8(0x41); put8(pushes[i][1] + 8);
		} else {
			put8(0x5b);
		}
	}
	put8(0x5d);             /* pop rbp */
	put8(0xc3);             /* ret */
}

static void chunk_code(size_t len)
{
	size_t end = pos + len;
	while (pos < end && pos < buf_size)
		emit_function();
}

/* ---- text ------------------------------------------------------------- */

static const char *const words[] = {
	"the", "of", "and", "to", "in", "is", "for", "on", "with", "not", "by",
	"device", "driver", "memory", "page", "table", "cpu", "irq", "timer",
	"clock", "buffer", "queue", "request", "failed", "unable", "allocate",
	"register", "mapping", "region", "resource", "interrupt", "controller",
	"bus", "pci", "usb", "block", "inode", "file", "mount", "filesystem",
	"module", "kernel", "task", "process", "thread", "signal", "lock",
	"mutex", "spinlock", "cache", "node", "zone", "free", "reserved",
	"invalid", "argument", "address", "range", "firmware", "version",
	"support", "enabled", "disabled", "initialized", "probe", "reset",
	"link", "network", "socket", "packet", "header", "checksum", "error",
	"warning", "timeout", "waiting", "completed", "status", "power",
	"state", "suspend", "resume", "console", "serial", "port", "boot",
	"setup", "entry", "vector", "handler", "context", "switch", "user",
	"space", "stack", "frame", "trace", "debug", "info", "notice",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

static const char *const subsys[] = {
	"ACPI", "PCI", "usb", "ext4", "EXT4-fs", "xhci_hcd", "e1000e", "NET",
	"x86/mm", "smpboot", "clocksource", "tsc", "rcu", "workqueue", "audit",
	"Memory", "SLUB", "pci_bus", "ata1", "scsi", "sd", "virtio_blk",
};
#define NSUBSYS (sizeof(subsys) / sizeof(subsys[0]))

static const char *word(void)
{
	/* Zipf-ish: the first words are much more common. */
	uint32_t i = below(NWORDS);
	return words[chance(40) ? i % 12 : i];
}

/* printk-style messages with numbers: "\0013ext4: failed to ... 4096\n\0" */
static void emit_message(void)
{
	put8(0x01);             /* KERN_SOH */
	put8('0' + below(8));   /* log level */
	put_str(subsys[below(NSUBSYS)]);
	put_str(": ");
	for (uint32_t n = range(2, 9); n; n--) {
		put_str(word());
		put8(' ');
	}
	switch (below(5)) {
	case 0:
		put_str("(err=");
		put_dec(range(1, 130));
		put_str(")");
		break;
	case 1:
		put_str("at 0x");
		put_hex(KERNEL_VBASE + below(1u << 24), 16);
		break;
	case 2:
		put_dec(below(1u << 20));
		put_str(" bytes");
		break;
	case 3:
		put_str("%s %d %lx");
		break;
	default:
		put_str(word());
		break;
	}
	put8('\n');
	put8(0);
}

/* kallsyms-style symbol names: "vfs_read\0do_sys_open\0" */
static void emit_symbol_name(void)
{
	if (chance(30))
		put_str("__");
	put_str(word());
	for (uint32_t n = range(1, 3); n; n--) {
		put8('_');
		put_str(word());
	}
	put8(0);
}

static void chunk_text(size_t len)
{
	size_t end = pos + len;
	uint32_t kind = below(3);

	while (pos < end && pos < buf_size) {
		if (kind == 0) {
			emit_message();
		} else if (kind == 1) {
			emit_symbol_name();
		} else {        /* prose */
			for (uint32_t n = range(6, 20); n; n--) {
				put_str(word());
				put8(' ');
			}
			put_str(".\n");
		}
	}
}

/* ---- zeros, random bytes, tables -------------------------------------- */

static void chunk_zeros(size_t len)
{
	while (len-- && pos < buf_size)
		put8(0);
}

static void chunk_random(size_t len)
{
	while (len-- && pos < buf_size)
		put8((uint32_t)(rnd() >> 56));
}

/* Sorted pointers into the kernel image, 64-bit or their low 32 bits. */
static void chunk_pointers(size_t len)
{
	int wide = chance(70);
	uint64_t p = KERNEL_VBASE + (uint64_t)below(1u << 22) * 16;
	size_t end = pos + len;

	while (pos < end && pos < buf_size) {
		p += chance(80) ? 16 * range(1, 64) : 16 * range(64, 4096);
		if (wide)
			put64(p);
		else
			put32((uint32_t)p);
	}
}

/* An array of small structures: { name, handler, flags, size, 0 }. */
static void chunk_structs(size_t len)
{
	uint64_t name = KERNEL_VBASE + 0x01200000 + (uint64_t)below(1u << 16) * 8;
	uint64_t fn = KERNEL_VBASE + (uint64_t)below(1u << 20) * 16;
	uint32_t flags = below(16);
	size_t end = pos + len;

	while (pos < end && pos < buf_size) {
		name += range(8, 48);
		fn += 16 * range(1, 200);
		put64(name);
		put64(chance(85) ? fn : 0);
		put32(chance(80) ? flags : flags | 1u << below(16));
		put32(8 * range(1, 64));
		put64(0);
	}
}

/* ---- the mix ---------------------------------------------------------- */

static void generate(void)
{
	uint32_t span = buf_size < (64u << 20) ? (uint32_t)buf_size : (64u << 20);

	for (int i = 0; i < HOT_FUNCS; i++)
		hot_func[i] = below(span);

	/* Picks are weighted so that, with each kind's mean chunk length, the
	 * bytes come out about 40% code, 18% text, 19% zeros, 2.5% random,
	 * 10% pointer tables and 11% structure arrays (LZ4 -12: ~2.3x). */
	while (pos < buf_size) {
		uint32_t pick = below(100);

		if (pick < 27) {
			chunk_code(range(1024, 12288));
		} else if (pick < 52) {
			chunk_text(range(256, 6144));
		} else if (pick < 74) {
			/* page-aligned whole pages, or a small gap */
			if (chance(35)) {
				align_with(PAGE, 0);
				chunk_zeros(PAGE * range(1, 3));
			} else {
				chunk_zeros(range(8, 768));
			}
		} else if (pick < 79) {
			chunk_random(range(256, 4096));
		} else if (pick < 89) {
			chunk_pointers(range(512, 8192));
		} else {
			chunk_structs(range(512, 8192));
		}
	}
}

/* ---- output ----------------------------------------------------------- */

/* Write [data, data + len) to path via a temporary file and rename(). */
static int write_file(const char *path, const void *data, size_t len)
{
	size_t tlen = strlen(path) + sizeof(".tmp.XXXXXX");
	char *tmp = malloc(tlen);
	FILE *f;
	int fd;

	if (!tmp) {
		perror("mkfiller: malloc");
		return -1;
	}
	snprintf(tmp, tlen, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "mkfiller: %s: %s\n", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	if (fchmod(fd, 0644) != 0 || !(f = fdopen(fd, "wb"))) {
		fprintf(stderr, "mkfiller: %s: %s\n", tmp, strerror(errno));
		close(fd);
		goto fail;
	}
	if (fwrite(data, 1, len, f) != len || fflush(f) != 0) {
		fprintf(stderr, "mkfiller: writing %s: %s\n", tmp, strerror(errno));
		fclose(f);
		goto fail;
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "mkfiller: closing %s: %s\n", tmp, strerror(errno));
		goto fail;
	}
	if (rename(tmp, path) != 0) {
		fprintf(stderr, "mkfiller: rename %s -> %s: %s\n", tmp, path, strerror(errno));
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	unlink(tmp);
	free(tmp);
	return -1;
}

/* SIZE: decimal or 0x hex, optional K or M suffix (KiB, MiB). */
static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	if (*end == 'K' || *end == 'k') {
		v <<= 10;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		v <<= 20;
		end++;
	}
	if (*end || v == 0 || v > FILLER_MAX_SIZE)
		return -1;
	*out = (size_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	struct crc32c_table *tab;
	char header[512];
	uint32_t crc;
	int n;

	if (argc != 4 || parse_size(argv[1], &buf_size) != 0) {
		fprintf(stderr, "usage: mkfiller SIZE OUT.bin OUT.h\n"
			"  SIZE: bytes (decimal, 0x hex, or with a K/M suffix; the build uses 3M),\n"
			"  at most %u MiB\n", FILLER_MAX_SIZE >> 20);
		return 2;
	}
	buf = calloc(1, buf_size);
	tab = malloc(sizeof(*tab));
	if (!buf || !tab) {
		perror("mkfiller: malloc");
		return 1;
	}
	generate();

	crc32c_init(tab, 0);
	crc = crc32c_update(tab, 0, buf, buf_size);

	n = snprintf(header, sizeof(header),
		     "/* generated by tools/gen/mkfiller.c: do not edit */\n"
		     "#ifndef FILLER_H\n"
		     "#define FILLER_H\n"
		     "#define FILLER_SIZE %zuu\n"
		     "#define FILLER_CRC32C 0x%08" PRIx32 "u\n"
		     "#endif\n", buf_size, crc);
	if (n < 0 || (size_t)n >= sizeof(header))
		return 1;
	if (write_file(argv[2], buf, buf_size) != 0 ||
	    write_file(argv[3], header, (size_t)n) != 0)
		return 1;
	free(tab);
	free(buf);
	free(funcs);
	return 0;
}
