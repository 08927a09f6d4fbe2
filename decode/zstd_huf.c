/* zstd_huf.c - the literals of the zstd decoder: Huffman (4.2), a tree
 * description (direct or FSE-compressed weights) to a decoding table and
 * the literal streams, one or four, decoded with it; and the literals
 * section that holds them (3.1.1.3.1). */
#include "zstd_internal.h"

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

	st = zstd_read_fse_desc(p, len, HUF_WEIGHT_MAX_LOG, HUF_MAX_WEIGHT, ws->norm, &log, &used);
	if (st != DECODE_OK)
		return st;
	st = zstd_fse_build(ws, ws->hw, HUF_MAX_WEIGHT, log, KIND_WEIGHT);
	if (st != DECODE_OK)
		return st;
	/* Guards the bitstream: it is the rest of the bytes, and must hold
	 * at least its end mark. */
	if (used >= len || !zstd_br_init(&br, p + used, len - used, pad))
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

	if (!zstd_br_init(&br, p, n, pad))
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
	if (!zstd_br_init(&b1, p, len1, pad1) ||
	    !zstd_br_init(&b2, p + len1, len2, pad2) ||
	    !zstd_br_init(&b3, p + len1 + len2, len3, pad3) ||
	    !zstd_br_init(&b4, p + len1 + len2 + len3, len4, pad4)) {
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


ONCE enum decode_status zstd_decode_literals(struct frame_state *fs, const uint8_t **pip,
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
		v = zstd_get_le_n(ip, (unsigned)hlen);
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
