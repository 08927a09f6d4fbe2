/* zstd_internal.h - what the layers of our Zstandard decoder share: the
 * format's constants, the workspace and frame state, the backward
 * bitstream reader, and the functions one layer calls in another.
 *
 * The decoder is written for bzpack from RFC 8878, "Zstandard Compression
 * and the 'application/zstd' Media Type" (February 2021); section numbers
 * refer to it.  It is split by layer, as upstream zstd splits its
 * decompressor (frame, block, entropy, hash):
 *
 *   zstd_decode.c   frames and skippable frames, zstd_decode() (3.1)
 *   zstd_block.c    a compressed block: the sequences section, its
 *                   tables' modes, the sequences decoded and executed
 *                   (3.1.1.3, 3.1.2)
 *   zstd_huf.c      the literals section, Huffman trees and literal
 *                   streams (3.1.1.3.1, 4.2)
 *   zstd_fse.c      FSE table descriptions and decoding tables (4.1)
 *   zstd_bits.c     the backward bitstream's out-of-line parts (4.1, 4.2.2)
 *   xxh64.h         the content checksum (XXH64), shared with the payload check
 *
 * Every file is part of decode/zstd_*.c, which the build links together
 * wherever the zstd decoder goes (stub, tests, fuzzers, benchmarks).  The
 * names one file gives another start with zstd_; each is a call made at
 * most once per stream, table or block (the hot loops stay inside one
 * file, so nothing they inline crosses a file).
 */
#ifndef ZSTD_INTERNAL_H
#define ZSTD_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "copy.h"
#include "decode.h"
#include "mem.h"

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
#error "the zstd decoder loads little-endian words as they are"
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
	 * a state is an index into the array: see zstd_fse_build's base. */
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
 * inside their tables whatever the bits; see zstd_fse_build()). */
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

/* Sets up a read of the stream [p, p + n): zstd_br_init(), zstd_bits.c. */

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
extern const uint32_t zstd_br_mask[BR_MAX_READ + 1];    /* zstd_bits.c */

/* The next n bits (0 <= n <= BR_MAX_READ), most significant first: they
 * end BR_BITS - consumed - n bits above the container's lowest bit.
 * Modulo the word size: bits past the start of the stream are garbage
 * anyway, and only a stream that br_overrun() rejects has them read. */
static ALWAYS_INLINE size_t br_peek(const struct bitrd *b, unsigned n)
{
	return (size_t)(b->bits >> ((0u - b->consumed - n) & (BR_BITS - 1))) & zstd_br_mask[n];
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

/* A block's regenerated literals (3.1.1.3.1), for its sequences. */
struct literals {
	const uint8_t *p, *end;  /* the regenerated literals */
	const uint8_t *limit;    /* wild reads may go up to here */
};

/* ---- Across the layers ----------------------------------------------------- */

/* zstd_bits.c */
int zstd_br_init(struct bitrd *b, const uint8_t *p, size_t n, uint8_t pad[BR_WORD]);
uint64_t zstd_get_le_n(const uint8_t *p, unsigned n);

/* zstd_fse.c */
COLD enum decode_status zstd_read_fse_desc(const uint8_t *p, size_t len, unsigned max_log,
					   unsigned max_sym, int16_t *norm, unsigned *log_out,
					   size_t *used);
void zstd_code_info_init(struct zstd_ws *ws);
enum decode_status zstd_fse_build(struct zstd_ws *ws, struct fse_entry *t, unsigned max_sym,
				  unsigned log, enum fse_kind kind);

/* zstd_huf.c */
enum decode_status zstd_decode_literals(struct frame_state *fs, const uint8_t **pip,
					const uint8_t *bend, struct literals *lit);

/* zstd_block.c */
enum decode_status zstd_decode_block(struct frame_state *fs, const uint8_t *ip,
				     const uint8_t *bend, uint8_t **pop, uint8_t *fstart,
				     uint8_t *oend);

#endif
