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
 *   literals and matches move in fixed-size 16-byte "wild" copies that
 *   may run a little past the end of the run (never past the buffers);
 *   the excess is overwritten by the following sequence.  Near the ends
 *   of the buffers a safe loop decodes the rest with exact copies.  Both
 *   loops accept exactly the same blocks and report the same statuses.
 *
 * Speed (the copy techniques are the ones liblz4's decoder made known; the
 * code here is written from the format description):
 *   - The common sequence, a literal run of at most 14 bytes and a match
 *     of at most 18 whose offset is at least 8, costs fixed copies and no
 *     loop: 16 bytes of literals, then 8 + 8 + 2 bytes of match.
 *   - Each sequence waits on the one before for its token.  On 64-bit
 *     hosts that token is shifted out of 16 input bytes loaded early
 *     (next_token()) instead of loaded once its address is known.
 *   - Past the first 64 KiB of output no offset can reach before dst, so
 *     the fast loop runs twice (fast_loop()): with the offset range check,
 *     then without it, rejecting only offset 0 off the common path.
 *   - Long runs copy 32 bytes a step; matches with an offset of 1, 2 or
 *     4, mostly runs of zeros in kernels, repeat a pattern held in
 *     registers instead of reading back what they just wrote.  Their
 *     lengths run to thousands of 255 bytes, skipped a word at a time
 *     (skip_max_len_words()).
 *   - The common sequence's branches are marked LIKELY, so that it runs
 *     straight through the loop without a taken jump.
 *   Copies are plain fixed-size memcpy()s: the compiler turns each into
 *   the widest moves the target allows (SSE2 in the host build and the
 *   32-bit stub, general registers in the 64-bit stub).
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
 *     src_len 0 is DECODE_TRUNCATED whatever dst_len is: a block holds at
 *     least its final token, liblz4 refuses it too, and a stream cut to
 *     nothing must not decode.  A NULL src or dst is fine with length 0.
 *   - The low nibble of the final token has no match to describe and is
 *     ignored, as the spec gives it no meaning there.
 *   - src and dst must not overlap (no in-place decoding).
 *   - Unaligned access happens only through memcpy; the offset is
 *     byte-swapped on big-endian targets (read_offset()).
 */
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "copy.h"
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
#define MAX_OFFSET      65535u
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
 * PIECE: the unit of every wild copy, 16 bytes.
 * SHORT_LIT_MAX: a literal run whose length fits in the nibble; it is
 * copied as one PIECE.
 * SHORT_MATCH_MAX: the longest match whose length fits in the nibble.
 * WILD_STEP: long runs (literals, and matches with an offset of at least
 * PIECE) are copied two PIECEs a step, so they read and write up to
 * WILD_STEP - 1 bytes past their end.  Every match copy of the fast loop,
 * short or long, writes at most WILD_STEP - 1 bytes past the end of the
 * match and, for a short one, at most MATCH_WILD bytes from its start. */
#define PIECE            16
#define SHORT_LIT_MAX    (LEN_EXTENDED - 1)                  /* 14 */
#define SHORT_MATCH_MAX  (LEN_EXTENDED - 1 + MINMATCH)       /* 18 */
#define WILD_STEP        (2 * PIECE)
/* MATCH_PIECE: the common short match (offset >= 8) is copied in pieces
 * of this size, none of which overlaps its own source. */
#define MATCH_PIECE      8
#define MATCH_WILD       WILD_STEP

/* TOKEN_WINDOW: after a short literal run, the next token lies somewhere
 * in the TOKEN_WINDOW bytes that start 3 bytes after the current token
 * (token, lit <= 14 literals, 2 offset bytes); the fast loop reads them
 * whole (next_token()). */
#define TOKEN_WINDOW     16
/* The fast loop runs a sequence only when, at its token, this much input
 * remains: the token, 2 bytes, then the token window.  That covers the
 * wild literal copy (one PIECE from the byte after the token) and the
 * offset, which a short literal run leaves inside that piece. */
#define FAST_IN_MARGIN   (3 + TOKEN_WINDOW)
/* ... and this much output: a short literal run (<= 14) copied as one
 * PIECE, followed by a short match that may write MATCH_WILD bytes. */
#define FAST_OUT_MARGIN  (SHORT_LIT_MAX + MATCH_WILD)
/* A long literal run (nibble 15) is copied in the fast loop only if after
 * it WILD_STEP bytes of input remain (covers the wild over-read and the 2
 * offset bytes) and MATCH_WILD bytes of output remain (covers the wild
 * over-write and the short match that may follow). */
#define LONG_LIT_IN_SLACK  WILD_STEP
#define LONG_LIT_OUT_SLACK MATCH_WILD
/* A long match is copied wild only if MATCH_WILD bytes of output remain
 * after it. */
#define LONG_MATCH_SLACK   MATCH_WILD

_Static_assert(FAST_IN_MARGIN >= 1 + SHORT_LIT_MAX + OFFSET_BYTES && FAST_IN_MARGIN >= 1 + PIECE,
	       "fast loop must be able to read a short literal run (wild) and its offset");
_Static_assert(1 + SHORT_LIT_MAX + OFFSET_BYTES < 3 + TOKEN_WINDOW && TOKEN_WINDOW == 2 * 8,
	       "the next token after a short literal run must be in the two-word window");
_Static_assert(FAST_OUT_MARGIN >= PIECE, "fast loop must be able to write one literal piece");
_Static_assert(SHORT_MATCH_MAX <= WILD_STEP && MATCH_WILD >= WILD_STEP,
	       "a short match's wild copy (one step) must fit in MATCH_WILD");
_Static_assert(SHORT_MATCH_MAX > 2 * MATCH_PIECE && SHORT_MATCH_MAX <= 3 * MATCH_PIECE,
	       "two match pieces and a shorter tail must cover a short match exactly");
_Static_assert(LONG_LIT_IN_SLACK >= WILD_STEP - 1 && LONG_LIT_IN_SLACK >= OFFSET_BYTES,
	       "long literal input slack must cover the over-read and the offset");
_Static_assert(LONG_LIT_OUT_SLACK >= WILD_STEP - 1 && LONG_LIT_OUT_SLACK >= MATCH_WILD,
	       "long literal output slack must cover its over-write and a short match");
_Static_assert(LONG_MATCH_SLACK >= WILD_STEP - 1, "long match slack must cover its over-write");
_Static_assert(LAST_LITERALS < MFLIMIT, "format constants");

/* LIKELY (the branch of the common sequence, see fast_loop()):
 * decode/compiler.h. */

/* Lengths are clamped here while their extension bytes are summed.  No
 * buffer can be larger than PTRDIFF_MAX (<= SIZE_MAX / 2) bytes, so a
 * clamped length still fails every later bound check, and adding 255 (or
 * any of the small slacks above) to it can never wrap, even with a 32-bit
 * size_t (a 16 MiB run of 255 bytes would otherwise overflow it). */
#define LEN_CLAMP (SIZE_MAX / 2)

/* LEN_WORD: past the first byte of a length field, its 255 bytes are
 * skipped this many at a time (skip_max_len_words()). */
#define LEN_WORD 8

/* The whole LEN_WORD-byte words of 255 bytes at ip, as many as lie inside
 * src: returns the first byte after them and adds their value to *len,
 * clamped (*len <= LEN_CLAMP on entry).
 *
 * Why: a run of zeros in a kernel is one match of up to megabytes with an
 * offset of 1, so its length takes thousands of 255 bytes (the Debian
 * amd64 vmlinux has 16 runs of about 2.3 MB, ~146,000 length bytes).
 * Summed one at a time they are a chain of dependent adds and clamps; one
 * compare per word measured ~2% faster on that kernel. */
static inline const uint8_t *skip_max_len_words(const uint8_t *ip, const uint8_t *iend,
						size_t *len)
{
	size_t n = *len;

	/* Guards each word read: LEN_WORD bytes of input left. */
	while ((size_t)(iend - ip) >= LEN_WORD) {
		uint64_t w;

		memcpy(&w, ip, LEN_WORD);
		if (w != UINT64_MAX)
			break;
		ip += LEN_WORD;
		n += LEN_WORD * LEN_BYTE_MORE;
		/* Guards n against wrapping, as read_ext_len() does. */
		if (n > LEN_CLAMP)
			n = LEN_CLAMP;
	}
	*len = n;
	return ip;
}

/* Adds the extension bytes of a length field (the nibble was 15) to *len.
 * Returns DECODE_OK, or DECODE_TRUNCATED if the input ends inside the
 * field.  Most fields are one byte below 255: that byte is taken first,
 * and only a field that goes on looks for whole words of 255 bytes. */
static inline enum decode_status read_ext_len(const uint8_t **pip, const uint8_t *iend,
					      size_t *len)
{
	const uint8_t *ip = *pip;
	size_t n = *len;
	unsigned b;

	/* Guards the read of the first length byte. */
	if (ip == iend)
		return DECODE_TRUNCATED;
	b = *ip++;
	n += b;
	if (b == LEN_BYTE_MORE) {
		ip = skip_max_len_words(ip, iend, &n);
		do {
			/* Guards the read of the next length byte: input
			 * ended inside the length field. */
			if (ip == iend)
				return DECODE_TRUNCATED;
			b = *ip++;
			n += b;
			/* Guards n against wrapping on long runs of 255
			 * bytes. */
			if (n > LEN_CLAMP)
				n = LEN_CLAMP;
		} while (b == LEN_BYTE_MORE);
	}
	*pip = ip;
	*len = n;
	return DECODE_OK;
}

/* The 2-byte little-endian match offset at p.  One 16-bit load (GCC does
 * not merge two byte loads at negative offsets from a pointer, which is
 * how the fast loop addresses it); the byte swap folds away on
 * little-endian targets. */
static inline size_t read_offset(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, OFFSET_BYTES);
	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		v = (uint16_t)(v << 8 | v >> 8);
	return v;
}

/* A match offset must be 1..(bytes produced so far); offset 0 is invalid
 * ("Compressed block format").  As unsigned, off - 1 wraps to SIZE_MAX for
 * off == 0, so one compare rejects both cases. */
static inline int bad_offset(size_t off, size_t produced)
{
	return off - 1 >= produced;
}

/* Copies [s, s + (end - d)) to d in WILD_STEP steps: writes and reads up to
 * WILD_STEP - 1 bytes past the end.  Also a match copy when s = d - off
 * with off >= PIECE: each piece's source then ends at or before the piece
 * itself begins, so it reads bytes already final, including what earlier
 * pieces wrote, which is the overlap the format means. */
static inline void copy_wild(uint8_t *d, const uint8_t *s, const uint8_t *end)
{
	do {
		memcpy(d, s, PIECE);
		memcpy(d + PIECE, s + PIECE, PIECE);
		d += WILD_STEP;
		s += WILD_STEP;
	} while (d < end);
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

/* Copies a match with an offset of 1..PIECE - 1 to [op, end), end > op.
 * Writes at most WILD_STEP - 1 bytes past end, and at most WILD_STEP from
 * op when end - op <= WILD_STEP (a short match).
 *   - 8..15: 8-byte pieces, none of which overlaps its own source.
 *   - 1, 2, 4: the pattern repeats every 8 bytes, so it is stored from
 *     registers, WILD_STEP bytes a step (runs of zeros in kernels).
 *   - 3, 5, 6, 7: copy_spread8() (decode/copy.h). */
static void copy_match_near(uint8_t *op, size_t off, const uint8_t *end)
{
	const uint8_t *m = op - off;

	if (off >= 8) {
		do {
			memcpy(op, m, 8);
			op += 8;
			m += 8;
		} while (op < end);
	} else if ((off & (off - 1)) == 0) {
		const uint64_t pat = pattern8(m, off);

		do {
			memcpy(op, &pat, 8);
			memcpy(op + 8, &pat, 8);
			memcpy(op + 16, &pat, 8);
			memcpy(op + 24, &pat, 8);
			op += WILD_STEP;
		} while (op < end);
	} else {
		m = copy_spread8(op, off);
		for (op += 8; op < end; op += 8, m += 8)
			memcpy(op, m, 8);
	}
}

/* Matches that must end exactly at their last byte (the safe loop, and
 * long matches that end too close to oend for a wild copy): copy_exact()
 * of decode/copy.h. */


/* For a sequence whose token (the low 8 bits of token) is at ip and whose
 * literal run is short (nibble < 15): the byte at ip + 3 + lit, which is
 * the next sequence's token when the match length fits in its nibble (no
 * length bytes follow the offset).  Needs FAST_IN_MARGIN bytes at ip.
 * Only the low 8 bits of the result are that byte; the bits above are
 * whatever follows it.
 *
 * Loading that byte directly puts a load on the chain that every sequence
 * waits for (token -> literal length -> address of the next token ->
 * load -> next literal length ...).  With 64-bit words, the TOKEN_WINDOW
 * bytes from ip + 3 (where the next token is when there are no literals)
 * are loaded instead, at addresses that depend on ip alone, so those
 * loads start early, and the token comes out of them by a shift: the
 * chain becomes token -> shift count -> shift (measured 3-8% faster on
 * kernels, against liblz4).  Only with 64-bit words (TOKEN_CARRIED): with
 * 32-bit ones the shifts cost more than they save, and carrying the token
 * from one sequence to the next spills it (i386 has too few registers),
 * so there the fast loop loads each token at its start. */
#define TOKEN_CARRIED (sizeof(size_t) >= sizeof(uint64_t))

static inline size_t next_token(const uint8_t *ip, size_t token)
{
	const uint64_t lo = load_le64(ip + 3), hi = load_le64(ip + 3 + 8);

	/* lit 0..7 is byte lit of lo, 8..14 byte lit - 8 of hi: token
	 * bit 7 is lit's bit 3, token bits 4..6 times 8 the shift. */
	return (size_t)((token & 0x80 ? hi : lo) >> (token >> 1 & 0x38));
}

/* Where decoding stands between the loops. */
struct cursor {
	const uint8_t *ip;
	uint8_t *op;
};

/* The fast loop: decodes whole sequences while the one at c->ip has
 * FAST_IN_MARGIN input bytes and c->op <= olimit (olimit leaves
 * FAST_OUT_MARGIN output bytes), or until a long literal run ends too
 * close to a buffer's end for its wild copy, and leaves c at the next
 * sequence for the safe loop.  Returns DECODE_OK, or the error the safe
 * loop would have found in the same sequence.
 *
 * window_full: every sequence starts at least MAX_OFFSET bytes into the
 * output (the caller guarantees it), so no offset can reach before dst
 * and only offset 0 needs rejecting.  The caller runs this loop twice,
 * checked for the first 64 KiB of output, then window_full for the rest,
 * and always_inline makes each its own loop without the range check. */
static ALWAYS_INLINE enum decode_status
fast_loop(struct cursor *c, const uint8_t *iend, uint8_t *oend, const uint8_t *ostart,
	  uint8_t *olimit, int window_full)
{
	const uint8_t *ip = c->ip;
	uint8_t *op = c->op;
	const uint8_t *const ilimit = iend - FAST_IN_MARGIN;
	enum decode_status st = DECODE_OK;
	/* The current token in its low 8 bits (see next_token()). */
	size_t token;

	/* Guards every unchecked access of one sequence: >= 19 input bytes
	 * from the token, >= 46 output bytes from op; here and at the end
	 * of every sequence. */
	if (ip > ilimit || op > olimit)
		goto out;
	token = *ip;
	do {
		size_t lit, ml, off, next = 0;
		const uint8_t *m;

		if (!TOKEN_CARRIED)
			token = *ip;
		lit = token >> TOKEN_LIT_SHIFT & LEN_EXTENDED;
		if (lit != LEN_EXTENDED) {
			/* Short run: the loop margins cover this piece and
			 * the token window. */
			if (TOKEN_CARRIED)
				next = next_token(ip, token);
			memcpy(op, ip + 1, PIECE);
			ip += 1 + lit + OFFSET_BYTES;
			op += lit;
		} else {
			const uint8_t *const seq = ip++;

			st = read_ext_len(&ip, iend, &lit);
			if (st != DECODE_OK)
				break;
			/* Guards the wild literal over-read and the offset
			 * read (input) and the wild over-write plus the match
			 * copy that follows (output).  Otherwise let the safe
			 * loop redo this sequence exactly (near the end of a
			 * buffer, or a corrupt length). */
			if (lit + LONG_LIT_IN_SLACK > (size_t)(iend - ip) ||
			    lit + LONG_LIT_OUT_SLACK > (size_t)(oend - op)) {
				ip = seq;
				break;
			}
			copy_wild(op, ip, op + lit);
			ip += lit + OFFSET_BYTES;
			op += lit;
			/* The token after a short match (the slack above
			 * keeps it inside src). */
			if (TOKEN_CARRIED)
				next = *ip;
		}

		/* Both literal paths left the 2 offset bytes inside src.
		 * The block cannot end here. */
		off = read_offset(ip - OFFSET_BYTES);
		ml = token & TOKEN_ML_MASK;
		/* Guards the match source: offset 0, or a match reaching
		 * before dst (window_full: cannot happen). */
		if (!window_full && bad_offset(off, (size_t)(op - ostart))) {
			st = DECODE_BAD_OFFSET;
			break;
		}
		m = op - off;

		/* LIKELY: GCC otherwise lays the common sequence out of
		 * line, three taken jumps per sequence; straight through it
		 * measured 1.5-3% faster (Debian amd64 and i386, every code
		 * alignment tried), and the jumps it saves are instructions
		 * the 32-bit stub's icount counts. */
		if (LIKELY(ml != LEN_EXTENDED)) {
			ml += MINMATCH;
			if (LIKELY(off >= MATCH_PIECE)) {
				/* The common sequence: both literal paths
				 * left >= MATCH_WILD output bytes.  Pieces of
				 * 8, 8 and 2 bytes, each reading only bytes
				 * already final (off >= 8), the last ending at
				 * SHORT_MATCH_MAX.  Measured 3-7% faster on
				 * kernels than 16 + 2 or 8 + 8 + 8 bytes
				 * (likely fewer failed store-to-load forwards
				 * from the narrower loads and shorter tail);
				 * liblz4's decoder copies short matches the
				 * same way. */
				memcpy(op, m, MATCH_PIECE);
				memcpy(op + MATCH_PIECE, m + MATCH_PIECE, MATCH_PIECE);
				memcpy(op + 2 * MATCH_PIECE, m + 2 * MATCH_PIECE,
				       SHORT_MATCH_MAX - 2 * MATCH_PIECE);
				op += ml;
				token = next;
				continue;
			}
			/* Guards the match source (window_full; checked
			 * above otherwise): offset 0. */
			if (off == 0) {
				st = DECODE_BAD_OFFSET;
				break;
			}
			copy_match_near(op, off, op + ml);
			op += ml;
			token = next;
			continue;
		}
		/* Guards the match source, as above. */
		if (off == 0) {
			st = DECODE_BAD_OFFSET;
			break;
		}
		st = read_ext_len(&ip, iend, &ml);
		if (st != DECODE_OK)
			break;
		ml += MINMATCH;
		/* Guards the match end against dst's end. */
		if (ml > (size_t)(oend - op)) {
			st = DECODE_OUTPUT_OVERRUN;
			break;
		}
		/* Guards the wild over-write (oend - op >= MATCH_WILD here:
		 * no wrap). */
		if (ml > (size_t)(oend - op) - LONG_MATCH_SLACK)
			copy_exact(op, off, ml);
		else if (off >= PIECE)
			copy_wild(op, m, op + ml);
		else
			copy_match_near(op, off, op + ml);
		op += ml;
		/* The match length's bytes moved the next token: read it,
		 * once the loop's guard says it is there. */
		if (ip > ilimit || op > olimit)
			break;
		token = *ip;
	} while (ip <= ilimit && op <= olimit);
out:
	c->ip = ip;
	c->op = op;
	return st;
}

/* Aligned to 64 bytes so that the fast loops sit at the same place
 * relative to cache lines in every program that links this file: on the
 * benchmark machine (AMD Zen 4) shifting the same code by 16 bytes moved
 * its speed by up to 4% (measured with nops before the loops), which
 * would otherwise change with whatever happens to be linked before it. */
__attribute__((aligned(64)))
enum decode_status lz4_decode(const uint8_t *src, size_t src_len,
			      uint8_t *dst, size_t dst_len, void *workspace)
{
	uint8_t none;   /* stands in for dst when dst_len == 0 (dst may be NULL) */
	const uint8_t *ip, *iend;
	uint8_t *op, *ostart, *oend;
	enum decode_status st;
	size_t lit, ml, off, token;

	(void)workspace;        /* LZ4 needs none: its window is the output */

	/* Zero-length block: see "Choices" at the top.  Also keeps NULL + 0
	 * out of the pointer arithmetic below. */
	if (src_len == 0)
		return DECODE_TRUNCATED;
	if (dst_len == 0)
		dst = &none;    /* never written: every write is checked against oend */

	ip = src;
	iend = src + src_len;
	op = ostart = dst;
	oend = dst + dst_len;

	/* ---- Fast loop: the first MAX_OFFSET bytes, then the rest ---- */
	if (src_len >= FAST_IN_MARGIN && dst_len >= FAST_OUT_MARGIN) {
		struct cursor c = { ip, op };
		uint8_t *const olimit = oend - FAST_OUT_MARGIN;
		/* The checked loop runs while op <= owindow, so it stops with
		 * op >= ostart + MAX_OFFSET (or at olimit, or earlier). */
		uint8_t *const owindow = dst_len - FAST_OUT_MARGIN < MAX_OFFSET - 1 ?
					 olimit : ostart + MAX_OFFSET - 1;

		st = fast_loop(&c, iend, oend, ostart, owindow, 0);
		if (st == DECODE_OK && (size_t)(c.op - ostart) >= MAX_OFFSET)
			st = fast_loop(&c, iend, oend, ostart, olimit, 1);
		if (st != DECODE_OK)
			return st;
		ip = c.ip;
		op = c.op;
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
		memmove(op, ip, lit); /* in place, the input lies over the output, ahead of it */
		ip += lit;
		op += lit;

		/* "End of block conditions" 1: the block ends right after the
		 * literals of its last sequence. */
		if (ip == iend)
			return op == oend ? DECODE_OK : DECODE_SHORT_OUTPUT;

		/* Guards the offset read: input ended inside the offset. */
		if ((size_t)(iend - ip) < OFFSET_BYTES)
			return DECODE_TRUNCATED;
		off = read_offset(ip);
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
		copy_exact(op, off, ml);
		op += ml;
	}
}
