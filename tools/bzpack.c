/* bzpack.c - the packer's command line.
 *
 *   bzpack [-c CODEC] [-o OUT] [-b BITS] [-l LEVEL] [-v] INPUT
 *
 * Exit status: 0 done, 1 bad input or failure (the message says which
 * file and why), 2 bad usage. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compress.h"
#include "image.h"
#include "kernel.h"
#include "util.h"

#define BZPACK_VERSION "0.1"
#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2
#define SLOW_INPUT_BYTES (8u << 20) /* say what we are doing above this */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: bzpack [options] INPUT\n"
		"Pack an x86 kernel (ELF32/ELF64, e.g. a vmlinux) into a bootable\n"
		"bzImage: a tiny stub that decompresses it, checks it and enters it as\n"
		"the Linux x86 boot protocol says.\n"
		"\n"
		"  -c, --codec=CODEC   lz4 (default) or none\n"
		"  -l, --level=N       compression level (default: the codec's maximum)\n"
		"  -b, --bits=32|64    insist on this word size (ELF32 or ELF64 input)\n"
		"  -o, --output=OUT    output file (default: INPUT.bzimage)\n"
		"  -v, --verbose       print the layout and sizes\n"
		"  -h, --help          this help\n"
		"      --version       print the version\n");
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "codec", required_argument, 0, 'c' },
		{ "level", required_argument, 0, 'l' },
		{ "bits", required_argument, 0, 'b' },
		{ "output", required_argument, 0, 'o' },
		{ "verbose", no_argument, 0, 'v' },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		{ 0, 0, 0, 0 },
	};
	int codec = BZPACK_CODEC_LZ4, level = LEVEL_DEFAULT, bits = 0, verbose = 0, opt;
	const char *output = NULL;
	char *end;

	while ((opt = getopt_long(argc, argv, "c:l:b:o:vh", options, NULL)) != -1) {
		switch (opt) {
		case 'c':
			codec = codec_from_name(optarg);
			if (codec < 0) {
				fprintf(stderr, "bzpack: unknown codec '%s' (lz4, none)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'l':
			level = (int)strtol(optarg, &end, 10);
			if (*end || !*optarg) {
				fprintf(stderr, "bzpack: bad level '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			bits = atoi(optarg);
			if (bits != 32 && bits != 64) {
				fprintf(stderr, "bzpack: --bits takes 32 or 64\n");
				return EXIT_USAGE;
			}
			break;
		case 'o':
			output = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("bzpack %s\n", BZPACK_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *input = argv[optind];
	char *default_output = NULL;
	if (!output) {
		default_output = malloc(strlen(input) + sizeof(".bzimage"));
		if (!default_output)
			return EXIT_BAD_INPUT;
		sprintf(default_output, "%s.bzimage", input);
		output = default_output;
	}

	struct error err;
	struct buffer file = { 0, 0 }, payload = { 0, 0 }, image = { 0, 0 };
	struct kernel k;
	struct image_layout layout;
	const char *culprit = input;
	int status = EXIT_BAD_INPUT;

	if (read_file(input, &file, &err) < 0 || kernel_from_elf(&file, bits, &k, &err) < 0)
		goto out;

	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (k.blob.size >= SLOW_INPUT_BYTES)
		fprintf(stderr, "bzpack: %s: compressing %zu bytes with %s...\n", input, k.blob.size,
			bzpack_codec_name((unsigned)codec));
	if (compress_payload(codec, level, &k.blob, &payload, &err) < 0)
		goto out;
	if (k.blob.size >= SLOW_INPUT_BYTES)
		fprintf(stderr, "bzpack: %s: %zu -> %zu bytes in %.1f s\n", input, k.blob.size,
			payload.size, seconds_since(&t0));

	if (image_build(&k, codec, &payload, &image, &layout, &err) < 0)
		goto out;
	culprit = output;
	if (write_file_atomic(output, image.data, image.size, &err) < 0)
		goto out;
	if (verbose)
		image_print_layout(stdout, &k, codec, &layout);
	status = 0;
out:
	if (status)
		fprintf(stderr, "bzpack: %s: %s\n", culprit, err.msg);
	free(file.data);
	free(payload.data);
	free(image.data);
	free(default_output);
	return status;
}
