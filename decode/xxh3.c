/* xxh3.c - XXH3-64, seed 0, the default secret: see xxh3.h.  Written from
 * the xxHash specification (doc/xxhash_spec.md of the xxHash project);
 * checked against libxxhash's XXH3_64bits by tests/test_xxh3.c.
 *
 * The stub's payload check is its one pass over every payload byte, so
 * the large-input loop is what counts (instructions per byte under
 * -icount, README "Integrity").  XXH3 was designed for SIMD: each 8-byte
 * lane of a stripe needs one 32x32->64 multiply (SSE2's pmuludq, two
 * lanes at a time) and adds, where XXH64 needs two 64x64 multiplies per
 * lane, three 32-bit ones each on i386.  The lanes are GCC/clang vector
 * types: SSE2 registers on x86, plain integer code elsewhere. */
#include "xxh3.h"

#include "compiler.h"
#include "mem.h"

/* The vector loads take the bytes in memory order as lanes. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "xxh3.c loads vectors as little-endian lanes");

#define P32_1 0x9E3779B1u
#define P32_2 0x85EBCA77u
#define P32_3 0xC2B2AE3Du
#define P64_1 0x9E3779B185EBCA87ull
#define P64_2 0xC2B2AE3D27D4EB4Full
#define P64_3 0x165667B19E3779F9ull
#define P64_4 0x85EBCA77C2B2AE63ull
#define P64_5 0x27D4EB2F165667C5ull
#define PRIME_MX1 0x165667919E3779F9ull
#define PRIME_MX2 0x9FB21C651E98DF25ull

#define SECRET_SIZE 192
#define STRIPE 64                                  /* 8 lanes of 8 bytes */
#define STRIPES_PER_BLOCK ((SECRET_SIZE - STRIPE) / 8)
#define BLOCK (STRIPE * STRIPES_PER_BLOCK)         /* 1024 bytes, then a scramble */
#define MIDSIZE_MAX 240

/* The specification's default secret. */
static const uint8_t secret[SECRET_SIZE] = {
	0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
	0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
	0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
	0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
	0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
	0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
	0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
	0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
	0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
	0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
	0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
	0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

static ALWAYS_INLINE uint64_t sec64(size_t off)
{
	return load_le64(secret + off);
}

static ALWAYS_INLINE uint64_t rotl64(uint64_t x, unsigned r)
{
	return x << r | x >> (64 - r);
}

/* The low 64 bits of the 128-bit product XOR its high 64 bits. */
static COLD uint64_t mul_fold(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
	__extension__ unsigned __int128 m = (unsigned __int128)a * b;

	return (uint64_t)m ^ (uint64_t)(m >> 64);
#else
	/* i386: four 32x32->64 products; cross cannot overflow (at most
	 * 3 * (2^32 - 1) + (2^32 - 1)^2 = 2^64 - 1). */
	uint64_t ll = (uint64_t)(uint32_t)a * (uint32_t)b;
	uint64_t hl = (a >> 32) * (uint32_t)b;
	uint64_t lh = (uint32_t)a * (b >> 32);
	uint64_t hh = (a >> 32) * (b >> 32);
	uint64_t cross = (ll >> 32) + (uint32_t)hl + lh;

	return ((cross << 32) | (uint32_t)ll) ^ (hh + (hl >> 32) + (cross >> 32));
#endif
}

/* The specification's avalanche() and avalanche_XXH64(). */
static COLD uint64_t avalanche(uint64_t h)
{
	h ^= h >> 37;
	h *= PRIME_MX1;
	return h ^ h >> 32;
}

static COLD uint64_t avalanche_xxh64(uint64_t h)
{
	h ^= h >> 33;
	h *= P64_2;
	h ^= h >> 29;
	h *= P64_3;
	return h ^ h >> 32;
}

/* mixStep: 16 bytes of data against 16 of the secret. */
static COLD uint64_t mix16(const uint8_t *p, size_t off)
{
	return mul_fold(load_le64(p) ^ sec64(off), load_le64(p + 8) ^ sec64(off + 8));
}

/* 0-16 bytes. */
static COLD uint64_t xxh3_short(const uint8_t *p, size_t len)
{
	if (len > 8) {
		uint64_t lo = (sec64(24) ^ sec64(32)) ^ load_le64(p);
		uint64_t hi = (sec64(40) ^ sec64(48)) ^ load_le64(p + len - 8);

		return avalanche(len + __builtin_bswap64(lo) + hi + mul_fold(lo, hi));
	}
	if (len >= 4) {
		uint64_t v = (sec64(8) ^ sec64(16)) ^ (load_le32(p + len - 4) | (uint64_t)load_le32(p) << 32);

		v ^= rotl64(v, 49) ^ rotl64(v, 24);
		v *= PRIME_MX2;
		v ^= (v >> 35) + len;
		v *= PRIME_MX2;
		return v ^ v >> 28;
	}
	if (len)
		return avalanche_xxh64((uint64_t)(load_le32(secret) ^ load_le32(secret + 4)) ^
				       (p[len - 1] | (uint32_t)len << 8 | (uint32_t)p[0] << 16 |
					(uint32_t)p[len >> 1] << 24));
	return avalanche_xxh64(sec64(56) ^ sec64(64));
}

/* 17-240 bytes. */
static COLD uint64_t xxh3_mid(const uint8_t *p, size_t len)
{
	uint64_t acc = len * P64_1;

	if (len <= 128) {
		for (size_t i = (len - 1) / 32 + 1; i--;)
			acc += mix16(p + 16 * i, 32 * i) + mix16(p + len - 16 - 16 * i, 32 * i + 16);
		return avalanche(acc);
	}
	for (size_t i = 0; i < 8; i++)
		acc += mix16(p + 16 * i, 16 * i);
	acc = avalanche(acc);
	for (size_t i = 8; i < len / 16; i++)
		acc += mix16(p + 16 * i, 16 * (i - 8) + 3);
	return avalanche(acc + mix16(p + len - 16, 136 - 17));
}

/* Two of the eight 64-bit accumulators. */
typedef uint64_t lanes2 __attribute__((vector_size(16)));

/* Each lane's low half times its high half, 32x32->64 bits; and each lane
 * times a 32-bit constant.  pmuludq with SSE2 (GCC would otherwise
 * multiply all 64 bits, three pmuludq). */
#ifdef __SSE2__
typedef int dwords4 __attribute__((vector_size(16)));
#define MUL_HALVES(k) ((lanes2)__builtin_ia32_pmuludq128((dwords4)(k), \
		__builtin_shufflevector((dwords4)(k), (dwords4)(k), 1, 1, 3, 3)))
#define MUL_CONST32(a, c) ((lanes2)__builtin_ia32_pmuludq128((dwords4)(a), (dwords4){ (int)(c), 0, (int)(c), 0 }) + \
		((lanes2)__builtin_ia32_pmuludq128((dwords4)((a) >> 32), (dwords4){ (int)(c), 0, (int)(c), 0 }) << 32))
#else
#define MUL_HALVES(k) (((k) & 0xffffffffu) * ((k) >> 32))
#define MUL_CONST32(a, c) ((a) * (uint32_t)(c))
#endif

static ALWAYS_INLINE lanes2 load_lanes(const uint8_t *p)
{
	lanes2 v;

	__builtin_memcpy(&v, p, sizeof(v));
	return v;
}

/* Two lanes of a stripe against two of the secret's: the data XOR the
 * secret, its halves multiplied into the lane's accumulator; the data
 * itself summed in *sum, which goes to the neighbour lanes' accumulators
 * (the vector's other half) once per call of accumulate: additions
 * commute, and that saves a shuffle per step. */
static ALWAYS_INLINE lanes2 lanes_mul(lanes2 a, lanes2 *sum, const uint8_t *p, const uint8_t *s)
{
	lanes2 d = load_lanes(p), k = d ^ load_lanes(s);

	*sum += d;
	return a + MUL_HALVES(k);
}

/* After each block: the accumulators' high bits mixed down, against the
 * secret's last 64 bytes. */
static ALWAYS_INLINE lanes2 scramble(lanes2 a, const uint8_t *s)
{
	a ^= a >> 47;
	a ^= load_lanes(s);
	return MUL_CONST32(a, P32_1);
}

/* Stripes [p, p + 64 n), the n-th against the secret 8 n bytes on.  The
 * stub's one loop over the payload: out of line, -O2 in the stub
 * (stub/stub.mk: decode/ objects are hot code), the accumulators and the
 * data sums in registers throughout on x86-64 (8 of its 16 xmm
 * registers; i386 has 8, and keeps the sums on the stack).  The blocks'
 * loop around it stays cold, built for size: it runs once per KiB. */
static HOT void accumulate(lanes2 acc[4], const uint8_t *p, size_t n, const uint8_t *s)
{
	lanes2 a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
	lanes2 d0 = { 0, 0 }, d1 = d0, d2 = d0, d3 = d0;

	for (const uint8_t *end = p + STRIPE * n; p != end; p += STRIPE, s += 8) {
		a0 = lanes_mul(a0, &d0, p, s);
		a1 = lanes_mul(a1, &d1, p + 16, s + 16);
		a2 = lanes_mul(a2, &d2, p + 32, s + 32);
		a3 = lanes_mul(a3, &d3, p + 48, s + 48);
	}
	acc[0] = a0 + __builtin_shufflevector(d0, d0, 1, 0);
	acc[1] = a1 + __builtin_shufflevector(d1, d1, 1, 0);
	acc[2] = a2 + __builtin_shufflevector(d2, d2, 1, 0);
	acc[3] = a3 + __builtin_shufflevector(d3, d3, 1, 0);
}

/* More than 240 bytes: whole blocks (16 stripes, then a scramble), then
 * the last block (1-1024 bytes) but its last stripe, then the input's
 * last 64 bytes as a stripe of their own. */
static COLD uint64_t xxh3_long(const uint8_t *p, size_t len)
{
	lanes2 acc[4] = { { P32_3, P64_1 }, { P64_2, P64_3 }, { P64_4, P32_2 }, { P64_5, P32_1 } };
	const uint8_t *end = p + len;
	uint64_t lane[8];
	uint64_t h = len * P64_1;

	for (size_t blocks = (len - 1) / BLOCK; blocks--; p += BLOCK) {
		accumulate(acc, p, STRIPES_PER_BLOCK, secret);
		for (int j = 0; j < 4; j++)
			acc[j] = scramble(acc[j], secret + SECRET_SIZE - STRIPE + 16 * j);
	}
	accumulate(acc, p, (size_t)(end - p - 1) / STRIPE, secret);
	accumulate(acc, end - STRIPE, 1, secret + SECRET_SIZE - STRIPE - 7);
	__builtin_memcpy(lane, acc, sizeof(lane));
	for (int i = 0; i < 4; i++)
		h += mul_fold(lane[2 * i] ^ sec64(11 + 16 * i), lane[2 * i + 1] ^ sec64(19 + 16 * i));
	return avalanche(h);
}

COLD uint64_t xxh3_64(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (len <= 16)
		return xxh3_short(p, len);
	if (len <= MIDSIZE_MAX)
		return xxh3_mid(p, len);
	return xxh3_long(p, len);
}
