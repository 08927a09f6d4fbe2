/* codec_auto.h - `bzpack --codec auto`: pack the kernel with every
 * candidate codec and keep the one with the least estimated time to
 * kernel (decode_speed.h: reading the image from storage, then our own
 * decoder turning it back into the kernel). */
#ifndef CODEC_AUTO_H
#define CODEC_AUTO_H

#include "codecs.h"
#include "kernel.h"
#include "util.h"

struct auto_settings {
	double storage_mbps;    /* --storage-mbps, else STORAGE_MBPS_DEFAULT */
	double cpu_scale;       /* --cpu-scale: the target is this many times slower */
	unsigned cpus;          /* --cpus: the target's CPUs; above 1, every candidate in as many frames */
	int progress;           /* a line per candidate on stderr (slow inputs) */
	const char *cache_dir;  /* --pack-cache, or NULL (payload_cache.h) */
};

/* Compress k's memory with every candidate (each codec of the table but
 * none, on the kernel as is and x86-filtered: see codec_auto.c) at its
 * default level (in s->cpus frames when that is above 1), time our decoder
 * on each payload (framed: each frame alone, and the decode takes as long
 * as the busiest of s->cpus CPUs taking the frames in table order), and print on stderr a table of the candidates, best first, and
 * a line "bzpack: INPUT: --codec auto chose CODEC, WHY: ..." with the
 * figures that decided it.  Returns 0 with *chosen, *payload (the
 * caller frees payload->data) and *frames (1: one stream), k filtered too when the x86 variant won
 * (k->flags says so), or -1 with err set. */
int codec_auto(const char *input, struct kernel *k, const struct auto_settings *s,
	       const struct codec **chosen, struct buffer *payload, unsigned *frames, struct error *err);

#endif
