/* xz_decode.c - the .xz container (one stream of LZMA2 blocks, optionally
 * behind the x86 BCJ filter, as Linux's xz kernels are) for the boot stub
 * and the host tools.
 *
 * Written for bzpack from "The .xz File Format" (xz-file-format.txt,
 * version 1.0.4; quoted section numbers refer to it), the LZMA2 chunk
 * format as doc/LZMA2.md of github.com/ulikunitz/xz describes it (after
 * the LZMA SDK), and the x86 BCJ filter's behaviour (see
 * decode/bcj_x86.h); the LZMA decoding itself is decode/lzma_core.h.  No
 * code from xz-embedded, liblzma, the LZMA SDK or Linux was used.
 *
 * Single-call
 *   The whole input is at hand and its end is known, so the stream is
 *   read from both ends: first the Stream Header and the Stream Footer
 *   (2.1), whose Backward Size locates the Index (4), which is checked
 *   (CRC32, padding) and summed before any block is decoded: its records
 *   must add up to exactly dst_len bytes (else DECODE_SHORT_OUTPUT or
 *   DECODE_OUTPUT_OVERRUN, before anything is written) and to exactly the
 *   bytes between the Stream Header and the Index.  Then each block is
 *   decoded straight into the output and checked against its own record
 *   (Unpadded Size, Uncompressed Size), read by a cursor that walks the
 *   records alongside: no per-block storage, exact verification.
 *
 * Supported
 *   - one stream, no Stream Padding, nothing after the footer;
 *   - Check types None, CRC32 and CRC64 (the tables are computed into the
 *     workspace: no .data or .bss); SHA-256 and the reserved types are
 *     refused (DECODE_CORRUPT);
 *   - filter chains LZMA2 alone, or x86 BCJ (0x04, with or without a
 *     start offset) then LZMA2 (0x21); anything else is refused;
 *   - LZMA2 chunks: uncompressed (with or without a dictionary reset) and
 *     LZMA (no reset, state reset, new properties, dictionary reset).
 *   Every CRC or check that does not match is DECODE_CHECK_MISMATCH; it is
 *   verified before the fields it covers are trusted.
 *
 * The BCJ filter runs over a whole block's output once the block is
 * decoded (its position is counted from the block's start plus the start
 * offset, 0 for Linux's kernels), then the block's check is computed over
 * the result.
 */
#include "bcj_x86.h"
#include "crc32.h"
#include "lzma_core.h"

/* ---- Format constants --------------------------------------------------- */

#define STREAM_HEADER_SIZE      12      /* 2.1.1: magic 6, flags 2, CRC32 4 */
#define STREAM_FOOTER_SIZE      12      /* 2.1.2: CRC32 4, backward size 4, flags 2, magic 2 */
#define HEADER_MAGIC_SIZE       6       /* FD '7' 'z' 'X' 'Z' 00 */
#define HEADER_MAGIC_LO         0x587A37FDu     /* its first 4 bytes, little endian */
#define HEADER_MAGIC_HI         0x005Au         /* its last 2 */
#define STREAM_FLAGS_SIZE       2
#define CRC32_SIZE              4
#define FOOTER_BACKWARD         4       /* offset of Backward Size in the footer */
#define FOOTER_FLAGS            8
#define FOOTER_MAGIC            10
#define STREAM_FLAGS_RESERVED   0xF0u   /* second flags byte: 4..7 must be 0 */
#define CHECK_TYPE_MASK         0x0Fu

#define CHECK_NONE              0x00
#define CHECK_CRC32             0x01
#define CHECK_CRC64             0x04

#define ALIGN4                  4       /* blocks, the index: multiples of 4 bytes */
#define BLOCK_FLAGS_FILTERS     0x03u   /* 3.1.2: number of filters - 1 */
#define BLOCK_FLAGS_RESERVED    0x3Cu
#define BLOCK_FLAG_CSIZE        0x40u
#define BLOCK_FLAG_USIZE        0x80u
#define UNPADDED_MIN            5       /* 4.3.1 */
#define INDEX_INDICATOR         0x00
#define VLI_BYTES_MAX           9       /* 1.2: 63 bits, 7 per byte */

#define FILTER_X86              0x04    /* 5.3.2 */
#define FILTER_LZMA2            0x21    /* 5.3.1 */
#define BCJ_START_OFFSET_SIZE   4
#define LZMA2_DICT_RESERVED     0xC0u
#define LZMA2_DICT_BITS_MAX     40

/* LZMA2 control byte. */
#define LZMA2_END               0x00
#define LZMA2_COPY_DICT_RESET   0x01
#define LZMA2_COPY              0x02
#define LZMA2_LZMA              0x80    /* and above: an LZMA chunk */
#define LZMA2_USIZE_HIGH        0x1Fu   /* bits 16..20 of its size - 1 */
#define LZMA2_RESET_SHIFT       5
#define LZMA2_RESET_MASK        0x03u
#define LZMA2_RESET_STATE       1       /* 0xA0: state reset */
#define LZMA2_RESET_PROPS       2       /* 0xC0: and new lc/lp/pb */
#define LZMA2_RESET_DICT        3       /* 0xE0: and a dictionary reset */
#define LZMA2_COPY_HEADER       2       /* uncompressed chunk: size - 1, big endian */
#define LZMA2_LZMA_HEADER       4       /* LZMA chunk: usize - 1 (low 16), psize - 1 */

#define CRC64_POLY              0xC96C5795D7870F42ull   /* reflected ECMA-182 */

struct xz_ws {
	struct lzma_core lz;
	uint32_t crc32[8][256];         /* slicing-by-8 */
	uint64_t crc64[256];            /* only built for a CRC64 check */
};

_Static_assert(sizeof(struct xz_ws) <= DECODE_WORKSPACE_xz,
	       "decode/codecs.def: the xz workspace is too small");

/* ---- CRC32 and CRC64 (section 6) ---------------------------------------- */

/* CRC32 is decode/crc32.h's (gzip's too); the whole CRC of len bytes. */
HOT static uint32_t crc32_calc(const uint32_t t[8][256], const uint8_t *p, size_t len)
{
	return ~crc32_update(t, ~0u, p, len);
}

COLD static void crc64_init(uint64_t t[256])
{
	for (uint32_t n = 0; n < 256; n++) {
		uint64_t c = n;

		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC64_POLY & (0u - (c & 1)));
		t[n] = c;
	}
}

HOT static uint64_t crc64_calc(const uint64_t t[256], const uint8_t *p, size_t len)
{
	uint64_t crc = ~(uint64_t)0;

	for (; len; p++, len--)
		crc = (crc >> 8) ^ t[(crc ^ *p) & 0xFF];
	return ~crc;
}

/* ---- Multibyte integers (1.2) ------------------------------------------- */

/* Reads one integer at *pp, not at or past end.  7 bits per byte, least
 * significant first, the high bit says another byte follows; at most 9
 * bytes; a last byte of 0 is only valid as the first one.  Returns 0, or
 * -1 (input ends inside it, too long, or not minimally encoded). */
COLD static int read_vli(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	for (unsigned i = 0; i < VLI_BYTES_MAX; i++) {
		/* Guards the byte read. */
		if (p == end)
			return -1;
		unsigned b = *p++;

		v |= (uint64_t)(b & 0x7F) << (7 * i);
		if (!(b & 0x80)) {
			/* A zero byte after the first one would be padding. */
			if (b == 0 && i != 0)
				return -1;
			*pp = p;
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* ---- x86 BCJ (5.3.2), decoding direction -------------------------------
 * The filter itself is decode/bcj_x86.h, shared with the stub's
 * un-filter for the other codecs; a block is at hand whole, so it runs
 * once over it. */

HOT static void bcj_x86_block(uint8_t *buf, size_t size, uint32_t start)
{
	struct bcj_x86 s;

	bcj_x86_init(&s, start);
	bcj_x86_decode(&s, buf, size);
}

/* ---- LZMA2 -------------------------------------------------------------- */

/* Decodes the LZMA2 chunks of one block from *pip (not reading at or past
 * iend, the start of the Index) into [*pop, olimit), up to and including
 * the end byte.  src_end: the end of the whole input (readable).  oend:
 * the end of the whole output.  A block starts with a dictionary reset;
 * the first LZMA chunk after any dictionary reset sets new properties. */
COLD static enum decode_status lzma2_decode(struct lzma_core *lz, const uint8_t **pip,
				       const uint8_t *iend, const uint8_t *src_end,
				       uint8_t **pop, uint8_t *olimit, uint8_t *oend)
{
	const uint8_t *ip = *pip;
	uint8_t *op = *pop;
	int need_dict_reset = 1, need_props = 1;

	for (;;) {
		/* Guards the control byte. */
		if (ip == iend)
			return DECODE_TRUNCATED;
		const unsigned c = *ip++;

		if (c == LZMA2_END)
			break;
		if (c == LZMA2_COPY_DICT_RESET ||
		    c >= LZMA2_LZMA + (LZMA2_RESET_DICT << LZMA2_RESET_SHIFT)) {
			lz->dict_start = op;
			need_dict_reset = 0;
			need_props = 1;
		} else if (need_dict_reset) {
			return DECODE_CORRUPT;
		}

		if (c < LZMA2_LZMA) {
			/* Uncompressed chunk: 1..65536 bytes, copied. */
			if (c > LZMA2_COPY)
				return DECODE_CORRUPT;
			/* Guards the size field. */
			if ((size_t)(iend - ip) < LZMA2_COPY_HEADER)
				return DECODE_TRUNCATED;
			const size_t n = ((size_t)ip[0] << 8 | ip[1]) + 1;

			ip += LZMA2_COPY_HEADER;
			/* Guards the copy's source. */
			if (n > (size_t)(iend - ip))
				return DECODE_TRUNCATED;
			/* Guards the copy's destination. */
			if (n > (size_t)(olimit - op))
				return DECODE_OUTPUT_OVERRUN;
			memmove(op, ip, n); /* in place, the input lies over the output, ahead of it */
			ip += n;
			op += n;
			continue;
		}

		/* LZMA chunk: up to 2 MiB out of up to 64 KiB. */
		/* Guards the sizes. */
		if ((size_t)(iend - ip) < LZMA2_LZMA_HEADER)
			return DECODE_TRUNCATED;
		const size_t usize = ((size_t)(c & LZMA2_USIZE_HIGH) << 16 | (size_t)ip[0] << 8 | ip[1]) + 1;
		const size_t psize = ((size_t)ip[2] << 8 | ip[3]) + 1;
		const unsigned reset = (c >> LZMA2_RESET_SHIFT) & LZMA2_RESET_MASK;

		ip += LZMA2_LZMA_HEADER;
		if (reset >= LZMA2_RESET_PROPS) {
			/* Guards the properties byte. */
			if (ip == iend)
				return DECODE_TRUNCATED;
			if (lzma_set_props(lz, *ip++) != 0)
				return DECODE_CORRUPT;
			need_props = 0;
		} else if (need_props) {
			return DECODE_CORRUPT;
		}
		if (reset >= LZMA2_RESET_STATE)
			lzma_reset_state(lz);
		/* Guards the chunk's input. */
		if (psize > (size_t)(iend - ip))
			return DECODE_TRUNCATED;
		/* Guards the chunk's output. */
		if (usize > (size_t)(olimit - op))
			return DECODE_OUTPUT_OVERRUN;
		/* Guards the range coder's first bytes. */
		if (psize < RC_INIT_BYTES)
			return DECODE_CORRUPT;

		struct rc rc;
		size_t consumed;

		if (rc_init(&rc, ip) != 0)
			return DECODE_CORRUPT;
		int end = lzma_drive(lz, &rc, ip, ip + psize, src_end, &op, op + usize, oend, 0,
				     &consumed);

		if (end >= 0)
			return (enum decode_status)end;
		/* An end marker (LZMA2 has none), input used up before the
		 * output, or a chunk that does not end exactly on its last
		 * byte with a flushed range coder. */
		if (end != RUN_OUT_FULL || consumed != psize || rc.code != 0)
			return DECODE_CORRUPT;
		ip += psize;
	}
	*pip = ip;
	*pop = op;
	return DECODE_OK;
}

/* ---- Blocks ------------------------------------------------------------- */

struct block_filters {
	int bcj;                /* x86 BCJ before LZMA2 */
	uint32_t bcj_start;     /* its start offset */
	uint32_t dict_size;
	uint64_t csize, usize;  /* from the header; UINT64_MAX when absent */
};

/* Parses a Block Header (3.1) of hsize bytes at h, whose CRC32 the caller
 * has checked. */
COLD static enum decode_status parse_block_header(const uint8_t *h, size_t hsize,
					     struct block_filters *f)
{
	const uint8_t *p = h + 2;
	const uint8_t *const end = h + hsize - CRC32_SIZE;
	const unsigned flags = h[1];
	const unsigned nfilters = (flags & BLOCK_FLAGS_FILTERS) + 1;

	if (flags & BLOCK_FLAGS_RESERVED)
		return DECODE_CORRUPT;
	f->csize = f->usize = UINT64_MAX;
	if ((flags & BLOCK_FLAG_CSIZE) && (read_vli(&p, end, &f->csize) != 0 || f->csize == 0))
		return DECODE_CORRUPT;
	if ((flags & BLOCK_FLAG_USIZE) && read_vli(&p, end, &f->usize) != 0)
		return DECODE_CORRUPT;
	/* x86 BCJ then LZMA2, or LZMA2 alone. */
	if (nfilters > 2)
		return DECODE_CORRUPT;
	f->bcj = 0;
	f->bcj_start = 0;
	for (unsigned k = 0; k < nfilters; k++) {
		uint64_t id, psize;

		if (read_vli(&p, end, &id) != 0 || read_vli(&p, end, &psize) != 0)
			return DECODE_CORRUPT;
		/* Guards the properties' bytes. */
		if (psize > (uint64_t)(end - p))
			return DECODE_CORRUPT;
		if (k + 1 < nfilters) {
			if (id != FILTER_X86 || (psize != 0 && psize != BCJ_START_OFFSET_SIZE))
				return DECODE_CORRUPT;
			f->bcj = 1;
			if (psize)
				f->bcj_start = load_le32(p);
		} else {
			if (id != FILTER_LZMA2 || psize != 1)
				return DECODE_CORRUPT;
			/* 5.3.1: dictionary size, bits 6..7 reserved. */
			const unsigned d = *p;

			if ((d & LZMA2_DICT_RESERVED) || d > LZMA2_DICT_BITS_MAX)
				return DECODE_CORRUPT;
			f->dict_size = d == LZMA2_DICT_BITS_MAX
					       ? 0xFFFFFFFFu
					       : (2u | (d & 1)) << (d / 2 + 11);
		}
		p += psize;
	}
	/* 3.1.6: Header Padding is null bytes. */
	for (; p < end; p++)
		if (*p != 0)
			return DECODE_CORRUPT;
	return DECODE_OK;
}

/* ---- The stream --------------------------------------------------------- */

COLD
enum decode_status xz_decode(const uint8_t *src, size_t src_len,
			     uint8_t *dst, size_t dst_len, void *workspace)
{
	struct xz_ws *const w = workspace;
	uint8_t none;   /* stands in for dst when dst_len == 0 (dst may be NULL) */
	unsigned check;
	size_t check_size;

	/* Guards the Stream Header and Footer reads. */
	if (src_len < STREAM_HEADER_SIZE + STREAM_FOOTER_SIZE)
		return DECODE_TRUNCATED;
	crc32_init(w->crc32);

	/* 2.1.1 Stream Header. */
	/* FD 37 7A 58 5A 00, compared as two words (no constant table). */
	if (load_le32(src) != HEADER_MAGIC_LO || (src[4] | (unsigned)src[5] << 8) != HEADER_MAGIC_HI)
		return DECODE_CORRUPT;
	const uint8_t *const flags = src + HEADER_MAGIC_SIZE;

	if (crc32_calc(w->crc32, flags, STREAM_FLAGS_SIZE) != load_le32(flags + STREAM_FLAGS_SIZE))
		return DECODE_CHECK_MISMATCH;
	if (flags[0] != 0 || (flags[1] & STREAM_FLAGS_RESERVED))
		return DECODE_CORRUPT;
	check = flags[1] & CHECK_TYPE_MASK;
	if (check == CHECK_NONE)
		check_size = 0;
	else if (check == CHECK_CRC32)
		check_size = 4;
	else if (check == CHECK_CRC64)
		check_size = 8;
	else
		return DECODE_CORRUPT;          /* SHA-256 or reserved: unsupported */
	if (check == CHECK_CRC64)
		crc64_init(w->crc64);

	/* 2.1.2 Stream Footer: the input ends with it.  Without the magic
	 * the input was most likely cut short. */
	const uint8_t *const footer = src + src_len - STREAM_FOOTER_SIZE;

	if (footer[FOOTER_MAGIC] != 'Y' || footer[FOOTER_MAGIC + 1] != 'Z')
		return DECODE_TRUNCATED;
	if (crc32_calc(w->crc32, footer + FOOTER_BACKWARD, 4 + STREAM_FLAGS_SIZE) != load_le32(footer))
		return DECODE_CHECK_MISMATCH;
	if (footer[FOOTER_FLAGS] != flags[0] || footer[FOOTER_FLAGS + 1] != flags[1])
		return DECODE_CORRUPT;

	/* 4 Index: Backward Size says where it starts. */
	const uint64_t index_size = ((uint64_t)load_le32(footer + FOOTER_BACKWARD) + 1) * 4;

	/* Guards the Index's start: after the Stream Header. */
	if (index_size > (uint64_t)(src_len - STREAM_HEADER_SIZE - STREAM_FOOTER_SIZE))
		return DECODE_CORRUPT;
	const uint8_t *const index = footer - (size_t)index_size;
	const uint8_t *const index_crc = footer - CRC32_SIZE;

	if (crc32_calc(w->crc32, index, (size_t)index_size - CRC32_SIZE) != load_le32(index_crc))
		return DECODE_CHECK_MISMATCH;
	if (index[0] != INDEX_INDICATOR)
		return DECODE_CORRUPT;

	/* First pass over the records: sizes and shape, before decoding. */
	const uint8_t *p = index + 1;
	const uint8_t *records;
	uint64_t count, n, out_total = 0, in_total = 0;
	const uint64_t blocks_size = (uint64_t)(index - (src + STREAM_HEADER_SIZE));

	if (read_vli(&p, index_crc, &count) != 0)
		return DECODE_CORRUPT;
	records = p;
	for (n = 0; n < count; n++) {
		uint64_t unpadded, usize;

		/* Guards the record reads: each stays before the CRC32. */
		if (read_vli(&p, index_crc, &unpadded) != 0 || read_vli(&p, index_crc, &usize) != 0)
			return DECODE_CORRUPT;
		if (unpadded < UNPADDED_MIN)
			return DECODE_CORRUPT;
		/* Guards the sums: both stay within what they must equal. */
		if (usize > dst_len - out_total)
			return DECODE_OUTPUT_OVERRUN;
		out_total += usize;
		unpadded = (unpadded + ALIGN4 - 1) & ~(uint64_t)(ALIGN4 - 1);
		if (unpadded > blocks_size - in_total)
			return DECODE_CORRUPT;
		in_total += unpadded;
	}
	/* 4.4 Index Padding: 0..3 null bytes up to the CRC32. */
	if (index_crc - p >= ALIGN4)
		return DECODE_CORRUPT;
	for (; p < index_crc; p++)
		if (*p != 0)
			return DECODE_CORRUPT;
	if (out_total != dst_len)
		return DECODE_SHORT_OUTPUT;
	if (in_total != blocks_size)
		return DECODE_CORRUPT;

	/* 3 Blocks, each checked against its record. */
	if (dst_len == 0)
		dst = &none;    /* never written: every block's output is empty */
	const uint8_t *bp = src + STREAM_HEADER_SIZE;
	const uint8_t *const src_end = src + src_len;
	uint8_t *op = dst;
	uint8_t *const oend = dst + dst_len;

	p = records;
	for (n = 0; n < count; n++) {
		uint64_t rec_unpadded, rec_usize;
		struct block_filters f;
		enum decode_status st;

		/* Validated by the first pass. */
		read_vli(&p, index_crc, &rec_unpadded);
		read_vli(&p, index_crc, &rec_usize);

		/* 3.1.1 Block Header Size; 0 would be the Index Indicator. */
		const size_t hsize = ((size_t)bp[0] + 1) * 4;

		if (bp[0] == 0)
			return DECODE_CORRUPT;
		/* Guards the header read: it stays before the Index. */
		if (hsize > (size_t)(index - bp))
			return DECODE_CORRUPT;
		if (crc32_calc(w->crc32, bp, hsize - CRC32_SIZE) != load_le32(bp + hsize - CRC32_SIZE))
			return DECODE_CHECK_MISMATCH;
		st = parse_block_header(bp, hsize, &f);
		if (st != DECODE_OK)
			return st;
		if (f.usize != UINT64_MAX && f.usize != rec_usize)
			return DECODE_CORRUPT;

		/* 3.2 Compressed Data: its output is exactly the record's
		 * size (the first pass keeps it inside dst). */
		const uint8_t *const data = bp + hsize;
		const uint8_t *ip = data;
		uint8_t *const block_out = op;
		uint8_t *const block_end = op + (size_t)rec_usize;

		lzma_set_dict_size(&w->lz, f.dict_size);
		st = lzma2_decode(&w->lz, &ip, index, src_end, &op, block_end, oend);
		if (st != DECODE_OK)
			return st;
		if (op != block_end)
			return DECODE_CORRUPT;
		const uint64_t csize = (uint64_t)(ip - data);

		if (f.csize != UINT64_MAX && f.csize != csize)
			return DECODE_CORRUPT;
		/* 3.3 Block Padding: null bytes up to a multiple of 4 from
		 * the stream's start. */
		while ((size_t)(ip - src) % ALIGN4) {
			/* Guards the padding read: before the Index. */
			if (ip == index)
				return DECODE_CORRUPT;
			if (*ip++ != 0)
				return DECODE_CORRUPT;
		}
		/* 3.4 Check.  Guards its read: before the Index. */
		if (check_size > (size_t)(index - ip))
			return DECODE_CORRUPT;
		if (hsize + csize + check_size != rec_unpadded)
			return DECODE_CORRUPT;

		if (f.bcj)
			bcj_x86_block(block_out, (size_t)rec_usize, f.bcj_start);
		if (check == CHECK_CRC32) {
			if (crc32_calc(w->crc32, block_out, (size_t)rec_usize) != load_le32(ip))
				return DECODE_CHECK_MISMATCH;
		} else if (check == CHECK_CRC64) {
			uint64_t c = crc64_calc(w->crc64, block_out, (size_t)rec_usize);

			if ((uint32_t)c != load_le32(ip) || (uint32_t)(c >> 32) != load_le32(ip + 4))
				return DECODE_CHECK_MISMATCH;
		}
		bp = ip + check_size;
	}
	/* Every block accounted for: the Index follows the last one. */
	if (bp != index)
		return DECODE_CORRUPT;
	return DECODE_OK;
}
