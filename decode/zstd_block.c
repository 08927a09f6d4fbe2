/* zstd_block.c - a compressed block of the zstd decoder (3.1.1.3): the
 * literals section, then the sequences section's header and the modes of
 * its three tables; zstd_seq.c decodes and executes the sequences. */
#include "zstd_internal.h"

/* ---- Literals section (3.1.1.3.1) ----------------------------------------- */


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
			st = zstd_huf_read_tree(ws, ip, ip + csize, &tree, &fs->huf_bits);
			if (st != DECODE_OK)
				return st;
		} else if (fs->huf_bits == 0) {
			/* Treeless: a Huffman table from an earlier block of
			 * this frame is required. */
			return DECODE_CORRUPT;
		}
		if (sf == 0)
			st = zstd_huf_1stream(ws->huf, ip + tree, csize - tree, ws->lit, regen);
		else
			st = zstd_huf_4streams(ws->huf, ip + tree, csize - tree, ws->lit, regen);
		if (st != DECODE_OK)
			return st;
		lit->p = ws->lit;
		lit->end = ws->lit + regen;
		lit->limit = ws->lit + sizeof(ws->lit);
		*pip = ip + csize;
		return DECODE_OK;
	}
}

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

/* ---- Compressed block (3.1.1.3) ------------------------------------------- */

ONCE enum decode_status zstd_decode_block(struct frame_state *fs, const uint8_t *ip,
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
	return zstd_exec_sequences(fs, ip, bend, nseq, &lit, pop, fstart, oend);
}
