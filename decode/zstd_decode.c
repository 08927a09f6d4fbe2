/* zstd_decode.c - Zstandard decoder for the boot stub and the host tools.
 *
 * Written for bzpack from RFC 8878, "Zstandard Compression and the
 * 'application/zstd' Media Type" (February 2021); section numbers below
 * refer to it.  Every line is our own; the ideas of a 64-bit bit container
 * refilled once per sequence, four interleaved Huffman streams, wild
 * copies near-but-not-at the end of the buffers (and the spread of small
 * match offsets from decode/lz4_decode.c), FSE tables spread in two
 * passes and states kept as pointers are the usual ones for this format.
 *
 * What is handled
 *   One or more frames back to back (3.1.1), skippable frames (3.1.2)
 *   skipped; raw, RLE and compressed blocks (3.1.1.2); literals sections
 *   of every type (raw, RLE, Huffman with 1 or 4 streams, treeless)
 *   (3.1.1.3.1); Huffman tree descriptions with FSE-compressed or direct
 *   weights (4.2.1); sequences sections with predefined, RLE,
 *   FSE-compressed and repeat tables (3.1.1.3.2); the repeat offsets
 *   (3.1.2.5); the content checksum, the low 32 bits of XXH64 (3.1.1
 *   and the XXH64 description), verified when present.
 *
 * Choices
 *   - Single call, no dictionary: the window is the output itself.  A
 *     match may reach back to the start of its own frame, not further
 *     (and never into an earlier frame).  Window_Size is used only for
 *     Block_Maximum_Size; the packer keeps frames decodable this way.
 *   - A Dictionary_ID other than 0 is DECODE_CORRUPT (we have none).
 *   - Block_Maximum_Size limits Block_Content and what a compressed block
 *     decompresses to, but for an RLE block only its one byte, not the
 *     run (as libzstd reads it).  Any Window_Size the
 *     header can say is accepted: the output is the window.
 *   - Decoding succeeds only if the input is consumed exactly (frames
 *     and skippable frames, nothing after them) and exactly dst_len bytes
 *     were produced.  src_len 0 with dst_len 0 is DECODE_OK: no frames, as
 *     libzstd reads it.
 *   - A frame whose Frame_Content_Size disagrees with what its blocks
 *     produce is DECODE_CORRUPT; one whose checksum disagrees is
 *     DECODE_CHECK_MISMATCH.
 *   - Anything inconsistent inside a block (a section longer than its
 *     block, a table that does not add up, a bitstream not consumed to
 *     its last bit, reserved bits set) is DECODE_CORRUPT; running out of
 *     input between blocks or frames is DECODE_TRUNCATED.  libzstd 1.5
 *     is more lenient in three of these (see tests/fuzz_zstd.c); every
 *     frame it writes decodes here.
 *   - src and dst must not overlap.  Little-endian only (x86): words are
 *     loaded with memcpy and used as they are.
 *
 * Workspace (struct zstd_ws): the three sequence FSE tables, the Huffman
 * table, the small tables used while building them, and the literals
 * buffer (up to 128 KiB plus slack for wild copies).  Its size is the
 * CODEC line in decode/codecs.def; a static assert holds the two equal.
 *
 * Code size: the stub has a budget, so what runs once per block or frame
 * is compiled for size (ONCE, COLD_ONCE) and only the per-byte loops (LOOP)
 * for speed; the 32-bit stub gives up more speed for size (ZSTD_SMALL).
 */
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "copy.h"
#include "decode.h"
#include "mem.h"
#include "xxh64.h"

/* The differential fuzzer (tests/fuzz_zstd.c, built -DZSTD_DECODE_NOTES)
 * learns through this which of our checks that libzstd's fast paths skip
 * made a decode fail; elsewhere it is nothing. */
#ifdef ZSTD_DECODE_NOTES
extern const char *zstd_decode_note;
#define NOTE(what) (zstd_decode_note = (what))
#else
#define NOTE(what) ((void)0)
#endif
#define NOTE_HUF_END "huffman stream not consumed exactly"
#define NOTE_HUF_MARK "huffman stream without its end mark"
#define NOTE_SEQ_END "sequence stream not consumed exactly"
#define NOTE_RESERVED "reserved bits of the modes byte set"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "zstd_decode.c loads little-endian words as they are"
#endif

/* The 32-bit stub is kept small (it has a size budget, and 32-bit kernels
 * are small): ZSTD_SMALL trades some speed for code there.  The four
 * Huffman streams are decoded one after the other instead of together
 * (with i686's few registers that is also faster), XXH64's 64-bit
 * arithmetic (long on i686) is not inlined, and the loops are compiled
 * for size.  (Measured under QEMU -icount on testkern32: 20064 -> 18048
 * bytes of stub, 84 -> 95 million instructions.) */
#if defined(__i386__)
#define ZSTD_SMALL 1
#else
#define ZSTD_SMALL 0
#endif

/* ALWAYS_INLINE (the small functions of the hot loops), NOINLINE and
 * COLD are decode/compiler.h's; ONCE, COLD_ONCE and LOOP below are this
 * decoder's policy built on them. */

/* ---- Format constants ---------------------------------------------------- */

#define ZSTD_MAGIC           0xFD2FB528u   /* 3.1.1 Magic_Number */
#define SKIP_MAGIC_MASK      0xFFFFFFF0u   /* 3.1.2: 0x184D2A50..0x184D2A5F */
#define SKIP_MAGIC           0x184D2A50u
#define MAGIC_BYTES          4
#define SKIP_HEADER_BYTES    8             /* magic + 4-byte Frame_Size */
#define CHECKSUM_BYTES       4
#define BLOCK_HEADER_BYTES   3
#define BLOCK_MAX            (128u * 1024) /* Block_Maximum_Size cap (3.1.1.2.4) */
#define WINDOW_LOG_MIN       10            /* 3.1.1.1.2 */

enum { BLOCK_RAW = 0, BLOCK_RLE = 1, BLOCK_COMPRESSED = 2, BLOCK_RESERVED = 3 };
enum { LIT_RAW = 0, LIT_RLE = 1, LIT_COMPRESSED = 2, LIT_TREELESS = 3 };
enum { MODE_PREDEFINED = 0, MODE_RLE = 1, MODE_FSE = 2, MODE_REPEAT = 3 };

/* Huffman (4.2.1): at most 11 bits per code, weights 0..11, up to 256
 * literal symbols; the weights' own FSE table has accuracy log <= 6. */
#define HUF_MAX_BITS         11
#define HUF_MAX_WEIGHT       HUF_MAX_BITS
#define HUF_MAX_SYMBOLS      256
#define HUF_WEIGHT_MAX_LOG   6
#define HUF_DIRECT_BASE      127           /* headerByte >= 128: direct weights */

/* FSE (4.1): accuracy logs are 5 + a 4-bit field; the largest each kind
 * of table may have, and its largest symbol. */
#define FSE_MIN_LOG          5
#define LL_MAX_LOG           9
#define ML_MAX_LOG           9
#define OF_MAX_LOG           8
#define LL_MAX_SYMBOL        35
#define ML_MAX_SYMBOL        52
#define OF_MAX_SYMBOL        31
#define FSE_MAX_SYMBOLS      (ML_MAX_SYMBOL + 1)
#define LL_DEFAULT_LOG       6
#define ML_DEFAULT_LOG       6
#define OF_DEFAULT_LOG       5

/* Offsets 1..3 of Offset_Value name the repeat offsets (3.1.2.5). */
#define REP_CODES            3

/* ---- Wild-copy geometry ----------------------------------------------------
 * COPY_CHUNK: literals and far matches move in 16-byte pieces, so a
 * literal copy of n bytes may write up to COPY_CHUNK - 1 bytes past its
 * end (and read as far past its source); a far match moves two pieces a
 * turn, up to 2 * COPY_CHUNK - 1 bytes past its end.  A sequence takes
 * the wild path only when WILD_MARGIN bytes of output remain after it:
 * that covers the literal over-write (the match starts there), the match
 * over-write and the 8 bytes a short offset's spread always writes (a
 * match is at least 3 bytes long).
 * LIT_SLACK: the literals buffer has this much room past 128 KiB, so a
 * wild literal copy never reads outside the workspace. */
#define COPY_CHUNK           16
#define WILD_MARGIN          32
#define LIT_SLACK            32

_Static_assert(WILD_MARGIN >= 2 * COPY_CHUNK, "wild copies need room past a sequence");
_Static_assert(LIT_SLACK >= COPY_CHUNK, "wild literal reads must stay in the buffer");

/* ---- Code tables (3.1.1.3.2.1.1) ----------------------------------------
 * Literals_Length and Match_Length codes: a baseline and a number of extra
 * bits.  Codes 0..15 of literal lengths and 0..31 of match lengths are
 * the value itself (match lengths + 3), with no extra bits; the last
 * codes are powers of two (literal lengths 25..35: 1 << (code - 19) with
 * code - 19 extra bits; match lengths 43..52: (1 << (code - 36)) + 3 with
 * code - 36); the codes between are these tables.  (See code_word().) */
#define LL_DIRECT     16
#define LL_POW2       25
#define LL_POW2_SHIFT 19
#define ML_DIRECT     32
#define ML_POW2       43
#define ML_POW2_SHIFT 36
#define ML_MIN        3
static const uint8_t ll_mid_base[LL_POW2 - LL_DIRECT] = { 16, 18, 20, 22, 24, 28, 32, 40, 48 };
static const uint8_t ll_mid_extra[LL_POW2 - LL_DIRECT] = { 1, 1, 1, 1, 2, 2, 3, 3, 4 };
static const uint8_t ml_mid_base[ML_POW2 - ML_DIRECT] = { 35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99 };
static const uint8_t ml_mid_extra[ML_POW2 - ML_DIRECT] = { 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5 };

/* Predefined distributions (3.1.1.3.2.2); -1 is "less than 1". */
static const int8_t ll_default[LL_MAX_SYMBOL + 1] = {
	4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
	-1, -1, -1, -1,
};
static const int8_t ml_default[ML_MAX_SYMBOL + 1] = {
	1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
	-1, -1, -1, -1, -1,
};
static const int8_t of_default[28 + 1] = {
	1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1,
};

/* ---- Workspace -------------------------------------------------------------- */

/* One state of an FSE decoding table, ready for sequences: the next
 * state is this one + next + (nbits bits), in entries (next is relative,
 * so that a decoder holds its states as pointers and needs no pointer to
 * the table), the value is base + (extra bits).  For offsets base =
 * 1 << code and extra = code; for the Huffman weights' table base is the
 * weight and extra 0. */
struct fse_entry {
	int16_t next;
	uint8_t nbits;
	uint8_t extra;
	uint32_t base;
};

#define SEQ_LL     0
#define SEQ_ML     (SEQ_LL + (1 << LL_MAX_LOG))
#define SEQ_OF     (SEQ_ML + (1 << ML_MAX_LOG))
#define SEQ_TABLES (SEQ_OF + (1 << OF_MAX_LOG))

/* What the symbols of an FSE table stand for. */
enum fse_kind { KIND_LL, KIND_ML, KIND_OF, KIND_WEIGHT, KIND_COUNT };

struct zstd_ws {
	/* The three sequence tables in one array (SEQ_LL, SEQ_ML, SEQ_OF
	 * are where each starts), so that one pointer reaches them all and
	 * a state is an index into the array: see fse_build's base. */
	struct fse_entry seq[SEQ_TABLES];
	struct fse_entry hw[1 << HUF_WEIGHT_MAX_LOG];  /* Huffman weights' FSE */
	/* Huffman decoding table: code length in the low byte, symbol in the
	 * high byte, indexed by the next HUF_MAX_BITS bits of the stream
	 * whatever the tree's Max_Number_of_Bits (a constant shift). */
	uint16_t huf[1 << HUF_MAX_BITS];
	int16_t norm[FSE_MAX_SYMBOLS + 11];           /* while building an FSE table */
	uint16_t next_count[FSE_MAX_SYMBOLS + 11];
	/* What each symbol of each kind of table stands for, as the base
	 * and extra fields of an fse_entry word (code_word()), worked out
	 * once per call instead of once per table. */
	uint64_t code_info[KIND_COUNT][FSE_MAX_SYMBOLS];
	uint8_t spread[1 << LL_MAX_LOG];              /* symbols in spread order */
	uint8_t in_order[(1 << LL_MAX_LOG) + 8];      /* symbols in order, 8-byte pieces */
	uint8_t weights[HUF_MAX_SYMBOLS];
	uint8_t lit[BLOCK_MAX + LIT_SLACK];
};

_Static_assert(sizeof(struct zstd_ws) == DECODE_WORKSPACE_zstd,
	       "decode/codecs.def must declare the exact workspace size");
_Static_assert(sizeof(struct fse_entry) == 8, "fse_entry layout");
_Static_assert(offsetof(struct fse_entry, next) == 0 && offsetof(struct fse_entry, nbits) == 2 &&
	       offsetof(struct fse_entry, extra) == 3 && offsetof(struct fse_entry, base) == 4,
	       "fse_entry_word's layout");

/* An fse_entry as one little-endian word, to be stored in one go. */
static ALWAYS_INLINE uint64_t fse_entry_word(uint32_t next, uint32_t nbits, uint32_t extra, uint32_t base)
{
	return (uint64_t)(uint16_t)next | (uint64_t)(uint8_t)nbits << 16 |
	       (uint64_t)(uint8_t)extra << 24 | (uint64_t)base << 32;
}

/* What a frame carries from block to block (3.1.1.3.1.1, 3.1.1.3.2.1):
 * the last Huffman table and FSE tables for the treeless and repeat
 * modes, and the repeat offsets. */
struct frame_state {
	struct zstd_ws *ws;
	unsigned huf_bits;              /* 0: no Huffman table yet */
	/* Per sequence table, in the order of the modes byte (literal
	 * lengths, offsets, match lengths): its accuracy log, and whether
	 * it exists for repeat mode. */
	uint8_t log[3], ok[3];
	size_t rep[REP_CODES];
	const uint8_t *iend;            /* end of all input: raw literals may be read up to it */
};

/* ---- Small helpers -------------------------------------------------------
 * Little-endian loads: decode/mem.h. */

/* For what runs at most once per table, block or frame and only on some
 * paths (a table description, FSE-compressed Huffman weights, XXH64's
 * end): compiled for size, out of the hot paths (the stub has a size
 * budget).  Never on a path every block takes: GCC takes what must lead
 * to a cold call for cold itself. */
#define COLD_ONCE COLD NOINLINE
/* For what every block or frame runs once (headers, choosing tables): the
 * same size-first code as COLD_ONCE, without its effect on the callers. */
#if defined(__clang__)
#define ONCE NOINLINE __attribute__((minsize))    /* the fuzzer's build */
#else
#define ONCE NOINLINE __attribute__((optimize("Os")))
#endif
/* The per-byte loops: kept out of line, so that the ONCE callers'
 * optimization level does not reach them.  (For ZSTD_SMALL, size first
 * there too.) */
#if ZSTD_SMALL
#define LOOP ONCE
#else
#define LOOP NOINLINE
#endif

/* A little-endian field of n <= 8 bytes (headers: out of line, once). */
static NOINLINE uint64_t get_le_n(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

/* Index of the highest set bit; x != 0. */
static ALWAYS_INLINE unsigned highbit32(uint32_t x)
{
	return 31u - (unsigned)__builtin_clz(x);
}

/* ---- Backward bitstreams (4.1, 4.2.2) -----------------------------------
 * FSE and Huffman streams are written forward and read backward: the
 * last byte holds a 1 bit above the last bit written (the end mark), and
 * reading starts below it and goes towards the first byte.
 *
 * The container is a machine word loaded little-endian from ptr; its most
 * significant bit is the next one to read after 'consumed' bits.  Reads
 * never touch memory: only br_reload() does, and it never moves ptr
 * before start nor loads past the stream's last byte.  Streams shorter
 * than a word are copied into a zero-padded word-sized buffer first (the
 * caller's pad[]), with the padding counted as consumed, so that a
 * reload always loads a whole word.
 *
 * Bits read past the start of the stream are garbage: shifts take
 * 'consumed' modulo the word size so nothing is undefined, and
 * br_overrun() / br_done() tell the caller afterwards (FSE states stay
 * inside their tables whatever the bits; see fse_build()). */
typedef size_t bits_t;
#define BR_WORD     (sizeof(bits_t))
#define BR_BITS     (8 * (unsigned)sizeof(bits_t))
/* After a reload that was not limited by the start of the stream, at
 * least this many bits are available (at most 7 were left consumed). */
#define BR_MIN_FRESH (BR_BITS - 7)

struct bitrd {
	bits_t bits;
	unsigned consumed;
	const uint8_t *ptr;
	/* The stream's first byte + BR_WORD: a reload from at or after it
	 * may move back a whole word.  (Kept instead of the first byte
	 * itself: the usual reload is then one comparison.) */
	const uint8_t *lim;
};

/* The stream's first byte. */
static ALWAYS_INLINE const uint8_t *br_start(const struct bitrd *b)
{
	return b->lim - BR_WORD;
}

static ALWAYS_INLINE bits_t load_word(const uint8_t *p)
{
	bits_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/* Sets up a read of the stream [p, p + n).  Returns 0 for a stream that
 * cannot be valid: empty, or its last byte (which holds the end mark) 0.
 * Once per stream: out of line. */
static NOINLINE int br_init(struct bitrd *b, const uint8_t *p, size_t n, uint8_t pad[BR_WORD])
{
	unsigned last;

	if (n == 0)
		return 0;
	last = p[n - 1];
	if (last == 0)
		return 0;
	if (n >= BR_WORD) {
		b->lim = p + BR_WORD;
		b->ptr = p + n - BR_WORD;
		b->consumed = 8 - highbit32(last);
	} else {
		unsigned i;

		for (i = 0; i < BR_WORD; i++)
			pad[i] = i < n ? p[i] : 0;
		b->ptr = pad;
		b->lim = pad + BR_WORD;
		b->consumed = 8 * (unsigned)(BR_WORD - n) + 8 - highbit32(last);
	}
	b->bits = load_word(b->ptr);
	return 1;
}

/* Moves the container back over the whole bytes consumed, as far as the
 * start of the stream allows, and reloads it. */
static ALWAYS_INLINE void br_reload(struct bitrd *b)
{
	if (b->ptr >= b->lim) {
		/* The usual case.  Every reader refills before it has read
		 * more than the word holds (see the callers), so consumed <=
		 * BR_BITS and ptr moves back at most one word: not before
		 * start. */
		b->ptr -= b->consumed >> 3;
		b->consumed &= 7;
	} else {
		size_t back = b->consumed >> 3;
		const size_t room = (size_t)(b->ptr - br_start(b));

		/* Guards ptr against moving before the stream's first byte. */
		if (back > room)
			back = room;
		b->ptr -= back;
		b->consumed -= (unsigned)back * 8;
	}
	b->bits = load_word(b->ptr);
}

/* (1 << n) - 1 for n = 0..31: a load instead of a shift through the
 * count register, which the read's own shift needs (without BMI2). */
#define BR_MAX_READ 31
static const uint32_t br_mask[BR_MAX_READ + 1] = {
	0x0, 0x1, 0x3, 0x7, 0xF, 0x1F, 0x3F, 0x7F, 0xFF, 0x1FF, 0x3FF, 0x7FF,
	0xFFF, 0x1FFF, 0x3FFF, 0x7FFF, 0xFFFF, 0x1FFFF, 0x3FFFF, 0x7FFFF,
	0xFFFFF, 0x1FFFFF, 0x3FFFFF, 0x7FFFFF, 0xFFFFFF, 0x1FFFFFF, 0x3FFFFFF,
	0x7FFFFFF, 0xFFFFFFF, 0x1FFFFFFF, 0x3FFFFFFF, 0x7FFFFFFF,
};

/* The next n bits (0 <= n <= BR_MAX_READ), most significant first: they
 * end BR_BITS - consumed - n bits above the container's lowest bit.
 * Modulo the word size: bits past the start of the stream are garbage
 * anyway, and only a stream that br_overrun() rejects has them read. */
static ALWAYS_INLINE size_t br_peek(const struct bitrd *b, unsigned n)
{
	return (size_t)(b->bits >> ((0u - b->consumed - n) & (BR_BITS - 1))) & br_mask[n];
}

static ALWAYS_INLINE size_t br_read(struct bitrd *b, unsigned n)
{
	size_t v = br_peek(b, n);

	b->consumed += n;
	return v;
}

/* More bits were read than the stream has. */
static ALWAYS_INLINE int br_overrun(const struct bitrd *b)
{
	return b->ptr == br_start(b) && b->consumed > BR_BITS;
}

/* Every bit of the stream was read, and no more (call after br_reload). */
static ALWAYS_INLINE int br_done(const struct bitrd *b)
{
	return b->ptr == br_start(b) && b->consumed == BR_BITS;
}

/* ---- Forward bit reading for FSE table descriptions (4.1.1) -------------
 * Little-endian bit order from the first byte, at most FWD_MAX_BITS at a
 * time.  Bits past the end read as 0; the caller checks the position
 * against the length afterwards. */
#define FWD_MAX_BITS (LL_MAX_LOG + 1)
_Static_assert(FWD_MAX_BITS + 7 <= 24, "fwd_peek reads three bytes");
static uint32_t fwd_peek(const uint8_t *p, size_t len, size_t pos, unsigned n)
{
	const size_t at = pos >> 3;
	uint32_t w = 0;
	unsigned i;

	/* n <= 10 and pos & 7 <= 7: three bytes hold every bit wanted. */
	for (i = 0; i < 3; i++)
		/* Guards the byte read: past the description, bits are 0. */
		if (at + i < len)
			w |= (uint32_t)p[at + i] << (8 * i);
	return (w >> (pos & 7)) & ((1u << n) - 1);
}
/* Reads an FSE table description (4.1.1) from [p, p + len): its accuracy
 * log (at most max_log) and the normalized counts of symbols 0..max_sym
 * into norm[] (the ones not described are 0).  *used is the bytes it
 * took.  The counts must add up to exactly 1 << log. */
static COLD_ONCE enum decode_status read_fse_desc(const uint8_t *p, size_t len, unsigned max_log,
					unsigned max_sym, int16_t *norm, unsigned *log_out,
					size_t *used)
{
	size_t pos;
	unsigned log, sym = 0, nbits;
	int32_t remaining, threshold;

	/* Guards the accuracy-log read. */
	if (len == 0)
		return DECODE_CORRUPT;
	log = (p[0] & 15u) + FSE_MIN_LOG;
	/* Guards the table size: each kind of table has its own limit. */
	if (log > max_log)
		return DECODE_CORRUPT;
	pos = 4;
	remaining = (1 << log) + 1;
	threshold = 1 << log;
	nbits = log + 1;

	while (remaining > 1) {
		uint32_t v, low, max;
		int32_t count;

		/* Guards norm[]: more symbols than this kind of table has. */
		if (sym > max_sym)
			return DECODE_CORRUPT;
		/* A value 0..remaining, in nbits - 1 bits when it is small
		 * enough, otherwise in nbits (the top half folded down). */
		v = fwd_peek(p, len, pos, nbits);
		max = (uint32_t)(2 * threshold - 1 - remaining);
		low = v & (uint32_t)(threshold - 1);
		if (low < max) {
			count = (int32_t)low;
			pos += nbits - 1;
		} else {
			count = (int32_t)(v & (uint32_t)(2 * threshold - 1));
			if (count >= threshold)
				count -= (int32_t)max;
			pos += nbits;
		}
		count -= 1;             /* -1 means "less than 1" */
		norm[sym++] = (int16_t)count;
		remaining -= count < 0 ? -count : count;
		/* Guards the sum: the counts may not exceed 1 << log. */
		if (remaining < 1)
			return DECODE_CORRUPT;
		if (count == 0) {
			/* 2-bit repeat flags: that many more zero counts, and
			 * another flag after a 3. */
			uint32_t r, k;

			do {
				r = fwd_peek(p, len, pos, 2);
				pos += 2;
				for (k = 0; k < r; k++) {
					/* Guards norm[] against a long zero run. */
					if (sym > max_sym)
						return DECODE_CORRUPT;
					norm[sym++] = 0;
				}
			} while (r == 3);
		}
		while (remaining < threshold) {
			nbits--;
			threshold >>= 1;
		}
	}
	/* Guards the reads above: the description ran past its bytes. */
	if (pos > (size_t)len * 8)
		return DECODE_CORRUPT;
	while (sym <= max_sym)
		norm[sym++] = 0;
	*log_out = log;
	*used = (pos + 7) >> 3;
	return DECODE_OK;
}

/* What the symbols of an FSE table stand for. */


/* What symbol s of a table of this kind stands for, as the base and
 * extra fields of an fse_entry word. */
static ALWAYS_INLINE uint64_t code_word(enum fse_kind kind, unsigned s)
{
	uint32_t b = s, x = 0;

	switch (kind) {
	case KIND_LL:
		if (s >= LL_POW2) {
			x = s - LL_POW2_SHIFT;
			b = 1u << x;
		} else if (s >= LL_DIRECT) {
			b = ll_mid_base[s - LL_DIRECT];
			x = ll_mid_extra[s - LL_DIRECT];
		}
		break;
	case KIND_ML:
		if (s >= ML_POW2) {
			x = s - ML_POW2_SHIFT;
			b = (1u << x) + ML_MIN;
		} else if (s >= ML_DIRECT) {
			b = ml_mid_base[s - ML_DIRECT];
			x = ml_mid_extra[s - ML_DIRECT];
		} else {
			b = s + ML_MIN;
		}
		break;
	case KIND_OF:
		b = 1u << s;
		x = s;
		break;
	case KIND_WEIGHT:
	case KIND_COUNT:
		break;
	}
	return fse_entry_word(0, 0, x, b);
}

/* Fills ws->code_info: once per call. */
static ONCE void code_info_init(struct zstd_ws *ws)
{
	/* Each kind's largest symbol: code_word() shifts by up to it. */
	static const uint8_t max_sym[KIND_COUNT] = {
		[KIND_LL] = LL_MAX_SYMBOL, [KIND_ML] = ML_MAX_SYMBOL,
		[KIND_OF] = OF_MAX_SYMBOL, [KIND_WEIGHT] = HUF_MAX_WEIGHT,
	};
	unsigned k, s;

	for (k = 0; k < KIND_COUNT; k++)
		for (s = 0; s <= max_sym[k]; s++)
			ws->code_info[k][s] = code_word((enum fse_kind)k, s);
}

/* Builds the decoding table of 1 << log states from normalized counts
 * norm[0..max_sym] (4.1.1, "FSE table description"): "less than 1"
 * symbols take one state each from the top; the others are spread with
 * the step (size / 2 + size / 8 + 3); each state then gets its number of
 * bits and next-state baseline.  Every state's next state, whatever its
 * nbits bits, is in the table: a decoder never leaves it. */
static enum decode_status fse_build(struct zstd_ws *ws, struct fse_entry *t, unsigned max_sym,
				    unsigned log, enum fse_kind kind)
{
	const int16_t *const norm = ws->norm;
	const uint64_t *const info = ws->code_info[kind];
	uint8_t *const spread = ws->spread;
	const uint32_t size = 1u << log, mask = size - 1;
	const uint32_t step = (size >> 1) + (size >> 3) + 3;
	/* The "less than 1" symbols take the states from the top down,
	 * one each; the others the first 'placed' states.  (read_fse_desc
	 * counted each against the table's size: low <= size.) */
	uint32_t low = 0, placed, pos = 0, u;
	unsigned s;

	for (s = 0; s <= max_sym; s++) {
		if (norm[s] == -1) {
			low++;
			spread[size - low] = (uint8_t)s;
			ws->next_count[s] = 1;
		} else {
			ws->next_count[s] = (uint16_t)norm[s];
		}
	}
	/* Two simple passes (the idea of libzstd's fast spread, which it
	 * keeps for tables without "less than 1" symbols; here for all): the
	 * symbols in order, a piece of 8 at a time, then each to its place,
	 * stepping over the states the "less than 1" symbols took (none,
	 * usually: then the inner loop never runs). */
	placed = size - low;
	{
		uint8_t *const in_order = ws->in_order;
		size_t k = 0;

		for (s = 0; s <= max_sym; s++) {
			const uint64_t eight = s * 0x0101010101010101ull;
			const size_t n = norm[s] > 0 ? (size_t)norm[s] : 0;
			size_t i;

			/* Guards in_order[]: the counts add up to at most
			 * size, and a piece may write 7 bytes past them.  The
			 * first piece is stored whatever the count: a loop
			 * that rarely runs is a branch the CPU predicts. */
			memcpy(in_order + k, &eight, 8);
			for (i = 8; i < n; i += 8)
				memcpy(in_order + k + i, &eight, 8);
			k += n;
		}
		for (u = 0; u < placed; u++) {
			spread[pos] = in_order[u];
			do
				pos = (pos + step) & mask;
			while (pos >= placed);
		}
	}
	/* Guards the spread: with counts that add up it ends where it began
	 * (read_fse_desc checked the sum; this is cheap insurance). */
	if (pos != 0)
		return DECODE_CORRUPT;

	for (u = 0; u < size; u++) {
		const unsigned sym = spread[u];
		const uint32_t x = ws->next_count[sym]++;
		const unsigned nb = log - highbit32(x);
		const uint64_t w = info[sym] |
				   fse_entry_word((x << nb) - size - u, nb, 0, 0);

		/* One 8-byte store per state. */
		memcpy(&t[u], &w, sizeof(w));
	}
	return DECODE_OK;
}

/* ---- Huffman tree description (4.2.1) ------------------------------------ */

/* Decodes FSE-compressed weights (4.2.1.2) from [p, p + len) into
 * ws->weights; *count is how many (the last symbol's is implied). */
static COLD_ONCE enum decode_status huf_fse_weights(struct zstd_ws *ws, const uint8_t *p, size_t len,
					  unsigned *count)
{
	enum decode_status st;
	unsigned log, n = 0, k;
	size_t used, st2[2];
	struct bitrd br;
	uint8_t pad[BR_WORD];

	st = read_fse_desc(p, len, HUF_WEIGHT_MAX_LOG, HUF_MAX_WEIGHT, ws->norm, &log, &used);
	if (st != DECODE_OK)
		return st;
	st = fse_build(ws, ws->hw, HUF_MAX_WEIGHT, log, KIND_WEIGHT);
	if (st != DECODE_OK)
		return st;
	/* Guards the bitstream: it is the rest of the bytes, and must hold
	 * at least its end mark. */
	if (used >= len || !br_init(&br, p + used, len - used, pad))
		return DECODE_CORRUPT;

	/* Two states take turns on one stream; when an update reads past
	 * its start, the other state gives the last weight. */
	st2[0] = br_read(&br, log);
	br_reload(&br);
	st2[1] = br_read(&br, log);
	br_reload(&br);
	/* Guards the initial states: the stream is shorter than them. */
	if (br_overrun(&br))
		return DECODE_CORRUPT;
	for (k = 0;; k ^= 1) {
		const struct fse_entry *e = &ws->hw[st2[k]];

		/* Guards ws->weights: at most 255 are described (the 256th
		 * symbol's is implied and added later), this one and
		 * perhaps the other state's. */
		if (n + 2 > HUF_MAX_SYMBOLS - 1)
			return DECODE_CORRUPT;
		ws->weights[n++] = (uint8_t)e->base;
		st2[k] += e->next + br_read(&br, e->nbits);
		br_reload(&br);
		if (br_overrun(&br)) {
			ws->weights[n++] = (uint8_t)ws->hw[st2[k ^ 1]].base;
			break;
		}
	}
	*count = n;
	return DECODE_OK;
}

/* Reads a Huffman tree description at [p, end) and builds ws->huf;
 * *used is its size and *bits_out the table's Max_Number_of_Bits. */
static ONCE enum decode_status huf_read_tree(struct zstd_ws *ws, const uint8_t *p, const uint8_t *end,
					size_t *used, unsigned *bits_out)
{
	const size_t avail = (size_t)(end - p);
	uint32_t rank_count[HUF_MAX_WEIGHT + 2] = { 0 };
	uint32_t rank_start[HUF_MAX_WEIGHT + 2];
	uint32_t total = 0, left;
	unsigned header, n, s, w, max_bits, last, scale;
	enum decode_status st;

	/* Guards the header byte. */
	if (avail < 1)
		return DECODE_CORRUPT;
	header = p[0];
	if (header > HUF_DIRECT_BASE) {
		const size_t bytes = (header - HUF_DIRECT_BASE + 1) / 2;

		n = header - HUF_DIRECT_BASE;
		/* Guards the direct weights: 4 bits each, in whole bytes. */
		if (bytes > avail - 1)
			return DECODE_CORRUPT;
		for (s = 0; s < n; s++) {
			const uint8_t b = p[1 + s / 2];

			ws->weights[s] = (uint8_t)(s & 1 ? b & 15 : b >> 4);
		}
		*used = 1 + bytes;
	} else {
		/* Guards the FSE-compressed weights: header bytes of them. */
		if (header == 0 || header > avail - 1)
			return DECODE_CORRUPT;
		st = huf_fse_weights(ws, p + 1, header, &n);
		if (st != DECODE_OK)
			return st;
		*used = 1 + (size_t)header;
	}

	for (s = 0; s < n; s++) {
		w = ws->weights[s];
		/* Guards rank_count[] and the code lengths. */
		if (w > HUF_MAX_WEIGHT)
			return DECODE_CORRUPT;
		if (w) {
			rank_count[w]++;
			total += 1u << (w - 1);
		}
	}
	/* Guards the implied last weight: a tree needs some weight, and the
	 * sum must complete to a power of two within 11 bits. */
	if (total == 0)
		return DECODE_CORRUPT;
	max_bits = highbit32(total) + 1;
	if (max_bits > HUF_MAX_BITS)
		return DECODE_CORRUPT;
	left = (1u << max_bits) - total;
	if (left & (left - 1))
		return DECODE_CORRUPT;
	last = highbit32(left) + 1;
	ws->weights[n++] = (uint8_t)last;
	rank_count[last]++;
	/* Guards the tree's shape: its longest codes (weight 1) come in
	 * pairs, at least one pair. */
	if (rank_count[1] < 2 || (rank_count[1] & 1))
		return DECODE_CORRUPT;

	/* Codes in order of increasing weight, then increasing symbol: a
	 * symbol of weight w owns 1 << (w - 1) consecutive entries of a
	 * max_bits table, 1 << (w - 1 + scale) of our HUF_MAX_BITS one. */
	scale = HUF_MAX_BITS - max_bits;
	rank_start[1] = 0;
	for (w = 1; w <= HUF_MAX_WEIGHT; w++)
		rank_start[w + 1] = rank_start[w] + (rank_count[w] << (w - 1 + scale));
	for (s = 0; s < n; s++) {
		w = ws->weights[s];
		if (w) {
			const uint16_t e = (uint16_t)((max_bits + 1 - w) | s << 8);
			uint32_t i = rank_start[w];
			const uint32_t stop = i + (1u << (w - 1 + scale));

			if (stop - i >= 4) {
				/* 4 or more entries, and rank_start[w] is a
				 * multiple of 4 then (the entries add up to
				 * a power of two, at least 4, and those of
				 * the weights above w to multiples of 4): 4
				 * at a time. */
				const uint64_t e4 = e * 0x0001000100010001ull;

				for (; i < stop; i += 4)
					memcpy(&ws->huf[i], &e4, 8);
			} else {
				for (; i < stop; i++)
					ws->huf[i] = e;
			}
			rank_start[w] = stop;
		}
	}
	*bits_out = max_bits;
	return DECODE_OK;
}

/* ---- Huffman-coded literals (4.2.2) -------------------------------------- */

/* Symbols each stream decodes per refill: codes are at most HUF_MAX_BITS
 * long and a refill leaves at least BR_MIN_FRESH (57 or 25) bits. */
#define HUF_PER_REFILL (BR_MIN_FRESH / HUF_MAX_BITS)

/* The table index under the next HUF_MAX_BITS bits.  Near the end of a
 * stream, fewer may be left than that (a tree's codes can be shorter):
 * the bits after them read as 0, and every entry under the real ones
 * says the same.  (br_peek() would wrap around instead.) */
static ALWAYS_INLINE size_t huf_peek(const struct bitrd *b)
{
	return (size_t)((b->bits << (b->consumed & (BR_BITS - 1))) >> (BR_BITS - HUF_MAX_BITS));
}

/* Decodes the rest of one stream exactly, up to end: batches of
 * HUF_PER_REFILL symbols per refill while they fit, then one at a time;
 * then checks that its bits were used up exactly.  A whole single-stream
 * section, and the tails of the four streams. */
static enum decode_status huf_finish(struct bitrd *br, const uint16_t *table, uint8_t *op,
				     uint8_t *end)
{
	/* Guards the output: a whole batch of symbols fits. */
	while ((size_t)(end - op) >= HUF_PER_REFILL) {
		unsigned k;

		br_reload(br);
		for (k = 0; k < HUF_PER_REFILL; k++) {
			const unsigned e = table[huf_peek(br)];

			*op++ = (uint8_t)(e >> 8);
			br->consumed += e & 0xFF;
		}
	}
	while (op < end) {
		unsigned e;

		br_reload(br);
		e = table[huf_peek(br)];
		*op++ = (uint8_t)(e >> 8);
		br->consumed += e & 0xFF;
	}
	br_reload(br);
	/* Guards against a stream with bits left over or read past. */
	if (!br_done(br)) {
		NOTE(NOTE_HUF_END);
		return DECODE_CORRUPT;
	}
	return DECODE_OK;
}

static enum decode_status huf_1stream(const uint16_t *table, const uint8_t *p, size_t n,
				      uint8_t *op, size_t count)
{
	struct bitrd br;
	uint8_t pad[BR_WORD];

	if (!br_init(&br, p, n, pad))
		return DECODE_CORRUPT;
	return huf_finish(&br, table, op, op + count);
}

/* The four-stream loop keeps a stream in fewer registers than a struct
 * bitrd: its word shifted left past the bits consumed, with a 1 bit (the
 * sentinel) below the word's unread bits, so that the bits consumed since
 * the word was loaded are its trailing zeros.  A symbol is then a shift
 * by a constant, a table load and a shift by its code length.  (The
 * sentinel is the idea of libzstd's x86 assembly Huffman loop.)  The word
 * is loaded with its lowest bit forced to 1: no turn consumes that far
 * (HUF_TURN_BITS), and the next load, lower in the stream, reads it
 * again at its true value. */
#define HUF_TURN_BITS  (7 + HUF_PER_REFILL * HUF_MAX_BITS)
#define HUF_TURN_BYTES (HUF_TURN_BITS / 8)
_Static_assert(HUF_TURN_BITS < BR_BITS, "the sentinel bit survives a turn");

static ALWAYS_INLINE bits_t huf_sentinel_load(const uint8_t *ptr, unsigned consumed)
{
	return (load_word(ptr) | 1) << consumed;
}

/* Moves back over the whole bytes consumed and reloads; the caller made
 * sure that ptr stays at or after the stream's start. */
static ALWAYS_INLINE void huf_sentinel_reload(bits_t *bits, const uint8_t **ptr)
{
	const unsigned consumed = (unsigned)__builtin_ctzl((unsigned long)*bits);

	*ptr -= consumed >> 3;
	*bits = huf_sentinel_load(*ptr, consumed & 7);
}

/* The turns (HUF_PER_REFILL symbols, then a reload) a stream at ptr can
 * take, at most: each moves ptr back at most HUF_TURN_BYTES, never before
 * start. */
static ALWAYS_INLINE size_t huf_turns(size_t most, const uint8_t *ptr, const uint8_t *start)
{
	const size_t t = (size_t)(ptr - start) / HUF_TURN_BYTES;

	return t < most ? t : most;
}

#define HUF_SENTINEL_SYM(bits, op)                                                \
	do {                                                                      \
		const unsigned e_ = table[(bits) >> (BR_BITS - HUF_MAX_BITS)];    \
		*(op)++ = (uint8_t)(e_ >> 8);                                     \
		(bits) <<= e_ & (BR_BITS - 1);  /* the code length, <= 11 */      \
	} while (0)

/* Four streams (4.2.2 "Jump_Table"): [p, p + n) starts with three 2-byte
 * stream sizes; stream k regenerates (count + 3) / 4 bytes, the last one
 * the rest.  Decoded in turn, a batch from each, so the four dependency
 * chains overlap. */
static LOOP enum decode_status huf_4streams(const uint16_t *table, const uint8_t *p, size_t n,
					    uint8_t *out, size_t count)
{
	const size_t seg = (count + 3) / 4;
	size_t len1, len2, len3, len4;
	uint8_t *op1, *op2, *op3, *op4, *const end4 = out + count;
	struct bitrd b1, b2, b3, b4;
	uint8_t pad1[BR_WORD], pad2[BR_WORD], pad3[BR_WORD], pad4[BR_WORD];
	enum decode_status st;
	size_t turns;

	/* Guards the jump table read. */
	if (n < 6)
		return DECODE_CORRUPT;
	len1 = load_le16(p);
	len2 = load_le16(p + 2);
	len3 = load_le16(p + 4);
	p += 6;
	n -= 6;
	/* Guards the stream sizes against the section's: the fourth stream
	 * is what is left. */
	if (len1 + len2 + len3 > n)
		return DECODE_CORRUPT;
	len4 = n - len1 - len2 - len3;
	/* Guards the segments: the fourth one may not be negative. */
	if (3 * seg > count)
		return DECODE_CORRUPT;
	if (!br_init(&b1, p, len1, pad1) ||
	    !br_init(&b2, p + len1, len2, pad2) ||
	    !br_init(&b3, p + len1 + len2, len3, pad3) ||
	    !br_init(&b4, p + len1 + len2 + len3, len4, pad4)) {
		NOTE(NOTE_HUF_MARK);
		return DECODE_CORRUPT;
	}

	op1 = out;
	op2 = out + seg;
	op3 = out + 2 * seg;
	op4 = out + 3 * seg;
	if (ZSTD_SMALL)
		goto tails;     /* all of each stream through huf_finish */
	/* A reload that the start of its stream limits leaves ptr less than
	 * a word after the start (perhaps with more than 7 bits consumed):
	 * no turns at all then.  Otherwise at most 7 bits are consumed, as
	 * HUF_TURN_BITS says. */
	br_reload(&b1);
	br_reload(&b2);
	br_reload(&b3);
	br_reload(&b4);
	turns = huf_turns(huf_turns(huf_turns(huf_turns((size_t)(end4 - op4) / HUF_PER_REFILL,
						       b1.ptr, br_start(&b1)),
					      b2.ptr, br_start(&b2)),
				     b3.ptr, br_start(&b3)),
			    b4.ptr, br_start(&b4));
	if (turns > 0) {
		bits_t x1 = huf_sentinel_load(b1.ptr, b1.consumed);
		bits_t x2 = huf_sentinel_load(b2.ptr, b2.consumed);
		bits_t x3 = huf_sentinel_load(b3.ptr, b3.consumed);
		bits_t x4 = huf_sentinel_load(b4.ptr, b4.consumed);
		const uint8_t *p1 = b1.ptr, *p2 = b2.ptr, *p3 = b3.ptr, *p4 = b4.ptr;

		do {
			do {
				unsigned k;

				for (k = 0; k < HUF_PER_REFILL; k++) {
					HUF_SENTINEL_SYM(x1, op1);
					HUF_SENTINEL_SYM(x2, op2);
					HUF_SENTINEL_SYM(x3, op3);
					HUF_SENTINEL_SYM(x4, op4);
				}
				huf_sentinel_reload(&x1, &p1);
				huf_sentinel_reload(&x2, &p2);
				huf_sentinel_reload(&x3, &p3);
				huf_sentinel_reload(&x4, &p4);
			} while (--turns > 0);
			/* Guards all four outputs: streams 1..3 have seg
			 * bytes, stream 4 no more, and all advance together,
			 * so stream 4's room bounds them.  Guards the four
			 * inputs: huf_turns(). */
			turns = huf_turns(huf_turns(huf_turns(huf_turns((size_t)(end4 - op4) /
									HUF_PER_REFILL,
								p1, br_start(&b1)),
						       p2, br_start(&b2)),
					      p3, br_start(&b3)),
				     p4, br_start(&b4));
		} while (turns > 0);
		/* Back to struct bitrd, for the tails. */
		b1.ptr = p1;
		b1.consumed = (unsigned)__builtin_ctzl((unsigned long)x1);
		b1.bits = load_word(p1);
		b2.ptr = p2;
		b2.consumed = (unsigned)__builtin_ctzl((unsigned long)x2);
		b2.bits = load_word(p2);
		b3.ptr = p3;
		b3.consumed = (unsigned)__builtin_ctzl((unsigned long)x3);
		b3.bits = load_word(p3);
		b4.ptr = p4;
		b4.consumed = (unsigned)__builtin_ctzl((unsigned long)x4);
		b4.bits = load_word(p4);
	}
tails:
	st = huf_finish(&b1, table, op1, out + seg);
	if (st == DECODE_OK)
		st = huf_finish(&b2, table, op2, out + 2 * seg);
	if (st == DECODE_OK)
		st = huf_finish(&b3, table, op3, out + 3 * seg);
	if (st == DECODE_OK)
		st = huf_finish(&b4, table, op4, end4);
	return st;
}

/* ---- Literals section (3.1.1.3.1) ----------------------------------------- */

struct literals {
	const uint8_t *p, *end;  /* the regenerated literals */
	const uint8_t *limit;    /* wild reads may go up to here */
};

static ONCE enum decode_status decode_literals(struct frame_state *fs, const uint8_t **pip,
					  const uint8_t *bend, struct literals *lit)
{
	struct zstd_ws *const ws = fs->ws;
	const uint8_t *ip = *pip;
	const size_t avail = (size_t)(bend - ip);
	unsigned hdr, type, sf;
	size_t regen, hlen;

	/* Guards the first header byte. */
	if (avail < 1)
		return DECODE_CORRUPT;
	hdr = ip[0];
	type = hdr & 3;
	sf = (hdr >> 2) & 3;

	if (type == LIT_RAW || type == LIT_RLE) {
		/* Size_Format: 1 byte (5-bit size), 2 bytes (12) or 3 (20). */
		if ((sf & 1) == 0) {
			hlen = 1;
			regen = hdr >> 3;
		} else if (sf == 1) {
			hlen = 2;
			/* Guards the second header byte. */
			if (avail < hlen)
				return DECODE_CORRUPT;
			regen = (hdr >> 4) | (size_t)ip[1] << 4;
		} else {
			hlen = 3;
			/* Guards the header's bytes. */
			if (avail < hlen)
				return DECODE_CORRUPT;
			regen = (hdr >> 4) | (size_t)ip[1] << 4 | (size_t)ip[2] << 12;
		}
		/* Guards the literals buffer (and Block_Maximum_Size). */
		if (regen > BLOCK_MAX)
			return DECODE_CORRUPT;
		if (type == LIT_RAW) {
			/* Guards the literal bytes against the block. */
			if (regen > avail - hlen)
				return DECODE_CORRUPT;
			/* Used in place: the sequences section and the rest
			 * of the input follow them, so wild reads may go up
			 * to the end of the input. */
			lit->p = ip + hlen;
			lit->end = lit->p + regen;
			lit->limit = fs->iend;
			*pip = ip + hlen + regen;
		} else {
			/* Guards the byte to repeat. */
			if (avail < hlen + 1)
				return DECODE_CORRUPT;
			memset(ws->lit, ip[hlen], regen);
			lit->p = ws->lit;
			lit->end = ws->lit + regen;
			lit->limit = ws->lit + sizeof(ws->lit);
			*pip = ip + hlen + 1;
		}
		return DECODE_OK;
	}

	/* Compressed or treeless: two sizes of 10, 10, 14 or 18 bits. */
	{
		static const uint8_t hdr_len[4] = { 3, 3, 4, 5 };
		static const uint8_t size_bits[4] = { 10, 10, 14, 18 };
		const unsigned sbits = size_bits[sf];
		const size_t smask = ((size_t)1 << sbits) - 1;
		uint64_t v = 0;
		size_t csize, tree = 0;
		enum decode_status st;

		hlen = hdr_len[sf];
		/* Guards the header's bytes. */
		if (avail < hlen)
			return DECODE_CORRUPT;
		v = get_le_n(ip, (unsigned)hlen);
		regen = (size_t)(v >> 4) & smask;
		csize = (size_t)(v >> (4 + sbits)) & smask;
		/* Guards the literals buffer (and Block_Maximum_Size). */
		if (regen > BLOCK_MAX)
			return DECODE_CORRUPT;
		/* Guards the compressed literals against the block. */
		if (csize > avail - hlen)
			return DECODE_CORRUPT;
		ip += hlen;
		if (type == LIT_COMPRESSED) {
			st = huf_read_tree(ws, ip, ip + csize, &tree, &fs->huf_bits);
			if (st != DECODE_OK)
				return st;
		} else if (fs->huf_bits == 0) {
			/* Treeless: a Huffman table from an earlier block of
			 * this frame is required. */
			return DECODE_CORRUPT;
		}
		if (sf == 0)
			st = huf_1stream(ws->huf, ip + tree, csize - tree, ws->lit, regen);
		else
			st = huf_4streams(ws->huf, ip + tree, csize - tree, ws->lit, regen);
		if (st != DECODE_OK)
			return st;
		lit->p = ws->lit;
		lit->end = ws->lit + regen;
		lit->limit = ws->lit + sizeof(ws->lit);
		*pip = ip + csize;
		return DECODE_OK;
	}
}

/* ---- Sequences section: tables (3.1.1.3.2.1) ------------------------------ */

/* The three sequence tables, in the order of the modes byte. */
struct seq_kind {
	uint16_t base;                  /* where the table starts in ws->seq */
	uint8_t max_log, max_sym;       /* the largest description allowed */
	uint8_t def_max, def_log;       /* the predefined distribution's */
	uint8_t kind;                   /* enum fse_kind */
};
/* No pointers to the predefined distributions here: the stub is position
 * independent and its data may hold no absolute addresses (linker/stub.ld);
 * seq_table picks them in code. */
static const struct seq_kind seq_kinds[3] = {
	{ SEQ_LL, LL_MAX_LOG, LL_MAX_SYMBOL, LL_MAX_SYMBOL, LL_DEFAULT_LOG, KIND_LL },
	{ SEQ_OF, OF_MAX_LOG, OF_MAX_SYMBOL, sizeof(of_default) - 1, OF_DEFAULT_LOG, KIND_OF },
	{ SEQ_ML, ML_MAX_LOG, ML_MAX_SYMBOL, ML_MAX_SYMBOL, ML_DEFAULT_LOG, KIND_ML },
};

/* Sets up sequence table k (seq_kinds[k]) as mode says, reading its
 * description, if any, at *pip. */
static ONCE enum decode_status seq_table(struct frame_state *fs, unsigned k, unsigned mode,
					 const uint8_t **pip, const uint8_t *bend)
{
	const struct seq_kind *const sk = &seq_kinds[k];
	const unsigned base = sk->base;
	const enum fse_kind kind = (enum fse_kind)sk->kind;
	struct zstd_ws *const ws = fs->ws;
	struct fse_entry *const t = ws->seq + base;
	enum decode_status st;
	unsigned s, log;

	switch (mode) {
	case MODE_PREDEFINED: {
		const int8_t *const def = k == 0 ? ll_default : k == 1 ? of_default : ml_default;

		for (s = 0; s <= sk->def_max; s++)
			ws->norm[s] = def[s];
		log = sk->def_log;
		st = fse_build(ws, t, sk->def_max, log, kind);
		break;
	}
	case MODE_RLE:
		/* Guards the symbol byte. */
		if (*pip >= bend)
			return DECODE_CORRUPT;
		s = *(*pip)++;
		/* Guards the code tables: no such code. */
		if (s > sk->max_sym)
			return DECODE_CORRUPT;
		/* One state that stays itself and reads no bits. */
		{
			const uint64_t w = ws->code_info[kind][s];

			memcpy(&t[0], &w, sizeof(w));
		}
		log = 0;
		st = DECODE_OK;
		break;
	case MODE_FSE: {
		size_t used;

		st = read_fse_desc(*pip, (size_t)(bend - *pip), sk->max_log, sk->max_sym, ws->norm,
				   &log, &used);
		if (st != DECODE_OK)
			return st;
		st = fse_build(ws, t, sk->max_sym, log, kind);
		*pip += used;
		break;
	}
	default: /* MODE_REPEAT */
		/* Guards against repeating a table this frame never had. */
		return fs->ok[k] ? DECODE_OK : DECODE_CORRUPT;
	}
	fs->log[k] = (uint8_t)log;
	fs->ok[k] = st == DECODE_OK;
	return st;
}

/* ---- Sequence execution (3.1.2) -------------------------------------------- */

/* Copies a match in whole pieces: may write up to 2 * COPY_CHUNK - 1
 * bytes past op + len (and 8 bytes from op even if len < 8); the caller
 * guarantees WILD_MARGIN bytes of room past op + len. */
static ALWAYS_INLINE void copy_match_wild(uint8_t *op, size_t off, size_t len)
{
	uint8_t *const end = op + len;
	const uint8_t *m = op - off;

	if (off >= COPY_CHUNK) {
		/* One piece, then two a turn (libzstd's wild copy has this
		 * shape; measured 2 to 5% faster than two pieces first or
		 * one a turn). */
		memcpy(op, m, COPY_CHUNK);
		while (op + COPY_CHUNK < end) {
			memcpy(op + COPY_CHUNK, m + COPY_CHUNK, COPY_CHUNK);
			memcpy(op + 2 * COPY_CHUNK, m + 2 * COPY_CHUNK, COPY_CHUNK);
			op += 2 * COPY_CHUNK;
			m += 2 * COPY_CHUNK;
		}
	} else if (off >= 8) {
		do {
			memcpy(op, m, 8);
			op += 8;
			m += 8;
		} while (op < end);
	} else {
		m = copy_spread8(op, off);
		op += 8;
		while (op < end) {
			memcpy(op, m, 8);
			op += 8;
			m += 8;
		}
	}
}

/* Exact copies: copy_exact() of decode/copy.h. */

/* Refill points of the sequence loop.  64-bit: one refill per sequence
 * covers the offset (<= 31 extra bits) and match length (<= 16) bits,
 * and the rest too (the literal length's bits and the three state
 * updates, <= 9 + 9 + 8) unless the three values' extra bits add up to
 * more than SEQ_ONE_REFILL_BITS: then a second refill before the literal
 * length.  That test is on the table entries, known before the bits are
 * read, and rarely true (libzstd's choice too): a test on the bits left,
 * true or not depending on the offsets' sizes, is a branch the CPU
 * mispredicts often (measured: 6 to 12% slower).
 * 32-bit: a refill before every field, and offsets of more than
 * BR_MIN_FRESH bits read in two parts.  (Reading the three values' bits
 * in one go and splitting them costs more than it saves without BMI2's
 * shifts.) */
#define SEQ_STATE_BITS      (LL_MAX_LOG + ML_MAX_LOG + OF_MAX_LOG)
#define SEQ_ONE_REFILL_BITS (BR_MIN_FRESH - SEQ_STATE_BITS)
#define BR_IS_64      (BR_BITS == 64)

_Static_assert(BR_BITS != 64 || 31 + 16 <= BR_MIN_FRESH, "one refill for offset and match length");
_Static_assert(BR_BITS != 64 || 16 + SEQ_STATE_BITS <= BR_MIN_FRESH, "one refill for the rest");
_Static_assert(BR_BITS != 32 || LL_MAX_LOG + ML_MAX_LOG <= BR_MIN_FRESH, "32-bit refills");

_Static_assert(OF_MAX_SYMBOL <= BR_MAX_READ && (BR_BITS != 32 || BR_MIN_FRESH <= BR_MAX_READ),
	       "br_read's mask table covers every read");

static ALWAYS_INLINE size_t read_offset_bits(struct bitrd *br, unsigned n)
{
	if (!BR_IS_64 && n > BR_MIN_FRESH) {
		const size_t hi = br_read(br, n - 16);

		br_reload(br);
		return hi << 16 | br_read(br, 16);
	}
	return br_read(br, n);
}

/* One decoded sequence, waiting to be executed. */
struct seq {
	size_t ll, ml, off;
};

/* The sequence decoder's state: the bitstream, the three FSE states and
 * the repeat offsets. */
struct seq_dec {
	struct bitrd br;
	const struct fse_entry *ll, *ml, *of;   /* the three states */
	size_t rep0, rep1, rep2;
};

/* Decodes one sequence (3.1.1.3.2.2, 3.1.2.5); last: it is the block's
 * last, whose states are not updated.  Reads no memory but the tables:
 * the caller checks br_overrun() and the values when it executes it. */
static ALWAYS_INLINE void decode_seq(struct seq_dec *d, struct seq *out, int last)
{
	const struct fse_entry *const lle = d->ll, *const mle = d->ml, *const ofe = d->of;
	size_t off, offval, ll;

	br_reload(&d->br);
	offval = ofe->base + read_offset_bits(&d->br, ofe->extra);
	if (!BR_IS_64)
		br_reload(&d->br);
	out->ml = mle->base + br_read(&d->br, mle->extra);
	if (!BR_IS_64 || (unsigned)ofe->extra + mle->extra + lle->extra > SEQ_ONE_REFILL_BITS)
		br_reload(&d->br);
	ll = lle->base + br_read(&d->br, lle->extra);
	out->ll = ll;

	/* Repeat offsets (3.1.2.5): values 1..3 name them, shifted by one
	 * when there are no literals; 3 then means rep0 - 1 (0 if rep0 is
	 * 1, which the executor rejects).  Both tests are on the table
	 * entries (a new offset is an offset code >= 2, a literal length of
	 * 0 the code whose base is 0), known before the bits are read: the
	 * CPU finds out sooner when it guessed them wrong. */
	if (ofe->extra >= 2) {
		off = offval - REP_CODES;
		d->rep2 = d->rep1;
		d->rep1 = d->rep0;
		d->rep0 = off;
	} else {
		const size_t idx = offval - 1 + (lle->base == 0);

		if (idx == 0) {
			off = d->rep0;
		} else {
			off = idx == 1 ? d->rep1 : idx == 2 ? d->rep2 : d->rep0 - 1;
			if (idx != 1)
				d->rep2 = d->rep1;
			d->rep1 = d->rep0;
			d->rep0 = off;
		}
	}
	out->off = off;

	if (!last) {
		/* State updates: literal length, match length, offset. */
		if (!BR_IS_64)
			br_reload(&d->br);
		d->ll = lle + lle->next + br_read(&d->br, lle->nbits);
		d->ml = mle + mle->next + br_read(&d->br, mle->nbits);
		if (!BR_IS_64)
			br_reload(&d->br);
		d->of = ofe + ofe->next + br_read(&d->br, ofe->nbits);
	}
}

/* Executes one sequence at *pop: its literals from *plp, then its match.
 * Every bound is checked here, against the real positions. */
static ALWAYS_INLINE enum decode_status exec_seq(const struct seq *q, uint8_t **pop, const uint8_t **plp,
					  const uint8_t *lend, const uint8_t *lfast,
					  uint8_t *fstart, uint8_t *oend)
{
	uint8_t *op = *pop;
	const uint8_t *lp = *plp;
	const size_t ll = q->ll, ml = q->ml, off = q->off;

	/* ll and ml are each < 2^17: none of the sums below wraps. */
	if (__builtin_expect(ll + COPY_CHUNK > (size_t)(lfast - lp) ||
			     ll + ml + WILD_MARGIN > (size_t)(oend - op), 0)) {
		/* Near the end of the literals or of the output (or a
		 * corrupt length): the exact checks, the exact copies. */
		/* Guards the literals read: more than the section has. */
		if (ll > (size_t)(lend - lp))
			return DECODE_CORRUPT;
		/* Guards the output. */
		if (ll + ml > (size_t)(oend - op))
			return DECODE_OUTPUT_OVERRUN;
		/* Guards the match source: offset 0 (rep0 - 1 of 1), or
		 * before the frame's first byte. */
		if (off - 1 >= (size_t)(op + ll - fstart))
			return DECODE_BAD_OFFSET;
		memmove(op, lp, ll); /* raw literals: in place, input over output */
		copy_exact(op + ll, off, ml);
	} else {
		/* Wild: the literals end at least COPY_CHUNK bytes before
		 * lfast (so before the end of the section, and the pieces
		 * stay readable), and WILD_MARGIN bytes of output remain
		 * after the match. */
		uint8_t *d = op;
		const uint8_t *s = lp;

		memcpy(d, s, COPY_CHUNK);
		if (ll > COPY_CHUNK) {
			uint8_t *const e = op + ll;

			do {
				d += COPY_CHUNK;
				s += COPY_CHUNK;
				memcpy(d, s, COPY_CHUNK);
			} while (d + COPY_CHUNK < e);
		}
		/* Guards the match source, as above. */
		if (off - 1 >= (size_t)(op + ll - fstart))
			return DECODE_BAD_OFFSET;
		copy_match_wild(op + ll, off, ml);
	}
	*pop = op + ll + ml;
	*plp = lp + ll;
	return DECODE_OK;
}

/* Decodes nseq sequences from the bitstream [p, bend) and executes them
 * against the literals, writing at *pop (the frame's output began at
 * fstart), then copies the last literals. */
static LOOP enum decode_status exec_sequences(struct frame_state *fs, const uint8_t *p,
					 const uint8_t *bend, size_t nseq, struct literals *lit,
					 uint8_t **pop, uint8_t *const fstart, uint8_t *const oend)
{
	const struct fse_entry *const t = fs->ws->seq;
	const uint8_t *lp = lit->p;
	const uint8_t *const lend = lit->end;
	/* Literal runs that end at least COPY_CHUNK bytes before this are
	 * copied in whole pieces: the end of the literals plus COPY_CHUNK,
	 * or where reading must stop, if that comes first. */
	const uint8_t *const lfast = (size_t)(lit->limit - lend) >= COPY_CHUNK ?
					     lend + COPY_CHUNK : lit->limit;
	uint8_t *op = *pop;
	struct seq_dec d;
	size_t i;
	enum decode_status st;
	uint8_t pad[BR_WORD];

	{
		/* br_init is out of line: d itself never has its address
		 * given away, so that it can live in registers. */
		struct bitrd b;

		if (!br_init(&b, p, (size_t)(bend - p), pad))
			return DECODE_CORRUPT;
		d.br = b;
	}
	/* Initial states, in this order (3.1.1.3.2.2). */
	d.ll = t + SEQ_LL + br_read(&d.br, fs->log[0]);
	br_reload(&d.br);
	d.of = t + SEQ_OF + br_read(&d.br, fs->log[1]);
	br_reload(&d.br);
	d.ml = t + SEQ_ML + br_read(&d.br, fs->log[2]);
	d.rep0 = fs->rep[0];
	d.rep1 = fs->rep[1];
	d.rep2 = fs->rep[2];

	for (i = nseq; i > 0; i--) {
		struct seq q;

		/* A stream with fewer bits than its sequences need is caught
		 * after the loop; meanwhile what the missing bits decode to
		 * is executed like any other sequence, within every bound. */
		decode_seq(&d, &q, i == 1);
		st = exec_seq(&q, &op, &lp, lend, lfast, fstart, oend);
		if (__builtin_expect(st != DECODE_OK, 0)) {
			/* Say what went wrong first: a stream read past its
			 * start decodes to anything. */
			if (br_overrun(&d.br)) {
				NOTE(NOTE_SEQ_END);
				return DECODE_CORRUPT;
			}
			return st;
		}
	}
	br_reload(&d.br);
	/* Guards against a stream with bits left over, or read past. */
	if (!br_done(&d.br)) {
		NOTE(NOTE_SEQ_END);
		return DECODE_CORRUPT;
	}

	/* The literals after the last sequence. */
	{
		const size_t rest = (size_t)(lend - lp);

		/* Guards the output against the last literals. */
		if (rest > (size_t)(oend - op))
			return DECODE_OUTPUT_OVERRUN;
		memmove(op, lp, rest); /* raw literals: in place, input over output */
		op += rest;
	}
	fs->rep[0] = d.rep0;
	fs->rep[1] = d.rep1;
	fs->rep[2] = d.rep2;
	*pop = op;
	return DECODE_OK;
}

/* ---- Compressed block (3.1.1.3) ------------------------------------------- */

static ONCE enum decode_status decode_block(struct frame_state *fs, const uint8_t *ip,
				       const uint8_t *bend, uint8_t **pop, uint8_t *fstart,
				       uint8_t *oend)
{
	struct literals lit;
	enum decode_status st;
	size_t nseq;
	unsigned modes, k;

	st = decode_literals(fs, &ip, bend, &lit);
	if (st != DECODE_OK)
		return st;

	/* Sequences section header (3.1.1.3.2.1): Number_of_Sequences in
	 * 1..3 bytes. */
	/* Guards its first byte. */
	if (ip >= bend)
		return DECODE_CORRUPT;
	nseq = *ip++;
	if (nseq >= 128) {
		if (nseq < 255) {
			/* Guards the second byte. */
			if (ip >= bend)
				return DECODE_CORRUPT;
			nseq = ((nseq - 128) << 8) + *ip++;
		} else {
			/* Guards the two more bytes. */
			if (bend - ip < 2)
				return DECODE_CORRUPT;
			nseq = load_le16(ip) + 0x7F00;
			ip += 2;
		}
	}
	if (nseq == 0) {
		const size_t n = (size_t)(lit.end - lit.p);

		/* Guards against bytes after an empty sequences section. */
		if (ip != bend)
			return DECODE_CORRUPT;
		/* Guards the output against the literals. */
		if (n > (size_t)(oend - *pop))
			return DECODE_OUTPUT_OVERRUN;
		memmove(*pop, lit.p, n); /* in place, the input lies over the output */
		*pop += n;
		return DECODE_OK;
	}

	/* Guards the Symbol_Compression_Modes byte. */
	if (ip >= bend)
		return DECODE_CORRUPT;
	modes = *ip++;
	/* Its low two bits are reserved ("must be zero"; libzstd 1.5
	 * ignores them). */
	if (modes & 3) {
		NOTE(NOTE_RESERVED);
		return DECODE_CORRUPT;
	}
	/* The tables in the order of the modes byte's fields, from its
	 * top bits: literal lengths, offsets, match lengths. */
	for (k = 0; k < 3; k++) {
		st = seq_table(fs, k, (modes >> (6 - 2 * k)) & 3, &ip, bend);
		if (st != DECODE_OK)
			return st;
	}
	return exec_sequences(fs, ip, bend, nseq, &lit, pop, fstart, oend);
}

/* XXH64 (decode/xxh64.h): Content_Checksum is the low 32 bits of
 * XXH64(content, seed 0). */

/* ---- Frames (3.1.1) --------------------------------------------------------- */

static ONCE enum decode_status decode_frame(struct zstd_ws *ws, const uint8_t **pip,
				       const uint8_t *iend, uint8_t **pop, uint8_t *oend)
{
	static const uint8_t did_bytes[4] = { 0, 1, 2, 4 };
	static const uint8_t fcs_bytes[4] = { 0, 2, 4, 8 };
	const uint8_t *ip = *pip + MAGIC_BYTES;
	uint8_t *op = *pop, *const fstart = op;
	struct frame_state fs;
	struct xxh hash;
	unsigned desc, single, fcs_len, did_len, has_sum;
	uint64_t window = 0, fcs = 0;
	size_t hlen, block_max;
	enum decode_status st;

	/* Guards the Frame_Header_Descriptor. */
	if (iend - ip < 1)
		return DECODE_TRUNCATED;
	desc = ip[0];
	single = (desc >> 5) & 1;
	has_sum = (desc >> 2) & 1;
	did_len = did_bytes[desc & 3];
	fcs_len = fcs_bytes[desc >> 6];
	if ((desc >> 6) == 0 && single)
		fcs_len = 1;
	/* The reserved bit must be 0. */
	if (desc & 0x08)
		return DECODE_CORRUPT;
	hlen = 1 + !single + did_len + fcs_len;
	/* Guards the rest of the frame header. */
	if ((size_t)(iend - ip) < hlen)
		return DECODE_TRUNCATED;
	ip++;
	if (!single) {
		const unsigned wlog = WINDOW_LOG_MIN + (ip[0] >> 3);
		const uint64_t base = (uint64_t)1 << wlog;

		window = base + (base >> 3) * (ip[0] & 7u);
		ip++;
	}
	/* We have no dictionaries. */
	if (get_le_n(ip, did_len) != 0)
		return DECODE_CORRUPT;
	ip += did_len;
	if (fcs_len) {
		fcs = get_le_n(ip, fcs_len);
		if (fcs_len == 2)
			fcs += 256;
		ip += fcs_len;
		/* Guards the output: the frame says it is larger than what
		 * is left of dst. */
		if (fcs > (uint64_t)(oend - op))
			return DECODE_OUTPUT_OVERRUN;
	}
	if (single)
		window = fcs;
	block_max = window < BLOCK_MAX ? (size_t)window : BLOCK_MAX;

	fs.ws = ws;
	fs.huf_bits = 0;
	memset(fs.ok, 0, sizeof(fs.ok));
	fs.rep[0] = 1;
	fs.rep[1] = 4;
	fs.rep[2] = 8;
	fs.iend = iend;
	xxh_init(&hash, fstart);

	for (;;) {
		uint32_t bh;
		unsigned last, type;
		size_t bsize;

		/* Guards the block header. */
		if ((size_t)(iend - ip) < BLOCK_HEADER_BYTES)
			return DECODE_TRUNCATED;
		bh = load_le24(ip);
		ip += BLOCK_HEADER_BYTES;
		last = bh & 1;
		type = (bh >> 1) & 3;
		bsize = bh >> 3;
		if (type == BLOCK_RESERVED)
			return DECODE_CORRUPT;
		/* Guards Block_Maximum_Size, min(Window_Size, 128 KiB): it
		 * limits Block_Content, which for an RLE block is its one
		 * byte (libzstd reads it so too). */
		if (bsize > block_max && type != BLOCK_RLE)
			return DECODE_CORRUPT;
		if (type == BLOCK_RLE) {
			/* Guards the byte to repeat. */
			if (ip == iend)
				return DECODE_TRUNCATED;
			/* Guards the output against the run. */
			if (bsize > (size_t)(oend - op))
				return DECODE_OUTPUT_OVERRUN;
			memset(op, ip[0], bsize);
			op += bsize;
			ip++;
		} else {
			/* Guards the block content against the input. */
			if (bsize > (size_t)(iend - ip))
				return DECODE_TRUNCATED;
			if (type == BLOCK_RAW) {
				/* Guards the output against the block. */
				if (bsize > (size_t)(oend - op))
					return DECODE_OUTPUT_OVERRUN;
				memmove(op, ip, bsize); /* in place, the input lies over the output */
				op += bsize;
			} else {
				uint8_t *const bstart = op;

				st = decode_block(&fs, ip, ip + bsize, &op, fstart, oend);
				if (st != DECODE_OK)
					return st;
				/* Guards Block_Maximum_Size for what a block
				 * decompresses to, too (libzstd's reading). */
				if ((size_t)(op - bstart) > block_max)
					return DECODE_CORRUPT;
			}
			ip += bsize;
		}
		if (has_sum)
			xxh_update(&hash, op);
		if (last)
			break;
	}

	/* Guards Frame_Content_Size: the blocks must produce exactly it. */
	if (fcs_len && (uint64_t)(op - fstart) != fcs)
		return DECODE_CORRUPT;
	if (has_sum) {
		/* Guards the checksum read. */
		if ((size_t)(iend - ip) < CHECKSUM_BYTES)
			return DECODE_TRUNCATED;
		if ((uint32_t)xxh_final(&hash, op) != load_le32(ip))
			return DECODE_CHECK_MISMATCH;
		ip += CHECKSUM_BYTES;
	}
	*pip = ip;
	*pop = op;
	return DECODE_OK;
}

enum decode_status zstd_decode(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
			       void *workspace)
{
	uint8_t none;   /* stands in for dst when dst_len == 0 (dst may be NULL) */
	const uint8_t *ip, *iend;
	uint8_t *op, *oend;
	enum decode_status st;

	if (src_len == 0)
		return dst_len == 0 ? DECODE_OK : DECODE_TRUNCATED;
	if (dst_len == 0)
		dst = &none;    /* never written: every write is checked against oend */
	ip = src;
	iend = src + src_len;
	op = dst;
	oend = dst + dst_len;
	code_info_init(workspace);

	while (ip < iend) {
		uint32_t magic;

		/* Guards the magic number read. */
		if ((size_t)(iend - ip) < MAGIC_BYTES)
			return DECODE_TRUNCATED;
		magic = load_le32(ip);
		if ((magic & SKIP_MAGIC_MASK) == SKIP_MAGIC) {
			size_t size;

			/* Guards the Frame_Size read. */
			if ((size_t)(iend - ip) < SKIP_HEADER_BYTES)
				return DECODE_TRUNCATED;
			size = load_le32(ip + MAGIC_BYTES);
			/* Guards the skip against the input. */
			if (size > (size_t)(iend - ip) - SKIP_HEADER_BYTES)
				return DECODE_TRUNCATED;
			ip += SKIP_HEADER_BYTES + size;
			continue;
		}
		if (magic != ZSTD_MAGIC)
			return DECODE_CORRUPT;
		st = decode_frame(workspace, &ip, iend, &op, oend);
		if (st != DECODE_OK)
			return st;
	}
	return op == oend ? DECODE_OK : DECODE_SHORT_OUTPUT;
}
