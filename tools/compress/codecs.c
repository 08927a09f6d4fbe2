/* codecs.c - see codecs.h. */
#include "codecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct codec codecs[] = {
#define CODEC(ident, name, id, workspace) { name, id, workspace, &ident##_compressor, ident##_decode },
#include "codecs.def"
#undef CODEC
};
const size_t codec_count = sizeof(codecs) / sizeof(codecs[0]);

const struct codec *codec_by_name(const char *name)
{
	for (size_t i = 0; i < codec_count; i++)
		if (strcmp(codecs[i].name, name) == 0)
			return &codecs[i];
	return NULL;
}

const struct codec *codec_by_id(unsigned id)
{
	for (size_t i = 0; i < codec_count; i++)
		if (codecs[i].id == id)
			return &codecs[i];
	return NULL;
}

const char *codec_names(void)
{
	static char names[256];

	if (!names[0])
		for (size_t i = 0; i < codec_count; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", codecs[i].name);
	return names;
}

enum decode_status codec_decode(const struct codec *c, const uint8_t *src, size_t src_len,
				uint8_t *dst, size_t dst_len)
{
	/* Aligned like the stub's (4 KiB there; 16 is what decoders may assume). */
	void *workspace = NULL;

	if (c->workspace_size &&
	    posix_memalign(&workspace, 64, c->workspace_size) != 0)
		return DECODE_CORRUPT;          /* out of memory; callers say "does not decode" */
	enum decode_status s = c->decode(src, src_len, dst, dst_len, workspace);
	free(workspace);
	return s;
}

int codec_compress(const struct codec *c, int level, const struct buffer *in, struct buffer *out,
		   struct error *err)
{
	const struct codec_compressor *z = c->compressor;

	if (level == LEVEL_DEFAULT)
		level = z->default_level;
	if (level < z->min_level || level > z->max_level)
		return z->min_level == z->max_level
			       ? fail_with(err, "%s takes no level other than %d", c->name, z->min_level)
			       : fail_with(err, "%s level must be %d..%d", c->name, z->min_level, z->max_level);
	if (z->compress(level, in, out, err) < 0)
		return -1;

	uint8_t *check = malloc(in->size ? in->size : 1);
	if (!check)
		return fail_with(err, "out of memory");
	enum decode_status s = codec_decode(c, out->data, out->size, check, in->size);
	int same = s == DECODE_OK && memcmp(check, in->data, in->size) == 0;
	free(check);
	if (!same)
		return fail_with(err, "internal error: our %s decoder does not reproduce the kernel (%s)",
				 c->name, decode_status_name(s));
	return 0;
}
