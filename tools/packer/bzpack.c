/* bzpack.c - the packer's command line.
 *
 *   bzpack [-c CODEC] [--bcj] [--frames N|auto] [-o OUT] [-b BITS] [-l LEVEL] [--relocs FILE] [-v] [-q] INPUT
 *   bzpack -c auto [--storage-mbps MBPS] [--cpu-scale X] [--cpus N] [-o OUT] [-b BITS] [-v] INPUT
 *   bzpack --info [--json] INPUT
 *   bzpack --extract -o OUT INPUT
 *   bzpack --list-codecs
 *
 * INPUT is an x86 ELF kernel or a bzImage (Linux's, any codec, or one of
 * ours), whose kernel is then unpacked and packed again; "-" is standard
 * input, and OUT "-" standard output.
 *
 * Exit status: 0 done, 1 bad input or failure (the message says which
 * file and why), 2 bad usage (one line saying what, then where to look). */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "bzimage.h"
#include "codec_auto.h"
#include "codecs.h"
#include "decode_speed.h"
#include "elf_extract.h"
#include "frames_pack.h"
#include "image.h"
#include "info_out.h"
#include "kernel.h"
#include "payload_cache.h"
#include "pe.h"
#include "relocs.h"
#include "relocs_elf.h"
#include "rules.h"
#include "sbat.h"
#include "sign.h"
#include "util.h"
#include "x86_filter.h"

#define BZPACK_VERSION "0.1"
#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2
#define SLOW_INPUT_BYTES (8u << 20) /* say what we are doing above this */

#define DEFAULT_CODEC "lz4"

/* Bad usage: one line naming what was wrong, then where help is, as the
 * GNU tools say it; exit status 2. */
static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("bzpack: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'bzpack --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: bzpack [options] INPUT\n"
		"       bzpack --info [--json] INPUT\n"
		"       bzpack --extract -o OUT INPUT\n"
		"       bzpack --extract --initrd -o OUT INPUT\n"
		"       bzpack --list-codecs\n"
		"       bzpack bench [options] KERNEL...   (see bzpack bench --help)\n"
		"Pack an x86 kernel (ELF32/ELF64, e.g. a vmlinux) into a bootable\n"
		"bzImage: a tiny stub that decompresses it, checks it and enters it as\n"
		"the Linux x86 boot protocol says.  INPUT may also be a bzImage (Linux's,\n"
		"with any of its codecs, or bzpack's own): its kernel is packed again.\n"
		"INPUT - reads standard input, OUT - writes standard output.\n"
		"\n"
		"  -c, --codec=CODEC   " DEFAULT_CODEC " (default), any of --list-codecs, or auto: try\n"
		"                      each but none, keep the least estimated time to kernel\n"
		"      --storage-mbps=MBPS\n"
		"                      auto: the storage's read speed (default %.0f, a SATA SSD)\n"
		"      --cpu-scale=X   auto: the target decodes X times slower than this host\n"
		"                      (default 1)\n"
		"      --cpus=N        auto: the target has N CPUs (1..%d, default 1): each\n"
		"                      candidate in N frames, decoded on N CPUs at once\n"
		"      --bcj           run the kernel through the x86 branch filter (xz's BCJ)\n"
		"                      before compressing, with any codec: calls and jumps\n"
		"                      compress better; the stub un-filters after decoding\n"
		"                      (auto tries each codec with and without it; xz has it\n"
		"                      inside its own stream)\n"
		"      --initrd-decompress=auto|always|off\n"
		"                      the stub decompresses the initrd's gzip, xz and zstd\n"
		"                      pieces (embedded or the loader's, any number) before\n"
		"                      the kernel runs: auto when RAM is\n"
		"                      plentiful, always when it fits; off (default) leaves it\n"
		"                      to the kernel and keeps the stub small\n"
		"      --frames=N|auto split the kernel into N independent frames (1..%d), each\n"
		"                      a complete stream of the codec with its own checksum,\n"
		"                      compressed on every host core; auto: one per %u MiB,\n"
		"                      at most %d (default 1: one stream); -v prints what the\n"
		"                      frames cost against one\n"
		"  -l, --level=N       compression level (default: the codec's own, below)\n"
		"  -b, --bits=32|64    insist on this word size (ELF32 or ELF64 input)\n"
		"  -o, --output=OUT    output file (default: INPUT.bzimage; - for INPUT -): a\n"
		"                      symlink's target, a hard-linked file, a device or a\n"
		"                      FIFO is written through, a file replaced atomically\n"
		"      --relocs=FILE   an ELF INPUT's relocation table (the build's\n"
		"                      arch/x86/boot/compressed/vmlinux.relocs): the kernel then\n"
		"                      moves with the image; without one the table comes from\n"
		"                      the ELF's sections if it was linked with --emit-relocs,\n"
		"                      else it runs at its link address (a bzImage INPUT\n"
		"                      carries its own)\n"
		"  -v, --verbose       print the layout and sizes\n"
		"  -q, --quiet         no progress lines or notes on stderr, only errors\n"
		"      --pack-cache=DIR  keep compressed payloads in DIR and reuse them when\n"
		"                      this packer, codec, level and kernel are the same\n"
		"      --cmdline=LINE  the command line the EFI entry uses when its loader\n"
		"                      passes none (e.g. started as \\EFI\\BOOT\\BOOTX64.EFI)\n"
		"      --initrd=FILE   embed FILE as the initrd (the .initrd section), handed to\n"
		"                      the kernel on every path, before any initrd the loader\n"
		"                      gives; repeatable: the files are concatenated in order,\n"
		"                      each from a 4-byte boundary\n"
		"      --osrel=FILE    embed FILE (os-release) as .osrel: systemd-boot lists a\n"
		"                      64-bit image with one in \\EFI\\Linux\\ as its own entry\n"
		"      --uname=STRING  embed STRING (the kernel's release) as .uname\n"
		"      --sbat=FILE     SBAT lines (CSV, shim's SBAT.md) to add to the .sbat section\n"
		"                      of a 64-bit image, after bzpack's own and the input's\n"
		"      --sign-key=KEY  sign the image for Secure Boot (Authenticode, SHA-256) with\n"
		"                      this PEM private key; an encrypted key's passphrase comes\n"
		"                      from $" SIGN_PASSPHRASE_ENV "\n"
		"      --sign-cert=CERT  the key's X.509 certificate (PEM or DER), put in the\n"
		"                      signature\n"
		"      --info          describe INPUT (a bzImage or an ELF kernel) and exit; a\n"
		"                      damaged image: every field read, each failed check, exit 1\n"
		"      --json          with --info: the same as one JSON object\n"
		"  -x, --extract       write INPUT's kernel to OUT as an ELF vmlinux: a Linux\n"
		"                      bzImage's payload as is, a bzpack image's kernel as the\n"
		"                      ELF it was packed from, which packs back into the same\n"
		"                      image (with the codec and level --info shows); with\n"
		"                      --initrd (no FILE), its embedded initrd\n"
		"  -h, --help          this help\n"
		"      --list-codecs   print the codec names, one per line\n"
		"      --version       print the version and the codecs built in\n"
		"\ncodecs (name: levels, default; decoder workspace):\n", STORAGE_MBPS_DEFAULT, BZPACK_MAX_CPUS, BZPACK_FRAMES_MAX,
		FRAMES_AUTO_BYTES >> 20, BZPACK_MAX_CPUS);
	for (size_t i = 0; i < codec_count; i++) {
		const struct codec_compressor *z = codecs[i].compressor;
		fprintf(out, "  %-8s %d..%d, %d; %zu bytes\n", codecs[i].name, z->min_level,
			z->max_level, z->default_level, codecs[i].workspace_size);
	}
}

/* bzpack --info: a bzImage's headers, payload and kernel, or an ELF
 * kernel as the packer sees it; every row through one emitter, as text or
 * JSON.  A damaged image gets every field that could be read, then each
 * check that failed, and -1 with the first of them in err. */
static int describe(const char *input, int json, struct error *err)
{
	struct buffer file = { 0, 0 }, unpacked = { 0, 0 };
	struct bzimage_info info;
	struct kernel k;
	struct info_out *o = NULL;
	int r = -1;

	memset(&k, 0, sizeof(k));
	if (read_file(input, &file, err) < 0)
		goto done;
	o = info_open(stdout, json, input);
	if (!o) {
		fail_with(err, "out of memory");
		goto done;
	}
	info_begin(o, "file");
	info_str(o, "file", "%s", input);
	info_num(o, "file_size", " (%llu bytes)", (unsigned long long)file.size);
	info_end(o);
	if (bzimage_detect(&file)) {
		r = bzimage_extract(&file, &unpacked, &info, err);
		bzimage_print_info(o, &info);
		FILE *text = info_capture(o);
		if (text) {
			pe_print(text, &file);
			sbat_print(text, &file);
			sign_print(text, &file);
			rules_print(text, &file);
			if (info.ours && info.ours_readable)
				pe_print_cmdline(text, &file);
			if (r == 0 && !info.ours) {
				struct error why;
				if (kernel_from_elf(&unpacked, 0, &k, &why) == 0 &&
				    (!info.relocatable ||
				     relocs_from_payload(&k, &unpacked, (uint64_t)1 << info.min_alignment, &why) == 0))
					kernel_print(text, "vmlinux:", 15, &k);
				else
					fprintf(text, "%-15s cannot be packed: %s\n", "vmlinux:", why.msg);
			}
			info_capture_end(o, text);
		}
		for (unsigned n = 0; n < info.nfailed; n++)
			info_failed(o, info.failed[n]);
	} else if (kernel_from_elf(&file, 0, &k, err) < 0 || elf_note_apply(&k, &file, err) < 0 ||
		   relocs_from_elf(&k, &file, err) < 0) {
		info_failed(o, err->msg);
	} else {
		info_begin(o, "format");
		info_num(o, "elf_bits", "ELF%llu x86 kernel, not a bzImage", (unsigned long long)k.bits);
		info_end(o);
		FILE *text = info_capture(o);
		if (text) {
			kernel_print(text, "kernel:", 15, &k);
			info_capture_end(o, text);
		}
		r = 0;
	}
done:
	if (o && info_close(o) < 0 && r == 0)
		r = fail_with(err, "cannot write the description: %s", "standard output");
	free(file.data);
	free(unpacked.data);
	free(k.blob.data);
	return r;
}

/* What both --extract modes start from: input read into file, as a
 * bzImage whose headers bzimage_extract has checked and described. */
static int read_bzimage(const char *input, struct buffer *file, struct bzimage_info *info, struct error *err)
{
	if (read_file(input, file, err) < 0)
		return -1;
	if (!bzimage_detect(file))
		return fail_with(err, "not a bzImage: nothing to extract");
	return bzimage_extract(file, NULL, info, err);
}

/* bzpack --extract: a Linux bzImage's decompressed payload, as is (the
 * vmlinux ELF, followed by its relocations when it has them, as
 * scripts/extract-vmlinux gives it); for our own images the ELF the
 * kernel was packed from, from the image's ELF record (elf_extract.h),
 * which packs back into the same image. */
static int extract(const char *input, const char *output, const char **culprit, struct error *err)
{
	struct buffer file = { 0, 0 }, unpacked = { 0, 0 };
	struct bzimage_info info;
	struct kernel k;
	int r = -1;

	memset(&k, 0, sizeof(k));
	*culprit = input;
	if (read_bzimage(input, &file, &info, err) < 0)
		goto done;
	if (!info.ours ? bzimage_extract(&file, &unpacked, &info, err) < 0
		       : bzimage_kernel(&file, 0, &k, &info, err) < 0 ||
			 elf_extract(&k, info.header.codec, &unpacked, err) < 0)
		goto done;
	*culprit = output;
	r = write_file_atomic(output, unpacked.data, unpacked.size, err);
done:
	free(file.data);
	free(unpacked.data);
	free(k.blob.data);
	return r;
}

#define MAX_INITRDS 64

/* bzpack --extract --initrd: the initrd a bzpack image embeds, as it was
 * embedded, once every check of the image and the initrd's CRC held. */
static int extract_initrd(const char *input, const char *output, const char **culprit, struct error *err)
{
	struct buffer file = { 0, 0 };
	struct bzimage_info info;
	int r = -1;

	*culprit = input;
	if (read_bzimage(input, &file, &info, err) < 0)
		goto done;
	const struct bzpack_embed *e = bzimage_embed(&info, BZIMAGE_EMBED_INITRD);
	if (!info.ours || !e->size) {
		fail_with(err, "no embedded initrd (%s)", info.ours ? "packed without --initrd" : "not a bzpack image");
		goto done;
	}
	*culprit = output;
	r = write_file_atomic(output, file.data + info.setup_size + e->offset, e->size, err);
done:
	free(file.data);
	return r;
}

/* The --initrd files, concatenated, each from a BZPACK_INITRD_ALIGN
 * boundary (zeros between: Linux skips them between archives). */
static int read_initrds(char **paths, int n, struct buffer *all, const char **culprit, struct error *err)
{
	*all = (struct buffer){ 0, 0 };
	for (int i = 0; i < n; i++) {
		struct buffer one;
		*culprit = paths[i];
		if (read_file(paths[i], &one, err) < 0)
			return -1;
		if (!one.size) {
			free(one.data);
			return fail_with(err, "empty initrd");
		}
		size_t at = (size_t)align_up(all->size, BZPACK_INITRD_ALIGN);
		uint8_t *grown = realloc(all->data, at + one.size);
		if (!grown) {
			free(one.data);
			return fail_with(err, "out of memory");
		}
		memset(grown + all->size, 0, at - all->size);
		memcpy(grown + at, one.data, one.size);
		free(one.data);
		all->data = grown;
		all->size = at + one.size;
	}
	return 0;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Compress k's memory with codec, saying so on stderr when that is slow:
 * one stream (through the cache), or up to frames frames (*made: how
 * many), which the cache does not keep. */
static int compress(const char *input, const struct codec *codec, int level, const struct kernel *k,
		    const char *cache_dir, unsigned frames, struct buffer *payload, unsigned *made,
		    struct error *err)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (k->blob.size >= SLOW_INPUT_BYTES)
		note("bzpack: %s: compressing %zu bytes with %s...\n", input, k->blob.size, codec->name);
	*made = 1;
	if (frames > 1 ? frames_compress(codec, level, &k->blob, frames, payload, made, err) < 0
		       : codec_compress_cached(cache_dir, codec, level, &k->blob, payload, NULL, err) < 0)
		return -1;
	if (k->blob.size >= SLOW_INPUT_BYTES)
		note("bzpack: %s: %zu -> %zu bytes in %.1f s%s\n", input, k->blob.size, payload->size,
		     seconds_since(&t0), *made > 1 ? " (framed)" : "");
	return 0;
}

/* -v on a framed payload: what the frames cost against one stream (which
 * it compresses once more to know). */
static void print_frames_cost(FILE *out, const struct codec *codec, int level, const struct kernel *k,
			      const struct buffer *payload, unsigned frames)
{
	struct buffer one = { 0, 0 };
	struct error err;

	frames_print(out, payload->data, payload->size);
	if (codec_compress(codec, level, &k->blob, &one, &err) < 0) {
		fprintf(out, "frames:    %u; one stream for comparison failed: %s\n", frames, err.msg);
		return;
	}
	fprintf(out, "frames:    %u, %zu bytes against %zu as one stream: %+lld bytes (%+.2f%%)\n", frames,
		payload->size, one.size, (long long)payload->size - (long long)one.size,
		one.size ? 100.0 * ((double)payload->size - (double)one.size) / (double)one.size : 0.0);
	free(one.data);
}

/* What argv[optind - 1] was, for a message about it: "--output", "-o". */
static const char *option_as_given(char **argv, int opt_index)
{
	const char *arg = argv[opt_index - 1];
	return arg ? arg : "?";
}

int main(int argc, char **argv)
{
	static struct option options[] = {
		{ "codec", required_argument, 0, 'c' },
		{ "level", required_argument, 0, 'l' },
		{ "bits", required_argument, 0, 'b' },
		{ "output", required_argument, 0, 'o' },
		{ "verbose", no_argument, 0, 'v' },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		{ "info", no_argument, 0, 'I' },
		{ "json", no_argument, 0, 'J' },
		{ "extract", no_argument, 0, 'x' },
		{ "list-codecs", no_argument, 0, 'L' },
		{ "storage-mbps", required_argument, 0, 'M' },
		{ "cpu-scale", required_argument, 0, 'C' },
		{ "cpus", required_argument, 0, 'W' },
		{ "pack-cache", required_argument, 0, 'P' },
		{ "cmdline", required_argument, 0, 'E' },
		{ "initrd", required_argument, 0, 'N' },
		{ "osrel", required_argument, 0, 'O' },
		{ "uname", required_argument, 0, 'U' },
		{ "relocs", required_argument, 0, 'R' },
		{ "sbat", required_argument, 0, 'S' },
		{ "sign-key", required_argument, 0, 'K' },
		{ "sign-cert", required_argument, 0, 'Z' },
		{ "bcj", no_argument, 0, 'X' },
		{ "initrd-decompress", required_argument, 0, 'D' },
		{ "frames", required_argument, 0, 'F' },
		{ 0, 0, 0, 0 },
	};
	const struct codec *codec = codec_by_name(DEFAULT_CODEC);
	int level = LEVEL_DEFAULT, bits = 0, verbose = 0, info = 0, json = 0, unpack = 0, opt;
	struct auto_settings autos = { .storage_mbps = STORAGE_MBPS_DEFAULT, .cpu_scale = 1.0, .cpus = 1 };
	int pick = 0, auto_options = 0;         /* -c auto; --storage-mbps or --cpu-scale given */
	int bcj = 0;                            /* --bcj */
	uint32_t initrd_flags = 0;              /* --initrd-decompress: BZPACK_FLAG_INITRD* */
	unsigned frames = 1, made = 1;          /* --frames (0: auto); frames in the payload */
	int frames_given = 0;
	const char *output = NULL, *cmdline = "", *relocs = NULL, *sbat_path = NULL;
	const char *sign_key = NULL, *sign_cert = NULL, *osrel_path = NULL, *uname = NULL;
	static char *initrds[MAX_INITRDS];
	int n_initrds = 0, want_initrd = 0;
	char *end;

	/* With --extract, --initrd takes no FILE: it says what to extract.
	 * (Looked for first, since getopt_long fixes each option's arity.) */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--extract") == 0 || strcmp(argv[i], "-x") == 0)
			for (struct option *o = options; o->name; o++)
				if (o->val == 'N')
					o->has_arg = no_argument;

	if (argc > 1 && strcmp(argv[1], "bench") == 0)
		return bench_main(argc - 1, argv + 1);
	opterr = 0;     /* our own messages, in our own form */
	/* The leading ':' tells a missing argument (':') from an unknown option ('?'). */
	while ((opt = getopt_long(argc, argv, ":c:l:b:o:vqhx", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			pick = strcmp(optarg, "auto") == 0;
			codec = codec_by_name(optarg);
			if (!codec && !pick)
				return usage_error("unknown codec '%s' (%s, auto)", optarg, codec_names());
			break;
		case 'M':
		case 'C':
			if (parse_positive(optarg, opt == 'M' ? &autos.storage_mbps : &autos.cpu_scale) < 0)
				return usage_error("--%s takes a positive number, not '%s'",
						   opt == 'M' ? "storage-mbps" : "cpu-scale", optarg);
			auto_options = 1;
			break;
		case 'W': {
			long n = strtol(optarg, &end, 10);
			if (*end || !*optarg || n < 1 || n > BZPACK_MAX_CPUS)
				return usage_error("--cpus takes 1..%d, not '%s'", BZPACK_MAX_CPUS, optarg);
			autos.cpus = (unsigned)n;
			auto_options = 1;
			break;
		}
		case 'l':
			level = (int)strtol(optarg, &end, 10);
			if (*end || !*optarg || level < 0)
				return usage_error("bad level '%s'", optarg);
			break;
		case 'b':
			bits = (int)strtol(optarg, &end, 10);
			if (*end || (bits != 32 && bits != 64))
				return usage_error("--bits takes 32 or 64, not '%s'", optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case 'P':
			autos.cache_dir = optarg;
			break;
		case 'R':
			relocs = optarg;
			break;
		case 'S':
			sbat_path = optarg;
			break;
		case 'K':
			sign_key = optarg;
			break;
		case 'Z':
			sign_cert = optarg;
			break;
		case 'X':
			bcj = 1;
			break;
		case 'D':
			if (strcmp(optarg, "off") == 0)
				initrd_flags = 0;
			else if (strcmp(optarg, "auto") == 0)
				initrd_flags = BZPACK_FLAG_INITRD;
			else if (strcmp(optarg, "always") == 0)
				initrd_flags = BZPACK_FLAG_INITRD | BZPACK_FLAG_INITRD_ALWAYS;
			else
				return usage_error("--initrd-decompress takes auto, always or off, not '%s'", optarg);
			break;
		case 'F': {
			long n = strcmp(optarg, "auto") == 0 ? 0 : strtol(optarg, &end, 10);
			if (n == 0 ? strcmp(optarg, "auto") != 0 : *end || !*optarg || n < 1 || n > BZPACK_FRAMES_MAX)
				return usage_error("--frames takes 1..%d or auto, not '%s'", BZPACK_FRAMES_MAX, optarg);
			frames = (unsigned)n;
			frames_given = 1;
			break;
		}
		case 'v':
			verbose = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'x':
			unpack = 1;
			break;
		case 'E':
			cmdline = optarg;
			break;
		case 'N':
			if (optarg && n_initrds == MAX_INITRDS)
				return usage_error("more than %d --initrd files", MAX_INITRDS);
			if (optarg)
				initrds[n_initrds++] = optarg;
			else
				want_initrd = 1;
			break;
		case 'O':
			osrel_path = optarg;
			break;
		case 'U':
			uname = optarg;
			break;
		case 'V':
			printf("bzpack %s\ncodecs: %s\n", BZPACK_VERSION, codec_names());
			return 0;
		case 'I':
			info = 1;
			break;
		case 'J':
			json = 1;
			break;
		case 'L':
			for (size_t i = 0; i < codec_count; i++)
				puts(codecs[i].name);
			return 0;
		case ':':
			return usage_error("option '%s' needs an argument", option_as_given(argv, optind));
		default:
			if (optopt)
				return usage_error("unknown option '-%c'", optopt);
			return usage_error("unknown option '%s'", option_as_given(argv, optind));
		}
	}
	if (optind == argc)
		return usage_error("no INPUT given");
	if (optind < argc - 1)
		return usage_error("one INPUT only, but %d given ('%s', '%s'%s)", argc - optind, argv[optind],
				   argv[optind + 1], argc - optind > 2 ? ", ..." : "");
	if (info && (n_initrds || osrel_path || uname))
		return usage_error("--initrd, --osrel and --uname are for packing");
	if (info && unpack)
		return usage_error("--info and --extract do not go together");
	if (json && !info)
		return usage_error("--json goes with --info");
	if (auto_options && !pick)
		return usage_error("--storage-mbps, --cpu-scale and --cpus go with --codec auto");
	if (bcj && pick)
		return usage_error("--codec auto tries each codec with and without --bcj: give one or the other");
	if (initrd_flags && (info || unpack))
		return usage_error("--initrd-decompress is for packing, not --%s", info ? "info" : "extract");
	if (frames_given && (info || unpack))
		return usage_error("--frames is for packing, not --%s", info ? "info" : "extract");
	if (frames_given && pick)
		return usage_error("--codec auto frames each candidate for --cpus N: give a codec with --frames");
	if (bcj && (info || unpack))
		return usage_error("--bcj is for packing, not --%s", info ? "info" : "extract");
	if (pick && level != LEVEL_DEFAULT)
		return usage_error("--codec auto takes no --level: each codec uses its default");
	if (level != LEVEL_DEFAULT && !pick) {
		const struct codec_compressor *z = codec->compressor;
		if (level < z->min_level || level > z->max_level)
			return z->min_level == z->max_level
				       ? usage_error("%s takes no level other than %d, not %d", codec->name,
						     z->min_level, level)
				       : usage_error("%s level must be %d..%d, not %d", codec->name, z->min_level,
						     z->max_level, level);
	}
	if (relocs && strcmp(relocs, "-") == 0 && strcmp(argv[optind], "-") == 0)
		return usage_error("INPUT and --relocs cannot both be standard input");
	if (unpack && !output)
		return usage_error("--extract needs -o OUT");
	if (!sign_key != !sign_cert)
		return usage_error("--sign-key and --sign-cert go together");
	const char *input = argv[optind];
	if (info) {
		struct error err;
		if (describe(input, json, &err) < 0) {
			fprintf(stderr, "bzpack: %s: %s\n", input, err.msg);
			return EXIT_BAD_INPUT;
		}
		return 0;
	}
	if (unpack) {
		struct error err;
		const char *culprit;
		if ((want_initrd ? extract_initrd : extract)(input, output, &culprit, &err) < 0) {
			fprintf(stderr, "bzpack: %s: %s\n", culprit, err.msg);
			return EXIT_BAD_INPUT;
		}
		return 0;
	}
	char *default_output = NULL;
	if (!output && strcmp(input, "-") == 0)
		output = "-";
	if (!output) {
		default_output = malloc(strlen(input) + sizeof(".bzimage"));
		if (!default_output)
			return EXIT_BAD_INPUT;
		sprintf(default_output, "%s.bzimage", input);
		output = default_output;
	}

	struct error err;
	struct buffer file = { 0, 0 }, payload = { 0, 0 }, image = { 0, 0 }, table = { 0, 0 }, sbat = { 0, 0 };
	struct image_extras extras = { .cmdline = cmdline, .uname = uname };
	struct kernel k;
	struct image_layout layout;
	const char *culprit = input;
	int status = EXIT_BAD_INPUT;

	memset(&k, 0, sizeof(k));
	if (read_file(input, &file, &err) < 0)
		goto out;
	if (bzimage_detect(&file) && relocs) {
		fail_with(&err, "--relocs is for an ELF vmlinux: a bzImage carries its own table");
		goto out;
	}
	if (bzimage_detect(&file)) {
		struct bzimage_info info;
		if (bzimage_kernel(&file, bits, &k, &info, &err) < 0)
			goto out;
		char dropped[64] = "";
		for (int i = 0; info.ours && i < BZIMAGE_EMBEDS; i++)
			if (bzimage_embed(&info, i)->size)
				snprintf(dropped + strlen(dropped), sizeof(dropped) - strlen(dropped), " %s",
					 bzimage_embed_name(i));
		if (dropped[0])
			note("bzpack: %s: what it embeds (%s) does not carry over: give it again "
			     "(--initrd, --osrel, --uname, --cmdline)\n", input, dropped + 1);
		if (verbose)
			fprintf(stderr, "bzpack: %s: bzImage with %s payload, %llu bytes decompressed\n", input,
				info.codec, (unsigned long long)info.decompressed_size);
	} else if (kernel_from_elf(&file, bits, &k, &err) < 0 || elf_note_apply(&k, &file, &err) < 0) {
		goto out;  /* (an ELF --extract gave back: its note says how it was packed) */
	}
	if (relocs) {
		culprit = relocs;
		if (read_file(relocs, &table, &err) < 0 || relocs_attach(&k, table.data, table.size, k.align, &err) < 0)
			goto out;
		culprit = input;
	} else if (!bzimage_detect(&file) && relocs_from_elf(&k, &file, &err) < 0) {
		goto out;  /* an ELF linked with --emit-relocs: its own table */
	}

	autos.progress = k.blob.size >= SLOW_INPUT_BYTES && !quiet;
	if (bcj && codec_filters_x86(codec))
		note("bzpack: %s: %s streams carry the x86 filter already: --bcj adds nothing\n", input,
		     codec->name);
	else if (bcj)
		kernel_x86_filter(&k);
	if (pick ? codec_auto(input, &k, &autos, &codec, &payload, &made, &err) < 0
		 : compress(input, codec, level, &k, autos.cache_dir, frames ? frames : frames_auto(k.blob.size),
			    &payload, &made, &err) < 0)
		goto out;
	extras.frames = made;

	if ((sbat_path || sign_key) && k.bits != 64) {
		fail_with(&err, "--%s is for the PE of a 64-bit image, and %d-bit images have none",
			  sbat_path ? "sbat" : "sign-key", k.bits);
		goto out;
	}
	if (sbat_build(&file, sbat_path, &sbat, &culprit, &err) < 0)
		goto out;
	culprit = input;
	if (read_initrds(initrds, n_initrds, &extras.initrd, &culprit, &err) < 0)
		goto out;
	culprit = osrel_path ? osrel_path : input;
	if (osrel_path && read_file(osrel_path, &extras.osrel, &err) < 0)
		goto out;
	culprit = input;
	/* After compression: the flags say what the stub does with the
	 * initrd, nothing about the payload. */
	k.flags |= initrd_flags;
	if (image_build(&k, codec, pick ? LEVEL_DEFAULT : level, &payload, &extras, &sbat, autos.progress, &image, &layout, &err) < 0)
		goto out;
	if (sign_key) {
		const char *about = NULL;
		if (sign_image(&image, sign_key, sign_cert, &about, &err) < 0) {
			culprit = about ? about : output;
			goto out;
		}
	}
	culprit = output;
	if (write_file_atomic(output, image.data, image.size, &err) < 0)
		goto out;
	if (!sign_key && sign_count(&file))
		note("bzpack: %s: its Secure Boot signature does not carry over: %s is unsigned "
		     "(sign it with --sign-key KEY --sign-cert CERT)\n", input, output);
	if (verbose) { /* not into the image on standard output */
		FILE *to = strcmp(output, "-") == 0 ? stderr : stdout;
		image_print_layout(to, &k, codec, &layout);
		if (made > 1)
			print_frames_cost(to, codec, level, &k, &payload, made);
	}
	status = 0;
out:
	if (status)
		fprintf(stderr, "bzpack: %s: %s\n", culprit, err.msg);
	free(file.data);
	free(payload.data);
	free(image.data);
	free(table.data);
	free(sbat.data);
	free(extras.initrd.data);
	free(extras.osrel.data);
	free(k.blob.data);
	free(default_output);
	return status;
}
