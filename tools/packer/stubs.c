/* stubs.c - see stubs.h.  The blobs and their table are in the generated
 * build/gen/stubs.S (tools/gen/gen_consts.c, from decode/codecs.def). */
#include "stubs.h"

/* One row of stub_table, as gen_consts lays it out. */
struct stub_entry {
	uint32_t codec, bits, flags, pad;
	const uint8_t *start, *end;
};

extern const uint8_t stub_setup[], stub_setup_end[];
extern const struct stub_entry stub_table[];
extern const uint32_t stub_table_count;

struct buffer stub_setup_blob(void)
{
	return (struct buffer){ (uint8_t *)stub_setup, (size_t)(stub_setup_end - stub_setup) };
}

struct buffer stub_blob(int codec, int bits, uint32_t flags)
{
	for (uint32_t i = 0; i < stub_table_count; i++) {
		const struct stub_entry *e = &stub_table[i];
		if ((int)e->codec == codec && (int)e->bits == bits && e->flags == flags)
			return (struct buffer){ (uint8_t *)e->start, (size_t)(e->end - e->start) };
	}
	return (struct buffer){ 0, 0 };
}
