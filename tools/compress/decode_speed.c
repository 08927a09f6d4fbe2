/* decode_speed.c - see decode_speed.h.  The decoder is called exactly as
 * the stub calls it (a workspace of the codec's size, output into a
 * buffer of exactly out_size bytes); the first run also warms the caches
 * and is not counted. */
#include "decode_speed.h"

#include <stdlib.h>

#include "x86_filter.h"

#define MAX_RUNS 1000           /* the sample array's size; enough for any median */

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int decode_speed_measure(const struct codec *c, const struct buffer *payload, size_t out_size,
			 size_t unfilter_size, unsigned min_runs, double min_seconds, struct decode_speed *out,
			 struct error *err)
{
	static double secs[MAX_RUNS];
	uint8_t *dst = malloc(out_size ? out_size : 1);
	void *workspace = NULL;
	int r = -1;

	if (!dst || (c->workspace_size && posix_memalign(&workspace, 64, c->workspace_size) != 0)) {
		fail_with(err, "out of memory timing the %s decoder", c->name);
		goto done;
	}
	if (min_runs < 1)
		min_runs = 1;
	if (min_runs > MAX_RUNS)
		min_runs = MAX_RUNS;
	unsigned n = 0;
	double started = cpu_seconds();
	for (int warm = 1; n < MAX_RUNS; warm = 0) {
		double t0 = cpu_seconds();
		enum decode_status s = c->decode(payload->data, payload->size, dst, out_size, workspace);
		if (s == DECODE_OK && unfilter_size)
			x86_unfilter(dst, unfilter_size);
		double t1 = cpu_seconds();
		if (s != DECODE_OK) {
			fail_with(err, "our %s decoder rejects the payload: %s", c->name,
				  decode_status_name(s));
			goto done;
		}
		if (warm)
			continue;
		secs[n++] = t1 - t0 > 1e-9 ? t1 - t0 : 1e-9;
		if (n >= min_runs && t1 - started >= min_seconds)
			break;
	}
	qsort(secs, n, sizeof(secs[0]), compare_doubles);
	out->runs = n;
	out->best_mbps = (double)out_size / secs[0] / 1e6;
	out->median_mbps = (double)out_size / secs[n / 2] / 1e6;
	r = 0;
done:
	free(workspace);
	free(dst);
	return r;
}
