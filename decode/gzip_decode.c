/* gzip_decode.c - gzip member decoder (DEFLATE inside) for the boot stub
 * and the host tools.
 *
 * Written for bzpack from RFC 1952 ("GZIP file format specification
 * version 4.3") and RFC 1951 ("DEFLATE Compressed Data Format
 * Specification version 1.3"); section numbers below refer to them.  One
 * gzip member is decoded: header, DEFLATE stream, trailer.  The caller
 * knows the exact compressed and decompressed sizes (see decode.h).
 *
 * Structure
 *   The header (RFC 1952 2.3) is parsed byte by byte.  The DEFLATE stream
 *   is read through a bit buffer as wide as a machine word (64 bits on
 *   x86-64, 32 on i686), refilled without branches in the fast loop (the
 *   "load a whole word, advance by the whole bytes that fit" refill from
 *   Fabian Giesen's "Reading bits in far too many ways" and libdeflate).
 *   Huffman codes are decoded through tables in the workspace: one lookup
 *   of LITLEN_TABLEBITS bits resolves every literal/length code up to that
 *   length, longer codes take one more lookup in a subtable (the two-level
 *   scheme of zlib's inflate_table / libdeflate's decode tables; the
 *   subtable sizing follows zlib's).  Entries carry everything the loop
 *   needs: how many bits to drop (code plus extra bits), the literal, or
 *   the length/distance base.  A fast loop decodes while at least
 *   FAST_IN_MARGIN input bytes and FAST_OUT_MARGIN output bytes remain:
 *   no bound checks but the distance check, and copies in whole 8-byte
 *   words that may run a little past the end of the match (never past the
 *   buffers).  A safe loop with exact copies and every access checked
 *   decodes the rest.  Both accept exactly the same streams and report the
 *   same statuses.
 *   The CRC-32 of the output (RFC 1952 8, the ISO 3309 polynomial) is
 *   computed over output still in cache (after each block).  Where the
 *   CPU has PCLMULQDQ (CPUID, at every call), with carry-less-multiply
 *   folding (decode/crc32.h), nearly free.  Otherwise with slicing-by-8
 *   tables (Intel's technique), in three independent lanes joined by a
 *   multiplication modulo the polynomial, and strides of zeros cost one
 *   multiplication; folding 8 bytes into the CRC inside the fast loop
 *   instead was measured slower (~2-3 %, the register it needs spills),
 *   and the table CRC is ~10 % of the decode time.
 *   Everything lives in the workspace; the CRC tables are computed there
 *   on every call (a few thousand instructions).
 *
 * Choices
 *   - Exactly one member: bytes after its trailer are DECODE_CORRUPT.
 *   - Header: ID1/ID2/CM must be 31/139/8, reserved FLG bits set is
 *     DECODE_CORRUPT (RFC 1952 2.3.1.2: "must give an error"), FEXTRA,
 *     FNAME, FCOMMENT are skipped, FHCRC is checked (DECODE_CHECK_MISMATCH
 *     on a mismatch), MTIME, XFL, OS and FTEXT are ignored.
 *   - Code lengths as zlib accepts them: over-subscribed codes are
 *     DECODE_CORRUPT; incomplete codes are DECODE_CORRUPT except a literal/
 *     length or distance code of exactly one symbol of length 1 (RFC 1951
 *     3.2.7: "If only one distance code is used, it is encoded using one
 *     bit, not zero bits"), and a distance code with no codes at all ("the
 *     data is all literals"); using a code such a table lacks is
 *     DECODE_CORRUPT.  More than 286 literal/length or 30
 *     distance codes, a missing end-of-block code, a repeat (16) with no
 *     previous length, or repeats past the end of the lengths are
 *     DECODE_CORRUPT; so are the codes 286, 287 and distance codes 30, 31
 *     in fixed-code blocks, block type 3, and a stored block whose NLEN is
 *     not the complement of LEN.
 *   - A distance before the start of the output is DECODE_BAD_OFFSET
 *     (there is no preset dictionary).
 *   - Input that ends inside the stream is DECODE_TRUNCATED as soon as a
 *     symbol would need a bit past the end; output that would pass dst_len
 *     is DECODE_OUTPUT_OVERRUN; a complete stream that produced fewer than
 *     dst_len bytes is DECODE_SHORT_OUTPUT; then the trailer: CRC-32 or
 *     ISIZE (dst_len modulo 2^32) wrong is DECODE_CHECK_MISMATCH.
 *   - src and dst must not overlap (no in-place decoding).  A NULL src or
 *     dst is fine with length 0.
 *   - x86 is little endian; the word loads are made endian-neutral anyway.
 */
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "copy.h"
#include "crc32.h"
#include "decode.h"
#include "mem.h"

/* ---- RFC 1952 (gzip) --------------------------------------------------- */

#define GZ_ID1            0x1f
#define GZ_ID2            0x8b
#define GZ_CM_DEFLATE     8
/* FLG bits (2.3.1) */
#define GZ_FTEXT          0x01
#define GZ_FHCRC          0x02
#define GZ_FEXTRA         0x04
#define GZ_FNAME          0x08
#define GZ_FCOMMENT       0x10
#define GZ_FRESERVED      0xe0
/* ID1 ID2 CM FLG MTIME(4) XFL OS */
#define GZ_FIXED_HEADER   10
#define GZ_OFF_CM         2
#define GZ_OFF_FLG        3
#define GZ_XLEN_BYTES     2
#define GZ_HCRC_BYTES     2
/* CRC32 ISIZE */
#define GZ_TRAILER        8

/* ---- RFC 1951 (DEFLATE) ------------------------------------------------ */

/* Block header (3.2.3): BFINAL, then BTYPE */
#define BTYPE_STORED      0
#define BTYPE_FIXED       1
#define BTYPE_DYNAMIC     2
/* Stored block (3.2.4): LEN, NLEN after the byte boundary */
#define STORED_LEN_BYTES  4
/* Dynamic block header (3.2.7) */
#define HLIT_BITS         5
#define HDIST_BITS        5
#define HCLEN_BITS        4
#define HLIT_BASE         257
#define HDIST_BASE        1
#define HCLEN_BASE        4
#define PRECODE_LEN_BITS  3
#define NUM_PRECODE_SYMS  19
/* zlib refuses more than these (the alphabets define 286 and 30 codes;
 * HLIT and HDIST could say 288 and 32). */
#define MAX_LITLEN_CODES  286
#define MAX_DIST_CODES    30
/* Code length alphabet: 0..15 literally, then the repeat codes */
#define PRECODE_REPEAT    16      /* previous length 3..6 times (2 extra bits) */
#define PRECODE_ZEROS     17      /* 3..10 zeros (3 extra bits) */
#define PRECODE_ZEROS_LONG 18     /* 11..138 zeros (7 extra bits) */
/* Alphabets */
#define NUM_LITLEN_SYMS   288     /* 0..255 literals, 256 end, 257..287 lengths */
#define NUM_DIST_SYMS     32
#define END_OF_BLOCK      256
#define FIRST_LENGTH_SYM  257
#define NUM_LENGTH_CODES  29      /* 257..285 */
#define NUM_DIST_CODES    30      /* 0..29 */
#define MAX_CODE_LEN      15
#define MAX_PRECODE_LEN   7
#define MAX_MATCH         258
#define MAX_LEN_EXTRA     5
#define MAX_DIST_EXTRA    13

/* The order in which the code length code lengths arrive (3.2.7). */
static const uint8_t precode_order[NUM_PRECODE_SYMS] = {
	16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15
};
/* Length and distance bases (3.2.5); the extra bit counts are computed
 * (length_extra(), dist_extra()). */
static const uint16_t length_base[NUM_LENGTH_CODES] = {
	3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258
};
static const uint16_t dist_base[NUM_DIST_CODES] = {
	1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
	257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577
};

/* Length code i (symbol 257 + i): 0 extra bits for i < 8, then 1..5 in
 * groups of four, and 0 for 258 (i = 28). */
static inline unsigned length_extra(unsigned i)
{
	return i < 8 || i == NUM_LENGTH_CODES - 1 ? 0 : (i - 4) >> 2;
}

/* Distance code i: 0 extra bits for i < 4, then 1..13 in pairs. */
static inline unsigned dist_extra(unsigned i)
{
	return i < 4 ? 0 : (i >> 1) - 1;
}

/* ---- Decode tables ------------------------------------------------------
 * Primary table sizes in index bits, and the most entries a table with its
 * subtables can take.  The bounds are what zlib's examples/enough.c calls
 * "enough 288 11 15", "enough 32 8 15" and "enough 19 7 7" (recomputed for
 * this file by an exhaustive count over complete codes).  The builder
 * checks them anyway. */
#define LITLEN_TABLEBITS  11
#define LITLEN_ENOUGH     2342
#define DIST_TABLEBITS    8
#define DIST_ENOUGH       402
#define PRECODE_TABLEBITS 7
#define PRECODE_ENOUGH    128
#define LITLEN_MASK       ((1u << LITLEN_TABLEBITS) - 1)
#define DIST_MASK         ((1u << DIST_TABLEBITS) - 1)
#define PRECODE_MASK      ((1u << PRECODE_TABLEBITS) - 1)

/* A table entry is 32 bits:
 *   bits 0..7    bits to drop: code length plus extra bits (for a
 *                subtable pointer: the primary table bits); < 64, so the
 *                entry itself can be a shift count
 *   bits 8..12   code length (for a pointer: the subtable's index bits);
 *                bit 13 is zero except in pointers, so (e >> 8) can be a
 *                shift count too
 *   bit 13       E_SUB: subtable pointer (with E_EXC)
 *   bit 14       E_LIT: value is a literal
 *   bit 15       E_EXC: not a literal, length or distance: a subtable
 *                pointer, the end of the block (value E_VAL_EOB) or a code
 *                the table does not have (value E_VAL_INVALID)
 *   bits 16..31  value: literal, length or distance base, precode
 *                symbol, subtable start
 * The extra bits are the bits dropped above the code length. */
#define E_DROP_MASK       0xffu
#define E_CODELEN_SHIFT   8
#define E_CODELEN_MASK    0x1fu
#define E_SUB             0x2000u
#define E_LIT             0x4000u
#define E_EXC             0x8000u
#define E_VALUE_SHIFT     16
#define E_VAL_INVALID     0u
#define E_VAL_EOB         1u
/* What a code missing from an incomplete table decodes to. */
#define E_INVALID_1BIT    (E_EXC | 1u << E_CODELEN_SHIFT | 1u)

_Static_assert(MAX_CODE_LEN + MAX_DIST_EXTRA < 32, "drop count is a shift count on -m32 too");
_Static_assert(MAX_CODE_LEN <= E_CODELEN_MASK, "code length fits");
_Static_assert(LITLEN_ENOUGH < 0x10000 && DIST_ENOUGH < 0x10000, "subtable start fits");
_Static_assert(2 * LITLEN_TABLEBITS > MAX_CODE_LEN && 2 * DIST_TABLEBITS > MAX_CODE_LEN,
	       "two levels reach every code");

/* The workspace (decode/codecs.def declares its size). */
struct gzip_workspace {
	uint32_t crc[8][256];                   /* slicing-by-8 CRC-32 tables */
	uint32_t crc_shift;                     /* x^(8 * CRC_LANE_BYTES) mod P */
	uint32_t crc_zero_shift;                /* x^(8 * CRC_STRIDE) mod P */
	uint32_t litlen[LITLEN_ENOUGH];
	uint32_t dist[DIST_ENOUGH];
	uint32_t precode[PRECODE_ENOUGH];
	uint16_t sorted[NUM_LITLEN_SYMS];       /* symbols by code length (table builder) */
	uint8_t lens[NUM_LITLEN_SYMS + NUM_DIST_SYMS]; /* code lengths of one block */
};
_Static_assert(sizeof(struct gzip_workspace) <= DECODE_WORKSPACE_gzip,
	       "decode/codecs.def must declare the whole workspace");

/* Little-endian loads: decode/mem.h. */

/* ---- CRC-32 -------------------------------------------------------------
 * The tables, crc32_fold8(), crc32_update(), the carry-less folding
 * (crc32_update_clmul()) and the combiner (crc32_mulmod(),
 * crc32_zeros_shift()) are decode/crc32.h's.  Below: the table path's
 * lanes, for CPUs without PCLMULQDQ. */

/* Long runs go CRC_LANES lanes of CRC_LANE_BYTES at a time, each lane its
 * own dependency chain, joined by the combiner. */
#define CRC_LANES         3
#define CRC_LANE_BYTES    2048
#define CRC_STRIDE        (CRC_LANES * CRC_LANE_BYTES)

/* Whether the CRC_STRIDE bytes at p are all zero; gives up at the first
 * nonzero 32 bytes. */
static int zero_stride(const uint8_t *p)
{
	for (size_t i = 0; i < CRC_STRIDE; i += 32) {
		uint64_t a, b, c, d;

		memcpy(&a, p + i, 8);
		memcpy(&b, p + i + 8, 8);
		memcpy(&c, p + i + 16, 8);
		memcpy(&d, p + i + 24, 8);
		if (a | b | c | d)
			return 0;
	}
	return 1;
}

/* crc32_update() over n bytes, n a multiple of CRC_STRIDE.  A stride of
 * zeros (kernels have whole pages of them) only multiplies the register
 * by x^(8 * CRC_STRIDE): zero_shift. */
static uint32_t crc32_strides(const uint32_t t[8][256], uint32_t shift, uint32_t zero_shift,
			      uint32_t c, const uint8_t *p, size_t n)
{
	_Static_assert(CRC_LANES == 3, "the loop below has three lanes");

	for (; n >= CRC_STRIDE; p += CRC_STRIDE, n -= CRC_STRIDE) {
		uint32_t c0 = c, c1 = 0, c2 = 0;

		if (zero_stride(p)) {
			c = crc32_mulmod(c, zero_shift);
			continue;
		}

		for (size_t i = 0; i < CRC_LANE_BYTES; i += 8) {
			c0 = crc32_fold8(t, c0, p + i);
			c1 = crc32_fold8(t, c1, p + CRC_LANE_BYTES + i);
			c2 = crc32_fold8(t, c2, p + 2 * CRC_LANE_BYTES + i);
		}
		c = crc32_mulmod(crc32_mulmod(c0, shift) ^ c1, shift) ^ c2;
	}
	return c;
}

/* ---- Table builder ------------------------------------------------------ */

enum table_kind { KIND_PRECODE, KIND_LITLEN, KIND_DIST };

/* How many interleaved runs build_table() counts and sorts symbols in. */
#define BUILD_PARTS 2

/* An entry without its code length: flags, value, extra bit count. */
static ALWAYS_INLINE uint32_t symbol_template(enum table_kind kind, unsigned sym)
{
	switch (kind) {
	case KIND_PRECODE:
		return (uint32_t)sym << E_VALUE_SHIFT;
	case KIND_LITLEN:
		if (sym < END_OF_BLOCK)
			return E_LIT | (uint32_t)sym << E_VALUE_SHIFT;
		if (sym == END_OF_BLOCK)
			return E_EXC | E_VAL_EOB << E_VALUE_SHIFT;
		sym -= FIRST_LENGTH_SYM;
		if (sym < NUM_LENGTH_CODES)
			return (uint32_t)length_base[sym] << E_VALUE_SHIFT | length_extra(sym);
		return E_EXC | E_VAL_INVALID << E_VALUE_SHIFT;   /* 286, 287 */
	case KIND_DIST:
		if (sym < NUM_DIST_CODES)
			return (uint32_t)dist_base[sym] << E_VALUE_SHIFT | dist_extra(sym);
		return E_EXC | E_VAL_INVALID << E_VALUE_SHIFT;   /* 30, 31 */
	}
	return E_EXC;
}

/* The canonical code after rev, a code of len bits held bit-reversed
 * (Huffman codes are packed starting with their most significant bit,
 * 3.1.1, and the bit buffer hands out the first bit as bit 0): adding one
 * to the code carries from the top bit of rev down.  Appending a 0 for the
 * next length leaves rev as it is. */
static inline unsigned next_reversed(unsigned rev, unsigned len)
{
	unsigned bit = 1u << (len - 1);

	while (rev & bit)
		bit >>= 1;
	return (rev & (bit - 1)) | bit;
}

/* Builds the decode table for lens[0..nsyms) (3.2.2: canonical codes,
 * shorter codes first, then by symbol).  Returns DECODE_OK or
 * DECODE_CORRUPT for a code set zlib would refuse (see "Choices"). */
static enum decode_status build_table(uint32_t *table, unsigned cap, unsigned tbits,
				      enum table_kind kind, const uint8_t *lens, unsigned nsyms,
				      uint16_t *sorted)
{
	/* The symbols are counted and sorted as BUILD_PARTS runs of
	 * consecutive symbols, interleaved, each with its own counters:
	 * neighbouring symbols mostly share a length, and one set of
	 * counters makes every increment wait for the store of the one
	 * before (this builder took ~9 % of a kernel's decode time, half of
	 * it in those two chains).  Two runs: four were no faster on the
	 * host and cost the stub more instructions (the per-run prefix
	 * sums).  part[p][len]: first the counts of run p, then where its
	 * next symbol of length len goes in sorted. */
	unsigned part[BUILD_PARTS][MAX_CODE_LEN + 1] = { { 0 } };
	unsigned count[MAX_CODE_LEN + 1];
	const unsigned tsize = 1u << tbits;
	/* Run p is [p * q, (p + 1) * q), the last run also takes the
	 * nsyms % BUILD_PARTS symbols after them. */
	const unsigned q = nsyms / BUILD_PARTS;
	unsigned maxlen = 0, len, i, n, k, p, pos;
	int left;

	_Static_assert(BUILD_PARTS == 2, "the loops below have two runs");
	for (i = 0; i < q; i++) {
		part[0][lens[i]]++;
		part[1][lens[q + i]]++;
	}
	for (i = BUILD_PARTS * q; i < nsyms; i++)
		part[BUILD_PARTS - 1][lens[i]]++;
	for (len = 0; len <= MAX_CODE_LEN; len++)
		count[len] = part[0][len] + part[1][len];

	/* Kraft sum: left is the number of unused codes of the current
	 * length; below zero the code is over-subscribed. */
	left = 1;
	for (len = 1; len <= MAX_CODE_LEN; len++) {
		left = 2 * left - (int)count[len];
		if (left < 0)
			return DECODE_CORRUPT;
		if (count[len])
			maxlen = len;
	}
	if (left > 0) {
		/* Incomplete: only no code at all (distances) or one code
		 * of one bit (literal/length, distance). */
		if (kind == KIND_PRECODE || maxlen > 1)
			return DECODE_CORRUPT;
		for (i = 0; i < tsize; i++)
			table[i] = E_INVALID_1BIT;
	}

	/* Symbols in canonical order: by length, then by symbol, so run p's
	 * symbols of a length go after those of the runs before it.  The
	 * unused symbols (length 0) go after every coded one, where nothing
	 * reads them: sorted has room for all nsyms, and no branch skips
	 * them. */
	pos = 0;
	for (len = 1; len <= MAX_CODE_LEN + 1; len++) {
		const unsigned l = len <= MAX_CODE_LEN ? len : 0;     /* 0 last */

		for (p = 0; p < BUILD_PARTS; p++) {
			const unsigned c = part[p][l];

			part[p][l] = pos;
			pos += c;
		}
	}
	for (i = 0; i < q; i++) {
		sorted[part[0][lens[i]]++] = (uint16_t)i;
		sorted[part[1][lens[q + i]]++] = (uint16_t)(q + i);
	}
	for (i = BUILD_PARTS * q; i < nsyms; i++)
		sorted[part[BUILD_PARTS - 1][lens[i]]++] = (uint16_t)i;

	/* Codes that fit the primary table, shortest first, into a table
	 * that grows with them: while the codes have at most len bits the
	 * table has 2^len entries, each code at its reversed value; going
	 * to len + 1 bits copies the table onto its upper half (the bit
	 * that selects the half means nothing to the shorter codes).  The
	 * doubling copies are libdeflate's idea; they replace the strided
	 * fill of every entry a short code owns. */
	unsigned rev = 0, cur;
	for (len = 1; len < maxlen && !count[len]; len++)
		;
	cur = 1u << (len < tbits ? len : tbits);
	k = 0;
	for (;; len++) {
		for (n = count[len]; n && len <= tbits; n--) {
			table[rev] = symbol_template(kind, sorted[k++]) + len + (len << E_CODELEN_SHIFT);
			rev = next_reversed(rev, len);
		}
		if (len >= tbits || len >= maxlen)
			break;
		memcpy(table + cur, table, cur * sizeof(*table));
		cur *= 2;
	}
	/* A code shorter than tbits bits ends the loop before the table
	 * has its full size. */
	for (; cur < tsize; cur *= 2)
		memcpy(table + cur, table, cur * sizeof(*table));
	len++;

	/* Longer codes: a subtable per primary index (the code's first
	 * tbits bits).  Canonical codes sharing a prefix are consecutive;
	 * a new subtable gets the fewest index bits that hold every
	 * remaining code under its prefix (zlib's sizing). */
	unsigned used = tsize, prefix = tsize, sub = 0, subbits = 0;
	for (; len <= maxlen; len++) {
		const unsigned rel = len - tbits;

		for (; count[len]; count[len]--) {
			if ((rev & (tsize - 1)) != prefix) {
				int room;

				prefix = rev & (tsize - 1);
				subbits = rel;
				room = 1 << subbits;
				while (tbits + subbits < maxlen) {
					room -= (int)count[tbits + subbits];
					if (room <= 0)
						break;
					subbits++;
					room <<= 1;
				}
				/* Guards the table's end; cannot fail for
				 * the alphabets here (see *_ENOUGH). */
				if (used + (1u << subbits) > cap)
					return DECODE_CORRUPT;
				sub = used;
				used += 1u << subbits;
				table[prefix] = E_EXC | E_SUB | (uint32_t)sub << E_VALUE_SHIFT |
						subbits << E_CODELEN_SHIFT | tbits;
			}
			const uint32_t e = symbol_template(kind, sorted[k++]) + rel +
					   (rel << E_CODELEN_SHIFT);
			for (i = rev >> tbits; i < 1u << subbits; i += 1u << rel)
				table[sub + i] = e;
			rev = next_reversed(rev, len);
		}
	}
	return DECODE_OK;
}

/* ---- Bit reader ---------------------------------------------------------
 * bitbuf holds bitsleft valid bits, the next one in bit 0.  Bits above
 * bitsleft are zero or the input's own next bits.  Past the end of the
 * input the careful refill loads zero bytes and counts them in phantom
 * (bits); once a symbol has used any of them (phantom > bitsleft) the
 * input was truncated.  The fast loop keeps only the low byte of bitsleft
 * meaningful (it subtracts whole entries) and the bit reader's shifts and
 * refill read only that. */
#ifdef GZIP_BITBUF_T
typedef GZIP_BITBUF_T bitbuf_t;         /* tests: the 32-bit paths on a 64-bit host */
#else
typedef size_t bitbuf_t;
#endif
#define BITBUF_BITS       (8 * (unsigned)sizeof(bitbuf_t))
#define BITBUF_BYTES      ((unsigned)sizeof(bitbuf_t))
/* After any refill at least this many bits are valid. */
#define REFILL_MIN        (BITBUF_BITS - 8)

static inline bitbuf_t load_word_le(const uint8_t *p)
{
	return sizeof(bitbuf_t) == 8 ? (bitbuf_t)load_le64(p) : (bitbuf_t)load_le32(p);
}

/* The low n bits of v, n < BITBUF_BITS. */
static inline bitbuf_t low_bits(bitbuf_t v, unsigned n)
{
	return v & (((bitbuf_t)1 << (n & (BITBUF_BITS - 1))) - 1);
}

/* Branch-free refill (after Giesen's "Reading bits in far too many
 * ways"): loads a whole word above the valid bits and keeps the whole
 * bytes that fit.  Needs BITBUF_BYTES readable bytes at in.  Uses only the
 * low 6 bits of bitsleft (the fast loop's bitsleft has junk above its low
 * byte). */
#define REFILL_FAST()                                                         \
	do {                                                                  \
		bitbuf |= load_word_le(in) << (bitsleft & (BITBUF_BITS - 1)); \
		in += BITBUF_BYTES - 1 - ((bitsleft >> 3) & (BITBUF_BYTES - 1)); \
		bitsleft |= REFILL_MIN;                                       \
	} while (0)

/* Byte-wise refill, zeros past in_end. */
#define REFILL_SAFE()                                                         \
	do {                                                                  \
		while (bitsleft <= BITBUF_BITS - 9) {                         \
			if (in != in_end)                                     \
				bitbuf |= (bitbuf_t)*in++ << bitsleft;        \
			else                                                  \
				phantom += 8;                                 \
			bitsleft += 8;                                        \
		}                                                             \
	} while (0)

/* Either, as the input allows (block headers). */
#define REFILL_ANY()                                                          \
	do {                                                                  \
		if ((size_t)(in_end - in) >= BITBUF_BYTES)                    \
			REFILL_FAST();                                        \
		else                                                          \
			REFILL_SAFE();                                        \
	} while (0)

#define DROP(n)                                                               \
	do {                                                                  \
		bitbuf >>= (n);                                               \
		bitsleft -= (n);                                              \
	} while (0)

/* The extra bits of entry e, taken from bits (as they were before e's
 * bits were dropped). */
#define EXTRA_BITS(bits, e)                                                   \
	(low_bits((bits), (e) & E_DROP_MASK) >>                               \
	 (((e) >> E_CODELEN_SHIFT) & (BITBUF_BITS - 1)))

_Static_assert(REFILL_MIN >= MAX_CODE_LEN + MAX_LEN_EXTRA,
	       "a literal/length code and its extra bits fit one refill");
_Static_assert(REFILL_MIN >= MAX_CODE_LEN && REFILL_MIN >= MAX_DIST_EXTRA,
	       "a distance code, or its extra bits, fit one refill");

/* ---- Match copies -------------------------------------------------------- */

/* copy8() and copy_spread8(): decode/copy.h. */

/* Wild match copy: writes [out, out + len) and up to WILD_SLACK bytes
 * after it (16 bytes for the shortest match, 3); reads only bytes before
 * what it writes and from out - dist.  The caller guarantees
 * len + WILD_SLACK bytes of room and dist <= bytes already produced. */
#define MIN_MATCH  3
#define WILD_SLACK (16 - MIN_MATCH)
static inline void copy_match_fast(uint8_t *out, size_t dist, size_t len)
{
	uint8_t *const end = out + len;
	const uint8_t *src = out - dist;

	if (dist >= 8) {
		/* Each word's source ends at or before its destination.
		 * Two words without looking: most matches are short. */
		copy8(out, src);
		copy8(out + 8, src + 8);
		out += 16;
		src += 16;
		while (out < end) {
			copy8(out, src);
			out += 8;
			src += 8;
		}
	} else if (dist == 1) {
		const uint32_t w = *src * 0x01010101u;
		const uint64_t v = (uint64_t)w << 32 | w;

		do {
			memcpy(out, &v, 8);
			out += 8;
		} while (out < end);
	} else {
		/* The first 8 bytes one by one (each may be the previous
		 * ones), then words from a multiple of dist back. */
		src = copy_spread8(out, dist);
		out += 8;
		while (out < end) {
			copy8(out, src);
			out += 8;
			src += 8;
		}
	}
}

/* ---- Huffman blocks ------------------------------------------------------ */

struct inflate {
	const uint8_t *in, *in_end;
	bitbuf_t bitbuf;
	unsigned bitsleft, phantom;
	uint8_t *out, *out_start, *out_end;
	struct gzip_workspace *ws;
	const uint8_t *crc_done;        /* the CRC register covers [out_start, crc_done) */
	uint32_t crc;
};

/* The fast loop runs an iteration only with this much input left: each of
 * its refills (at most three per iteration on 64-bit, four on 32-bit)
 * reads a word and advances by less than one. */
#define FAST_REFILLS      (BITBUF_BITS >= 64 ? 3 : 4)
#define FAST_IN_MARGIN    (FAST_REFILLS * BITBUF_BYTES)
/* ... and this much output: two literals then a match and its wild copy's
 * slack, or three literals. */
#define FAST_OUT_MARGIN   (2 + MAX_MATCH + WILD_SLACK)

/* The tests and the fuzzer build a second copy with GZIP_SAFE_LOOP_ONLY
 * (and gzip_decode renamed) to check that the fast loop changes nothing:
 * same statuses, same bytes. */
#ifdef GZIP_SAFE_LOOP_ONLY
#define FAST_LOOP         0
#else
#define FAST_LOOP         1
#endif
/* The same copy keeps to the table CRC, so that where the CPU has
 * PCLMULQDQ both CRC paths meet every stream the tests make. */
#define CRC_CLMUL()       (FAST_LOOP ? crc32_have_clmul() : CRC32_TABLES_ONLY)

/* Fast loop: looks up the literal/length entry for the next bits and
 * drops its bits at once (saved keeps them for the extra bits), without
 * waiting to know what it is.  Needs 16 valid bits (a primary entry). */
#define NEXT_LITLEN()                                                         \
	do {                                                                  \
		e = lt[bitbuf & LITLEN_MASK];                                 \
		saved = bitbuf;                                               \
		bitbuf >>= e & (BITBUF_BITS - 1);                             \
		bitsleft -= e;                                                \
	} while (0)
#define PRIMARY_MAX_DROP  (LITLEN_TABLEBITS + MAX_LEN_EXTRA)

/* Decodes the symbols of one Huffman block with the tables in the
 * workspace, up to and including its end-of-block code. */
static enum decode_status inflate_block(struct inflate *z)
{
	const uint32_t *const lt = z->ws->litlen;
	const uint32_t *const dt = z->ws->dist;
	const uint8_t *in = z->in;
	const uint8_t *const in_end = z->in_end;
	bitbuf_t bitbuf = z->bitbuf, saved;
	unsigned bitsleft = z->bitsleft, phantom = z->phantom, n;
	uint8_t *out = z->out;
	uint8_t *const out_start = z->out_start, *const out_end = z->out_end;
	enum decode_status st;
	uint32_t e, lit;
	size_t len, dist;

	/* ---- Fast loop ----
	 * At the top of an iteration e is the entry of the next symbol and
	 * its bits are already dropped (libdeflate's order: look up, drop,
	 * then see what it was).  The bit budget, 64-bit: a refill leaves
	 * >= 56 bits; a primary entry takes <= 16, a literal <= 11, a
	 * subtable entry <= 4 + 5 more, a distance <= 15 + 13.  Rare paths
	 * are marked unlikely: the common ones fall through. */
	if (FAST_LOOP && (size_t)(in_end - in) >= FAST_IN_MARGIN &&
	    (size_t)(out_end - out) >= FAST_OUT_MARGIN) {
		const uint8_t *const in_limit = in_end - FAST_IN_MARGIN;
		uint8_t *const out_limit = out_end - FAST_OUT_MARGIN;

		REFILL_FAST();
		NEXT_LITLEN();
		/* Guards every unchecked read and write of one iteration. */
		while (in <= in_limit && out <= out_limit) {
			/* 64-bit: every iteration starts with >= 56 bits.
			 * 32-bit: each path refills when it needs to (a
			 * 32-bit refill costs more than the test). */
			if (BITBUF_BITS >= 64)
				REFILL_FAST();
			if (e & E_LIT) {
				/* 56 - 16 = 40 left, then 45 - 16 = 29 after
				 * another literal, 18 after a third; 32-bit
				 * buffers go round after one. */
				if (BITBUF_BITS < 64 && (bitsleft & E_DROP_MASK) < PRIMARY_MAX_DROP)
					REFILL_FAST();
				lit = e >> E_VALUE_SHIFT;
				NEXT_LITLEN();
				*out++ = (uint8_t)lit;
				if (BITBUF_BITS < 64)
					continue;
				if (e & E_LIT) {
					lit = e >> E_VALUE_SHIFT;
					NEXT_LITLEN();
					*out++ = (uint8_t)lit;
					if (e & E_LIT) {
						lit = e >> E_VALUE_SHIFT;
						NEXT_LITLEN();
						*out++ = (uint8_t)lit;
						continue;
					}
				}
			}
			if (__builtin_expect(e & E_EXC, 0)) {
				if (e & E_SUB) {
					/* >= 29 bits (64) / 24 (32) left. */
					if (BITBUF_BITS < 64)
						REFILL_FAST();
					e = lt[(e >> E_VALUE_SHIFT) +
					       low_bits(bitbuf, (e >> E_CODELEN_SHIFT) & E_CODELEN_MASK)];
					saved = bitbuf;
					bitbuf >>= e & (BITBUF_BITS - 1);
					bitsleft -= e;
					/* 64-bit: a length from here may
					 * have left < 28 bits for its
					 * distance. */
					if (BITBUF_BITS >= 64)
						REFILL_FAST();
					if (e & E_LIT) {
						if (BITBUF_BITS < 64)
							REFILL_FAST();
						lit = e >> E_VALUE_SHIFT;
						NEXT_LITLEN();
						*out++ = (uint8_t)lit;
						continue;
					}
				}
				if (e & E_EXC) {
					st = (e >> E_VALUE_SHIFT) == E_VAL_EOB ? DECODE_OK : DECODE_CORRUPT;
					goto fast_done;
				}
			}
			/* A length: base plus extra bits. */
			len = (e >> E_VALUE_SHIFT) + EXTRA_BITS(saved, e);

			/* The distance: 64-bit buffers hold >= 29 bits
			 * here (>= 45 after a literal, minus a 16-bit
			 * length entry), the 28 a distance may take; the
			 * refill comes after it, off the lookup's path. */
			if (BITBUF_BITS < 64 && (bitsleft & E_DROP_MASK) < MAX_CODE_LEN)
				REFILL_FAST();
			e = dt[bitbuf & DIST_MASK];
			if (__builtin_expect(e & E_EXC, 0)) {
				if (e & E_SUB) {
					DROP(DIST_TABLEBITS);
					e = dt[(e >> E_VALUE_SHIFT) +
					       low_bits(bitbuf, (e >> E_CODELEN_SHIFT) & E_CODELEN_MASK)];
				}
				if (e & E_EXC) {
					st = DECODE_CORRUPT;
					goto fast_done;
				}
			}
			if (BITBUF_BITS >= 64) {
				saved = bitbuf;
				bitbuf >>= e & (BITBUF_BITS - 1);
				bitsleft -= e;
				dist = (e >> E_VALUE_SHIFT) + EXTRA_BITS(saved, e);
				REFILL_FAST();
			} else {
				/* The code, a refill, then the extra bits. */
				const unsigned cl = (e >> E_CODELEN_SHIFT) & E_CODELEN_MASK;

				n = (e & E_DROP_MASK) - cl;
				DROP(cl);
				if ((bitsleft & E_DROP_MASK) < MAX_DIST_EXTRA)
					REFILL_FAST();
				dist = (e >> E_VALUE_SHIFT) + low_bits(bitbuf, n);
				DROP(n);
				if ((bitsleft & E_DROP_MASK) < PRIMARY_MAX_DROP)
					REFILL_FAST();
			}
			/* >= 56 (64-bit) or 16 bits. */
			NEXT_LITLEN();
			/* Guards the match source: before the output. */
			if (__builtin_expect(dist > (size_t)(out - out_start), 0)) {
				st = DECODE_BAD_OFFSET;
				goto fast_done;
			}
			/* The loop margin covers len + WILD_SLACK. */
			copy_match_fast(out, dist, len);
			out += len;
		}
		/* Give back the bits of the entry looked up ahead. */
		bitbuf = saved;
		bitsleft += e & E_DROP_MASK;
		bitsleft &= E_DROP_MASK;
	}

	/* ---- Safe loop: every access checked ---- */
	for (;;) {
		REFILL_SAFE();
		e = lt[bitbuf & LITLEN_MASK];
		if (e & E_SUB) {
			DROP(LITLEN_TABLEBITS);
			e = lt[(e >> E_VALUE_SHIFT) +
			       low_bits(bitbuf, (e >> E_CODELEN_SHIFT) & E_CODELEN_MASK)];
		}
		saved = bitbuf;
		n = e & E_DROP_MASK;
		DROP(n);
		/* Guards against decoding the zeros past the input. */
		if (phantom > bitsleft) {
			st = DECODE_TRUNCATED;
			goto done;
		}
		if (e & E_LIT) {
			/* Guards the literal write. */
			if (out == out_end) {
				st = DECODE_OUTPUT_OVERRUN;
				goto done;
			}
			*out++ = (uint8_t)(e >> E_VALUE_SHIFT);
			continue;
		}
		if (e & E_EXC) {
			st = (e >> E_VALUE_SHIFT) == E_VAL_EOB ? DECODE_OK : DECODE_CORRUPT;
			goto done;
		}
		len = (e >> E_VALUE_SHIFT) + EXTRA_BITS(saved, e);

		REFILL_SAFE();
		e = dt[bitbuf & DIST_MASK];
		if (e & E_SUB) {
			DROP(DIST_TABLEBITS);
			e = dt[(e >> E_VALUE_SHIFT) +
			       low_bits(bitbuf, (e >> E_CODELEN_SHIFT) & E_CODELEN_MASK)];
		}
		{
			const unsigned cl = (e >> E_CODELEN_SHIFT) & E_CODELEN_MASK;

			n = (e & E_DROP_MASK) - cl;
			DROP(cl);
			REFILL_SAFE();
			dist = (e >> E_VALUE_SHIFT) + low_bits(bitbuf, n);
			DROP(n);
		}
		/* Guards against decoding the zeros past the input. */
		if (phantom > bitsleft) {
			st = DECODE_TRUNCATED;
			goto done;
		}
		if (e & E_EXC) {
			st = DECODE_CORRUPT;
			goto done;
		}
		/* Guards the match source: before the output. */
		if (dist > (size_t)(out - out_start)) {
			st = DECODE_BAD_OFFSET;
			goto done;
		}
		/* Guards the match write. */
		if (len > (size_t)(out_end - out)) {
			st = DECODE_OUTPUT_OVERRUN;
			goto done;
		}
		{
			const uint8_t *src = out - dist;

			while (len--)
				*out++ = *src++;
		}
	}

fast_done:
	bitsleft &= E_DROP_MASK;
done:
	z->in = in;
	z->bitbuf = bitbuf;
	z->bitsleft = bitsleft;
	z->phantom = phantom;
	z->out = out;
	return st;
}

/* ---- Block headers ------------------------------------------------------
 * Read through the careful refill: a few bits per block. */

#define BR_LOAD(z)                                                            \
	const uint8_t *in = (z)->in;                                          \
	const uint8_t *const in_end = (z)->in_end;                            \
	bitbuf_t bitbuf = (z)->bitbuf;                                        \
	unsigned bitsleft = (z)->bitsleft, phantom = (z)->phantom
#define BR_STORE(z)                                                           \
	do {                                                                  \
		(z)->in = in;                                                 \
		(z)->bitbuf = bitbuf;                                         \
		(z)->bitsleft = bitsleft;                                     \
		(z)->phantom = phantom;                                       \
	} while (0)

/* Reads n <= REFILL_MIN bits. */
static enum decode_status get_bits(struct inflate *z, unsigned n, unsigned *v)
{
	BR_LOAD(z);

	REFILL_SAFE();
	*v = (unsigned)low_bits(bitbuf, n);
	DROP(n);
	BR_STORE(z);
	/* Guards against reading the zeros past the input. */
	return phantom > bitsleft ? DECODE_TRUNCATED : DECODE_OK;
}

/* Drops the bits up to the next byte boundary and gives the whole bytes
 * still in the bit buffer back to the input (they are the last
 * bitsleft / 8 bytes before in, counting the zeros past its end). */
static enum decode_status align_to_byte(struct inflate *z)
{
	z->bitsleft &= ~7u;
	/* Guards against having used the zeros past the input. */
	if (z->phantom > z->bitsleft)
		return DECODE_TRUNCATED;
	z->in -= (z->bitsleft - z->phantom) / 8;
	z->bitbuf = 0;
	z->bitsleft = 0;
	z->phantom = 0;
	return DECODE_OK;
}

/* A stored block (3.2.4). */
static enum decode_status stored_block(struct inflate *z)
{
	enum decode_status st = align_to_byte(z);
	unsigned len;

	if (st != DECODE_OK)
		return st;
	/* Guards the LEN/NLEN read. */
	if ((size_t)(z->in_end - z->in) < STORED_LEN_BYTES)
		return DECODE_TRUNCATED;
	len = load_le16(z->in);
	if ((len ^ load_le16(z->in + 2)) != 0xffffu)
		return DECODE_CORRUPT;
	z->in += STORED_LEN_BYTES;
	/* Guards the copy's source. */
	if (len > (size_t)(z->in_end - z->in))
		return DECODE_TRUNCATED;
	/* Guards the copy's destination. */
	if (len > (size_t)(z->out_end - z->out))
		return DECODE_OUTPUT_OVERRUN;
	memmove(z->out, z->in, len); /* in place, the input lies over the output, ahead of it */
	z->in += len;
	z->out += len;
	return DECODE_OK;
}

/* The fixed codes (3.2.6). */
#define FIXED_LIT_8_END   144
#define FIXED_LIT_9_END   256
#define FIXED_LEN_7_END   280
#define FIXED_LITLEN_BITS_8 8
#define FIXED_LITLEN_BITS_9 9
#define FIXED_LITLEN_BITS_7 7
#define FIXED_DIST_BITS   5
static enum decode_status fixed_tables(struct inflate *z)
{
	struct gzip_workspace *ws = z->ws;
	enum decode_status st;
	unsigned i;

	for (i = 0; i < FIXED_LIT_8_END; i++)
		ws->lens[i] = FIXED_LITLEN_BITS_8;
	for (; i < FIXED_LIT_9_END; i++)
		ws->lens[i] = FIXED_LITLEN_BITS_9;
	for (; i < FIXED_LEN_7_END; i++)
		ws->lens[i] = FIXED_LITLEN_BITS_7;
	for (; i < NUM_LITLEN_SYMS; i++)
		ws->lens[i] = FIXED_LITLEN_BITS_8;
	for (i = 0; i < NUM_DIST_SYMS; i++)
		ws->lens[NUM_LITLEN_SYMS + i] = FIXED_DIST_BITS;
	st = build_table(ws->litlen, LITLEN_ENOUGH, LITLEN_TABLEBITS, KIND_LITLEN, ws->lens,
			 NUM_LITLEN_SYMS, ws->sorted);
	if (st != DECODE_OK)
		return st;
	return build_table(ws->dist, DIST_ENOUGH, DIST_TABLEBITS, KIND_DIST,
			   ws->lens + NUM_LITLEN_SYMS, NUM_DIST_SYMS, ws->sorted);
}

/* The code lengths of a dynamic block (3.2.7), then its tables. */
#define REPEAT_BITS       2
#define REPEAT_MIN        3
#define ZEROS_BITS        3
#define ZEROS_MIN         3
#define ZEROS_LONG_BITS   7
#define ZEROS_LONG_MIN    11
static enum decode_status dynamic_tables(struct inflate *z)
{
	struct gzip_workspace *ws = z->ws;
	uint8_t pre_lens[NUM_PRECODE_SYMS];
	enum decode_status st;
	unsigned hlit, hdist, hclen, total, i, v;

	if ((st = get_bits(z, HLIT_BITS, &hlit)) != DECODE_OK ||
	    (st = get_bits(z, HDIST_BITS, &hdist)) != DECODE_OK ||
	    (st = get_bits(z, HCLEN_BITS, &hclen)) != DECODE_OK)
		return st;
	hlit += HLIT_BASE;
	hdist += HDIST_BASE;
	hclen += HCLEN_BASE;
	if (hlit > MAX_LITLEN_CODES || hdist > MAX_DIST_CODES)
		return DECODE_CORRUPT;

	for (i = 0; i < NUM_PRECODE_SYMS; i++)
		pre_lens[i] = 0;
	for (i = 0; i < hclen; i++) {
		if ((st = get_bits(z, PRECODE_LEN_BITS, &v)) != DECODE_OK)
			return st;
		pre_lens[precode_order[i]] = (uint8_t)v;
	}
	st = build_table(ws->precode, PRECODE_ENOUGH, PRECODE_TABLEBITS, KIND_PRECODE, pre_lens,
			 NUM_PRECODE_SYMS, ws->sorted);
	if (st != DECODE_OK)
		return st;

	/* The literal/length and distance lengths form one sequence:
	 * repeats may cross from one into the other. */
	total = hlit + hdist;
	{
		BR_LOAD(z);

		for (i = 0; i < total;) {
			unsigned sym, rep;
			uint8_t val = 0;
			uint32_t e;

			/* A symbol and its extra bits: <= 7 + 7 bits. */
			REFILL_ANY();
			e = ws->precode[bitbuf & PRECODE_MASK];
			DROP(e & E_DROP_MASK);
			sym = e >> E_VALUE_SHIFT;
			if (sym < PRECODE_REPEAT) {
				rep = 1;
				val = (uint8_t)sym;
			} else if (sym == PRECODE_REPEAT) {
				rep = REPEAT_MIN + (unsigned)low_bits(bitbuf, REPEAT_BITS);
				DROP(REPEAT_BITS);
				/* Guards the repeat's source (after the
				 * truncation check below would be too late
				 * only for the read of lens[-1]). */
				if (i == 0)
					return phantom > bitsleft ? DECODE_TRUNCATED : DECODE_CORRUPT;
				val = ws->lens[i - 1];
			} else if (sym == PRECODE_ZEROS) {
				rep = ZEROS_MIN + (unsigned)low_bits(bitbuf, ZEROS_BITS);
				DROP(ZEROS_BITS);
			} else {
				rep = ZEROS_LONG_MIN + (unsigned)low_bits(bitbuf, ZEROS_LONG_BITS);
				DROP(ZEROS_LONG_BITS);
			}
			/* Guards against decoding the zeros past the input. */
			if (phantom > bitsleft)
				return DECODE_TRUNCATED;
			/* Guards the end of the lengths. */
			if (rep > total - i)
				return DECODE_CORRUPT;
			while (rep--)
				ws->lens[i++] = val;
		}
		BR_STORE(z);
	}
	/* Every block ends with one. */
	if (ws->lens[END_OF_BLOCK] == 0)
		return DECODE_CORRUPT;

	st = build_table(ws->litlen, LITLEN_ENOUGH, LITLEN_TABLEBITS, KIND_LITLEN, ws->lens, hlit,
			 ws->sorted);
	if (st != DECODE_OK)
		return st;
	return build_table(ws->dist, DIST_ENOUGH, DIST_TABLEBITS, KIND_DIST, ws->lens + hlit, hdist,
			   ws->sorted);
}

/* ---- The member --------------------------------------------------------- */

/* Skips a zero-terminated header field (FNAME, FCOMMENT). */
static enum decode_status skip_string(const uint8_t *src, size_t src_len, size_t *pos)
{
	size_t p = *pos;

	/* Guards every byte read: the terminator must be in the input. */
	while (p < src_len && src[p] != 0)
		p++;
	if (p == src_len)
		return DECODE_TRUNCATED;
	*pos = p + 1;
	return DECODE_OK;
}

/* The member header (RFC 1952 2.3); *pos is where the DEFLATE data starts. */
static enum decode_status parse_header(const uint8_t *src, size_t src_len,
				       const uint32_t crc[8][256], size_t *pos)
{
	static const uint8_t magic[] = { GZ_ID1, GZ_ID2, GZ_CM_DEFLATE };
	enum decode_status st;
	size_t p, i;
	unsigned flg;

	/* What is there of ID1, ID2, CM and FLG is checked before a short
	 * input is called truncated. */
	for (i = 0; i < sizeof(magic) && i < src_len; i++)
		if (src[i] != magic[i])
			return DECODE_CORRUPT;
	if (src_len > GZ_OFF_FLG && (src[GZ_OFF_FLG] & GZ_FRESERVED))
		return DECODE_CORRUPT;
	/* Guards the fixed part. */
	if (src_len < GZ_FIXED_HEADER)
		return DECODE_TRUNCATED;
	flg = src[GZ_OFF_FLG];
	p = GZ_FIXED_HEADER;
	if (flg & GZ_FEXTRA) {
		size_t xlen;

		/* Guards the XLEN read. */
		if (src_len - p < GZ_XLEN_BYTES)
			return DECODE_TRUNCATED;
		xlen = load_le16(src + p);
		p += GZ_XLEN_BYTES;
		/* Guards the skip over the extra field. */
		if (xlen > src_len - p)
			return DECODE_TRUNCATED;
		p += xlen;
	}
	if ((flg & GZ_FNAME) && (st = skip_string(src, src_len, &p)) != DECODE_OK)
		return st;
	if ((flg & GZ_FCOMMENT) && (st = skip_string(src, src_len, &p)) != DECODE_OK)
		return st;
	if (flg & GZ_FHCRC) {
		/* Guards the CRC16 read. */
		if (src_len - p < GZ_HCRC_BYTES)
			return DECODE_TRUNCATED;
		/* The low 16 bits of the CRC-32 of the header before it. */
		if (((~crc32_update(crc, ~0u, src, p)) & 0xffffu) != load_le16(src + p))
			return DECODE_CHECK_MISMATCH;
		p += GZ_HCRC_BYTES;
	}
	*pos = p;
	return DECODE_OK;
}

/* One member at the start of src into at most dst_len bytes.  whole: the
 * member must be all of src and fill dst (gzip_decode); else it may end
 * anywhere and *src_used, *dst_used say where (gzip_decode_stream). */
static ALWAYS_INLINE enum decode_status gzip_member(const uint8_t *src, size_t src_len, size_t *src_used,
						    uint8_t *dst, size_t dst_len, size_t *dst_used,
						    void *workspace, const int whole)
{
	struct gzip_workspace *const ws = workspace;
	uint8_t none;   /* stands in for dst when dst_len == 0 (dst may be NULL) */
	enum decode_status st;
	struct inflate z;
	int fixed_built = 0;
	unsigned hdr;
	uint32_t crc;
	size_t pos;
	const int clmul = CRC_CLMUL();

	/* Keeps NULL + 0 out of the pointer arithmetic below. */
	if (src_len == 0)
		return DECODE_TRUNCATED;
	if (dst_len == 0)
		dst = &none;    /* never written: every write is checked against out_end */

	crc32_init(ws->crc);
	ws->crc_shift = crc32_zeros_shift(ws->crc, CRC_LANE_BYTES);
	ws->crc_zero_shift = crc32_mulmod(crc32_mulmod(ws->crc_shift, ws->crc_shift), ws->crc_shift);
	st = parse_header(src, src_len, ws->crc, &pos);
	if (st != DECODE_OK)
		return st;

	z.in = src + pos;
	z.in_end = src + src_len;
	z.bitbuf = 0;
	z.bitsleft = 0;
	z.phantom = 0;
	z.out = z.out_start = dst;
	z.out_end = dst + dst_len;
	z.ws = ws;
	z.crc = ~0u;
	z.crc_done = dst;

	/* The blocks (3.2.3). */
	do {
		if ((st = get_bits(&z, 3, &hdr)) != DECODE_OK)
			return st;
		switch (hdr >> 1) {
		case BTYPE_STORED:
			st = stored_block(&z);
			break;
		case BTYPE_FIXED:
			if (!fixed_built) {
				st = fixed_tables(&z);
				if (st != DECODE_OK)
					return st;
				fixed_built = 1;
			}
			st = inflate_block(&z);
			break;
		case BTYPE_DYNAMIC:
			fixed_built = 0;        /* the tables get overwritten */
			st = dynamic_tables(&z);
			if (st == DECODE_OK)
				st = inflate_block(&z);
			break;
		default:
			return DECODE_CORRUPT;  /* reserved block type */
		}
		if (st != DECODE_OK)
			return st;
		/* The CRC follows in whole strides, on output still in cache. */
		if ((size_t)(z.out - z.crc_done) >= CRC_STRIDE) {
			const size_t k = (size_t)(z.out - z.crc_done) / CRC_STRIDE * CRC_STRIDE;

			z.crc = clmul ? crc32_update_clmul(ws->crc, z.crc, z.crc_done, k) :
				crc32_strides(ws->crc, ws->crc_shift, ws->crc_zero_shift, z.crc, z.crc_done, k);
			z.crc_done += k;
		}
	} while (!(hdr & 1));
	crc = clmul ? crc32_update_clmul(ws->crc, z.crc, z.crc_done, (size_t)(z.out - z.crc_done)) :
		crc32_update(ws->crc, z.crc, z.crc_done, (size_t)(z.out - z.crc_done));

	if (whole && z.out != z.out_end)
		return DECODE_SHORT_OUTPUT;

	/* The trailer (RFC 1952 2.3.1): CRC32, ISIZE, byte aligned. */
	if ((st = align_to_byte(&z)) != DECODE_OK)
		return st;
	/* Guards the trailer read. */
	if ((size_t)(z.in_end - z.in) < GZ_TRAILER)
		return DECODE_TRUNCATED;
	if (load_le32(z.in) != ~crc || load_le32(z.in + 4) != (uint32_t)(z.out - z.out_start))
		return DECODE_CHECK_MISMATCH;
	z.in += GZ_TRAILER;
	if (whole) {
		/* One member, nothing after it. */
		if (z.in != z.in_end)
			return DECODE_CORRUPT;
		return DECODE_OK;
	}
	*src_used = (size_t)(z.in - src);
	*dst_used = (size_t)(z.out - z.out_start);
	return DECODE_OK;
}

enum decode_status gzip_decode(const uint8_t *src, size_t src_len,
			       uint8_t *dst, size_t dst_len, void *workspace)
{
	return gzip_member(src, src_len, 0, dst, dst_len, 0, workspace, 1);
}

DECODE_STREAM(gzip)
{
	return gzip_member(src, src_len, src_used, dst, dst_cap, dst_used, workspace, 0);
}
