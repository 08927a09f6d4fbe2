/* xxh64.h - XXH64 (the xxHash specification, "XXH64 algorithm"), seed 0.
 * The zstd decoder's (a frame's Content_Checksum is its low 32 bits); the
 * payload check is XXH3-64 (decode/xxh3.h).
 *
 * Streaming over contiguous memory: the caller hashes whole 32-byte
 * stripes as its data grows (xxh_update, e.g. a block at a time while the
 * output is still in the cache) and finishes with xxh_final; no buffering,
 * since the bytes stay where they are.  xxh64() does all of it at once. */
#ifndef XXH64_H
#define XXH64_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "mem.h"

#define XXH_P1 0x9E3779B185EBCA87ull
#define XXH_P2 0xC2B2AE3D27D4EB4Full
#define XXH_P3 0x165667B19E3779F9ull
#define XXH_P4 0x85EBCA77C2B2AE63ull
#define XXH_P5 0x27D4EB2F165667C5ull
#define XXH_STRIPE 32

/* r = 0..63 (the second shift is taken modulo 64, so r = 0 is x). */
static ALWAYS_INLINE uint64_t xxh_rotl64(uint64_t x, unsigned r)
{
	return x << r | x >> ((64 - r) & 63);
}

static ALWAYS_INLINE uint64_t xxh_lane(uint64_t acc, uint64_t lane)
{
	return xxh_rotl64(acc + lane * XXH_P2, 31) * XXH_P1;
}

/* On i686 a 64-bit multiply is three 32-bit ones and some adds: the round
 * is kept out of line there, where code size counts more (the 32-bit zstd
 * stub's budget). */
#if defined(__i386__)
#define XXH_INLINE NOINLINE
#else
#define XXH_INLINE ALWAYS_INLINE
#endif

static XXH_INLINE uint64_t xxh_round(uint64_t acc, uint64_t lane)
{
	return xxh_lane(acc, lane);
}

static ALWAYS_INLINE uint64_t xxh_merge(uint64_t acc, uint64_t v)
{
	return (acc ^ xxh_round(0, v)) * XXH_P1 + XXH_P4;
}

struct xxh {
	uint64_t v1, v2, v3, v4;        /* the four lanes' accumulators */
	const uint8_t *start, *pos;     /* the data; hashed in whole stripes up to pos */
};

static MAYBE_UNUSED void xxh_init(struct xxh *h, const uint8_t *start)
{
	h->v1 = XXH_P1 + XXH_P2;
	h->v2 = XXH_P2;
	h->v3 = 0;
	h->v4 = 0 - XXH_P1;
	h->start = h->pos = start;
}

/* Takes in the whole stripes of [h->pos, end).  Four independent lanes:
 * per 8 bytes a load, two multiplies, an add and a rotate. */
static MAYBE_UNUSED void xxh_update(struct xxh *h, const uint8_t *end)
{
	const uint8_t *p = h->pos;
	uint64_t v1 = h->v1, v2 = h->v2, v3 = h->v3, v4 = h->v4;

	/* The loop compares p with the last stripe's start, computed once:
	 * one compare and branch per stripe (the boot stub's verify is
	 * counted in instructions per byte). */
	if ((size_t)(end - p) >= XXH_STRIPE) {
		const uint8_t *last = end - XXH_STRIPE;
		do {
			v1 = xxh_round(v1, load_le64(p));
			v2 = xxh_round(v2, load_le64(p + 8));
			v3 = xxh_round(v3, load_le64(p + 16));
			v4 = xxh_round(v4, load_le64(p + 24));
			p += XXH_STRIPE;
		} while (p <= last);
	}
	h->v1 = v1;
	h->v2 = v2;
	h->v3 = v3;
	h->v4 = v4;
	h->pos = p;
}

/* XXH64 of [h->start, end): the rest of the stripes, the tail, the final
 * avalanche. */
static MAYBE_UNUSED COLD NOINLINE uint64_t xxh_final(struct xxh *h, const uint8_t *end)
{
	const uint8_t *p;
	const size_t len = (size_t)(end - h->start);
	uint64_t acc;

	xxh_update(h, end);
	p = h->pos;
	if (len >= XXH_STRIPE) {
		acc = xxh_rotl64(h->v1, 1) + xxh_rotl64(h->v2, 7) + xxh_rotl64(h->v3, 12) +
		      xxh_rotl64(h->v4, 18);
		acc = xxh_merge(acc, h->v1);
		acc = xxh_merge(acc, h->v2);
		acc = xxh_merge(acc, h->v3);
		acc = xxh_merge(acc, h->v4);
	} else {
		acc = XXH_P5;
	}
	acc += (uint64_t)len;
	while ((size_t)(end - p) >= 8) {
		acc ^= xxh_round(0, load_le64(p));
		acc = xxh_rotl64(acc, 27) * XXH_P1 + XXH_P4;
		p += 8;
	}
	if ((size_t)(end - p) >= 4) {
		acc ^= (uint64_t)load_le32(p) * XXH_P1;
		acc = xxh_rotl64(acc, 23) * XXH_P2 + XXH_P3;
		p += 4;
	}
	while (p < end) {
		acc ^= *p++ * XXH_P5;
		acc = xxh_rotl64(acc, 11) * XXH_P1;
	}
	acc ^= acc >> 33;
	acc *= XXH_P2;
	acc ^= acc >> 29;
	acc *= XXH_P3;
	acc ^= acc >> 32;
	return acc;
}

/* XXH64(buf, len, seed 0) in one call. */
static MAYBE_UNUSED uint64_t xxh64(const void *buf, size_t len)
{
	struct xxh h;
	const uint8_t *p = buf;

	xxh_init(&h, p);
	return xxh_final(&h, p + len);
}

#endif
