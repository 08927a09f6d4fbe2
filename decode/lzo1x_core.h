/* lzo1x_core.h - the LZO1X / LZO-RLE decoder core, shared by
 * decode/lzo_decode.c (lzo_decode, bitstream version 0) and
 * decode/lzo_rle_decode.c (lzo_rle_decode, version 1).  It is code, not an
 * interface: each of those two files includes it once, so each stub links
 * only its own entry point and the core specialised for it (the zero-run
 * test compiles away in plain LZO).
 *
 * Decoder for the boot stub and the host tools.
 *
 * Written for bzpack from Linux's Documentation/staging/lzo.rst ("LZO
 * stream format as understood by Linux's LZO decompressor", the revision
 * that describes bitstream version 1, LZO-RLE); quoted names refer to that
 * document.  No code from liblzo2 or Linux's lib/lzo was used.  The caller
 * knows the exact compressed and decompressed sizes (see decode.h).
 *
 * The stream
 *   A series of instructions.  The first byte of a stream has its own
 *   meaning ("First byte encoding"); after it every instruction is one
 *   opcode byte, sometimes length-extension bytes, then 0, 1 or 2 operand
 *   bytes.  Every match instruction ends with a 2-bit field S: S literal
 *   bytes (0..3) follow it directly.  What an opcode below 16 means
 *   depends on the "state", i.e. how many literals came just before:
 *     state 0     (after a match with S = 0, or at the start): a literal
 *                 run of 4 or more bytes, which sets state 4;
 *     state 1..3  (after a match with S = 1..3, or a first byte 18..20):
 *                 a 2-byte match within 1 KiB ("M1" below);
 *     state 4     (after a literal run): a 3-byte match 2..3 KiB back.
 *   The stream ends with the M4 opcode at distance 16384 ("End of stream").
 *
 * Two entry points, one core
 *   lzo_decode      bitstream version 0, what liblzo2's lzo1x_* and Linux's
 *                   "lzo" write.  A stream of 5 or more bytes that starts
 *                   with 17 (the version marker) is rejected: in version 0
 *                   such a stream can never be valid anyway (17 is an M4
 *                   opcode reaching before the start of the output, or the
 *                   end of stream with input left over), so an LZO-RLE
 *                   payload can never pass as plain LZO.  An image's codec
 *                   byte thus names exactly one bitstream.
 *   lzo_rle_decode  bitstream version 1, "LZO-RLE": requires the 2-byte
 *                   header 17, 1 (every version-1 stream has it and is at
 *                   least 5 bytes long), then decodes like version 0 plus
 *                   the zero-run instruction (see "Zero runs" below).
 *   Both call lzo_start() (this file) with a constant flag that enables
 *   zero runs; it is only looked at for the M4 opcodes with H = 1.
 *
 * Zero runs (version 1 only)
 *   An M4 opcode 0001 1LLL directly followed by a little-endian 16-bit
 *   value whose 14 distance bits are all ones (distance 0xbfff) is not a
 *   match: a fourth byte X follows and ((X << 3) | LLL) + 4 zero bytes
 *   (4..2051) are written; the low 2 bits of the 16-bit value are S as
 *   usual.  The check looks at the two bytes after the opcode even when
 *   LLL = 0 (where an ordinary M4 would have length-extension bytes): the
 *   document has the compressor avoid the few M4 matches that would look
 *   the same (length 261..264 at a distance with bit 15 and the low 6 bits
 *   set), so that reading is the one that is meant.
 *
 * Structure
 *   Like lz4_decode.c: a fast loop decodes whole instructions while at
 *   least FAST_IN_MARGIN input and FAST_OUT_MARGIN output bytes remain,
 *   with fixed-size 4-, 8- and 16-byte "wild" copies that may run past the
 *   end of a run (never past the buffers).  It never reports an error and
 *   never finishes the stream: whenever something is unusual (a length or
 *   zero run too long for the room left, a bad distance, the end marker),
 *   it hands the instruction, unread, to the safe loop, which decodes the
 *   rest with exact copies and checks every access.  So both loops accept
 *   exactly the same streams and every status comes from one place.
 *
 * Choices
 *   - Strict end: success needs the canonical end marker 0x11 0x00 0x00
 *     (what every LZO1X compressor writes) as the last three input bytes
 *     and exactly dst_len bytes produced.  Other M4 encodings of distance
 *     16384 (other length bits, nonzero S bits), which liblzo2 also takes
 *     as the end, are DECODE_CORRUPT, and so is input after the marker.
 *   - An empty src is DECODE_TRUNCATED: even the empty stream has the
 *     3-byte end marker.  A NULL src or dst is fine with length 0.
 *   - Input that runs out where an opcode is due, inside a length, a
 *     distance or a literal run, is DECODE_TRUNCATED; every proper prefix
 *     of a valid stream therefore gives DECODE_TRUNCATED.
 *   - The version byte of a version-1 stream must be exactly 1.
 *   - src and dst must not overlap (no in-place decoding).
 *   - Operands are read byte by byte (endian-neutral); unaligned access
 *     happens only through constant-size memcpy (mem.h), which the stub's
 *     -fbuiltin turns into plain loads and stores.
 *
 * Techniques
 *   The fast/safe split, the length clamp and the wild copies follow this
 *   project's lz4_decode.c; the small-distance match copy (expand the
 *   first 8 bytes, then copy whole words from a whole number of periods
 *   back) is the well-known trick of LZ4's and zstd's decoders.
 */
#ifndef LZO1X_CORE_H
#define LZO1X_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "decode.h"
#include "mem.h"

/* ---- Format constants ("Byte sequences") -------------------------------- */

/* "First byte encoding": 18..255 is a literal run of (byte - 17) bytes;
 * 1..3 literals leave state 1..3, 4 or more leave state 4. */
#define FIRST_LIT_BIAS   17u
/* ... and 17 starts the version header when the stream has >= 5 bytes. */
#define VERSION_MARKER   17u
#define VERSION_HDR_LEN  2              /* marker, version */
#define VERSION_MIN_LEN  5              /* "length of shortest possible versioned bitstream" */
#define VERSION_RLE      1u             /* "1: LZO-RLE" */

/* Opcode classes, by the value of the opcode byte. */
#define OP_M4            16u            /* 0001 HLLL: 16..48 KiB, or the end, or a zero run */
#define OP_M3            32u            /* 001L LLLL: within 16 KiB */
#define OP_M2            64u            /* 01LD DDSS, 1LLD DDSS: 3..8 bytes within 2 KiB */

/* The state: the literals copied by the previous instruction, 0..3 from a
 * match's S bits, or STATE_RUN after a run of 4 or more. */
#define S_MASK           3u
#define STATE_RUN        4u

/* Lengths with a bit field; a field of 0 means "mask + the extension":
 * 255 for each zero byte that follows, plus the first nonzero byte. */
#define RUN_LEN_MASK     15u            /* 0000 LLLL, state 0: literal run */
#define RUN_LEN_BIAS     3u             /* run = 3 + length: 4.. bytes */
#define M3_LEN_MASK      31u
#define M4_LEN_MASK      7u
#define M34_LEN_BIAS     2u             /* M3, M4: 2 + length, i.e. 3.. bytes */
#define EXT_ZERO_ADDS    255u

/* M2: length 3 + L (opcode 64..127) or 5 + LL (128..255), which is
 * (opcode >> 5) + 1 in both cases; distance 1 + DDD + (next byte << 3). */
#define M2_LEN_SHIFT     5
#define M2_D_SHIFT       2
#define M2_D_MASK        7u
#define M2_H_SHIFT       3
/* M1, an opcode 0000 DDSS in state 1..4: distance 1 + DD + (next << 2),
 * 2 bytes (state 1..3) or, 2048 further back, 3 bytes (state 4). */
#define M1_D_SHIFT       2
#define M1_D_MASK        3u
#define M1_H_SHIFT       2
#define M1_LEN           2u
#define M1_RUN_LEN       3u
#define M1_RUN_BASE      2048u          /* "distance = (H << 2) + D + 2049" */
/* M3: distance 1 + (LE16 >> 2).  M4: 16384 + (H << 14) + (LE16 >> 2). */
#define LE16_D_SHIFT     2
#define M4_BASE          16384u
#define M4_H_BIT         8u             /* the H bit of 0001 HLLL ... */
#define M4_H_SHIFT       11             /* ... is worth 16384 (8 << 11) */

/* "End of stream": M4 at distance 16384; we take only 0x11 0x00 0x00. */
#define EOS_OPCODE       0x11u
#define EOS_LEN          3

/* Zero runs (version 1): opcode 0001 1LLL ... */
#define RLE_OPCODE_MASK  0xf8u
#define RLE_OPCODE       0x18u
/* ... then LE16 with D = 0x3fff: a first byte 1111 11SS, a second 0xff ... */
#define RLE_LO_MASK      0xfcu
#define RLE_HI           0xffu
/* ... then X: ((X << 3) | LLL) + 4 zero bytes. */
#define RLE_X_SHIFT      3
#define RLE_MIN          4u
#define RLE_BYTES        4              /* opcode, LE16, X */

/* ---- Fast-loop geometry ---------------------------------------------------
 * TRAIL_WILD: the 0..3 literals after a match are copied as one 4-byte
 * piece, reading and writing up to 4 bytes from ip and op.
 * CHUNK: literal runs, long matches and zero runs go in 16-byte pieces
 * (8 for matches closer than 16), writing at most CHUNK - 1 bytes past
 * their end; a literal run reads as far past its end.
 * SHORT_MATCH_MAX: the longest match whose length fits in its opcode
 * (M3: 2 + 31). */
#define TRAIL_WILD       4
#define CHUNK            16
#define SHORT_MATCH_MAX  (M34_LEN_BIAS + M3_LEN_MASK)  /* 33 */

/* The fast loop starts an instruction only when this much input remains:
 * the longest instruction without extension bytes (a zero run, 4 bytes)
 * and the trailing-literal piece after it. */
#define FAST_IN_MARGIN   (RLE_BYTES + TRAIL_WILD)
/* ... and this much output: the longest short match with its chunk
 * over-write (the trailing-literal piece lands inside it). */
#define FAST_OUT_MARGIN  (SHORT_MATCH_MAX + CHUNK - 1)
/* After extension bytes: the 2 distance bytes and the trailing piece. */
#define EXT_IN_SLACK     (2 + TRAIL_WILD)

_Static_assert(FAST_IN_MARGIN >= 3 + TRAIL_WILD, "M3/M4 without extension and the trailing piece");
_Static_assert(FAST_OUT_MARGIN >= SHORT_MATCH_MAX + TRAIL_WILD,
	       "the trailing piece after the longest short match");
_Static_assert(CHUNK - 1 >= TRAIL_WILD, "a chunk's slack covers the trailing piece");
_Static_assert(M2_LEN_SHIFT == 5 && (255u >> M2_LEN_SHIFT) + 1 == 8, "M2 lengths are 3..8");

/* Lengths are clamped while their extension bytes are summed, as in
 * lz4_decode.c: no buffer is larger than PTRDIFF_MAX (<= SIZE_MAX / 2), so
 * a clamped length still fails every later bound check, and adding the
 * small biases and slacks to it cannot wrap, even with a 32-bit size_t. */
#define LEN_CLAMP        (SIZE_MAX / 2)

/* Reads the extension of a length field that was 0: 255 for each zero
 * byte, then the nonzero byte.  Returns mask + extension, or 0 if the
 * input ends inside the field (no real length is 0). */
static inline size_t read_ext_len(const uint8_t **pip, const uint8_t *iend, size_t mask)
{
	const uint8_t *ip = *pip;
	size_t n = mask;

	for (;;) {
		/* Guards the read of the next length byte: input ended inside
		 * the field. */
		if (ip == iend)
			return 0;
		if (*ip != 0)
			break;
		ip++;
		n += EXT_ZERO_ADDS;
		/* Guards n against wrapping on long runs of zero bytes. */
		if (n > LEN_CLAMP)
			n = LEN_CLAMP;
	}
	n += *ip++;
	*pip = ip;
	return n;
}

/* Is the opcode t, with at least 2 bytes p after it, a zero run? */
static inline int is_zero_run(unsigned t, const uint8_t *p)
{
	return (t & RLE_OPCODE_MASK) == RLE_OPCODE && (p[0] & RLE_LO_MASK) == RLE_LO_MASK &&
	       p[1] == RLE_HI;
}

/* For distances 1..7: the smallest multiple of off that is >= 8 (8, 8, 9,
 * 8, 10, 12, 14).  Words copied from that far back never overlap their
 * destination and continue the same periodic pattern. */
static inline size_t period_step(size_t off)
{
	return off >= 4 ? 2 * off : off == 3 ? 9 : 8;
}

/* Writes the first 8 bytes of a match from distance off < 8 one at a time
 * (each may be one just written). */
static inline void expand8(uint8_t *op, size_t off)
{
	const uint8_t *const m = op - off;

	op[0] = m[0];
	op[1] = m[1];
	op[2] = m[2];
	op[3] = m[3];
	op[4] = m[4];
	op[5] = m[5];
	op[6] = m[6];
	op[7] = m[7];
}

/* Copies a match of len (>= 2) bytes from distance off (op - off >= dst)
 * in whole pieces: writes at most CHUNK - 1 bytes past op + len; the
 * caller guarantees the room. */
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
	} else {
		/* Expand the first 8 bytes one by one (each may be the
		 * previous one), then whole periods back. */
		const size_t step = period_step(off);

		expand8(op, off);
		for (op += 8; op < end; op += 8)
			memcpy(op, op - step, 8);
	}
}

/* Copies a match of len bytes from distance off writing exactly
 * [op, op + len): whole pieces while at least 8 bytes remain, then bytes. */
static void copy_match_exact(uint8_t *op, size_t off, size_t len)
{
	uint8_t *const end = op + len;

	if (off >= 8) {
		for (; (size_t)(end - op) >= 8; op += 8)
			memcpy(op, op - off, 8);
	} else if (len >= 8) {
		const size_t step = period_step(off);

		expand8(op, off);
		for (op += 8; (size_t)(end - op) >= 8; op += 8)
			memcpy(op, op - step, 8);
	}
	for (; op < end; op++)
		*op = op[-(ptrdiff_t)off];
}

/* Writes len zero bytes at op in 16-byte pieces: at most CHUNK - 1 bytes
 * past op + len. */
static inline void zero_wild(uint8_t *op, size_t len)
{
	uint8_t *const end = op + len;

	do {
		memset(op, 0, 16);
		op += 16;
	} while (op < end);
}

/* Writes exactly len zero bytes at op. */
static void zero_exact(uint8_t *op, size_t len)
{
	uint8_t *const end = op + len;

	for (; (size_t)(end - op) >= 8; op += 8)
		memset(op, 0, 8);
	for (; op < end; op++)
		*op = 0;
}

/* Decodes the instructions in [ip, iend) after the first byte (state is
 * what the first byte left), into [op, oend), with zero runs if rle. */
static inline enum decode_status lzo1x_core(const uint8_t *ip, const uint8_t *const iend,
				     uint8_t *op, uint8_t *const ostart, uint8_t *const oend,
				     unsigned state, const int rle)
{
	size_t len, off;
	unsigned t, s;

	/* ---- Fast loop ----
	 * p reads the instruction; ip moves to p only once the instruction is
	 * complete, so "break" hands it over to the safe loop unread. */
	if ((size_t)(iend - ip) >= FAST_IN_MARGIN && (size_t)(oend - op) >= FAST_OUT_MARGIN) {
		const uint8_t *const ilimit = iend - FAST_IN_MARGIN;
		uint8_t *const olimit = oend - FAST_OUT_MARGIN;

		/* Guards every unchecked access of one short instruction:
		 * >= 8 input bytes from its opcode, >= 47 output bytes. */
		while (ip <= ilimit && op <= olimit) {
			const uint8_t *p = ip;

			t = *p++;
			if (t >= OP_M2) {
				off = 1 + ((t >> M2_D_SHIFT) & M2_D_MASK) + ((size_t)*p++ << M2_H_SHIFT);
				/* Guards the match source: before dst. */
				if (off > (size_t)(op - ostart))
					break;
				len = (t >> M2_LEN_SHIFT) + 1;
				/* len <= 8: one piece, or the expansion; both
				 * within the output margin. */
				if (off >= 8)
					memcpy(op, op - off, 8);
				else
					expand8(op, off);
				op += len;
				s = t;
			} else if (t >= OP_M3) {
				len = t & M3_LEN_MASK;
				if (len == 0) {
					len = read_ext_len(&p, iend, M3_LEN_MASK);
					/* Guards the distance read and the
					 * trailing piece after the extension
					 * (0: input ended inside it). */
					if (len == 0 || (size_t)(iend - p) < EXT_IN_SLACK)
						break;
				}
				len += M34_LEN_BIAS;
				s = load_le16(p);
				p += 2;
				off = 1 + (s >> LE16_D_SHIFT);
				/* Guards the match source: before dst. */
				if (off > (size_t)(op - ostart))
					break;
				/* Guards the wild copy's over-write (short
				 * lengths are inside the output margin). */
				if (len > SHORT_MATCH_MAX && len + (CHUNK - 1) > (size_t)(oend - op))
					break;
				copy_match_wild(op, off, len);
				op += len;
			} else if (t >= OP_M4) {
				/* The margin leaves >= 7 bytes after the
				 * opcode: the zero-run test peeks at 2. */
				if (rle && is_zero_run(t, p)) {
					len = ((size_t)p[2] << RLE_X_SHIFT | (t & M4_LEN_MASK)) + RLE_MIN;
					/* Guards the wild zeroing's over-write. */
					if (len + (CHUNK - 1) > (size_t)(oend - op))
						break;
					s = p[0];
					p += RLE_BYTES - 1;
					zero_wild(op, len);
					op += len;
				} else {
					len = t & M4_LEN_MASK;
					if (len == 0) {
						len = read_ext_len(&p, iend, M4_LEN_MASK);
						/* Guards the distance read and
						 * the trailing piece. */
						if (len == 0 || (size_t)(iend - p) < EXT_IN_SLACK)
							break;
					}
					len += M34_LEN_BIAS;
					s = load_le16(p);
					p += 2;
					off = M4_BASE + ((size_t)(t & M4_H_BIT) << M4_H_SHIFT) +
					      (s >> LE16_D_SHIFT);
					/* Guards the match source (before dst);
					 * distance 16384 is the end marker,
					 * left to the safe loop too. */
					if (off > (size_t)(op - ostart) || off == M4_BASE)
						break;
					/* Guards the wild copy's over-write. */
					if (len + (CHUNK - 1) > (size_t)(oend - op))
						break;
					copy_match_wild(op, off, len);
					op += len;
				}
			} else if (state == 0) {
				/* A literal run. */
				len = t;
				if (len == 0 && (len = read_ext_len(&p, iend, RUN_LEN_MASK)) == 0)
					break;  /* input ended inside the length */
				len += RUN_LEN_BIAS;
				/* Guards the chunked over-read and the chunked
				 * over-write. */
				if (len + (CHUNK - 1) > (size_t)(iend - p) ||
				    len + (CHUNK - 1) > (size_t)(oend - op))
					break;
				{
					uint8_t *d = op;
					const uint8_t *q = p;
					uint8_t *const e = op + len;

					do {
						memcpy(d, q, CHUNK);
						d += CHUNK;
						q += CHUNK;
					} while (d < e);
				}
				ip = p + len;
				op += len;
				state = STATE_RUN;
				continue;       /* no trailing literals */
			} else {
				/* M1: 2 bytes within 1 KiB, or 3 bytes
				 * 2..3 KiB back after a literal run. */
				off = 1 + ((t >> M1_D_SHIFT) & M1_D_MASK) + ((size_t)*p++ << M1_H_SHIFT);
				len = M1_LEN;
				if (state == STATE_RUN) {
					off += M1_RUN_BASE;
					len = M1_RUN_LEN;
				}
				/* Guards the match source: before dst. */
				if (off > (size_t)(op - ostart))
					break;
				/* len <= 3: as for M2. */
				if (off >= 8)
					memcpy(op, op - off, 8);
				else
					expand8(op, off);
				op += len;
				s = t;
			}
			/* The 0..3 trailing literals as one piece: every path
			 * here left >= 4 input bytes (the margin, or
			 * EXT_IN_SLACK) and >= 15 output bytes (the margin, or
			 * the chunk slack). */
			s &= S_MASK;
			memcpy(op, p, TRAIL_WILD);
			op += s;
			ip = p + s;
			state = s;
		}
	}

	/* ---- Safe loop: exact copies, every access checked ---- */
	for (;;) {
		/* Guards the opcode read: a stream ends only with its end
		 * marker, so running out here means it was cut short. */
		if (ip == iend)
			return DECODE_TRUNCATED;
		t = *ip++;
		if (t >= OP_M2) {
			/* Guards the distance byte. */
			if (ip == iend)
				return DECODE_TRUNCATED;
			off = 1 + ((t >> M2_D_SHIFT) & M2_D_MASK) + ((size_t)*ip++ << M2_H_SHIFT);
			len = (t >> M2_LEN_SHIFT) + 1;
			s = t;
		} else if (t >= OP_M3) {
			len = t & M3_LEN_MASK;
			/* Guards the extension bytes (0: input ended). */
			if (len == 0 && (len = read_ext_len(&ip, iend, M3_LEN_MASK)) == 0)
				return DECODE_TRUNCATED;
			len += M34_LEN_BIAS;
			/* Guards the two distance bytes. */
			if ((size_t)(iend - ip) < 2)
				return DECODE_TRUNCATED;
			s = load_le16(ip);
			ip += 2;
			off = 1 + (s >> LE16_D_SHIFT);
		} else if (t >= OP_M4) {
			/* The zero-run test peeks at 2 bytes: guarded.  With
			 * fewer left, both readings are truncated anyway. */
			if (rle && (size_t)(iend - ip) >= 2 && is_zero_run(t, ip)) {
				/* Guards the X byte. */
				if ((size_t)(iend - ip) < RLE_BYTES - 1)
					return DECODE_TRUNCATED;
				len = ((size_t)ip[2] << RLE_X_SHIFT | (t & M4_LEN_MASK)) + RLE_MIN;
				s = ip[0];
				ip += RLE_BYTES - 1;
				/* Guards the zeroing: run longer than the
				 * output left. */
				if (len > (size_t)(oend - op))
					return DECODE_OUTPUT_OVERRUN;
				zero_exact(op, len);
				op += len;
				goto trailing;
			}
			len = t & M4_LEN_MASK;
			/* Guards the extension bytes (0: input ended). */
			if (len == 0 && (len = read_ext_len(&ip, iend, M4_LEN_MASK)) == 0)
				return DECODE_TRUNCATED;
			len += M34_LEN_BIAS;
			/* Guards the two distance bytes. */
			if ((size_t)(iend - ip) < 2)
				return DECODE_TRUNCATED;
			s = load_le16(ip);
			ip += 2;
			off = M4_BASE + ((size_t)(t & M4_H_BIT) << M4_H_SHIFT) + (s >> LE16_D_SHIFT);
			if (off == M4_BASE) {
				/* "End of stream": only the canonical marker,
				 * and only as the last input bytes. */
				if (t != EOS_OPCODE || s != 0 || ip != iend)
					return DECODE_CORRUPT;
				return op == oend ? DECODE_OK : DECODE_SHORT_OUTPUT;
			}
		} else if (state == 0) {
			len = t;
			/* Guards the extension bytes (0: input ended). */
			if (len == 0 && (len = read_ext_len(&ip, iend, RUN_LEN_MASK)) == 0)
				return DECODE_TRUNCATED;
			len += RUN_LEN_BIAS;
			/* Guards the literal read: run longer than the input left. */
			if (len > (size_t)(iend - ip))
				return DECODE_TRUNCATED;
			/* Guards the literal write: run longer than the output left. */
			if (len > (size_t)(oend - op))
				return DECODE_OUTPUT_OVERRUN;
			memmove(op, ip, len); /* in place, the input lies over the output, ahead of it */
			ip += len;
			op += len;
			state = STATE_RUN;
			continue;
		} else {
			/* Guards the distance byte. */
			if (ip == iend)
				return DECODE_TRUNCATED;
			off = 1 + ((t >> M1_D_SHIFT) & M1_D_MASK) + ((size_t)*ip++ << M1_H_SHIFT);
			len = M1_LEN;
			if (state == STATE_RUN) {
				off += M1_RUN_BASE;
				len = M1_RUN_LEN;
			}
			s = t;
		}
		/* Guards the match source: reaching before dst. */
		if (off > (size_t)(op - ostart))
			return DECODE_BAD_OFFSET;
		/* Guards the match write: longer than the output left. */
		if (len > (size_t)(oend - op))
			return DECODE_OUTPUT_OVERRUN;
		copy_match_exact(op, off, len);
		op += len;
trailing:
		s &= S_MASK;
		/* Guards the trailing-literal read, then the write. */
		if (s > (size_t)(iend - ip))
			return DECODE_TRUNCATED;
		if (s > (size_t)(oend - op))
			return DECODE_OUTPUT_OVERRUN;
		for (unsigned i = 0; i < s; i++)
			op[i] = ip[i];
		ip += s;
		op += s;
		state = s;
	}
}

/* The first byte (after the version header, if any), then the core. */
static inline enum decode_status lzo_start(const uint8_t *ip, const uint8_t *iend,
				    uint8_t *dst, size_t dst_len, int rle)
{
	uint8_t none;   /* stands in for dst when dst_len == 0 (dst may be NULL) */
	uint8_t *const ostart = dst_len ? dst : &none;  /* never written past oend */
	uint8_t *const oend = ostart + dst_len;
	uint8_t *op = ostart;
	unsigned state = 0;

	/* Guards the first-byte read: not even an end marker. */
	if (ip == iend)
		return DECODE_TRUNCATED;
	if (*ip > FIRST_LIT_BIAS) {
		size_t lit = *ip++ - FIRST_LIT_BIAS;

		/* Guards the literal read: run longer than the input left. */
		if (lit > (size_t)(iend - ip))
			return DECODE_TRUNCATED;
		/* Guards the literal write: run longer than the output left. */
		if (lit > dst_len)
			return DECODE_OUTPUT_OVERRUN;
		memmove(op, ip, lit); /* in place, the input lies over the output, ahead of it */
		ip += lit;
		op += lit;
		state = lit < STATE_RUN ? (unsigned)lit : STATE_RUN;
	}
	return lzo1x_core(ip, iend, op, ostart, oend, state, rle);
}

#endif
