/* bench_bzip2.c - decode/bzip2_decode.c against libbz2's
 * BZ2_bzBuffToBuffDecompress on the same stream, best of N.
 *
 * usage: bench_bzip2 [-l LEVEL] [-n REPS] [-1] [-c] FILE...
 *   -1  after the first repetition, time only ours
 *   -c  CLOCK_THREAD_CPUTIME_ID instead of CLOCK_MONOTONIC (a busy machine)
 *
 * Each file is compressed once with libbz2 (default level 9); both decoders
 * must reproduce it, then their repetitions alternate, each timed alone
 * with CLOCK_MONOTONIC.  MB/s are 1e6 bytes of decompressed output per
 * second.  Build it like the stub builds the decoder (-O2 -fbuiltin):
 *
 *   gcc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -Idecode -Iinclude \
 *       tools/bench/bench_bzip2.c decode/bzip2_decode.c -lbz2 -o bench_bzip2
 */
#include <bzlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decode.h"

/* -DBENCH_WORKSPACE=N times an experimental variant with bigger tables. */
#ifndef BENCH_WORKSPACE
#define BENCH_WORKSPACE DECODE_WORKSPACE_bzip2
#endif

static clockid_t clock_id = CLOCK_MONOTONIC;

static double now(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(p = malloc((size_t)size + 1)) || fread(p, 1, (size_t)size, f) != (size_t)size) {
		perror(path);
		exit(1);
	}
	fclose(f);
	*n = (size_t)size;
	return p;
}

int main(int argc, char **argv)
{
	int level = 9, reps = 5, only_ours = 0, opt;

	while ((opt = getopt(argc, argv, "l:n:1c")) != -1) {
		if (opt == 'l')
			level = atoi(optarg);
		else if (opt == 'n')
			reps = atoi(optarg);
		else if (opt == '1')
			only_ours = 1;
		else if (opt == 'c')
			clock_id = CLOCK_THREAD_CPUTIME_ID;
		else
			return 2;
	}
	void *ws = malloc(BENCH_WORKSPACE);
	for (int i = optind; i < argc; i++) {
		size_t n;
		unsigned char *in = slurp(argv[i], &n);
		unsigned clen = (unsigned)(n + n / 100 + 600);
		unsigned char *c = malloc(clen), *out = malloc(n + 1);

		if (BZ2_bzBuffToBuffCompress((char *)c, &clen, (char *)in, (unsigned)n, level, 0, 0) != BZ_OK) {
			fprintf(stderr, "%s: libbz2 compression failed\n", argv[i]);
			return 1;
		}
		double best_ours = 1e9, best_lib = 1e9;
		for (int r = 0; r < reps; r++) {
			memset(out, 0x5a, n);
			double t0 = now();
			enum decode_status s = bzip2_decode(c, clen, out, n, ws);
			double t1 = now();
			if (s != DECODE_OK || memcmp(out, in, n)) {
				fprintf(stderr, "%s: ours: %s\n", argv[i], decode_status_name(s));
				return 1;
			}
			if (only_ours && r > 0) {
				if (t1 - t0 < best_ours)
					best_ours = t1 - t0;
				continue;
			}
			unsigned dlen = (unsigned)n + 1;
			memset(out, 0x5a, n);
			double t2 = now();
			int rc = BZ2_bzBuffToBuffDecompress((char *)out, &dlen, (char *)c, clen, 0, 0);
			double t3 = now();
			if (rc != BZ_OK || dlen != n || memcmp(out, in, n)) {
				fprintf(stderr, "%s: libbz2: %d\n", argv[i], rc);
				return 1;
			}
			if (t1 - t0 < best_ours)
				best_ours = t1 - t0;
			if (t3 - t2 < best_lib)
				best_lib = t3 - t2;
		}
		printf("%s: level %d, %zu -> %u bytes: ours %.1f MB/s, libbz2 %.1f MB/s, ratio %.2f\n",
		       argv[i], level, n, clen, n / best_ours / 1e6, n / best_lib / 1e6,
		       best_lib / best_ours);
		free(in);
		free(c);
		free(out);
	}
	free(ws);
	return 0;
}
