/* payload_cache.c - see payload_cache.h. */
#include "payload_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crc32c.h"

/* CRC32C of the running program's executable, read once. */
static int program_crc(uint32_t *crc, struct error *err)
{
	static uint32_t cached;
	static int known;
	static struct crc32c_table tab;
	struct buffer exe = { 0, 0 };

	if (!known) {
		if (read_file("/proc/self/exe", &exe, err) < 0)
			return -1;
		crc32c_init(&tab, 0);
		cached = crc32c_update(&tab, 0, exe.data, exe.size);
		free(exe.data);
		known = 1;
	}
	*crc = cached;
	return 0;
}

int payload_cache_get(const char *cache_dir, const struct payload_maker *m, const struct buffer *in,
		      struct buffer *out, int *hit, struct error *err)
{
	static struct crc32c_table tab;
	struct error ignored;
	uint32_t exe_crc;
	char path[4096];

	if (hit)
		*hit = 0;
	if (!cache_dir)
		return m->compress(m->arg, in, out, err);
	if (program_crc(&exe_crc, err) < 0)
		return -1;
	crc32c_init(&tab, 0);
	snprintf(path, sizeof(path), "%s/%s-%zu-%08x-%08x.payload", cache_dir, m->name, in->size,
		 crc32c_update(&tab, 0, in->data, in->size), exe_crc);

	if (read_file(path, out, &ignored) == 0) {
		if (m->reproduces(m->arg, out, in)) {
			if (hit)
				*hit = 1;
			return 0;
		}
		free(out->data);
		out->data = NULL;
		out->size = 0;
	}
	if (m->compress(m->arg, in, out, err) < 0)
		return -1;
	if (mkdir(cache_dir, 0777) < 0 && errno != EEXIST)
		note("bzpack: %s: payload cache not written: %s\n", cache_dir, strerror(errno));
	else if (write_file_atomic(path, out->data, out->size, &ignored) < 0)
		note("bzpack: %s: payload cache not written: %s\n", path, ignored.msg);
	return 0;
}

struct codec_level {
	const struct codec *codec;
	int level;
};

static int codec_make(const void *arg, const struct buffer *in, struct buffer *out, struct error *err)
{
	const struct codec_level *cl = arg;

	return codec_compress(cl->codec, cl->level, in, out, err);
}

/* A hit counts only if our decoder turns it back into exactly in. */
static int codec_reproduces(const void *arg, const struct buffer *payload, const struct buffer *in)
{
	const struct codec_level *cl = arg;
	uint8_t *check = malloc(in->size ? in->size : 1);
	int same = check && codec_decode(cl->codec, payload->data, payload->size, check, in->size) == DECODE_OK &&
		   memcmp(check, in->data, in->size) == 0;

	free(check);
	return same;
}

int codec_compress_cached(const char *cache_dir, const struct codec *c, int level,
			  const struct buffer *in, struct buffer *out, int *hit, struct error *err)
{
	struct codec_level cl = { c, level == LEVEL_DEFAULT ? c->compressor->default_level : level };
	char name[64];
	struct payload_maker m = { name, codec_make, codec_reproduces, &cl };

	snprintf(name, sizeof(name), "%s-%d", c->name, cl.level);
	return payload_cache_get(cache_dir, &m, in, out, hit, err);
}
