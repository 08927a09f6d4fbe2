/* lzma_decode.c - the legacy .lzma container ("LZMA_Alone") for the boot
 * stub and the host tools.
 *
 * Written for bzpack from "The .lzma File Format" (xz's
 * lzma-file-format.txt, 2022-07-13) and the LZMA SDK's
 * lzma-specification.txt; the LZMA decoding itself is decode/lzma_core.h.
 *
 * The container is a 13-byte header and one raw LZMA stream:
 *
 *   offset 0  properties byte, (pb * 5 + lp) * 9 + lc
 *          1  dictionary size, 32-bit little endian
 *          5  uncompressed size, 64-bit little endian; all ones: unknown
 *         13  LZMA data
 *
 * Choices
 *   - A known size must equal dst_len (smaller: DECODE_SHORT_OUTPUT,
 *     larger: DECODE_OUTPUT_OVERRUN).  The stream then ends either right
 *     after the last byte's symbol, or with an end marker after it (both
 *     are allowed, as xz 5.3+ allows them).
 *   - An unknown size needs the end marker; it must come exactly after
 *     dst_len bytes (earlier: DECODE_SHORT_OUTPUT; anything else after
 *     dst_len bytes: DECODE_OUTPUT_OVERRUN).
 *   - lc + lp <= 4, as liblzma requires: the workspace holds 16 literal
 *     coders (DECODE_CORRUPT otherwise).
 *   - Distances are held to the dictionary size the way liblzma holds
 *     them (at least 4 KiB, rounded up to 16), though the whole output is
 *     at hand: the two decoders accept the same streams.
 *   - The input must end where the stream ends (no trailing bytes), and
 *     the range coder must end flushed (code 0), as liblzma checks.
 */
#include "lzma_core.h"

#define HDR_PROPS       0
#define HDR_DICT_SIZE   1
#define HDR_USIZE       5
#define HDR_SIZE        13
#define USIZE_UNKNOWN   UINT64_MAX

_Static_assert(sizeof(struct lzma_core) <= DECODE_WORKSPACE_lzma,
	       "decode/codecs.def: the lzma workspace is too small");

enum decode_status lzma_decode(const uint8_t *src, size_t src_len,
			       uint8_t *dst, size_t dst_len, void *workspace)
{
	struct lzma_core *const s = workspace;
	uint8_t none;   /* stands in for dst when dst_len == 0 (dst may be NULL) */
	struct rc rc;
	uint64_t usize;
	size_t data_len, consumed;
	uint8_t *op;
	int end;

	/* Guards the header and the range coder's first bytes. */
	if (src_len < HDR_SIZE + RC_INIT_BYTES)
		return DECODE_TRUNCATED;
	if (lzma_set_props(s, src[HDR_PROPS]) != 0)
		return DECODE_CORRUPT;
	lzma_set_dict_size(s, load_le32(src + HDR_DICT_SIZE));
	usize = load_le64(src + HDR_USIZE);
	if (usize != USIZE_UNKNOWN) {
		if (usize < dst_len)
			return DECODE_SHORT_OUTPUT;
		if (usize > dst_len)
			return DECODE_OUTPUT_OVERRUN;
	}
	if (dst_len == 0)
		dst = &none;    /* never written: the output limit is dst itself */

	const uint8_t *const data = src + HDR_SIZE;
	const uint8_t *const iend = src + src_len;

	data_len = src_len - HDR_SIZE;
	s->dict_start = dst;
	lzma_reset_state(s);
	if (rc_init(&rc, data) != 0)
		return DECODE_CORRUPT;
	op = dst;
	end = lzma_drive(s, &rc, data, iend, iend, &op, dst + dst_len, dst + dst_len, 0, &consumed);
	if (end >= 0)
		return (enum decode_status)end;
	/* Reading past the data (into the tail's padding): cut short. */
	if (consumed > data_len || end == RUN_IN_LIMIT)
		return DECODE_TRUNCATED;
	if (end == RUN_MARKER)
		return DECODE_SHORT_OUTPUT;     /* before dst_len bytes */

	/* dst_len bytes out.  With a known size the stream may end here. */
	if (usize != USIZE_UNKNOWN && consumed == data_len && rc.code == 0)
		return DECODE_OK;
	/* Otherwise one more symbol, the end marker, must follow. */
	rc.ip = data + consumed;
	end = lzma_drive(s, &rc, data, iend, iend, &op, op, op, 1, &consumed);
	if (end >= 0)
		return (enum decode_status)end;
	if (consumed > data_len || end == RUN_IN_LIMIT)
		return DECODE_TRUNCATED;
	/* Trailing bytes, or a range coder that was not flushed. */
	if (consumed < data_len || rc.code != 0)
		return DECODE_CORRUPT;
	return DECODE_OK;
}

/* The one .lzma stream at the start of src: as lzma_decode, except that
 * the output is at most dst_cap bytes, an unknown size ends at the end
 * marker wherever it comes, and anything may follow the stream.  With a
 * known size and no end marker, the stream ends after the symbol that
 * completes the size; an end marker right after it is taken as the
 * stream's own (a following stream's bytes could decode as one only by a
 * 1-in-2^30-odd chance, and would then fail as the next piece). */
DECODE_STREAM(lzma)
{
	struct lzma_core *const s = workspace;
	uint8_t none;   /* stands in for dst when the limit is 0 (dst may be NULL) */
	struct rc rc;
	uint64_t usize;
	size_t data_len, consumed, limit;
	uint8_t *op;
	int end;

	/* Guards the header and the range coder's first bytes. */
	if (src_len < HDR_SIZE + RC_INIT_BYTES)
		return DECODE_TRUNCATED;
	if (lzma_set_props(s, src[HDR_PROPS]) != 0)
		return DECODE_CORRUPT;
	lzma_set_dict_size(s, load_le32(src + HDR_DICT_SIZE));
	usize = load_le64(src + HDR_USIZE);
	if (usize != USIZE_UNKNOWN && usize > dst_cap)
		return DECODE_OUTPUT_OVERRUN;
	limit = usize != USIZE_UNKNOWN ? (size_t)usize : dst_cap;
	if (limit == 0)
		dst = &none;    /* never written: the output limit is dst itself */

	const uint8_t *const data = src + HDR_SIZE;
	const uint8_t *const iend = src + src_len;

	data_len = src_len - HDR_SIZE;
	s->dict_start = dst;
	lzma_reset_state(s);
	if (rc_init(&rc, data) != 0)
		return DECODE_CORRUPT;
	op = dst;
	end = lzma_drive(s, &rc, data, iend, iend, &op, dst + limit, dst + limit, 0, &consumed);
	if (end >= 0)
		return (enum decode_status)end;
	if (consumed > data_len || end == RUN_IN_LIMIT)
		return DECODE_TRUNCATED;
	if (end == RUN_MARKER) {
		if (usize != USIZE_UNKNOWN)
			return DECODE_SHORT_OUTPUT;     /* before the size it gives */
		if (rc.code != 0)
			return DECODE_CORRUPT;
	} else {
		/* limit bytes out: an end marker may follow (it must, for an
		 * unknown size, or the stream holds more than dst_cap). */
		const size_t at_limit = consumed;
		const uint32_t code_at_limit = rc.code;

		rc.ip = data + consumed;
		end = lzma_drive(s, &rc, data, iend, iend, &op, op, op, 1, &consumed);
		if (end == RUN_MARKER && consumed <= data_len && rc.code == 0) {
			/* the marker ends it */
		} else if (usize != USIZE_UNKNOWN) {
			if (code_at_limit != 0)
				return DECODE_CORRUPT;
			consumed = at_limit;
		} else {
			if (end == RUN_MARKER || end == RUN_IN_LIMIT || consumed > data_len)
				return end == RUN_MARKER ? DECODE_CORRUPT : DECODE_TRUNCATED;
			return end >= 0 ? (enum decode_status)end : DECODE_OUTPUT_OVERRUN;
		}
	}
	*src_used = HDR_SIZE + consumed;
	*dst_used = (size_t)(op - dst);
	return DECODE_OK;
}
