/* copy.h - the match copies the LZ decoders share.  Each says how far past
 * the end of what it must produce it may write; the caller guarantees that
 * room (a decoder's fast loop keeps a margin before the end of its output
 * and switches to the exact copies near it).
 *
 *   copy8          8 bytes, one load and one store: the piece of the
 *                  wild copies.  Source and destination must not overlap
 *                  within the 8 bytes (offset >= 8).
 *   copy_spread8   offsets 1..7: writes exactly op[0..7] byte by byte, and
 *                  returns a source for the bytes from op + 8 on whose
 *                  distance is a multiple of the offset and >= 8, so that
 *                  8-byte pieces from it never overlap their destination
 *                  and continue the pattern.  The one spread table.
 *   copy_spread_distance  the same distance, computed.
 *   copy_wild8     8-byte pieces while op < end: up to 7 bytes past end,
 *                  and 8 from op even if end - op < 8.  Offset >= 8.
 *   copy_exact     writes exactly [op, op + len), any offset >= 1: pieces
 *                  while 8 bytes remain, then bytes.  Nothing past the end.
 *
 * The spread idea (a small offset's period widened to a multiple of
 * itself that is at least a word) is LZ4's (lib/lz4.c, LZ4_memcpy_using_
 * offset and its inc32table/dec64table); the tables here are derived, not
 * copied: distance[off] = off * ceil(8 / off). */
#ifndef COPY_H
#define COPY_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "mem.h"

static ALWAYS_INLINE void copy8(uint8_t *d, const uint8_t *s)
{
	uint64_t v;

	memcpy(&v, s, 8);
	memcpy(d, &v, 8);
}

/* The spread distance of off in 1..7 computed rather than looked up
 * (off * ceil(8 / off), as the table in copy_spread8): LZO's wild copy
 * runs measurably faster with it (icount), the others with the table. */
static ALWAYS_INLINE size_t copy_spread_distance(size_t off)
{
	return off >= 4 ? 2 * off : off == 3 ? 9 : 8;
}

/* off in 1..7; writes exactly op[0..7]; the result is >= op - off. */
static ALWAYS_INLINE const uint8_t *copy_spread8(uint8_t *op, size_t off)
{
	static const uint8_t distance[8] = { 0, 8, 8, 9, 8, 10, 12, 14 };
	const uint8_t *m = op - off;

	op[0] = m[0];
	op[1] = m[1];
	op[2] = m[2];
	op[3] = m[3];
	op[4] = m[4];
	op[5] = m[5];
	op[6] = m[6];
	op[7] = m[7];
	return op + 8 - distance[off];
}

/* Pieces from m to op until op reaches end: writes up to 7 bytes past end
 * (8 from op when end - op < 8).  m + 8 <= op, or the pieces overlap. */
static ALWAYS_INLINE void copy_wild8(uint8_t *op, const uint8_t *m, const uint8_t *end)
{
	do {
		copy8(op, m);
		op += 8;
		m += 8;
	} while (op < end);
}

/* A match of len bytes from distance off (>= 1), exactly. */
static MAYBE_UNUSED void copy_exact(uint8_t *op, size_t off, size_t len)
{
	uint8_t *const end = op + len;
	const uint8_t *m = op - off;

	if (off >= 8) {
		for (; (size_t)(end - op) >= 8; op += 8, m += 8)
			copy8(op, m);
	} else if (len >= 8) {
		m = copy_spread8(op, off);
		for (op += 8; (size_t)(end - op) >= 8; op += 8, m += 8)
			copy8(op, m);
	}
	while (op < end)
		*op++ = *m++;
}

#endif
