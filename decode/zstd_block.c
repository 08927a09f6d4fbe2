/* zstd_block.c - a compressed block of the zstd decoder (3.1.1.3): its
 * literals (zstd_huf.c), then the sequences section: its header, the
 * modes of its three tables, and the sequences decoded and executed
 * (3.1.1.3.2, 3.1.2).  The sequence loop and its only caller share this
 * file: a static loop with one caller is compiled for that caller (on
 * i686, with its arguments in registers); an extern one measured up to
 * 0.3% more instructions under QEMU's icount. */
#include "zstd_internal.h"

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
		st = zstd_fse_build(ws, t, sk->def_max, log, kind);
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

		st = zstd_read_fse_desc(*pip, (size_t)(bend - *pip), sk->max_log, sk->max_sym, ws->norm,
				   &log, &used);
		if (st != DECODE_OK)
			return st;
		st = zstd_fse_build(ws, t, sk->max_sym, log, kind);
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
		/* zstd_br_init is out of line: d itself never has its address
		 * given away, so that it can live in registers. */
		struct bitrd b;

		if (!zstd_br_init(&b, p, (size_t)(bend - p), pad))
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

ONCE enum decode_status zstd_decode_block(struct frame_state *fs, const uint8_t *ip,
					  const uint8_t *bend, uint8_t **pop, uint8_t *fstart,
					  uint8_t *oend)
{
	struct literals lit;
	enum decode_status st;
	size_t nseq;
	unsigned modes, k;

	st = zstd_decode_literals(fs, &ip, bend, &lit);
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
