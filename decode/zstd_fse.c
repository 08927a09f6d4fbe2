/* zstd_fse.c - FSE (4.1) for the zstd decoder: reading a table
 * description and building a decoding table from it, for the sequence
 * tables and the Huffman weights' table alike.  The shared parts are in
 * zstd_internal.h. */
#include "zstd_internal.h"

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
COLD_ONCE enum decode_status zstd_read_fse_desc(const uint8_t *p, size_t len, unsigned max_log,
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
ONCE void zstd_code_info_init(struct zstd_ws *ws)
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
enum decode_status zstd_fse_build(struct zstd_ws *ws, struct fse_entry *t, unsigned max_sym,
				  unsigned log, enum fse_kind kind)
{
	const int16_t *const norm = ws->norm;
	const uint64_t *const info = ws->code_info[kind];
	uint8_t *const spread = ws->spread;
	const uint32_t size = 1u << log, mask = size - 1;
	const uint32_t step = (size >> 1) + (size >> 3) + 3;
	/* The "less than 1" symbols take the states from the top down,
	 * one each; the others the first 'placed' states.  (zstd_read_fse_desc
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
	 * (zstd_read_fse_desc checked the sum; this is cheap insurance). */
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
