/* zstd_decode.c - Zstandard decoder for the boot stub and the host tools:
 * its entry, zstd_decode(), and the frame layer (the other layers, one file
 * each, are listed in zstd_internal.h).
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
#include "zstd_internal.h"

#include "xxh64.h"

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
	if (zstd_get_le_n(ip, did_len) != 0)
		return DECODE_CORRUPT;
	ip += did_len;
	if (fcs_len) {
		fcs = zstd_get_le_n(ip, fcs_len);
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

				st = zstd_decode_block(&fs, ip, ip + bsize, &op, fstart, oend);
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
	zstd_code_info_init(workspace);

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

/* One frame (not a skippable one) at the start of src, with or without
 * its Frame_Content_Size, into at most dst_cap bytes. */
DECODE_STREAM(zstd)
{
	uint8_t none;   /* stands in for dst when dst_cap == 0 (dst may be NULL) */
	const uint8_t *ip = src;
	uint8_t *op;
	enum decode_status st;

	/* Guards the magic number read. */
	if (src_len < MAGIC_BYTES)
		return DECODE_TRUNCATED;
	if (load_le32(src) != ZSTD_MAGIC)
		return DECODE_CORRUPT;
	if (dst_cap == 0)
		dst = &none;    /* never written: every write is checked against oend */
	op = dst;
	zstd_code_info_init(workspace);
	st = decode_frame(workspace, &ip, src + src_len, &op, dst + dst_cap);
	if (st != DECODE_OK)
		return st;
	*src_used = (size_t)(ip - src);
	*dst_used = (size_t)(op - dst);
	return DECODE_OK;
}
