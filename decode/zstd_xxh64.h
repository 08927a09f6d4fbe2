/* zstd_xxh64.h - XXH64 for the zstd decoder's Content_Checksum, hashed
 * while the frame is decoded (decode/zstd_decode.c includes it; static:
 * one user).  From the xxHash specification. */
#ifndef ZSTD_XXH64_H
#define ZSTD_XXH64_H

#include "zstd_internal.h"

/* ---- XXH64 (the xxHash specification, XXH64) -------------------------------
 * Content_Checksum is the low 32 bits of XXH64(content, seed 0). */
#define XXH_P1 0x9E3779B185EBCA87ull
#define XXH_P2 0xC2B2AE3D27D4EB4Full
#define XXH_P3 0x165667B19E3779F9ull
#define XXH_P4 0x85EBCA77C2B2AE63ull
#define XXH_P5 0x27D4EB2F165667C5ull
#define XXH_STRIPE 32

/* r = 0..63 (the second shift is taken modulo 64, so r = 0 is x). */
static ALWAYS_INLINE uint64_t rotl64(uint64_t x, unsigned r)
{
	return x << r | x >> ((64 - r) & 63);
}

#if ZSTD_SMALL
#define XXH_INLINE NOINLINE
#else
#define XXH_INLINE ALWAYS_INLINE
#endif

static XXH_INLINE uint64_t xxh_round(uint64_t acc, uint64_t lane)
{
	return rotl64(acc + lane * XXH_P2, 31) * XXH_P1;
}

static ALWAYS_INLINE uint64_t xxh_merge(uint64_t acc, uint64_t v)
{
	return (acc ^ xxh_round(0, v)) * XXH_P1 + XXH_P4;
}

/* Hashed as the frame is decoded, a block at a time while its output is
 * still in the cache: whole stripes up to the output so far, then at the
 * end of the frame the rest.  The output is contiguous, so no buffering. */
struct xxh {
	uint64_t v1, v2, v3, v4;
	const uint8_t *start, *pos;     /* the frame's output; hashed up to pos */
};

static void xxh_init(struct xxh *h, const uint8_t *start)
{
	h->v1 = XXH_P1 + XXH_P2;
	h->v2 = XXH_P2;
	h->v3 = 0;
	h->v4 = 0 - XXH_P1;
	h->start = h->pos = start;
}

/* Takes in the whole stripes of [h->pos, end). */
static void xxh_update(struct xxh *h, const uint8_t *end)
{
	const uint8_t *p = h->pos;
	uint64_t v1 = h->v1, v2 = h->v2, v3 = h->v3, v4 = h->v4;

	while ((size_t)(end - p) >= XXH_STRIPE) {
		v1 = xxh_round(v1, load_le64(p));
		v2 = xxh_round(v2, load_le64(p + 8));
		v3 = xxh_round(v3, load_le64(p + 16));
		v4 = xxh_round(v4, load_le64(p + 24));
		p += XXH_STRIPE;
	}
	h->v1 = v1;
	h->v2 = v2;
	h->v3 = v3;
	h->v4 = v4;
	h->pos = p;
}

/* XXH64 of [h->start, end), seed 0. */
static COLD_ONCE uint64_t xxh_final(struct xxh *h, const uint8_t *end)
{
	const uint8_t *p;
	const size_t len = (size_t)(end - h->start);
	uint64_t acc;

	xxh_update(h, end);
	p = h->pos;
	if (len >= XXH_STRIPE) {
		acc = rotl64(h->v1, 1) + rotl64(h->v2, 7) + rotl64(h->v3, 12) + rotl64(h->v4, 18);
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
		acc = rotl64(acc, 27) * XXH_P1 + XXH_P4;
		p += 8;
	}
	if ((size_t)(end - p) >= 4) {
		acc ^= (uint64_t)load_le32(p) * XXH_P1;
		acc = rotl64(acc, 23) * XXH_P2 + XXH_P3;
		p += 4;
	}
	while (p < end) {
		acc ^= *p++ * XXH_P5;
		acc = rotl64(acc, 11) * XXH_P1;
	}
	acc ^= acc >> 33;
	acc *= XXH_P2;
	acc ^= acc >> 29;
	acc *= XXH_P3;
	acc ^= acc >> 32;
	return acc;
}

#endif
