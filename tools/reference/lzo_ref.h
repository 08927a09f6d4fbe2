/* lzo_ref.h - a plain reference decoder for LZO1X / LZO-RLE streams, for
 * tests/test_lzo.c and tests/fuzz_lzo.c, and the lzo-rle line of
 * decode/references.def (tools/reference/lzo-rle.c).
 *
 * Written straight from Documentation/staging/lzo.rst and the choices at
 * the top of decode/lzo1x_core.h, one byte at a time, with its checks in
 * the order of that decoder's safe loop, so that the statuses must match
 * exactly.  It also counts what it saw (zero runs, matches by kind) and
 * notes the end markers liblzo2 accepts and we do not.
 */
#ifndef LZO_REF_H
#define LZO_REF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "decode.h"

struct lzo_ref_stats {
	size_t zero_runs, zero_bytes;   /* version-1 zero runs */
	size_t m1, m2, m3, m4, runs;    /* instructions by kind; runs: literal runs */
	int odd_end;    /* stopped at an M4 of distance 16384 other than 0x11 0x00 0x00 */
};

/* Length field of `mask` that was 0: mask + 255 per zero byte + the next.
 * 0 if the input ends first.  (Test inputs are small: no overflow.) */
static inline size_t lzo_ref_ext(const uint8_t *src, size_t n, size_t *ip, size_t mask)
{
	size_t len = mask;

	for (;;) {
		if (*ip == n)
			return 0;
		uint8_t b = src[(*ip)++];
		if (b) {
			return len + b;
		}
		len += 255;
	}
}

/* An M3's or M4's length (t's bits under mask, extended when 0) plus 2,
 * then its le16 distance field into *s.  0 if the input ends first. */
static inline size_t lzo_ref_match(const uint8_t *src, size_t n, size_t *ip, unsigned t, size_t mask,
				   unsigned *s)
{
	size_t len = t & mask;

	if (len == 0 && (len = lzo_ref_ext(src, n, ip, mask)) == 0)
		return 0;
	if (n - *ip < 2)
		return 0;
	*s = src[*ip] | (unsigned)src[*ip + 1] << 8;
	*ip += 2;
	return len + 2;
}

/* len literals from src at *ip to dst at *op, checked in the decoder's
 * order: the input first, then the room. */
static inline enum decode_status lzo_ref_literals(const uint8_t *src, size_t n, size_t *ip, uint8_t *dst,
						  size_t cap, size_t *op, size_t len)
{
	if (len > n - *ip)
		return DECODE_TRUNCATED;
	if (len > cap - *op)
		return DECODE_OUTPUT_OVERRUN;
	memcpy(dst + *op, src + *ip, len);
	*ip += len;
	*op += len;
	return DECODE_OK;
}

static inline enum decode_status lzo_ref_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
						int version, struct lzo_ref_stats *st)
{
	size_t ip = 0, op = 0, len, off;
	unsigned state = 0, s, t;
	enum decode_status r;

	memset(st, 0, sizeof(*st));
	if (version == 1) {
		if (n < 5)
			return n == 0 || src[0] == 17 ? DECODE_TRUNCATED : DECODE_CORRUPT;
		if (src[0] != 17 || src[1] != 1)
			return DECODE_CORRUPT;
		ip = 2;
	} else {
		if (n == 0)
			return DECODE_TRUNCATED;
		if (n >= 5 && src[0] == 17)
			return DECODE_CORRUPT;
	}
	if (src[ip] > 17) {
		len = src[ip++] - 17u;
		r = lzo_ref_literals(src, n, &ip, dst, cap, &op, len);
		if (r != DECODE_OK)
			return r;
		state = len < 4 ? (unsigned)len : 4;
	}
	for (;;) {
		if (ip == n)
			return DECODE_TRUNCATED;
		t = src[ip++];
		if (t >= 64) {                  /* M2 */
			if (ip == n)
				return DECODE_TRUNCATED;
			off = 1 + ((t >> 2) & 7) + ((size_t)src[ip++] << 3);
			len = (t >> 5) + 1;
			s = t & 3;
			st->m2++;
		} else if (t >= 32) {           /* M3 */
			if ((len = lzo_ref_match(src, n, &ip, t, 31, &s)) == 0)
				return DECODE_TRUNCATED;
			off = 1 + (s >> 2);
			s &= 3;
			st->m3++;
		} else if (t >= 16) {           /* M4, end, zero run */
			if (version == 1 && (t & 0xf8) == 0x18 && n - ip >= 2 &&
			    (src[ip] & 0xfc) == 0xfc && src[ip + 1] == 0xff) {
				if (n - ip < 3)
					return DECODE_TRUNCATED;
				len = ((size_t)src[ip + 2] << 3 | (t & 7)) + 4;
				s = src[ip] & 3;
				ip += 3;
				if (len > cap - op)
					return DECODE_OUTPUT_OVERRUN;
				memset(dst + op, 0, len);
				op += len;
				st->zero_runs++;
				st->zero_bytes += len;
				goto trailing;
			}
			if ((len = lzo_ref_match(src, n, &ip, t, 7, &s)) == 0)
				return DECODE_TRUNCATED;
			off = 16384 + ((size_t)(t & 8) << 11) + (s >> 2);
			if (off == 16384) {
				if (t != 0x11 || s != 0) {
					st->odd_end = 1;
					return DECODE_CORRUPT;
				}
				if (ip != n)
					return DECODE_CORRUPT;
				return op == cap ? DECODE_OK : DECODE_SHORT_OUTPUT;
			}
			s &= 3;
			st->m4++;
		} else if (state == 0) {        /* literal run */
			len = t;
			if (len == 0 && (len = lzo_ref_ext(src, n, &ip, 15)) == 0)
				return DECODE_TRUNCATED;
			r = lzo_ref_literals(src, n, &ip, dst, cap, &op, len + 3);
			if (r != DECODE_OK)
				return r;
			state = 4;
			st->runs++;
			continue;
		} else {                        /* M1 */
			if (ip == n)
				return DECODE_TRUNCATED;
			off = 1 + ((t >> 2) & 3) + ((size_t)src[ip++] << 2);
			len = 2;
			if (state == 4) {
				off += 2048;
				len = 3;
			}
			s = t & 3;
			st->m1++;
		}
		if (off > op)
			return DECODE_BAD_OFFSET;
		if (len > cap - op)
			return DECODE_OUTPUT_OVERRUN;
		for (size_t i = 0; i < len; i++, op++)
			dst[op] = dst[op - off];
trailing:
		r = lzo_ref_literals(src, n, &ip, dst, cap, &op, s);
		if (r != DECODE_OK)
			return r;
		state = s;
	}
}

#endif
