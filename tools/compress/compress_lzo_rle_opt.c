/* compress_lzo_rle_opt.c - an LZO1X compressor with optimal parsing, written for bzpack
 * (no library writes LZO-RLE streams; Linux's lzo-rle compressor is a fast
 * single-probe one).  The bitstream is the one decode/lzo_decode.c reads,
 * described in Linux's Documentation/staging/lzo.rst; see the top of
 * decode/lzo_decode.c for a summary.  No code from liblzo2 or Linux was
 * used.
 *
 * Match finding
 *   A binary tree over the last 48 KiB (the M4 window), the technique of
 *   the LZMA SDK's "bt" match finders: every position is inserted as the
 *   new root of its hash bucket's tree (hash of 3 bytes), and the walk
 *   that re-splits the old tree around it sees the candidates from the
 *   nearest back, reporting each time a longer match appears.  So for every
 *   length the reported distance is (up to the search depth) the nearest,
 *   which is also the cheapest to encode.  A 2-byte table gives the
 *   nearest pair for the 2-byte M1 match.  Once a match reaches NICE_LEN the
 *   walk stops and the new position takes the old one's place.
 *
 * Parsing
 *   A shortest-path search over blocks of up to OPT_BLOCK positions, as in
 *   LZMA's and zstd's optimal parsers, with exact byte costs plus a
 *   fraction of a byte per instruction (see BYTE_UNITS).  LZO makes
 *   the cost of an instruction depend on the literals before it (1..3
 *   literals ride in the previous match's S bits for free, 4 or more need a
 *   literal-run instruction; a 2-byte match exists only after 1..3
 *   literals, a 3-byte one 2..3 KiB back only after a run), so every
 *   position keeps the cheapest way to reach it in each of five states:
 *     0     a match (or zero run) ends here;
 *     1..3  that many literals since the last match;
 *     4     a literal run (its length is kept: its cost grows by one
 *           extension byte every 255 bytes past 18).
 *   From each position every match length from 2 up to the longest found
 *   is tried with the nearest distance for that length, and in version 1
 *   every zero-run length.  A match or zero run of NICE_LEN or more is
 *   taken at once (the block ends where it starts), at its full length.
 *
 * Version 1 rules (lzo.rst): the stream starts 17, 1; M4 distances stay
 * below 0xbfff (that distance marks a zero run); an M4 at a distance with
 * bit 15 set and the low 6 bits set, of length 261..264, would read as a
 * zero run and is never emitted.  A zero run is 4..2051 zero bytes for 4
 * bytes of instruction; it cannot be the first instruction (a first byte
 * of 24..31 means literals).
 */
#include "compress_lzo_rle_opt.h"

#include <stdlib.h>
#include <string.h>

/* ---- Format ---------------------------------------------------------- */

#define M1A_MAX_DIST     1024u          /* 2-byte match after 1..3 literals */
#define M1B_MIN_DIST     2049u          /* 3-byte match after a run ... */
#define M1B_MAX_DIST     3072u
#define M2_MAX_DIST      2048u
#define M2_MAX_LEN       8u
#define M3_MAX_DIST      16384u
#define M4_MAX_DIST_V0   49151u
#define M4_MAX_DIST_V1   49150u         /* 49151 is the zero-run marker */
#define M3_FIELD_MAX     33u            /* longest M3 without extension bytes */
#define M4_FIELD_MAX     9u
#define RUN_FIELD_MAX    18u            /* longest literal run without extension */
#define FIRST_RUN_MAX    238u           /* longest run in the first byte (17 + n) */
#define RLE_MIN          4u
#define RLE_MAX          2051u
#define MIN_MATCH        3u             /* the tree's; 2-byte matches come from pairs */

/* ---- Tuning ---------------------------------------------------------- */

#define NICE_LEN         256u           /* take a match this long at once */
#define SEARCH_DEPTH     128u           /* tree nodes visited per position */
#define OPT_BLOCK        32768u         /* positions per shortest-path block */
#define HASH_BITS        17
#define SLOT_BITS        16             /* tree slots: 64 Ki >= the window */
#define SLOT_MASK        ((1u << SLOT_BITS) - 1)

_Static_assert((1u << SLOT_BITS) > M4_MAX_DIST_V0, "a slot is not reused while in the window");
_Static_assert(NICE_LEN >= RLE_MIN && NICE_LEN <= RLE_MAX, "zero runs shorter than NICE_LEN fit one instruction");

#define INF              0x3fffffffu

/* Path costs are in units: a byte of output costs BYTE_UNITS and each
 * instruction the decoder has to dispatch (a match, a zero run, a
 * literal-run opcode; not the 1..3 literals riding in a match's S bits)
 * costs INSN_UNITS more.  With byte costs alone the parser settles the
 * many near-ties (two literals or a 2-byte match, one long match or two
 * shorter ones) by accident, and on i386's vmlinux it chose short
 * instructions often enough to decode 7 % slower than liblzo2's lzo1x_999
 * stream.  Measured on the Debian i386 vmlinux (our decoder, both
 * streams; size relative to lzo1x_999's):
 *     INSN_UNITS   0      1      4      8      12     16
 *     size         0.989  0.989  0.989  0.990  0.995  1.017
 *     MB/s vs lzo  0.93   1.05   1.06   1.07   1.11   1.19
 * A mere tie-break (1) gives most of it.  4 (a quarter of a byte) keeps
 * us smaller than lzo1x_999 with a margin on every input tests/test_lzo.c
 * sizes, the worst its "semi" data of 2- and 3-byte matches (0.35 %);
 * from 6 on that input is larger than lzo1x_999's. */
#define BYTE_UNITS       16u
#define INSN_UNITS       4u
#define NSTATES          5
#define STATE_RUN        4u

/* ---- Costs ----------------------------------------------------------- */

/* Extension bytes of a length len whose field holds up to field_max: a
 * value v = len - field_max >= 1 takes (v - 1) / 255 zero bytes and one
 * more byte. */
static inline uint32_t ext_bytes(size_t len, size_t field_max)
{
	return len <= field_max ? 0 : (uint32_t)((len - field_max - 1) / 255 + 1);
}

/* A literal run of r bytes: its instruction (none in the first byte for
 * r <= 238 at the start of the stream) and the bytes. */
static inline uint32_t run_cost(size_t r, int first)
{
	if (first && r <= FIRST_RUN_MAX)
		return (uint32_t)r + 1;
	return (uint32_t)r + 1 + ext_bytes(r, RUN_FIELD_MAX);
}

/* How many more literals a run of r can take before its cost grows by an
 * extra (extension) byte. */
static inline size_t run_room(size_t r, int first)
{
	if (first && r <= FIRST_RUN_MAX)
		return FIRST_RUN_MAX + 1 - r;
	if (r <= RUN_FIELD_MAX)
		return RUN_FIELD_MAX + 1 - r;
	return 255 - (r - RUN_FIELD_MAX - 1) % 255;
}

/* An M4 whose length extension is one byte 252..255 and whose next byte
 * is 0xff reads as a zero run in version 1; lzo.rst tells compressors to
 * avoid ((distance & 0x803f) == 0x803f) && (261 <= length <= 264). */
static inline int m4_ambiguous(size_t len, size_t dist)
{
	return len >= 261 && len <= 264 && (dist & 0x803f) == 0x803f;
}

enum kind { K_NONE, K_M1A, K_M1B, K_M2, K_M3, K_M4 };

/* The cheapest instruction for a match of len bytes at distance dist
 * after state (0..4), and its size in *cost; K_NONE if there is none. */
static inline enum kind choose(size_t len, size_t dist, unsigned state, int v1, uint32_t *cost)
{
	if (len == 2) {
		if (state >= 1 && state <= 3 && dist <= M1A_MAX_DIST) {
			*cost = 2;
			return K_M1A;
		}
		return K_NONE;
	}
	if (len <= M2_MAX_LEN && dist <= M2_MAX_DIST) {
		*cost = 2;
		return K_M2;
	}
	if (len == 3 && state == STATE_RUN && dist >= M1B_MIN_DIST && dist <= M1B_MAX_DIST) {
		*cost = 2;
		return K_M1B;
	}
	if (dist <= M3_MAX_DIST) {
		*cost = 3 + ext_bytes(len, M3_FIELD_MAX);
		return K_M3;
	}
	if (dist > (v1 ? M4_MAX_DIST_V1 : M4_MAX_DIST_V0) || (v1 && m4_ambiguous(len, dist)))
		return K_NONE;
	*cost = 3 + ext_bytes(len, M4_FIELD_MAX);
	return K_M4;
}

/* ---- Match finder ---------------------------------------------------- */

struct match {
	uint32_t len, dist;
};

struct finder {
	const uint8_t *in;
	size_t n;
	uint32_t max_dist;
	uint32_t *head;         /* hash of 3 bytes -> newest position + 1 (0: none) */
	uint32_t *son;          /* 2 per slot: the smaller and the larger subtree */
	uint32_t *pair;         /* 2 bytes -> newest position + 1 */
};

static inline uint32_t hash3(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;

	return (v * 2654435761u) >> (32 - HASH_BITS);
}

/* Common prefix of a and b from len on, up to max. */
static inline size_t extend(const uint8_t *a, const uint8_t *b, size_t len, size_t max)
{
	while (len + 8 <= max) {
		uint64_t x, y;

		memcpy(&x, a + len, 8);
		memcpy(&y, b + len, 8);
		if (x != y)
			return len + (size_t)(__builtin_ctzll(x ^ y) >> 3);
		len += 8;
	}
	while (len < max && a[len] == b[len])
		len++;
	return len;
}

/* Inserts pos (pos + MIN_MATCH <= n) into its tree; if m is not NULL,
 * stores there the matches of increasing length (>= MIN_MATCH, at most
 * maxlen) and returns how many. */
static size_t bt_insert(struct finder *f, size_t pos, size_t maxlen, struct match *m)
{
	const uint8_t *const cur = f->in + pos;
	const uint32_t h = hash3(cur);
	uint32_t cand = f->head[h];
	uint32_t *smaller = &f->son[2 * (pos & SLOT_MASK)];
	uint32_t *larger = smaller + 1;
	size_t len_s = 0, len_l = 0, best = MIN_MATCH - 1, found = 0;
	unsigned depth = SEARCH_DEPTH;

	f->head[h] = (uint32_t)pos + 1;
	for (;;) {
		size_t c, len;
		uint32_t *cs;

		if (cand == 0 || pos - (cand - 1) > f->max_dist || depth-- == 0) {
			*smaller = *larger = 0;
			return found;
		}
		c = cand - 1;
		cs = &f->son[2 * (c & SLOT_MASK)];
		/* Every node left in this subtree sorts between the last
		 * smaller and the last larger one: it shares the shorter of
		 * their prefixes with cur. */
		len = extend(f->in + c, cur, len_s < len_l ? len_s : len_l, maxlen);
		if (len > best) {
			best = len;
			if (m) {
				m[found].len = (uint32_t)len;
				m[found].dist = (uint32_t)(pos - c);
				found++;
			}
			if (len >= maxlen) {
				/* As good as it gets: pos replaces c. */
				*smaller = cs[0];
				*larger = cs[1];
				return found;
			}
		}
		if (f->in[c + len] < cur[len]) {
			/* c sorts before pos: it and its smaller subtree go
			 * left of pos; go on in its larger subtree. */
			*smaller = cand;
			smaller = &cs[1];
			cand = *smaller;
			len_s = len;
		} else {
			*larger = cand;
			larger = &cs[0];
			cand = *larger;
			len_l = len;
		}
	}
}

/* The nearest earlier position with the same 2 bytes at pos, and makes
 * pos the newest.  Returns its distance, or 0. */
static inline size_t pair_find(struct finder *f, size_t pos)
{
	uint32_t *slot = &f->pair[f->in[pos] | (uint32_t)f->in[pos + 1] << 8];
	size_t prev = *slot;

	*slot = (uint32_t)pos + 1;
	return prev ? pos - (prev - 1) : 0;
}

/* Everything the finder keeps for one position, without the search
 * results (inside a match taken at once). */
static void skip(struct finder *f, size_t pos)
{
	if (pos + 2 <= f->n)
		pair_find(f, pos);
	if (pos + MIN_MATCH <= f->n)
		bt_insert(f, pos, f->n - pos < NICE_LEN ? f->n - pos : NICE_LEN, NULL);
}

/* ---- Output ---------------------------------------------------------- */

struct emitter {
	const uint8_t *in;
	uint8_t *op, *end;
	uint8_t *sbits;         /* the byte holding the last match's S bits */
	int started;            /* something has been written after the header */
	int overflow;
	int v1;
	size_t lit_start, lit_count;   /* pending literals */
};

static inline void put(struct emitter *e, unsigned b)
{
	if (e->op < e->end)
		*e->op++ = (uint8_t)b;
	else
		e->overflow = 1;
}

/* The extension of a length field: v >= 1. */
static void put_ext(struct emitter *e, size_t v)
{
	for (; v > 255; v -= 255)
		put(e, 0);
	put(e, (unsigned)v);
}

/* Marks where the S bits of the instruction being written go. */
static inline void mark_sbits(struct emitter *e)
{
	e->sbits = e->op < e->end ? e->op : NULL;
}

/* Writes the pending literals and returns the state they leave. */
static unsigned flush_literals(struct emitter *e)
{
	size_t k = e->lit_count;
	unsigned state;

	if (k == 0)
		return 0;
	if (!e->started && k <= FIRST_RUN_MAX) {
		put(e, 17 + (unsigned)k);
		state = k < STATE_RUN ? (unsigned)k : STATE_RUN;
	} else if (e->started && k < STATE_RUN) {
		/* In the S bits of the match before them. */
		if (e->sbits)
			*e->sbits |= (uint8_t)k;
		state = (unsigned)k;
	} else {
		if (k <= RUN_FIELD_MAX) {
			put(e, (unsigned)(k - 3));
		} else {
			put(e, 0);
			put_ext(e, k - RUN_FIELD_MAX);
		}
		state = STATE_RUN;
	}
	if ((size_t)(e->end - e->op) >= k) {
		memcpy(e->op, e->in + e->lit_start, k);
		e->op += k;
	} else {
		e->overflow = 1;
	}
	e->started = 1;
	e->lit_count = 0;
	return state;
}

static inline void literal(struct emitter *e, size_t pos)
{
	if (e->lit_count++ == 0)
		e->lit_start = pos;
}

/* A match of len bytes at distance dist, or a zero run (dist 0). */
static void emit_match(struct emitter *e, size_t len, size_t dist)
{
	unsigned state = flush_literals(e);
	uint32_t cost;
	size_t d;

	e->started = 1;
	if (dist == 0) {
		size_t r = len - RLE_MIN;

		put(e, 0x18 | (unsigned)(r & 7));
		mark_sbits(e);
		put(e, 0xfc);
		put(e, 0xff);
		put(e, (unsigned)(r >> 3));
		return;
	}
	switch (choose(len, dist, state, e->v1, &cost)) {
	case K_M1A:
		d = dist - 1;
		mark_sbits(e);
		put(e, (unsigned)(d & 3) << 2);
		put(e, (unsigned)(d >> 2));
		break;
	case K_M1B:
		d = dist - M1B_MIN_DIST;
		mark_sbits(e);
		put(e, (unsigned)(d & 3) << 2);
		put(e, (unsigned)(d >> 2));
		break;
	case K_M2:
		d = dist - 1;
		mark_sbits(e);
		put(e, (unsigned)(len - 1) << 5 | (unsigned)(d & 7) << 2);
		put(e, (unsigned)(d >> 3));
		break;
	case K_M3:
		d = dist - 1;
		if (len <= M3_FIELD_MAX) {
			put(e, 0x20 | (unsigned)(len - 2));
		} else {
			put(e, 0x20);
			put_ext(e, len - M3_FIELD_MAX);
		}
		mark_sbits(e);
		put(e, (unsigned)(d << 2) & 0xff);
		put(e, (unsigned)(d >> 6));
		break;
	case K_M4:
		d = dist - M3_MAX_DIST;         /* H << 14 | D */
		if (len <= M4_FIELD_MAX) {
			put(e, 0x10 | (unsigned)(d >> 14) << 3 | (unsigned)(len - 2));
		} else {
			put(e, 0x10 | (unsigned)(d >> 14) << 3);
			put_ext(e, len - M4_FIELD_MAX);
		}
		mark_sbits(e);
		put(e, (unsigned)(d << 2) & 0xff);
		put(e, (unsigned)(d >> 6) & 0xff);
		break;
	case K_NONE:
		e->overflow = 1;        /* the parser never asks for this */
		break;
	}
}

/* ---- Parser ---------------------------------------------------------- */

/* The cheapest way found to reach a position, per state. */
struct node {
	uint32_t cost[NSTATES];
	uint32_t mlen;          /* state 0: the match (or zero run) ending here */
	uint16_t mdist;         /* 0: a zero run */
	uint8_t mfrom;          /* the state it started from */
	uint8_t rfrom;          /* state 4: from state 3 (a new run) or 4 */
	uint8_t rfirst;         /* state 4: the stream's first run */
	uint32_t rlen;          /* state 4: the run's length */
};

/* One step of a path, for the back-trace. */
struct step {
	uint32_t len, dist;     /* len 0: a literal */
};

struct parser {
	struct finder f;
	struct emitter e;
	struct node *nodes;     /* OPT_BLOCK + NICE_LEN + 1 */
	struct step *steps;     /* OPT_BLOCK + 1 */
	struct match m[NICE_LEN + 1];
	int v1;
};

static inline void relax_match(struct node *to, uint32_t cost, unsigned from, size_t len, size_t dist)
{
	if (cost < to->cost[0]) {
		to->cost[0] = cost;
		to->mfrom = (uint8_t)from;
		to->mlen = (uint32_t)len;
		to->mdist = (uint16_t)dist;
	}
}

/* The cheapest state at a node. */
static unsigned best_state(const struct node *nd)
{
	unsigned s = 0;

	for (unsigned k = 1; k < NSTATES; k++)
		if (nd->cost[k] < nd->cost[s])
			s = k;
	return s;
}

/* Walks back from (end, state) to the block's start and emits the path;
 * pos is the block's first position. */
static void emit_path(struct parser *p, size_t pos, size_t end, unsigned state)
{
	size_t j = end, nsteps = 0;

	while (j > 0) {
		const struct node *nd = &p->nodes[j];
		struct step *st = &p->steps[nsteps++];

		if (state == 0) {
			st->len = nd->mlen;
			st->dist = nd->mdist;
			state = nd->mfrom;
			j -= nd->mlen;
		} else {
			st->len = 0;
			state = state == STATE_RUN ? nd->rfrom : state - 1;
			j -= 1;
		}
	}
	for (size_t k = nsteps; k-- > 0;) {
		const struct step *st = &p->steps[k];

		if (st->len == 0) {
			literal(&p->e, pos + j);
			j += 1;
		} else {
			emit_match(&p->e, st->len, st->dist);
			j += st->len;
		}
	}
}

static void compress_all(struct parser *p)
{
	const uint8_t *const in = p->f.in;
	const size_t n = p->f.n;
	const int v1 = p->v1;
	size_t pos = 0, zend = 0;
	/* The state the next block starts in. */
	unsigned init_state = 0;
	uint32_t init_rlen = 0;
	uint8_t init_rfirst = 0;

	while (pos < n) {
		const size_t horizon = n - pos < OPT_BLOCK ? n - pos : OPT_BLOCK;
		size_t cur, end = horizon;
		size_t forced_len = 0, forced_dist = 0;

		for (size_t j = 0; j <= horizon + NICE_LEN && j <= OPT_BLOCK + NICE_LEN; j++)
			for (unsigned k = 0; k < NSTATES; k++)
				p->nodes[j].cost[k] = INF;
		p->nodes[0].cost[init_state] = 0;
		p->nodes[0].rlen = init_rlen;
		p->nodes[0].rfirst = init_rfirst;

		for (cur = 0; cur < horizon; cur++) {
			struct node *const nd = &p->nodes[cur];
			const size_t abs = pos + cur;
			const size_t left = n - abs;
			size_t nm = 0, pair_dist = 0, z = 0, longest = 0;

			if (left >= 2)
				pair_dist = pair_find(&p->f, abs);
			if (left >= MIN_MATCH) {
				nm = bt_insert(&p->f, abs, left < NICE_LEN ? left : NICE_LEN, p->m);
				if (nm)
					longest = p->m[nm - 1].len;
			}
			if (v1 && in[abs] == 0) {
				if (zend <= abs)
					for (zend = abs; zend < n && in[zend] == 0; zend++)
						;
				z = zend - abs;
			}

			/* A long match or zero run: take it from here. */
			if (longest >= NICE_LEN || (abs > 0 && z >= NICE_LEN)) {
				if (z >= NICE_LEN && z >= longest) {
					forced_len = z < RLE_MAX ? z : RLE_MAX;
					forced_dist = 0;
				} else {
					forced_dist = p->m[nm - 1].dist;
					forced_len = extend(in + abs - forced_dist, in + abs, longest, left);
					if (v1 && m4_ambiguous(forced_len, forced_dist))
						forced_len = 260;
				}
				end = cur;
				break;
			}

			/* Literals. */
			{
				struct node *const nx = &p->nodes[cur + 1];
				uint32_t a, b;

				/* At the start: the first byte's run instruction. */
				nx->cost[1] = nd->cost[0] + (abs == 0 ? 2 * BYTE_UNITS + INSN_UNITS : BYTE_UNITS);
				nx->cost[2] = nd->cost[1] + BYTE_UNITS;
				nx->cost[3] = nd->cost[2] + BYTE_UNITS;
				/* A run of 4 from 3 literals: S = 0 then, and a
				 * run instruction (at the start: the first byte). */
				a = nd->cost[3] + (abs == 3 ? BYTE_UNITS : 2 * BYTE_UNITS + INSN_UNITS);
				b = nd->cost[STATE_RUN] < INF
					    ? nd->cost[STATE_RUN] + BYTE_UNITS * (run_cost(nd->rlen + 1, nd->rfirst) -
						      run_cost(nd->rlen, nd->rfirst))
					    : INF;
				/* Equal costs: keep the run that is further from
				 * its next extension byte (a cheaper run is never
				 * worse: runs differ by at most one such byte). */
				if (a < b || (a == b && run_room(4, abs == 3) > run_room(nd->rlen + 1, nd->rfirst))) {
					nx->cost[STATE_RUN] = a;
					nx->rfrom = 3;
					nx->rlen = 4;
					nx->rfirst = abs == 3;
				} else {
					nx->cost[STATE_RUN] = b;
					nx->rfrom = STATE_RUN;
					nx->rlen = nd->rlen + 1;
					nx->rfirst = nd->rfirst;
				}
				for (unsigned k = 1; k < NSTATES; k++)
					if (nx->cost[k] > INF)
						nx->cost[k] = INF;
			}

			if (abs == 0)
				continue;       /* no history, no zero run at the start */

			/* Matches and zero runs. */
			{
				unsigned any = best_state(nd), lit13 = 1;
				const uint32_t base = nd->cost[any];
				const uint32_t run = nd->cost[STATE_RUN];
				size_t prev = MIN_MATCH - 1;

				if (base >= INF)
					continue;
				for (unsigned k = 2; k <= 3; k++)
					if (nd->cost[k] < nd->cost[lit13])
						lit13 = k;
				if (pair_dist && pair_dist <= M1A_MAX_DIST && nd->cost[lit13] < INF)
					relax_match(&p->nodes[cur + 2], nd->cost[lit13] + 2 * BYTE_UNITS + INSN_UNITS,
						    lit13, 2, pair_dist);
				for (size_t k = 0; k < nm; k++) {
					const size_t dist = p->m[k].dist;

					for (size_t len = prev + 1; len <= p->m[k].len; len++) {
						uint32_t c;

						if (choose(len, dist, 0, v1, &c) == K_NONE)
							continue;
						relax_match(&p->nodes[cur + len], base + c * BYTE_UNITS + INSN_UNITS,
							    any, len, dist);
						if (len == 3 && c > 2 && run < INF && dist >= M1B_MIN_DIST &&
						    dist <= M1B_MAX_DIST)
							relax_match(&p->nodes[cur + 3], run + 2 * BYTE_UNITS + INSN_UNITS,
								    STATE_RUN, 3, dist);
					}
					prev = p->m[k].len;
				}
				for (size_t len = RLE_MIN; len <= z; len++)
					relax_match(&p->nodes[cur + len], base + 4 * BYTE_UNITS + INSN_UNITS, any, len, 0);
			}
		}

		{
			const unsigned s = best_state(&p->nodes[end]);

			emit_path(p, pos, end, s);
			init_state = s;
			init_rlen = p->nodes[end].rlen;
			init_rfirst = p->nodes[end].rfirst;
		}
		pos += end;
		if (forced_len) {
			emit_match(&p->e, forced_len, forced_dist);
			for (size_t k = 1; k < forced_len; k++)
				skip(&p->f, pos + k);
			pos += forced_len;
			init_state = 0;
		}
	}
	flush_literals(&p->e);
}

size_t lzo_opt_bound(size_t n)
{
	/* All literals take n + n / 255 + 8 bytes (a run with its extension,
	 * the header and the end marker) and the parse finds no worse; the
	 * margin is LZO1X's customary worst case. */
	return n + n / 16 + 64;
}

size_t lzo_opt_compress(const uint8_t *in, size_t n, uint8_t *out, size_t cap, int version)
{
	struct parser *p;
	size_t size = 0;

	if (n >= UINT32_MAX - 16 || cap < lzo_opt_bound(n))
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return 0;
	p->v1 = version == 1;
	p->f.in = in;
	p->f.n = n;
	p->f.max_dist = p->v1 ? M4_MAX_DIST_V1 : M4_MAX_DIST_V0;
	p->f.head = calloc((size_t)1 << HASH_BITS, sizeof(uint32_t));
	p->f.son = calloc((size_t)2 << SLOT_BITS, sizeof(uint32_t));
	p->f.pair = calloc((size_t)1 << 16, sizeof(uint32_t));
	p->nodes = malloc((OPT_BLOCK + NICE_LEN + 1) * sizeof(struct node));
	p->steps = malloc((OPT_BLOCK + 1) * sizeof(struct step));
	if (p->f.head && p->f.son && p->f.pair && p->nodes && p->steps) {
		p->e.in = in;
		p->e.op = out;
		p->e.end = out + cap;
		p->e.v1 = p->v1;
		if (p->v1) {
			put(&p->e, 17);
			put(&p->e, 1);
		}
		compress_all(p);
		/* The end of the stream: M4 at distance 16384. */
		put(&p->e, 0x11);
		put(&p->e, 0);
		put(&p->e, 0);
		if (!p->e.overflow)
			size = (size_t)(p->e.op - out);
	}
	free(p->f.head);
	free(p->f.son);
	free(p->f.pair);
	free(p->nodes);
	free(p->steps);
	free(p);
	return size;
}
