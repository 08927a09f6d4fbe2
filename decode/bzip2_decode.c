/* bzip2_decode.c - bzip2 stream decoder for the boot stub and the host tools.
 *
 * Written for bzpack.  bzip2 has no formal specification; this follows the
 * format as Joe Tsai describes it in "bzip2 file format specification"
 * (github.com/dsnet/compress, doc/bzip2-format.pdf) and as Wikipedia's
 * "bzip2" article lays out its fields.  No code was taken from libbz2 or
 * any other decoder.  One stream, the caller knows the exact decompressed
 * size (see decode.h for the contract).
 *
 * The layers, outermost first, as a block is decoded:
 *
 *   stream   "BZh" + '1'..'9' (the block size in units of 100000 bytes),
 *            blocks, then the end-of-stream marker with the combined CRC
 *            and zero bits to the next byte boundary;
 *   block    magic, CRC of the block's output, the randomised bit, origPtr,
 *            the used-byte bitmap, Huffman groups, selectors, code lengths,
 *            then Huffman-coded symbols up to end-of-block (EOB);
 *   symbols  RUNA/RUNB spell zero runs of the move-to-front output in
 *            bijective base 2; other symbols are MTF indices + 1;
 *   MTF      a 256-entry list of the bytes in use, most recent first;
 *   BWT      the block is the last column of the sorted rotations; origPtr
 *            is the row of the original text;
 *   RLE1     after 4 equal bytes the next byte is a count (0..255) of
 *            further copies.  Runs never cross blocks.
 *
 * Techniques
 *   - Bits are read MSB first from a word-sized buffer that holds the next
 *     bit in its top bit; while a whole word of input remains it is
 *     refilled branch-free with one big-endian word load (the refill
 *     Fabian Giesen describes in "Reading bits in far too many ways",
 *     part 2, 2018).  Past the end of the input it is fed zero
 *     bytes, which are counted: an error found after reading beyond the
 *     input is reported as DECODE_TRUNCATED.
 *   - Huffman codes are canonical (shorter codes first, then by symbol),
 *     so each group gets a HUFF_FAST_BITS-bit lookup table for the short
 *     codes; longer ones are found by comparing the next MAX_CODE_LEN bits
 *     with the left-justified end of each length's code range.
 *   - Inverse BWT with one 32-bit word per position, holding the byte in
 *     its low 8 bits and the index of the next position in the upper 24
 *     (the "T-vector" of Burrows and Wheeler's 1994 report, laid out as
 *     the classic fast decoders keep it).  The walk along it is merged
 *     with the RLE1 stage, keeps the run state in the program counter and
 *     checks its limits once per chunk of output, not per byte; it writes
 *     straight into dst.
 *   - The MTF list is shifted a machine word at a time, the last partial
 *     word with a shift and a mask.
 *   - The block CRC is computed over the block's output once it is
 *     written, eight bytes at a step ("slicing-by-8", Kounavis and Berry,
 *     Intel 2005), from tables computed into the workspace.
 *
 * Choices
 *   - Randomised blocks (a bzip2 0.9.0 feature; the compressor has not
 *     set the bit since 0.9.5) are rejected as DECODE_CORRUPT.
 *   - Oversubscribed code lengths (more codes than the lengths allow) are
 *     DECODE_CORRUPT.  Incomplete codes are accepted; a bit pattern that
 *     is no code is DECODE_CORRUPT when met.
 *   - More than MAX_SELECTORS selectors are read and checked but only the
 *     first MAX_SELECTORS are kept, which is enough for the largest block.
 *   - A block that ends right after 4 equal bytes, without their count
 *     byte, is DECODE_CORRUPT (bzip2 never writes one; libbz2 1.0.8 then
 *     reads a count from beyond the block).
 *   - A stream must be the whole input: after the end-of-stream CRC only
 *     zero bits up to the byte boundary may follow (no second stream, no
 *     trailing bytes).  A stream without blocks (empty output) is fine.
 *   - Statuses: DECODE_TRUNCATED when the input ends early (any error
 *     found after reading past it); DECODE_OUTPUT_OVERRUN when the output
 *     would exceed dst_len; DECODE_SHORT_OUTPUT when the stream ends
 *     before dst_len bytes; DECODE_CHECK_MISMATCH for a block CRC or the
 *     stream CRC; DECODE_CORRUPT for everything else.
 *   - src and dst must not overlap.  A NULL src or dst is fine with length 0.
 */
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "decode.h"
#include "mem.h"

/* ---- Stream and block layout -------------------------------------------- */

#define STREAM_MAGIC_0      'B'
#define STREAM_MAGIC_1      'Z'
#define STREAM_VERSION      'h'         /* Huffman; 'BZ0' was bzip 1 */
#define STREAM_LEVEL_MIN    '1'
#define STREAM_LEVEL_MAX    '9'
#define STREAM_HEADER_BYTES 4
#define BLOCK_SIZE_UNIT     100000u     /* BWT block bytes per level */
#define MAX_LEVEL           9u
#define MAX_BLOCK           (BLOCK_SIZE_UNIT * MAX_LEVEL)

/* 48-bit magics, read as two 24-bit halves: BCD pi and BCD sqrt(pi). */
#define BLOCK_MAGIC_HI      0x314159u
#define BLOCK_MAGIC_LO      0x265359u
#define EOS_MAGIC_HI        0x177245u
#define EOS_MAGIC_LO        0x385090u
#define MAGIC_HALF_BITS     24
#define CRC_BITS            32
#define CRC_HALF_BITS       16
#define ORIG_PTR_BITS       24
#define USED_GROUPS         16          /* the map of 16 groups of 16 bytes */
#define USED_GROUP_BYTES    16

#define GROUPS_BITS         3
#define MIN_GROUPS          2
#define MAX_GROUPS          6
#define SELECTORS_BITS      15
#define MAX_SELECTORS       18002u      /* 900000 bytes + EOB, 50 a selector, rounded up */
#define GROUP_RUN           50u         /* symbols per selector */
#define START_LEN_BITS      5
#define MIN_CODE_LEN        1
#define MAX_CODE_LEN        20

#define RUNA                0u
#define RUNB                1u
#define MAX_ALPHA           258u        /* RUNA, RUNB, 255 MTF indices, EOB */

#define RLE1_RUN            4u          /* this many equal bytes, then a count */
#define NO_BYTE             256u        /* "previous byte" before any byte */

/* ---- Huffman tables ------------------------------------------------------- */

/* Codes of up to HUFF_FAST_BITS bits come from one table lookup. */
#define HUFF_FAST_BITS      12
#define HUFF_FAST_SIZE      (1u << HUFF_FAST_BITS)
/* A table entry: the symbol in the low bits, the code length above them;
 * length 0 means "a longer code (or none): take the slow path". */
#define HUFF_SYM_BITS       9
#define HUFF_SYM_MASK       ((1u << HUFF_SYM_BITS) - 1)
/* Left-justified code values are MAX_CODE_LEN bits wide; the whole code
 * space is 1 << MAX_CODE_LEN of them. */
#define CODE_SPACE          (1ul << MAX_CODE_LEN)

_Static_assert(MAX_ALPHA <= HUFF_SYM_MASK + 1, "symbols fit an entry");
_Static_assert(HUFF_FAST_BITS < (1 << (16 - HUFF_SYM_BITS)), "lengths fit an entry");
_Static_assert(MAX_BLOCK < (1u << 24), "tt: a position fits in 24 bits");

struct huff_group {
	/* limit[L]: the left-justified end of the codes of length <= L;
	 * limit[0] = 0.  A MAX_CODE_LEN-bit value v starts a code of length
	 * L exactly when limit[L - 1] <= v < limit[L]. */
	uint32_t limit[MAX_CODE_LEN + 1];
	/* offset[L]: index in perm of the first symbol of length L. */
	uint16_t offset[MAX_CODE_LEN + 1];
	uint16_t perm[MAX_ALPHA];       /* symbols ordered by (length, symbol) */
	uint16_t fast[HUFF_FAST_SIZE];
};

/* ---- The workspace ---------------------------------------------------------
 * Everything the decoder keeps: fixed-width fields only, so the size is the
 * same for -m32 and -m64 and equals DECODE_WORKSPACE_bzip2 (codecs.def). */
#define CRC_SLICES 8

struct bzip2_workspace {
	uint32_t tt[MAX_BLOCK];                 /* the T-vector */
	uint32_t crc[CRC_SLICES][256];          /* slicing-by-8 tables */
	struct huff_group group[MAX_GROUPS];
	uint32_t count[256];                    /* byte counts, then their first rows */
	uint8_t selector[MAX_SELECTORS];
	uint8_t length[MAX_GROUPS][MAX_ALPHA];
	uint8_t mtf[256];                       /* the MTF list, as byte values */
	uint8_t used[256];                      /* the bytes in use, ascending */
};

_Static_assert(sizeof(struct bzip2_workspace) == DECODE_WORKSPACE_bzip2,
	       "decode/codecs.def must declare the bzip2 workspace's exact size");

/* ---- Bit reader ------------------------------------------------------------ */

typedef uintptr_t bitword;
#define WORD_BITS  ((unsigned)(8 * sizeof(bitword)))
#define WORD_BYTES sizeof(bitword)

/* The longest single read: a refill leaves at least WORD_BITS - 7 bits. */
#define MAX_READ_BITS 24
_Static_assert(MAX_READ_BITS <= 32 - 7, "a refill covers the longest read");
_Static_assert(MAX_CODE_LEN <= MAX_READ_BITS, "a code fits one read");

struct bits {
	bitword buf;            /* next bit in the top bit; bits below cnt are
				 * zero or the stream's own next bits */
	unsigned cnt;           /* valid bits at the top of buf, < WORD_BITS */
	const uint8_t *ip;      /* next byte not yet counted in cnt */
	const uint8_t *iend;
	size_t phantom;         /* zero bytes fed after the end of the input */
};

static inline bitword load_be(const uint8_t *p)
{
	bitword w;

	memcpy(&w, p, sizeof(w));
#if UINTPTR_MAX > 0xffffffffu
	return (bitword)__builtin_bswap64((uint64_t)w);
#else
	return (bitword)__builtin_bswap32((uint32_t)w);
#endif
}

/* Tops buf up to at least WORD_BITS - 7 valid bits. */
static inline void refill(struct bits *b)
{
	/* Guards the whole-word load: a full word of input left. */
	if ((size_t)(b->iend - b->ip) >= WORD_BYTES) {
		b->buf |= load_be(b->ip) >> b->cnt;
		b->ip += (WORD_BITS - 1 - b->cnt) >> 3;
		b->cnt |= WORD_BITS - 8;
		return;
	}
	while (b->cnt <= WORD_BITS - 8) {
		unsigned byte = 0;

		/* Guards the byte read: past the end, zero bytes stand in
		 * (counted, so that errors become DECODE_TRUNCATED). */
		if (b->ip < b->iend)
			byte = *b->ip++;
		else
			b->phantom++;
		b->buf |= (bitword)byte << (WORD_BITS - 8 - b->cnt);
		b->cnt += 8;
	}
}

/* The next n bits (1 <= n <= MAX_READ_BITS; the caller made sure cnt >= n). */
static inline unsigned peek(const struct bits *b, unsigned n)
{
	return (unsigned)(b->buf >> (WORD_BITS - n));
}

static inline void consume(struct bits *b, unsigned n)
{
	b->buf <<= n;
	b->cnt -= n;
}

/* For the block headers: one out-of-line copy instead of one per field. */
NOINLINE
static void refill_cold(struct bits *b)
{
	refill(b);
}

static inline unsigned get_bits(struct bits *b, unsigned n)
{
	unsigned v;

	if (b->cnt < n)
		refill_cold(b);
	v = peek(b, n);
	consume(b, n);
	return v;
}

static inline unsigned get_bit(struct bits *b)
{
	return get_bits(b, 1);
}

/* Has the decoder used bits beyond the input?  The phantom zero bytes are
 * the last bits loaded; those still in buf were not used. */
static inline int past_end(const struct bits *b)
{
	return (uint64_t)b->phantom * 8 > b->cnt;
}

/* Every error return goes through here: an error met after reading past
 * the end of the input is the input's fault for ending. */
static inline enum decode_status failure(const struct bits *b, enum decode_status s)
{
	return past_end(b) ? DECODE_TRUNCATED : s;
}

/* ---- CRC ------------------------------------------------------------------
 * bzip2's CRC-32: polynomial 0x04c11db7, not reflected (MSB first),
 * initial value and final xor all ones. */
#define CRC_POLY 0x04c11db7u

static void crc_init(uint32_t t[CRC_SLICES][256])
{
	for (unsigned i = 0; i < 256; i++) {
		uint32_t c = (uint32_t)i << 24;

		for (int k = 0; k < 8; k++)
			c = (c & 0x80000000u) ? (c << 1) ^ CRC_POLY : c << 1;
		t[0][i] = c;
	}
	/* t[s][i]: the CRC of byte i followed by s zero bytes. */
	for (unsigned s = 1; s < CRC_SLICES; s++)
		for (unsigned i = 0; i < 256; i++)
			t[s][i] = (t[s - 1][i] << 8) ^ t[0][t[s - 1][i] >> 24];
}

static uint32_t crc_update(uint32_t t[CRC_SLICES][256], uint32_t c, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint32_t hi = c ^ ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
				   (uint32_t)p[2] << 8 | p[3]);
		uint32_t lo = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 |
			      (uint32_t)p[6] << 8 | p[7];

		c = t[7][hi >> 24] ^ t[6][(hi >> 16) & 0xff] ^ t[5][(hi >> 8) & 0xff] ^ t[4][hi & 0xff] ^
		    t[3][lo >> 24] ^ t[2][(lo >> 16) & 0xff] ^ t[1][(lo >> 8) & 0xff] ^ t[0][lo & 0xff];
		p += 8;
		n -= 8;
	}
	while (n--)
		c = (c << 8) ^ t[0][(c >> 24) ^ *p++];
	return c;
}

/* ---- Block header pieces --------------------------------------------------- */

/* The used-byte map: 16 bits say which groups of 16 byte values follow,
 * each as 16 bits.  Fills ws->used (ascending); returns how many, 0 if
 * none (which the format forbids). */
static unsigned read_used_map(struct bits *b, uint8_t used[256])
{
	unsigned groups = get_bits(b, USED_GROUPS), n = 0;

	for (unsigned g = 0; g < USED_GROUPS; g++) {
		if (!(groups & (1u << (USED_GROUPS - 1 - g))))
			continue;
		unsigned bytes = get_bits(b, USED_GROUP_BYTES);

		for (unsigned k = 0; k < USED_GROUP_BYTES; k++)
			if (bytes & (1u << (USED_GROUP_BYTES - 1 - k)))
				used[n++] = (uint8_t)(g * USED_GROUP_BYTES + k);   /* n <= 256 */
	}
	return n;
}

/* Builds a group's tables from its code lengths (each 1..MAX_CODE_LEN).
 * Returns 0, or -1 for oversubscribed lengths. */
static int build_group(struct huff_group *h, const uint8_t *len, unsigned alpha)
{
	unsigned count[MAX_CODE_LEN + 1] = { 0 }, next[MAX_CODE_LEN + 1];
	uint32_t acc = 0;

	for (unsigned s = 0; s < alpha; s++)
		count[len[s]]++;
	h->limit[0] = 0;
	h->offset[0] = 0;
	next[0] = 0;
	for (unsigned L = 1; L <= MAX_CODE_LEN; L++) {
		acc += (uint32_t)count[L] << (MAX_CODE_LEN - L);
		/* Guards the code space: the lengths promise more codes than
		 * MAX_CODE_LEN bits hold.  Also keeps every table index below
		 * in range (codes end at or before limit[L] <= CODE_SPACE). */
		if (acc > CODE_SPACE)
			return -1;
		h->limit[L] = acc;
		next[L] = h->offset[L] = (uint16_t)(h->offset[L - 1] + count[L - 1]);
	}
	/* Stable: symbols of one length stay in ascending order. */
	for (unsigned s = 0; s < alpha; s++)
		h->perm[next[len[s]]++] = (uint16_t)s;

	memset(h->fast, 0, sizeof(h->fast));
	for (unsigned L = 1; L <= HUFF_FAST_BITS; L++) {
		for (unsigned k = 0; k < count[L]; k++) {
			uint32_t code = h->limit[L - 1] + ((uint32_t)k << (MAX_CODE_LEN - L));
			unsigned first = code >> (MAX_CODE_LEN - HUFF_FAST_BITS);
			unsigned n = 1u << (HUFF_FAST_BITS - L);
			uint16_t e = (uint16_t)(L << HUFF_SYM_BITS | h->perm[h->offset[L] + k]);

			/* first + n <= limit[L] >> (MAX_CODE_LEN -
			 * HUFF_FAST_BITS) <= HUFF_FAST_SIZE: checked above. */
			for (unsigned i = 0; i < n; i++)
				h->fast[first + i] = e;
		}
	}
	return 0;
}

/* A code longer than HUFF_FAST_BITS, or none: v is the next MAX_CODE_LEN
 * bits.  Returns the symbol and sets *len, or returns -1. */
static int slow_symbol(const struct huff_group *h, unsigned v, unsigned *len)
{
	for (unsigned L = HUFF_FAST_BITS + 1; L <= MAX_CODE_LEN; L++) {
		if (v < h->limit[L]) {
			unsigned k = (v - h->limit[L - 1]) >> (MAX_CODE_LEN - L);

			*len = L;
			/* offset[L] + k < offset[L + 1] <= alpha: v lies in
			 * length L's range, which holds count[L] codes. */
			return h->perm[h->offset[L] + k];
		}
	}
	return -1;      /* past the last code: an incomplete code's gap */
}

/* ---- One block ------------------------------------------------------------- */

/* MTF: the list is shifted a machine word at a time (after the BWT of
 * machine code a quarter of the indices exceed 64, so a byte loop would
 * dominate the block). */
#define MTF_PIECE WORD_BYTES

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "mtf_take's head shift assumes little-endian (x86)");

/* Moves entry i (1..255) of the MTF list to its front and returns it. */
static inline unsigned mtf_take(uint8_t *m, unsigned i)
{
	const unsigned v = m[i];
	bitword a, mask;

	/* m[1..i] = old m[0..i-1], from the top down: each step reads
	 * m[i - 2 * MTF_PIECE .. i - 1] before writing one byte higher, and
	 * the next step reads below what this one wrote. */
	while (i >= 4 * MTF_PIECE) {
		bitword w0, w1, w2, w3;

		memcpy(&w0, m + i - 4 * MTF_PIECE, MTF_PIECE);
		memcpy(&w1, m + i - 3 * MTF_PIECE, MTF_PIECE);
		memcpy(&w2, m + i - 2 * MTF_PIECE, MTF_PIECE);
		memcpy(&w3, m + i - 1 * MTF_PIECE, MTF_PIECE);
		memcpy(m + i - 4 * MTF_PIECE + 1, &w0, MTF_PIECE);
		memcpy(m + i - 3 * MTF_PIECE + 1, &w1, MTF_PIECE);
		memcpy(m + i - 2 * MTF_PIECE + 1, &w2, MTF_PIECE);
		memcpy(m + i - 1 * MTF_PIECE + 1, &w3, MTF_PIECE);
		i -= 4 * MTF_PIECE;
	}
	if (i >= 2 * MTF_PIECE) {
		bitword w0, w1;

		memcpy(&w0, m + i - 2 * MTF_PIECE, MTF_PIECE);
		memcpy(&w1, m + i - 1 * MTF_PIECE, MTF_PIECE);
		memcpy(m + i - 2 * MTF_PIECE + 1, &w0, MTF_PIECE);
		memcpy(m + i - 1 * MTF_PIECE + 1, &w1, MTF_PIECE);
		i -= 2 * MTF_PIECE;
	}
	if (i >= MTF_PIECE) {
		memcpy(&a, m + i - MTF_PIECE, MTF_PIECE);
		memcpy(m + i - MTF_PIECE + 1, &a, MTF_PIECE);
		i -= MTF_PIECE;
	}
	/* Now i < MTF_PIECE: within the first word (m has 256 bytes), bytes
	 * 0..i become v, old 0..i-1; the bytes above keep their (current)
	 * values. */
	memcpy(&a, m, MTF_PIECE);
	mask = ~(bitword)0 >> (8 * (MTF_PIECE - 1 - i));
	a = (((a << 8) | v) & mask) | (a & ~mask);
	memcpy(m, &a, MTF_PIECE);
	return v;
}

/* Reads the symbols of a block (the Huffman groups are built), undoes the
 * zero runs and MTF into the low bytes of tt and the byte counts.  Returns
 * the block length (< 2^24) in *nblock.  Not inlined: on its own it gets
 * the registers it needs (3-5% fewer instructions). */
NOINLINE
static enum decode_status read_symbols(struct bzip2_workspace *ws, struct bits *bp,
				       unsigned n_used, unsigned n_sel, uint32_t max_block,
				       uint32_t *nblock_out)
{
	struct bits b = *bp;
	uint32_t *const tt = ws->tt;
	uint8_t *const mtf = ws->mtf;
	uint32_t *const count = ws->count;
	const struct huff_group *h = NULL;
	uint32_t nblock = 0, weight = 1;
	unsigned sel = 0, left = 0;
	enum decode_status st = DECODE_CORRUPT;

	for (unsigned i = 0; i < 256; i++)
		count[i] = 0;
	for (unsigned i = 0; i < n_used; i++)
		mtf[i] = ws->used[i];

	for (;;) {
		unsigned sym, e;

		if (left == 0) {
			/* Guards the selector read: more symbols than the
			 * selectors cover. */
			if (sel >= n_sel)
				goto out;
			h = &ws->group[ws->selector[sel++]];
			left = GROUP_RUN;
		}
		left--;

		if (b.cnt < MAX_CODE_LEN)
			refill(&b);
		e = h->fast[peek(&b, HUFF_FAST_BITS)];
		if (e >> HUFF_SYM_BITS) {
			consume(&b, e >> HUFF_SYM_BITS);
			sym = e & HUFF_SYM_MASK;
		} else {
			unsigned len;
			int s = slow_symbol(h, peek(&b, MAX_CODE_LEN), &len);

			/* Guards the symbol: a bit pattern that is no code. */
			if (s < 0)
				goto out;
			consume(&b, len);
			sym = (unsigned)s;
		}

		/* MTF index + 1: 2..n_used (n_used + 1 is EOB). */
		if (sym - 2 < n_used - 1) {
			/* Guards the write into tt: block too long. */
			if (nblock >= max_block)
				goto out;
			/* sym - 1 < n_used: a live entry of the MTF list. */
			unsigned v = mtf_take(mtf, sym - 1);

			count[v]++;
			tt[nblock++] = v;
			weight = 1;     /* a zero run, if any, has ended */
			continue;
		}
		if (sym <= RUNB) {
			/* A digit of a zero run's length in bijective base 2:
			 * RUNA adds weight, RUNB twice that.  The run's byte
			 * (the MTF front) cannot change until it ends, so each
			 * digit's share is written at once. */
			uint32_t add = weight << sym;
			unsigned v = mtf[0];

			/* Guards the run's writes into tt: block too long.
			 * Also keeps weight <= max_block, so it cannot wrap. */
			if (add > max_block - nblock)
				goto out;
			count[v] += add;
			for (uint32_t *p = tt + nblock, *end = p + add; p < end; p++)
				*p = v;
			nblock += add;
			weight <<= 1;
			continue;
		}
		break;          /* sym == n_used + 1: end of block */
	}
	*nblock_out = nblock;
	st = DECODE_OK;
out:
	*bp = b;
	return st;
}

/* The walk along the T-vector, merged with undoing RLE1: n bytes from row
 * pos on, into [*opp, oend).
 *
 * The state (how many equal bytes precede) lives in where the code is.
 * Literals are written in chunks: a chunk of c BWT bytes can write at most
 * c literals, so with c <= min(n, room left) neither limit needs a check
 * inside it.  cend is the end of the chunk's output and j (negative)
 * counts up to it: a literal goes to cend[j].  Wherever a literal may
 * come, j < 0.  A count byte gives back the rest of the chunk, checks its
 * own run and starts a new chunk. */
NOINLINE
static enum decode_status walk(const uint32_t *tt, uint32_t pos, uint32_t n,
			       uint8_t **opp, uint8_t *oend)
{
	uint8_t *cend = *opp;   /* the output so far ends at cend + j */
	ptrdiff_t j = 0;
	unsigned v, prev;
	uint32_t e;
	size_t c;

#define TAKE(x) (e = tt[pos], pos = e >> 8, (x) = e & 0xff)
/* Starts the next chunk.  n == 0 ends the block; bytes left but no room
 * is an overrun, since the next byte is a literal. */
#define NEXT_CHUNK()                                                    \
	do {                                                            \
		if (n == 0)                                             \
			goto done;                                      \
		c = (size_t)(oend - cend);                              \
		if (c > n)                                              \
			c = n;                                          \
		/* Guards the literals' writes: no room for one more. */ \
		if (c == 0)                                             \
			return DECODE_OUTPUT_OVERRUN;                   \
		n -= (uint32_t)c;                                       \
		cend += c;                                              \
		j = -(ptrdiff_t)c;                                      \
	} while (0)
/* Writes literal x and makes room for the next one. */
#define LITERAL(x)                                                      \
	do {                                                            \
		cend[j] = (uint8_t)(x);                                 \
		if (++j == 0)                                           \
			NEXT_CHUNK();                                   \
	} while (0)

first:                          /* no byte before: block start, or after a count */
	NEXT_CHUNK();
	TAKE(prev);
	LITERAL(prev);
	for (;;) {              /* prev seen once */
		TAKE(v);
		LITERAL(v);
		if (v != prev) {
			prev = v;
			continue;
		}
		TAKE(v);        /* twice */
		LITERAL(v);
		if (v != prev) {
			prev = v;
			continue;
		}
		TAKE(v);        /* three times */
		cend[j++] = (uint8_t)v;
		if (v == prev)
			break;
		if (j == 0)
			NEXT_CHUNK();
		prev = v;
	}
	/* Four times: the next byte is a count of further copies.  Give
	 * back what is left of the chunk: the count writes up to 255 bytes,
	 * and it may come when no literal could. */
	n += (uint32_t)-j;
	cend += j;
	j = 0;
	/* Guards the count's read: the block ends without it. */
	if (n == 0)
		return DECODE_CORRUPT;
	TAKE(v);
	n--;
	/* Guards the run's writes: past dst_len. */
	if (v > (size_t)(oend - cend))
		return DECODE_OUTPUT_OVERRUN;
	memset(cend, (int)prev, v);
	cend += v;
	goto first;
#undef LITERAL
#undef NEXT_CHUNK
#undef TAKE
done:
	*opp = cend;            /* j == 0 */
	return DECODE_OK;
}

/* Undoes the BWT and RLE1 of a block of nblock bytes (low bytes of tt,
 * counts in ws->count) into [*opp, oend). */
static enum decode_status unbwt(struct bzip2_workspace *ws, uint32_t nblock, uint32_t orig,
				uint8_t **opp, uint8_t *oend)
{
	uint32_t *const tt = ws->tt;
	uint32_t *const first = ws->count;
	uint32_t sum = 0, link = 0;

	/* first[v]: the row where the rotations starting with byte v begin. */
	for (unsigned v = 0; v < 256; v++) {
		uint32_t c = first[v];

		first[v] = sum;
		sum += c;
	}
	/* Row i's last byte is tt[i]; the row that follows it in the text
	 * is the next row starting with that byte.  Every i lands in its
	 * own slot: the slots of byte v are first[v] .. first[v] + count - 1,
	 * together exactly 0 .. nblock - 1.  link is i << 8. */
	for (const uint32_t *p = tt, *end = tt + nblock; p < end; p++, link += 1u << 8)
		tt[first[*p & 0xff]++] |= link;

	/* orig < nblock (checked by the caller), and every link is < nblock. */
	return walk(tt, tt[orig] >> 8, nblock, opp, oend);
}

static enum decode_status read_block(struct bzip2_workspace *ws, struct bits *b,
				     uint32_t max_block, uint8_t **opp, uint8_t *oend,
				     uint32_t *crc_out)
{
	uint32_t stored_crc, orig, nblock;
	unsigned n_used, n_groups, n_sel, alpha;
	uint8_t order[MAX_GROUPS];
	uint8_t *const block_start = *opp;
	enum decode_status st;

	stored_crc = get_bits(b, CRC_HALF_BITS) << CRC_HALF_BITS;
	stored_crc |= get_bits(b, CRC_HALF_BITS);
	/* Randomised blocks: see "Choices". */
	if (get_bit(b))
		return failure(b, DECODE_CORRUPT);
	orig = get_bits(b, ORIG_PTR_BITS);

	n_used = read_used_map(b, ws->used);
	/* Guards the alphabet: at least one byte value must be in use. */
	if (n_used == 0)
		return failure(b, DECODE_CORRUPT);
	alpha = n_used + 2;             /* RUNA, RUNB, n_used - 1 MTF indices, EOB */

	n_groups = get_bits(b, GROUPS_BITS);
	/* Guards the group count: 2..6. */
	if (n_groups < MIN_GROUPS || n_groups > MAX_GROUPS)
		return failure(b, DECODE_CORRUPT);
	n_sel = get_bits(b, SELECTORS_BITS);
	/* Guards the selector count: at least one. */
	if (n_sel == 0)
		return failure(b, DECODE_CORRUPT);

	/* Selectors: MTF indices over the groups, each in unary. */
	for (unsigned g = 0; g < MAX_GROUPS; g++)
		order[g] = (uint8_t)g;
	for (unsigned i = 0; i < n_sel; i++) {
		unsigned j = 0;

		while (get_bit(b)) {
			/* Guards the index: it must name one of the
			 * n_groups groups (also bounds this loop). */
			if (++j >= n_groups)
				return failure(b, DECODE_CORRUPT);
		}
		unsigned g = order[j];

		for (; j; j--)
			order[j] = order[j - 1];
		order[0] = (uint8_t)g;
		/* Guards the selector array: extra selectors are read, not
		 * kept (see "Choices"). */
		if (i < MAX_SELECTORS)
			ws->selector[i] = (uint8_t)g;
	}
	if (n_sel > MAX_SELECTORS)
		n_sel = MAX_SELECTORS;

	/* Code lengths: a 5-bit start, then per symbol a delta in unary-ish
	 * steps: 0 = done, 10 = +1, 11 = -1. */
	for (unsigned g = 0; g < n_groups; g++) {
		unsigned cur = get_bits(b, START_LEN_BITS);

		for (unsigned s = 0; s < alpha; s++) {
			for (;;) {
				/* Guards each length (and bounds this loop):
				 * 1..MAX_CODE_LEN at every step. */
				if (cur < MIN_CODE_LEN || cur > MAX_CODE_LEN)
					return failure(b, DECODE_CORRUPT);
				if (!get_bit(b))
					break;
				cur = get_bit(b) ? cur - 1 : cur + 1;
			}
			ws->length[g][s] = (uint8_t)cur;
		}
		/* Guards the tables: oversubscribed lengths. */
		if (build_group(&ws->group[g], ws->length[g], alpha) < 0)
			return failure(b, DECODE_CORRUPT);
	}
	/* Every selector names one of the n_groups groups just built: the
	 * MTF above only ever moves entries 0..j < n_groups of order[], which
	 * start as (and so remain) a permutation of 0..n_groups - 1. */

	st = read_symbols(ws, b, n_used, n_sel, max_block, &nblock);
	if (st != DECODE_OK)
		return failure(b, st);
	/* Guards origPtr: it must name a row of the block (also rejects an
	 * empty block). */
	if (orig >= nblock)
		return failure(b, DECODE_CORRUPT);

	st = unbwt(ws, nblock, orig, opp, oend);
	if (st != DECODE_OK)
		return failure(b, st);
	*crc_out = ~crc_update(ws->crc, 0xffffffffu, block_start, (size_t)(*opp - block_start));
	if (*crc_out != stored_crc)
		return failure(b, DECODE_CHECK_MISMATCH);
	return DECODE_OK;
}

/* ---- The stream -------------------------------------------------------------- */

/* The stream at the start of src into at most dst_len bytes.  whole: it
 * must be all of src and fill dst (bzip2_decode); else it may end anywhere
 * and *src_used, *dst_used say where (bzip2_decode_stream). */
static ALWAYS_INLINE enum decode_status bzip2_stream(const uint8_t *src, size_t src_len, size_t *src_used,
						     uint8_t *dst, size_t dst_len, size_t *dst_used,
						     void *workspace, const int whole)
{
	struct bzip2_workspace *ws = workspace;
	uint8_t none;   /* stands in for dst when dst_len == 0 (dst may be NULL) */
	uint8_t *op, *oend;
	uint32_t combined = 0, max_block;
	struct bits b;

	/* Guards the header reads. */
	if (src_len < STREAM_HEADER_BYTES)
		return DECODE_TRUNCATED;
	if (src[0] != STREAM_MAGIC_0 || src[1] != STREAM_MAGIC_1 || src[2] != STREAM_VERSION ||
	    src[3] < STREAM_LEVEL_MIN || src[3] > STREAM_LEVEL_MAX)
		return DECODE_CORRUPT;
	max_block = (uint32_t)(src[3] - '0') * BLOCK_SIZE_UNIT;
	if (dst_len == 0)
		dst = &none;    /* never written: every write is checked against oend */
	op = dst;
	oend = dst + dst_len;

	crc_init(ws->crc);
	b.buf = 0;
	b.cnt = 0;
	b.ip = src + STREAM_HEADER_BYTES;
	b.iend = src + src_len;
	b.phantom = 0;

	for (;;) {
		unsigned hi = get_bits(&b, MAGIC_HALF_BITS);
		unsigned lo = get_bits(&b, MAGIC_HALF_BITS);

		if (hi == BLOCK_MAGIC_HI && lo == BLOCK_MAGIC_LO) {
			uint32_t crc;
			enum decode_status st = read_block(ws, &b, max_block, &op, oend, &crc);

			if (st != DECODE_OK)
				return st;
			combined = (combined << 1 | combined >> 31) ^ crc;
			continue;
		}
		if (hi != EOS_MAGIC_HI || lo != EOS_MAGIC_LO)
			return failure(&b, DECODE_CORRUPT);

		uint32_t stored = get_bits(&b, CRC_HALF_BITS) << CRC_HALF_BITS;
		stored |= get_bits(&b, CRC_HALF_BITS);
		/* Guards the end-of-stream fields: all of them in the input. */
		if (past_end(&b))
			return DECODE_TRUNCATED;
		if (stored != combined)
			return DECODE_CHECK_MISMATCH;

		/* Bits used: everything loaded but what is still in buf. */
		uint64_t used = ((uint64_t)(b.ip - src) + b.phantom) * 8 - b.cnt;
		uint64_t rest = (uint64_t)src_len * 8 - used;

		if (!whole) {
			/* The stream ends in the byte that holds its last
			 * bit; that byte's padding bits must be zero. */
			size_t used_bytes = (size_t)((used + 7) / 8);
			unsigned pad = (unsigned)(used_bytes * 8 - used);
			if (pad && (src[used_bytes - 1] & ((1u << pad) - 1)))
				return DECODE_CORRUPT;
			*src_used = used_bytes;
			*dst_used = (size_t)(op - dst);
			return DECODE_OK;
		}
		/* Guards the end of the input: only the padding bits of the
		 * last byte may follow the stream, and they must be zero. */
		if (rest >= 8 || (rest && (src[src_len - 1] & ((1u << rest) - 1))))
			return DECODE_CORRUPT;
		return op == oend ? DECODE_OK : DECODE_SHORT_OUTPUT;
	}
}

enum decode_status bzip2_decode(const uint8_t *src, size_t src_len,
				uint8_t *dst, size_t dst_len, void *workspace)
{
	return bzip2_stream(src, src_len, 0, dst, dst_len, 0, workspace, 1);
}

DECODE_STREAM(bzip2)
{
	return bzip2_stream(src, src_len, src_used, dst, dst_cap, dst_used, workspace, 0);
}
