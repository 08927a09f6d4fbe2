/* lz4_decode.c - LZ4 block decoder for the boot stub and the host tools.
 *
 * Written for bzpack from the "LZ4 Block Format Description"
 * (lz4_Block_format.md, revision of 2022-07-31); quoted section names
 * refer to that document.  Only the block format is handled: no frame
 * header, no checksums, no dictionary.  The caller knows the exact
 * compressed and decompressed sizes (see decode.h for the contract).
 *
 * Structure
 *   A fast loop decodes whole sequences while at least FAST_IN_MARGIN
 *   input bytes and FAST_OUT_MARGIN output bytes remain.  Inside it,
 *   literals and matches move in fixed-size 8/16-byte "wild" copies that
 *   may run a little past the end of the run (never past the buffers);
 *   the excess is overwritten by the following sequence.  Near the ends
 *   of the buffers a safe loop decodes the rest with exact copies.  Both
 *   loops accept exactly the same blocks and report the same statuses.
 *
 * Choices
 *   - "End of block conditions" 2 and 3 (last 5 bytes are literals, last
 *     match starts at least MFLIMIT bytes before the end) are NOT
 *     enforced: the spec only allows a decoder to reject such blocks and
 *     they decode unambiguously here, so blocks from other encoders work.
 *   - Condition 1 IS enforced: a block ends only right after the literals
 *     of a sequence.  Input that runs out where a token is due (i.e.
 *     right after a match) is DECODE_TRUNCATED, even if the output
 *     happens to be full, so a block cut at a sequence boundary is caught.
 *   - Empty output: liblz4 encodes 0 bytes as the one-byte block {0x00}
 *     (a final token without literals), which decodes OK with dst_len 0.
 *     As a convenience src_len 0 with dst_len 0 is also DECODE_OK
 *     (nothing to consume, nothing to produce); src_len 0 with dst_len > 0
 *     is DECODE_TRUNCATED.  A NULL src or dst is fine with length 0.
 *   - The low nibble of the final token has no match to describe and is
 *     ignored, as the spec gives it no meaning there.
 *   - src and dst must not overlap (no in-place decoding).
 *   - Reads the 2-byte offset byte by byte, so it is endian-neutral;
 *     unaligned access happens only through memcpy.
 */
#include <stddef.h>
#include <stdint.h>

#include "decode.h"
#include "mem.h"

/* ---- Format constants ("Compressed block format") ---------------------- */

/* A token is one byte: literal length in the high 4 bits, match length in
 * the low 4 bits. */
#define TOKEN_LIT_SHIFT 4
#define TOKEN_ML_MASK   0x0fu
/* A nibble of 15 means the length continues in the following bytes; each
 * adds 0..255 and a byte of 255 means yet another byte follows. */
#define LEN_EXTENDED    15u
#define LEN_BYTE_MORE   255u
/* The match offset: 2 bytes, little endian, 1..65535 (0 is invalid). */
#define OFFSET_BYTES    2
/* "minmatch": a match-length nibble of 0 means 4 bytes. */
#define MINMATCH        4u

/* ---- "End of block conditions" ------------------------------------------
 * Compliant encoders end every block with at least LAST_LITERALS literal
 * bytes and start the last match at least MFLIMIT bytes before the end of
 * the output.  Decoders may rely on this, but this one does not (see the
 * top of the file); the values are kept to document the margins below. */
#define LAST_LITERALS   5
#define MFLIMIT         12

/* ---- Wild-copy geometry -------------------------------------------------
 * LIT_CHUNK: literal runs are copied in 16-byte pieces, so a run of n
 * bytes reads and writes up to LIT_CHUNK - 1 bytes past its end.
 * SHORT_MATCH_WILD: a match whose length fits in the nibble (4..18 bytes)
 * is copied branch-free and writes at most 24 bytes from its start.
 * LONG_MATCH_SLACK: a longer match copied in 8- or 16-byte pieces writes
 * at most LONG_MATCH_SLACK - 1 bytes past its end. */
#define LIT_CHUNK        16
#define SHORT_LIT_MAX    (LEN_EXTENDED - 1)      /* 14 */
#define SHORT_MATCH_WILD 24
#define LONG_MATCH_SLACK 16

/* The fast loop runs a sequence only when, at its token, this much input
 * remains: the token plus one LIT_CHUNK of literals.  A short literal run
 * (<= 14 bytes) plus its 2 offset bytes ends within that chunk, so neither
 * the wild literal copy nor the offset read can leave src. */
#define FAST_IN_MARGIN   (1 + LIT_CHUNK)
/* ... and this much output: a short literal run (<= 14) copied as one
 * 16-byte chunk, followed by a short match that may write 24 bytes. */
#define FAST_OUT_MARGIN  (SHORT_LIT_MAX + SHORT_MATCH_WILD)
/* A long literal run (nibble 15) is copied in the fast loop only if after
 * it LIT_CHUNK bytes of input remain (covers the chunk over-read and the
 * 2 offset bytes) and SHORT_MATCH_WILD bytes of output remain (covers the
 * chunk over-write and the short-match copy that may follow). */
#define LONG_LIT_IN_SLACK  LIT_CHUNK
#define LONG_LIT_OUT_SLACK SHORT_MATCH_WILD

_Static_assert(FAST_IN_MARGIN >= 1 + SHORT_LIT_MAX + OFFSET_BYTES,
	       "fast loop must be able to read a short literal run and its offset");
_Static_assert(FAST_OUT_MARGIN >= LIT_CHUNK,
	       "fast loop must be able to write one literal chunk");
_Static_assert(SHORT_MATCH_WILD >= LEN_EXTENDED - 1 + MINMATCH,
	       "short-match copy must cover the longest short match (18)");
_Static_assert(LONG_LIT_OUT_SLACK >= LIT_CHUNK - 1 && LONG_LIT_OUT_SLACK >= SHORT_MATCH_WILD,
	       "long literal slack must cover its over-write and a short match");
_Static_assert(SHORT_MATCH_WILD >= LONG_MATCH_SLACK,
	       "after a literal run the long-match slack must be available");
_Static_assert(LAST_LITERALS < MFLIMIT, "format constants");

/* Lengths are clamped here while their extension bytes are summed.  No
 * buffer can be larger than PTRDIFF_MAX (<= SIZE_MAX / 2) bytes, so a
 * clamped length still fails every later bound check, and adding 255 (or
 * any of the small slacks above) to it can never wrap, even with a 32-bit
 * size_t (a 16 MiB run of 255 bytes would otherwise overflow it). */
#define LEN_CLAMP (SIZE_MAX / 2)

/* Adds the extension bytes of a length field (the nibble was 15) to *len.
 * Returns DECODE_OK, or DECODE_TRUNCATED if the input ends inside the
 * field. */
static inline enum decode_status read_ext_len(const uint8_t **pip, const uint8_t *iend,
					      size_t *len)
{
	const uint8_t *ip = *pip;
	size_t n = *len;
	unsigned b;

	do {
		/* Guards the read of the next length byte: input ended inside
		 * the length field. */
		if (ip == iend)
			return DECODE_TRUNCATED;
		b = *ip++;
		n += b;
		/* Guards n against wrapping on long runs of 255 bytes. */
		if (n > LEN_CLAMP)
			n = LEN_CLAMP;
	} while (b == LEN_BYTE_MORE);
	*pip = ip;
	*len = n;
	return DECODE_OK;
}

/* A match offset must be 1..(bytes produced so far); offset 0 is invalid
 * ("Compressed block format").  As unsigned, off - 1 wraps to SIZE_MAX for
 * off == 0, so one compare rejects both cases. */
static inline int bad_offset(size_t off, size_t produced)
{
	return off - 1 >= produced;
}

/* For offsets 1, 2 and 4 (which divide 8): the 8-byte word that repeats
 * through the whole match.  Reads only the off bytes before the match. */
static inline uint64_t pattern8(const uint8_t *m, size_t off)
{
	uint32_t w;

	if (off == 1) {
		w = m[0] * 0x01010101u;
	} else if (off == 2) {
		uint16_t h;

		memcpy(&h, m, 2);
		w = h * 0x00010001u;
	} else {
		memcpy(&w, m, 4);
	}
	return (uint64_t)w << 32 | w;   /* both halves equal: endian-neutral */
}

/* For offsets 3, 5, 6 and 7: writes the first 8 bytes of the match at op
 * one byte at a time (each may depend on the previous ones), then returns
 * a source for the bytes from op + 8 on whose distance is a multiple of
 * off and at least 8 (9, 10, 12, 14), so that 8-byte copies from it never
 * overlap their destination and continue the same periodic pattern.
 * Writes exactly op[0..7]; the returned pointer is >= op - off. */
static inline const uint8_t *spread_small_offset(uint8_t *op, size_t off)
{
	const uint8_t *m = op - off;

	op[0] = m[0];
	op[1] = m[1];
	op[2] = m[2];
	op[3] = m[3];
	op[4] = m[4];
	op[5] = m[5];
	op[6] = m[6];
	op[7] = m[7];
	return op + 8 - (off == 3 ? 9 : 2 * off);
}

/* Copies a match of length <= 18 (nibble < 15) with offset off.  Writes
 * at most SHORT_MATCH_WILD (24) bytes from op; the caller guarantees that
 * much room. */
static inline void copy_match_short(uint8_t *op, size_t off)
{
	const uint8_t *m = op - off;

	if (off >= 8) {
		/* 8 <= off: no piece overlaps its own source; a later
		 * piece may read what an earlier one wrote (off < 18),
		 * which is the overlap the format means. */
		memcpy(op, m, 8);
		memcpy(op + 8, m + 8, 8);
		memcpy(op + 16, m + 16, 2);
	} else if ((off & (off - 1)) == 0) {
		const uint64_t pat = pattern8(m, off);

		memcpy(op, &pat, 8);
		memcpy(op + 8, &pat, 8);
		memcpy(op + 16, &pat, 8);
	} else {
		m = spread_small_offset(op, off);
		memcpy(op + 8, m, 8);
		memcpy(op + 16, m + 8, 8);
	}
}

/* Copies a match of len bytes with offset off in whole 8- or 16-byte
 * pieces.  Writes at most LONG_MATCH_SLACK - 1 bytes past op + len; the
 * caller guarantees that much room. */
static inline void copy_match_wild(uint8_t *op, size_t off, size_t len)
{
	uint8_t *const end = op + len;
	const uint8_t *m = op - off;

	if (off >= 16) {
		do {
			memcpy(op, m, 16);
			op += 16;
			m += 16;
		} while (op < end);
	} else if (off >= 8) {
		do {
			memcpy(op, m, 8);
			op += 8;
			m += 8;
		} while (op < end);
	} else if ((off & (off - 1)) == 0) {
		const uint64_t pat = pattern8(m, off);

		do {
			memcpy(op, &pat, 8);
			op += 8;
		} while (op < end);
	} else {
		m = spread_small_offset(op, off);
		op += 8;
		while (op < end) {
			memcpy(op, m, 8);
			op += 8;
			m += 8;
		}
	}
}

/* Copies a match of len bytes with offset off, writing exactly
 * [op, op + len): every 8-byte piece is taken only while at least 8 bytes
 * remain, the rest goes byte by byte.  Used by the safe loop and for long
 * matches that end too close to oend for copy_match_wild. */
static void copy_match_exact(uint8_t *op, size_t off, size_t len)
{
	uint8_t *const end = op + len;
	const uint8_t *m = op - off;

	if (off >= 8) {
		while ((size_t)(end - op) >= 8) {
			memcpy(op, m, 8);
			op += 8;
			m += 8;
		}
	} else if ((off & (off - 1)) == 0) {
		const uint64_t pat = pattern8(m, off);

		while ((size_t)(end - op) >= 8) {
			memcpy(op, &pat, 8);
			op += 8;
		}
		m = op - off;
	} else if (len >= 8) {   /* spread_small_offset writes 8 bytes */
		m = spread_small_offset(op, off);
		op += 8;
		while ((size_t)(end - op) >= 8) {
			memcpy(op, m, 8);
			op += 8;
			m += 8;
		}
	}
	while (op < end)
		*op++ = *m++;
}

enum decode_status lz4_decode(const uint8_t *src, size_t src_len,
			      uint8_t *dst, size_t dst_len, void *workspace)
{
	uint8_t none;   /* stands in for dst when dst_len == 0 (dst may be NULL) */
	const uint8_t *ip, *iend;
	uint8_t *op, *ostart, *oend;
	enum decode_status st;
	size_t lit, ml, off;
	unsigned token;

	(void)workspace;        /* LZ4 needs none: its window is the output */

	/* Zero-length block: see "Choices" at the top.  Also keeps NULL + 0
	 * out of the pointer arithmetic below. */
	if (src_len == 0)
		return dst_len == 0 ? DECODE_OK : DECODE_TRUNCATED;
	if (dst_len == 0)
		dst = &none;    /* never written: every write is checked against oend */

	ip = src;
	iend = src + src_len;
	op = ostart = dst;
	oend = dst + dst_len;

	/* ---- Fast loop ---- */
	if (src_len >= FAST_IN_MARGIN && dst_len >= FAST_OUT_MARGIN) {
		const uint8_t *const ilimit = iend - FAST_IN_MARGIN;
		uint8_t *const olimit = oend - FAST_OUT_MARGIN;

		/* Guards every unchecked access of one sequence: >= 17 input
		 * bytes from the token, >= 38 output bytes from op. */
		while (ip <= ilimit && op <= olimit) {
			const uint8_t *const seq = ip;

			token = *ip++;
			lit = token >> TOKEN_LIT_SHIFT;
			if (lit != LEN_EXTENDED) {
				/* Short run: the loop margins cover this chunk. */
				memcpy(op, ip, LIT_CHUNK);
			} else {
				st = read_ext_len(&ip, iend, &lit);
				if (st != DECODE_OK)
					return st;
				/* Guards the chunked literal over-read and the
				 * offset read (input) and the chunk over-write
				 * plus the match copy that follows (output).
				 * Otherwise let the safe loop redo this
				 * sequence exactly (near the end of a buffer,
				 * or a corrupt length). */
				if (lit + LONG_LIT_IN_SLACK > (size_t)(iend - ip) ||
				    lit + LONG_LIT_OUT_SLACK > (size_t)(oend - op)) {
					ip = seq;
					break;
				}
				{
					uint8_t *d = op;
					const uint8_t *s = ip;
					uint8_t *const e = op + lit;

					do {
						memcpy(d, s, LIT_CHUNK);
						d += LIT_CHUNK;
						s += LIT_CHUNK;
					} while (d < e);
				}
			}
			ip += lit;
			op += lit;

			/* Both literal paths left >= 2 input bytes: the
			 * offset.  The block cannot end here. */
			off = (size_t)ip[0] | (size_t)ip[1] << 8;
			ip += OFFSET_BYTES;
			/* Guards the match source: offset 0, or a match
			 * reaching before dst. */
			if (bad_offset(off, (size_t)(op - ostart)))
				return DECODE_BAD_OFFSET;

			ml = token & TOKEN_ML_MASK;
			if (ml != LEN_EXTENDED) {
				/* Both literal paths left >= 24 output bytes. */
				copy_match_short(op, off);
				op += ml + MINMATCH;
			} else {
				st = read_ext_len(&ip, iend, &ml);
				if (st != DECODE_OK)
					return st;
				ml += MINMATCH;
				/* Guards the match end against dst's end. */
				if (ml > (size_t)(oend - op))
					return DECODE_OUTPUT_OVERRUN;
				/* Guards the wild over-write (oend - op >= 24
				 * here, so the subtraction cannot wrap). */
				if (ml <= (size_t)(oend - op) - LONG_MATCH_SLACK)
					copy_match_wild(op, off, ml);
				else
					copy_match_exact(op, off, ml);
				op += ml;
			}
		}
	}

	/* ---- Safe loop: exact copies, every access checked ---- */
	for (;;) {
		/* Guards the token read.  A block must end with a sequence of
		 * literals only, so running out of input where a token is due
		 * means the block was cut short. */
		if (ip == iend)
			return DECODE_TRUNCATED;
		token = *ip++;
		lit = token >> TOKEN_LIT_SHIFT;
		if (lit == LEN_EXTENDED) {
			st = read_ext_len(&ip, iend, &lit);
			if (st != DECODE_OK)
				return st;
		}
		/* Guards the literal read: run longer than the input left. */
		if (lit > (size_t)(iend - ip))
			return DECODE_TRUNCATED;
		/* Guards the literal write: run longer than the output left. */
		if (lit > (size_t)(oend - op))
			return DECODE_OUTPUT_OVERRUN;
		memcpy(op, ip, lit);
		ip += lit;
		op += lit;

		/* "End of block conditions" 1: the block ends right after the
		 * literals of its last sequence. */
		if (ip == iend)
			return op == oend ? DECODE_OK : DECODE_SHORT_OUTPUT;

		/* Guards the offset read: input ended inside the offset. */
		if ((size_t)(iend - ip) < OFFSET_BYTES)
			return DECODE_TRUNCATED;
		off = (size_t)ip[0] | (size_t)ip[1] << 8;
		ip += OFFSET_BYTES;
		/* Guards the match source: offset 0, or before dst. */
		if (bad_offset(off, (size_t)(op - ostart)))
			return DECODE_BAD_OFFSET;

		ml = token & TOKEN_ML_MASK;
		if (ml == LEN_EXTENDED) {
			st = read_ext_len(&ip, iend, &ml);
			if (st != DECODE_OK)
				return st;
		}
		ml += MINMATCH;
		/* Guards the match write: match longer than the output left. */
		if (ml > (size_t)(oend - op))
			return DECODE_OUTPUT_OVERRUN;
		copy_match_exact(op, off, ml);
		op += ml;
	}
}
