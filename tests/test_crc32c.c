/* test_crc32c.c - CRC-32C: the check value from the specification of the
 * polynomial, and the SSE4.2 path against the table path on random data
 * of every alignment and length.  Built -m32 too (tests/tests.mk): there
 * the instruction path has no 8-byte form and takes 4 bytes at a time.
 *
 * On a CPU without SSE4.2 the instruction path cannot run: its checks are
 * reported as "skip: NAME: why" (ci/tests/test-host.sh counts them), not left
 * out in silence. */
#include <stdio.h>
#include <stdlib.h>

#include "crc32c.h"

#define CHECK_VALUE 0xe3069283u /* CRC-32C of "123456789" */

static unsigned passed, failed, skipped;

static void expect(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	ok ? passed++ : failed++;
}

int main(void)
{
	static struct crc32c_table hw, tables;
	static uint8_t buf[4096];
	uint32_t x = 2463534242u;

	crc32c_init(&hw, 0);
	crc32c_init(&tables, 1);
	expect(crc32c_update(&tables, 0, "123456789", 9) == CHECK_VALUE, "tables: check value");
	if (!hw.hw) {
		printf("skip: sse4.2: this CPU has no SSE4.2; the crc32 instruction path "
		       "(check value, against the tables, chained updates) cannot run\n");
		skipped++;
	} else {
		expect(crc32c_update(&hw, 0, "123456789", 9) == CHECK_VALUE, "sse4.2: check value");
		for (size_t i = 0; i < sizeof(buf); i++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			buf[i] = (uint8_t)x;
		}
		int same = 1;
		for (size_t off = 0; off < 16; off++)
			for (size_t len = 0; len + off <= sizeof(buf); len += 1 + len / 8)
				same &= crc32c_update(&hw, 0, buf + off, len) == crc32c_update(&tables, 0, buf + off, len);
		expect(same, "sse4.2 equals tables on every alignment and many lengths");
		uint32_t a = crc32c_update(&hw, crc32c_update(&hw, 0, buf, 1000), buf + 1000, 3000);
		expect(a == crc32c_update(&tables, 0, buf, 4000), "chained updates equal one update");
	}
	expect(crc32c_update(&tables, 0, "", 0) == 0, "empty input");
	printf("test_crc32c: %u passed, %u failed, %u skipped\n", passed, failed, skipped);
	return failed != 0;
}
