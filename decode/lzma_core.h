/* lzma_core.h - the LZMA decoder shared by decode/lzma_decode.c (the
 * legacy .lzma container) and decode/xz_decode.c (LZMA2 chunks inside
 * .xz).  Each of the two includes this header: every function here is
 * static, so a stub links exactly one copy, the one of its own codec.
 *
 * Written for bzpack from Igor Pavlov's "LZMA specification" (the LZMA
 * SDK's lzma-specification.txt, draft of 2015-06-14; quoted names such as
 * "IsRep0Long" or "PosSlot" refer to it).  No code from the LZMA SDK,
 * liblzma, xz-embedded or Linux was used.  Choices that decide which
 * malformed streams are refused (the first range coder byte must be 0,
 * the coder must end flushed, distances are held to the dictionary size
 * as liblzma rounds it) follow liblzma's observable behaviour, so that
 * the two accept the same streams (tests/fuzz_xz.c checks it).
 *
 * Single-call mode
 *   The caller knows where the whole output goes and how long it is, so
 *   there is no separate dictionary: the output buffer itself is the
 *   dictionary (single-call mode with the output as the dictionary, as
 *   xz-embedded does in its XZ_SINGLE mode).  A match copies from earlier
 *   output; the only dictionary bookkeeping is dict_start, the output
 *   position of the last dictionary reset, before which no match may
 *   reach.
 *
 * Range decoder and input bounds
 *   The range decoder normalises right after each decoded bit, as the
 *   encoder does ("eager" normalisation), so it reads exactly the bytes
 *   the encoder wrote: after the last symbol of a well-formed stream the
 *   input pointer sits exactly on the stream's end, and a check of that
 *   (plus code == 0, what the encoder's flush leaves) tells a complete
 *   stream from a truncated or padded one.
 *
 *   A bit decode reads at most one input byte, and a symbol is at most
 *   SYMBOL_MAX_BITS bits, so the hot loop checks the input only once per
 *   symbol, at its top: it runs while at least IN_MARGIN readable bytes
 *   remain.  Near the true end of the input, the few bytes left are copied
 *   into a zero-padded buffer in the workspace (the "tail") and the very
 *   same loop carries on there; reading into the padding means the input
 *   was too short (a symbol boundary past the copied bytes ends the run).
 *
 * Probabilities, state and the tail live in the workspace (struct
 * lzma_core); the hot loop keeps range, code and the in/out pointers in
 * local variables (the helpers below are always inlined on a local struct
 * rc, which the compiler keeps in registers).
 *
 * Speed
 *   Decoding is a chain of bits, each depending on the range the last one
 *   left, so the time per bit is that chain's latency plus the branches
 *   it mispredicts.  The single decisions (IsMatch, IsRep, ...) steer the
 *   code and branch; the bit trees (literals, lengths, distance slots and
 *   their reverse trees, about nine bits in ten) decode without a branch
 *   on the bit and load the next node's probability before the bit is
 *   known (rc_bit_sel).
 */
#ifndef LZMA_CORE_H
#define LZMA_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "decode.h"
#include "compiler.h"
#include "mem.h"

/* HOT: the loops that do the work; COLD: what runs once per stream, block
 * or chunk (decode/compiler.h). */

/* ---- Range coder ("The range decoder") ---------------------------------- */

#define PROB_BITS       11                      /* kNumBitModelTotalBits */
#define PROB_ONE        (1u << PROB_BITS)       /* probabilities are 11-bit fixed point */
#define PROB_INIT       (PROB_ONE / 2)          /* every probability starts at 0.5 */
#define PROB_MOVE_BITS  5                       /* kNumMoveBits: adaptation speed */
/* The largest probability the update rule can reach: p + ((2048 - p) >> 5)
 * stops growing at 2048 - 31.  The branch-free update below relies on
 * p <= PROB_MAX. */
#define PROB_MAX        (PROB_ONE - ((1u << PROB_MOVE_BITS) - 1))
#define RC_TOP          (1u << 24)              /* kTopValue: normalise below this */
#define RC_INIT_BYTES   5                       /* a zero byte, then the 32-bit code */

/* ---- Model dimensions ---------------------------------------------------- */

#define LZMA_STATES         12  /* kNumStates */
#define LZMA_LIT_STATES     7   /* states below this follow a literal */
#define LZMA_PB_MAX         4
#define LZMA_POS_STATES_MAX (1u << LZMA_PB_MAX)
#define LZMA_LC_MAX         8   /* what the .lzma properties byte can say */
#define LZMA_LP_MAX         4
/* LZMA2 demands lc + lp <= 4 (and so does liblzma for .lzma): the
 * workspace holds that many literal coders and no more. */
#define LZMA_LCLP_MAX       4
#define LIT_CODER_SIZE      0x300       /* one literal coder: 3 x 256 probs */
#define LIT_CODERS_MAX      (1u << LZMA_LCLP_MAX)
#define LZMA_PROPS_MAX      ((LZMA_PB_MAX * 5 + LZMA_LP_MAX) * 9 + LZMA_LC_MAX) /* 224 */

#define MATCH_LEN_MIN       2   /* kMatchMinLen */
#define LEN_LOW_BITS        3
#define LEN_MID_BITS        3
#define LEN_HIGH_BITS       8
#define LEN_LOW_SYMS        (1u << LEN_LOW_BITS)
#define LEN_MID_SYMS        (1u << LEN_MID_BITS)
#define LEN_HIGH_SYMS       (1u << LEN_HIGH_BITS)
#define MATCH_LEN_MAX       (MATCH_LEN_MIN + LEN_LOW_SYMS + LEN_MID_SYMS + LEN_HIGH_SYMS - 1) /* 273 */

#define DIST_STATES         4   /* kNumLenToPosStates */
#define DIST_SLOT_BITS      6
#define DIST_MODEL_START    4   /* kStartPosModelIndex */
#define DIST_MODEL_END      14  /* kEndPosModelIndex */
#define FULL_DISTANCES      (1u << (DIST_MODEL_END >> 1))       /* 128 */
#define ALIGN_BITS          4
/* "PosDecoders": reverse bit trees for slots 4..13, indexed from 1. */
#define DIST_SPECIAL_PROBS  (1 + FULL_DISTANCES - DIST_MODEL_END)
/* A decoded distance of 0xFFFFFFFF (rep0 = 2^32 - 1) is the end marker. */
#define END_MARKER_DIST     0xFFFFFFFFu

/* Bits in the longest symbol, a match with a far distance: IsMatch, IsRep,
 * two length choices and 8 high length bits, 6 slot bits, 26 direct bits
 * and 4 align bits.  A rep match takes at most 5 + 10 bits, a literal 9. */
#define SYMBOL_MAX_BITS     (1 + 1 + (2 + LEN_HIGH_BITS) + DIST_SLOT_BITS + 26 + ALIGN_BITS)
/* Each decoded bit reads at most one input byte (normalisation), so a
 * symbol that starts with IN_MARGIN bytes left never reads past them. */
#define IN_MARGIN           SYMBOL_MAX_BITS
/* The tail buffer: fewer than IN_MARGIN real bytes, then IN_MARGIN bytes
 * of zero padding that a symbol starting on the last real byte may read. */
#define TAIL_SIZE           (2 * IN_MARGIN)

/* Matches are copied in 8-byte pieces when the distance is at least 8 and
 * this much output room is left after the match start (the last piece may
 * write up to 7 bytes past the match end). */
#define COPY_CHUNK          8
#define WILD_OUT_MARGIN     (MATCH_LEN_MAX + COPY_CHUNK)

_Static_assert(SYMBOL_MAX_BITS == 48, "symbol bit budget");
_Static_assert(MATCH_LEN_MAX == 273, "match length range");

/* ---- Probabilities and state (in the workspace) ------------------------- */

struct lzma_len_probs {
	uint16_t choice;
	uint16_t choice2;
	uint16_t low[LZMA_POS_STATES_MAX][LEN_LOW_SYMS];
	uint16_t mid[LZMA_POS_STATES_MAX][LEN_MID_SYMS];
	uint16_t high[LEN_HIGH_SYMS];
};

struct lzma_probs {
	uint16_t is_match[LZMA_STATES][LZMA_POS_STATES_MAX];
	uint16_t is_rep[LZMA_STATES];
	uint16_t is_rep0[LZMA_STATES];
	uint16_t is_rep1[LZMA_STATES];
	uint16_t is_rep2[LZMA_STATES];
	uint16_t is_rep0_long[LZMA_STATES][LZMA_POS_STATES_MAX];
	uint16_t dist_slot[DIST_STATES][1u << DIST_SLOT_BITS];
	uint16_t dist_special[DIST_SPECIAL_PROBS];
	uint16_t dist_align[1u << ALIGN_BITS];
	struct lzma_len_probs match_len;
	struct lzma_len_probs rep_len;
	/* Last, so that a reset initialises only the coders lc + lp use. */
	uint16_t literal[LIT_CODERS_MAX][LIT_CODER_SIZE];
};

struct lzma_core {
	struct lzma_probs probs;
	uint32_t state;                 /* 0..11 */
	uint32_t rep0, rep1, rep2, rep3; /* the last four distances, minus one */
	unsigned lc;                    /* literal context bits */
	unsigned lp;                    /* literal position bits */
	unsigned lp_mask;               /* (1 << lp) - 1 */
	unsigned pb_mask;               /* (1 << pb) - 1 */
	/* A new distance must be below this (liblzma's rule: the dictionary
	 * size, at least 4 KiB, rounded up to a multiple of 16). */
	uint32_t dist_limit;
	uint8_t *dict_start;            /* output position of the last dictionary reset */
	uint8_t tail[TAIL_SIZE];
};

/* ---- Properties --------------------------------------------------------- */

/* Decodes the lc/lp/pb byte, (pb * 5 + lp) * 9 + lc.  Returns 0, or -1 if
 * it is out of range or needs more literal coders than the workspace has
 * (lc + lp > 4). */
static int lzma_set_props(struct lzma_core *s, unsigned props)
{
	unsigned lc, lp, pb;

	/* Guards the property ranges: pb <= 4, lp <= 4, lc <= 8. */
	if (props > LZMA_PROPS_MAX)
		return -1;
	pb = props / (9 * 5);
	props -= pb * 9 * 5;
	lp = props / 9;
	lc = props - lp * 9;
	/* Guards the literal coder array (LIT_CODERS_MAX coders). */
	if (lc + lp > LZMA_LCLP_MAX)
		return -1;
	s->lc = lc;
	s->lp = lp;
	s->lp_mask = (1u << lp) - 1;
	s->pb_mask = (1u << pb) - 1;
	return 0;
}

/* The distance limit for a dictionary of dict_size bytes. */
static void lzma_set_dict_size(struct lzma_core *s, uint32_t dict_size)
{
	if (dict_size < 4096)
		dict_size = 4096;
	/* Rounding up to 16 would wrap: every distance is then allowed (the
	 * end marker has its own meaning and is told apart first). */
	s->dist_limit = dict_size > 0xFFFFFFF0u ? 0xFFFFFFFFu : (dict_size + 15) & ~15u;
}

/* "Reset the state": every probability to 0.5 (only the literal coders
 * that lc and lp address), state 0, all four distances 0. */
static void lzma_reset_state(struct lzma_core *s)
{
	uint16_t *p = (uint16_t *)&s->probs;
	size_t n = offsetof(struct lzma_probs, literal) / sizeof(uint16_t) +
		   ((size_t)LIT_CODER_SIZE << (s->lc + s->lp));

	for (size_t i = 0; i < n; i++)
		p[i] = PROB_INIT;
	s->state = 0;
	s->rep0 = s->rep1 = s->rep2 = s->rep3 = 0;
}

/* ---- The range decoder's primitives ------------------------------------- */

struct rc {
	uint32_t range;
	uint32_t code;
	const uint8_t *ip;
};

/* Starts a range decoder on RC_INIT_BYTES bytes at ip (the caller checked
 * they exist).  A well-formed stream starts with a zero byte and a code
 * below the initial range. */
static int rc_init(struct rc *rc, const uint8_t *ip)
{
	rc->range = 0xFFFFFFFFu;
	rc->code = (uint32_t)ip[1] << 24 | (uint32_t)ip[2] << 16 | (uint32_t)ip[3] << 8 | ip[4];
	rc->ip = ip + RC_INIT_BYTES;
	/* code < range holds from here on for any input: every update keeps
	 * it, so a bit decode never needs to check it again. */
	return ip[0] == 0 && rc->code != 0xFFFFFFFFu ? 0 : -1;
}

/* Normalisation after each bit: at most one shift is ever needed (a bit
 * leaves range >= (2^24 >> 11) * 31 > 2^16, a direct bit >= 2^23), and it
 * reads one byte.  Guard: the caller's IN_MARGIN covers one byte per bit. */
static ALWAYS_INLINE void rc_normalize(struct rc *rc)
{
	if (rc->range < RC_TOP) {
		rc->range <<= 8;
		rc->code = rc->code << 8 | *rc->ip++;
	}
}

/* One adaptive bit ("DecodeBit"): a branch on the bit, which the callers
 * below turn into control flow. */
static ALWAYS_INLINE unsigned rc_bit(struct rc *rc, uint16_t *prob)
{
	uint32_t p = *prob;
	uint32_t bound = (rc->range >> PROB_BITS) * p;
	unsigned bit;

	if (rc->code < bound) {
		rc->range = bound;
		*prob = (uint16_t)(p + ((PROB_ONE - p) >> PROB_MOVE_BITS));
		bit = 0;
	} else {
		rc->range -= bound;
		rc->code -= bound;
		*prob = (uint16_t)(p - (p >> PROB_MOVE_BITS));
		bit = 1;
	}
	rc_normalize(rc);
	return bit;
}

/* One adaptive bit without a branch on its value, for the bit trees
 * (literals, lengths, distances), whose bits are too close to random for
 * branches to be predicted.  p is *prob, loaded by the caller; so are the
 * probabilities of both of the node's children, p0 and p1, so that the
 * next bit's probability is a select, not a load, on the critical path
 * from one bit to the next (range -> bound -> compare -> range).
 *
 * The two selects (the new range, the next probability) are conditional
 * moves on the comparison's flags, written as x86 asm because GCC turns
 * two ternaries on one condition into a branch, the very thing to avoid
 * (the x86-64 decoder of xz 5.6 made the same choice); -m32 -march=i686
 * and -m64 both have CMOV.  The asm also leaves z = ~0 for a 0 bit and 0
 * for a 1 bit (SBB), for the updates that are off the critical path:
 * code -= bound for a 1 bit, and with t = PROB_MAX for a 0 bit, 0 for a
 * 1 bit, the probability update
 *   p - ((p - t) >> 5)   (arithmetic shift)
 * is p - (p >> 5) for a 1 bit and, since p <= PROB_MAX (the shift of the
 * negative p - 2017 rounds down by exactly the right amount),
 * p + ((2048 - p) >> 5) for a 0 bit: rc_bit's update without a branch.
 * Returns the bit, 0 or 1; *pnext is p0 or p1. */
static ALWAYS_INLINE unsigned rc_bit_sel(struct rc *rc, uint16_t *prob, uint32_t p,
					    uint32_t p0, uint32_t p1, uint32_t *pnext)
{
	const uint32_t bound = (rc->range >> PROB_BITS) * p;
	uint32_t range = rc->range - bound, next = p1, z;

	__asm__("cmpl %[bound], %[code]\n\t"
		"cmovbl %[bound], %[range]\n\t"
		"cmovbl %[p0], %[next]\n\t"
		"sbbl %[z], %[z]"
		: [range] "+r"(range), [next] "+r"(next), [z] "=r"(z)
		: [bound] "r"(bound), [code] "r"(rc->code), [p0] "rm"(p0)
		: "cc");
	rc->range = range;
	rc->code -= bound & ~z;
	*prob = (uint16_t)(p - (uint32_t)((int32_t)(p - (PROB_MAX & z)) >> PROB_MOVE_BITS));
	rc_normalize(rc);
	*pnext = next;
	return z + 1;
}

/* rc_bit_sel for a bit whose successor is not in a tree. */
static ALWAYS_INLINE unsigned rc_bit_nb(struct rc *rc, uint16_t *prob)
{
	uint32_t unused;

	return rc_bit_sel(rc, prob, *prob, 0, 0, &unused);
}

/* "BitTreeDecode": nbits (>= 1) bits, most significant first, through
 * the tree at probs (indexed from 1, 2^nbits entries); returns them plus
 * 2^nbits (the caller subtracts).  The last level's "children" are past
 * the tree: masked, they wrap to nodes inside it, loaded and not used. */
static ALWAYS_INLINE unsigned rc_tree(struct rc *rc, uint16_t *probs, unsigned nbits)
{
	const unsigned mask = (1u << nbits) - 1;
	unsigned m = 1;
	uint32_t p = probs[1];

	do
		m = m << 1 | rc_bit_sel(rc, &probs[m], p, probs[(2 * m) & mask],
					probs[(2 * m + 1) & mask], &p);
	while (--nbits);
	return m;
}

/* "BitTreeReverseDecode": nbits (>= 1) bits, least significant first,
 * through the same kind of tree as rc_tree. */
static ALWAYS_INLINE uint32_t rc_tree_rev(struct rc *rc, uint16_t *probs, unsigned nbits)
{
	const unsigned mask = (1u << nbits) - 1;
	unsigned m = 1;
	uint32_t p = probs[1], sym = 0;

	for (unsigned i = 0; i < nbits; i++) {
		const unsigned bit = rc_bit_sel(rc, &probs[m], p, probs[(2 * m) & mask],
						probs[(2 * m + 1) & mask], &p);

		m = m << 1 | bit;
		sym |= bit << i;
	}
	return sym;
}

/* "DecodeDirectBits": n (1..26) bits of probability 0.5.  code < range,
 * so after range >>= 1 the subtraction leaves code's top bit set exactly
 * when the bit is 0, and then adding range back undoes it. */
static ALWAYS_INLINE uint32_t rc_direct(struct rc *rc, unsigned n)
{
	uint32_t res = 0;

	do {
		rc->range >>= 1;
		rc->code -= rc->range;
		uint32_t t = 0u - (rc->code >> 31);     /* ~0 for a 0 bit */
		rc->code += rc->range & t;
		res = (res << 1) + (t + 1);
		rc_normalize(rc);
	} while (--n);
	return res;
}

/* ---- Symbols ------------------------------------------------------------ */

/* A plain literal: 8 bits of the coder's first 256-entry tree. */
static ALWAYS_INLINE unsigned lit_plain(struct rc *rc, uint16_t *probs)
{
	return rc_tree(rc, probs, 8) & 0xFF;
}

/* A literal right after a match ("DecodeLiteral" with state >= 7): while
 * the decoded bits agree with the byte at distance rep0 + 1 ("matchByte"),
 * each bit uses the tree at 0x100 + matchBit * 0x100; from the first
 * disagreement on, the plain tree.  The two phases are two loops: the
 * first exits on the disagreement (once per literal, at most), and the
 * second is rc_tree's, whose next probability is a select, not a load
 * that waits for the bit. */
static ALWAYS_INLINE unsigned lit_matched(struct rc *rc, uint16_t *probs, unsigned match_byte)
{
	unsigned sym = 1;

	for (;;) {
		match_byte <<= 1;
		const unsigned mbit = match_byte & 0x100;
		const unsigned bit = rc_bit_nb(rc, &probs[0x100 + mbit + sym]);

		sym = sym << 1 | bit;
		if (sym >= 0x100)
			return sym & 0xFF;
		if ((bit << 8) != mbit)
			break;
	}
	/* The rest of the plain tree from node sym (2..0xFF); its last
	 * level's children wrap into the tree (loaded, not used). */
	uint32_t p = probs[sym];

	do
		sym = sym << 1 | rc_bit_sel(rc, &probs[sym], p, probs[(2 * sym) & 0xFF],
					    probs[(2 * sym + 1) & 0xFF], &p);
	while (sym < 0x100);
	return sym & 0xFF;
}

/* The length of a match, minus MATCH_LEN_MIN: 0..271, from one of three
 * trees: low and mid (3 bits, the common lengths 2..17), high (8 bits). */
static ALWAYS_INLINE unsigned rc_len(struct rc *rc, struct lzma_len_probs *l, unsigned ps)
{
	uint16_t *probs = l->low[ps];
	unsigned base = 0, nbits = LEN_LOW_BITS;

	if (rc_bit(rc, &l->choice)) {
		if (!rc_bit(rc, &l->choice2)) {
			probs = l->mid[ps];
			base = LEN_LOW_SYMS;
		} else {
			probs = l->high;
			base = LEN_LOW_SYMS + LEN_MID_SYMS;
			nbits = LEN_HIGH_BITS;
		}
	}
	return base + rc_tree(rc, probs, nbits) - (1u << nbits);
}

/* A new distance ("DecodeDistance"), minus one; len is the match length
 * minus MATCH_LEN_MIN; op is where the match will be copied to (only
 * prefetched from: the caller checks the distance).  One reverse-tree
 * loop serves both the slots with their own trees (4..13) and the align
 * bits of the others. */
static ALWAYS_INLINE uint32_t rc_dist(struct rc *rc, struct lzma_probs *p, unsigned len,
					const uint8_t *op)
{
	unsigned ls = len < DIST_STATES - 1 ? len : DIST_STATES - 1;
	unsigned slot = rc_tree(rc, p->dist_slot[ls], DIST_SLOT_BITS) - (1u << DIST_SLOT_BITS);

	if (slot < DIST_MODEL_START)
		return slot;
	unsigned nd = (slot >> 1) - 1;                  /* 1..30 footer bits */
	uint32_t dist = (2u | (slot & 1)) << nd;
	uint16_t *probs;

	if (slot < DIST_MODEL_END) {
		probs = p->dist_special + dist - slot;
	} else {
		dist += rc_direct(rc, nd - ALIGN_BITS) << ALIGN_BITS;
		/* The source is known to 16 bytes: ask for its end while
		 * the align bits decode (far sources miss the caches);
		 * the next symbol's context bytes are read from there.
		 * An address, not a pointer: dist is not checked yet. */
		__builtin_prefetch((const void *)((uintptr_t)op - dist - 16 + len + MATCH_LEN_MIN));
		probs = p->dist_align;
		nd = ALIGN_BITS;
	}
	return dist + rc_tree_rev(rc, probs, nd);
}

/* ---- Copies ------------------------------------------------------------- */

/* For a distance below COPY_CHUNK, the smallest multiple of it that is at
 * least COPY_CHUNK: the same bytes repeat at that distance. */
static const uint8_t chunk_dist[COPY_CHUNK] = { 0, 8, 8, 9, 8, 10, 12, 14 };

/* Copies a match of len bytes from distance dist (>= 1) exactly. */
static void copy_match_exact(uint8_t *op, size_t dist, size_t len)
{
	const uint8_t *m = op - dist;

	if (dist == 1) {
		memset(op, *m, len);
		return;
	}
	while (len--)
		*op++ = *m++;
}

/* ---- The symbol loop ---------------------------------------------------- */

enum run_end {
	RUN_OUT_FULL = -1,      /* op reached olimit */
	RUN_IN_LIMIT = -2,      /* a symbol would start past ilimit */
	RUN_MARKER = -3,        /* an end marker was decoded */
	/* >= 0: an enum decode_status error */
};

/* Decodes symbols into [*pop, olimit) while each starts at ip <= ilimit,
 * with IN_MARGIN readable bytes from ilimit on.  oend is the end of the
 * whole output buffer (wild copies may write up to it).  Keeps the LZMA
 * state in s and the range coder in *rcp.
 *
 * With marker_after set, a full output does not end the run: one more
 * symbol is decoded, which must be the end marker (RUN_MARKER); anything
 * else would write past olimit (DECODE_OUTPUT_OVERRUN). */
HOT static int lzma_run(struct lzma_core *s, struct rc *rcp, const uint8_t *ilimit,
				uint8_t **pop, uint8_t *olimit, uint8_t *oend, int marker_after)
{
	struct rc rc = *rcp;
	uint8_t *op = *pop;
	uint8_t *const dict = s->dict_start;
	struct lzma_probs *const pr = &s->probs;
	const unsigned lc = s->lc, lp_mask = s->lp_mask, pb_mask = s->pb_mask;
	uint32_t state = s->state, rep0 = s->rep0;
	int end = RUN_OUT_FULL;

	for (;;) {
		/* Guards the input: one symbol reads at most IN_MARGIN bytes
		 * from ip, and ilimit leaves that many readable. */
		if (rc.ip > ilimit) {
			end = RUN_IN_LIMIT;
			break;
		}
		const size_t pos = (size_t)(op - dict);
		const unsigned ps = (unsigned)pos & pb_mask;

		/* Guards the output: a literal writes at op (a match is
		 * checked against olimit below). */
		if (UNLIKELY(op >= olimit)) {
			if (!marker_after)
				break;
			/* Only the end marker, a match, may follow. */
			if (!rc_bit(&rc, &pr->is_match[state][ps]))
				return DECODE_OUTPUT_OVERRUN;
		} else if (!rc_bit(&rc, &pr->is_match[state][ps])) {
			/* Literal.  The byte before is 0 right after a
			 * dictionary reset. */
			unsigned prev = op > dict ? op[-1] : 0;
			uint16_t *probs = pr->literal[(((unsigned)pos & lp_mask) << lc) + (prev >> (8 - lc))];

			if (state < LZMA_LIT_STATES) {
				*op++ = (uint8_t)lit_plain(&rc, probs);
				state = state < 4 ? 0 : state - 3;
			} else {
				/* state >= 7 only after a match, whose
				 * distance was checked against op - dict,
				 * and op has only grown since. */
				const unsigned mb = op[-(ptrdiff_t)rep0 - 1];

				*op++ = (uint8_t)lit_matched(&rc, probs, mb);
				state = state < 10 ? state - 3 : state - 6;
			}
			continue;
		}

		/* A match ("IsRep", "IsRep0", "IsRep0Long", "IsRep1",
		 * "IsRep2"): its kind, length and distance. */
		const unsigned after_lit = state < LZMA_LIT_STATES;
		struct lzma_len_probs *lens;
		size_t len;

		if (rc_bit(&rc, &pr->is_rep[state])) {
			if (!rc_bit(&rc, &pr->is_rep0[state])) {
				if (!rc_bit(&rc, &pr->is_rep0_long[state][ps])) {
					/* "Short rep": one byte from rep0. */
					state = after_lit ? 9 : 11;
					len = 1;
					goto copy;
				}
			} else {
				uint32_t d;

				if (!rc_bit(&rc, &pr->is_rep1[state])) {
					d = s->rep1;
				} else {
					if (!rc_bit(&rc, &pr->is_rep2[state])) {
						d = s->rep2;
					} else {
						d = s->rep3;
						s->rep3 = s->rep2;
					}
					s->rep2 = s->rep1;
				}
				s->rep1 = rep0;
				rep0 = d;
			}
			/* The source is known before the length: ask for
			 * it now (an address only: checked at the copy). */
			__builtin_prefetch((const void *)((uintptr_t)op - rep0));
			state = after_lit ? 8 : 11;
			lens = &pr->rep_len;
		} else {
			s->rep3 = s->rep2;
			s->rep2 = s->rep1;
			s->rep1 = rep0;
			state = after_lit ? 7 : 10;
			lens = &pr->match_len;
		}
		len = rc_len(&rc, lens, ps);
		if (lens == &pr->match_len) {
			rep0 = rc_dist(&rc, pr, (unsigned)len, op);
			/* Guards the dictionary size; the end marker is the
			 * one distance at or above every limit. */
			if (UNLIKELY(rep0 >= s->dist_limit)) {
				if (rep0 == END_MARKER_DIST) {
					end = RUN_MARKER;
					break;
				}
				return DECODE_BAD_OFFSET;
			}
		}
		len += MATCH_LEN_MIN;
copy:
		/* Guards the match end against the output limit. */
		if (len > (size_t)(olimit - op))
			return DECODE_OUTPUT_OVERRUN;
		{
			const size_t dist = (size_t)rep0 + 1;   /* rep0 < dist_limit */
			uint8_t *const mend = op + len;

			/* Guards the match source: before the start of the
			 * output or the last dictionary reset. */
			if (dist > pos)
				return DECODE_BAD_OFFSET;
			const uint8_t *m = op - dist;

			/* Guards the wild copy: it may write up to
			 * COPY_CHUNK - 1 bytes past mend, inside oend. */
			if (LIKELY((size_t)(oend - op) >= WILD_OUT_MARGIN)) {
				if (UNLIKELY(dist < COPY_CHUNK)) {
					/* A short period: the first bytes one
					 * by one (each may read the one just
					 * written); from there on the bytes
					 * repeat at the multiple of dist in
					 * chunk_dist, which is at least
					 * COPY_CHUNK, so the chunks below
					 * never read what they write. */
					const size_t n = len < COPY_CHUNK ? len : COPY_CHUNK;

					for (size_t i = 0; i < n; i++)
						op[i] = m[i];
					op += n;
					m = op - chunk_dist[dist];
				}
				/* Far sources two chunks at a time: both
				 * loads before both stores. */
				if (dist >= 2 * COPY_CHUNK) {
					while (op + COPY_CHUNK < mend) {
						memcpy(op, m, 2 * COPY_CHUNK);
						op += 2 * COPY_CHUNK;
						m += 2 * COPY_CHUNK;
					}
				}
				while (op < mend) {
					memcpy(op, m, COPY_CHUNK);
					op += COPY_CHUNK;
					m += COPY_CHUNK;
				}
			} else {
				copy_match_exact(op, dist, len);
			}
			op = mend;
		}
	}

	s->state = state;
	s->rep0 = rep0;
	*rcp = rc;
	*pop = op;
	return end;
}

/* ---- Driving the loop over one stream or chunk -------------------------- */

/* Runs lzma_run over the LZMA data [rc->ip, in_end) until the output
 * reaches olimit, an end marker or an error, reading nothing at or past
 * src_end (in_end <= src_end; the bytes between them are readable but not
 * part of this data).  Where in_end + IN_MARGIN <= src_end, the loop reads
 * the input in place and stops at a symbol that starts past in_end;
 * otherwise it moves to the zero-padded tail copy of the last bytes.  On
 * return *consumed is how many bytes of the data, from data_start, the
 * decoder took: more than in_end - data_start means it read past the end
 * (into the padding or the next bytes).  rc->ip is left pointing into
 * src or into the tail: callers go by *consumed.  marker_after: see
 * lzma_run. */
static int lzma_drive(struct lzma_core *s, struct rc *rc, const uint8_t *data_start,
		      const uint8_t *in_end, const uint8_t *src_end,
		      uint8_t **pop, uint8_t *olimit, uint8_t *oend, int marker_after,
		      size_t *consumed)
{
	int end;

	if ((size_t)(src_end - in_end) >= IN_MARGIN) {
		/* In place: at a symbol start ip <= in_end, and from there
		 * IN_MARGIN bytes are inside src. */
		end = lzma_run(s, rc, in_end, pop, olimit, oend, marker_after);
		*consumed = (size_t)(rc->ip - data_start);
		return end;
	}
	if ((size_t)(in_end - rc->ip) >= IN_MARGIN) {
		/* Fast part: stop while IN_MARGIN bytes still remain. */
		end = lzma_run(s, rc, in_end - IN_MARGIN, pop, olimit, oend, marker_after);
		if (end != RUN_IN_LIMIT) {
			*consumed = (size_t)(rc->ip - data_start);
			return end;
		}
	}
	/* The tail: fewer than IN_MARGIN bytes left (ip <= in_end: the run
	 * above stopped at a symbol boundary past in_end - IN_MARGIN, and
	 * the init or an earlier run left ip <= in_end). */
	{
		const size_t left = (size_t)(in_end - rc->ip);
		const size_t done = (size_t)(rc->ip - data_start);

		memcpy(s->tail, rc->ip, left);
		memset(s->tail + left, 0, TAIL_SIZE - left);
		rc->ip = s->tail;
		/* A symbol may start on the padding's first byte at the
		 * latest: it then reads at most IN_MARGIN bytes of it. */
		end = lzma_run(s, rc, s->tail + left, pop, olimit, oend, marker_after);
		*consumed = done + (size_t)(rc->ip - s->tail);
	}
	return end;
}

#endif
