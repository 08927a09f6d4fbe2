/* bcj_x86.h - the x86 branch converter (BCJ) of the .xz format (5.3.2 of
 * xz-file-format.txt), both directions, resumable: one copy for the xz
 * decoder (decode/xz_decode.c), for the stub's un-filter after any codec
 * (stub/bcj.c) and for the packer's filter before compressing.
 *
 * The encoder turns the rel32 operand of some E8 (call) and E9 (jmp)
 * opcodes into an absolute address, operand + (position after the
 * instruction), so that repeated calls to one function look alike to the
 * compressor; the decoder undoes it.  Which opcodes are converted depends
 * only on bytes the conversion leaves alone, so both sides find the same:
 *   - an opcode is examined unless it lies inside the operand of one that
 *     was converted; the last 4 bytes of the data are never examined;
 *   - it is converted when the operand's top byte is 0x00 or 0xFF (a near
 *     target), unless among the opcodes examined and left alone in the 3
 *     bytes before it there are two or more, or one whose own operand's
 *     top byte was 0x00 or 0xFF;
 *   - with one such opcode d bytes back (d = 1..3), its operand's top byte
 *     is byte 3 - d of ours, so our address could have been mistaken for
 *     its operand: if that byte of the result is 0x00 or 0xFF, the low
 *     32 - 8d bits are complemented and the position applied once more
 *     (the decoder needs this once: the repeat test would look at the
 *     complement of that other operand's top byte, which was not 0x00 or
 *     0xFF; the encoder repeats while the test holds, as xz does);
 *   - the result's top byte is written back as 0x00 or 0xFF after bit 24.
 * This is the BCJ x86 filter of the LZMA SDK (Bra86) and of xz; xz's
 * src/liblzma/simple/x86.c was read to pin these rules down (its
 * prev_mask is our hist, shifted one byte at a time there, by the whole
 * gap here), and tests/test_bcj.c checks both directions against
 * liblzma's filter.
 *
 * Resumable: bcj_x86_run(s, buf, avail) converts every opcode that lies
 * wholly inside buf[0, avail) and keeps where it stopped in s, so the
 * caller can run it over a buffer as it fills (avail growing), and the
 * result is the same as one run over the whole buffer: the last run's
 * avail is the buffer's size, and an opcode is examined only once its
 * operand has arrived. */
#ifndef BCJ_X86_H
#define BCJ_X86_H

#include <stddef.h>
#include <stdint.h>

#include "compiler.h"
#include "mem.h"

#define BCJ_INSN_SIZE 5         /* E8/E9 and a rel32 */

struct bcj_x86 {
	size_t next;            /* the first byte not yet examined */
	size_t prev;            /* the last opcode examined */
	unsigned hist;          /* see bcj_x86_run */
	uint32_t start;         /* the position of buf[0] (xz's start offset) */
};

static inline void bcj_x86_init(struct bcj_x86 *s, uint32_t start)
{
	s->next = 0;
	s->prev = 0;
	s->hist = 0;
	s->start = start;
}

static ALWAYS_INLINE int bcj_near_byte(unsigned b)
{
	return b == 0x00 || b == 0xFF;
}

/* The opcode scan looks at a machine word at a time: bytes equal to E8
 * or E9 are those that become zero after XOR E8 and clearing bit 0, and
 * the classic test for a zero byte, (y - 0x01..01) & ~y & 0x80..80,
 * flags the first of them exactly (a borrow only ever spreads upwards,
 * past a true zero byte).  The word is read as little endian. */
typedef uintptr_t bcj_word;
#define BCJ_ONES (~(bcj_word)0 / 0xFF)          /* 0x01 in every byte */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "bcj_x86_run reads words as little endian");

static ALWAYS_INLINE void bcj_x86_run(struct bcj_x86 *s, uint8_t *buf, size_t avail, int encode)
{
	/* hist, as seen from the opcode being examined: bit d (1..3) = an
	 * opcode d bytes back was examined and left alone; bit 4 + d = its
	 * operand's top byte was 0x00 or 0xFF.  Bits 0 and 4 describe the
	 * opcode just examined, until the next one shifts them by the gap. */
	unsigned hist = s->hist;
	size_t i = s->next, prev = s->prev;

	if (avail < BCJ_INSN_SIZE)
		return;
	const size_t last = avail - BCJ_INSN_SIZE;      /* the last opcode examinable now */

	for (;;) {
		/* Find the next E8/E9 at i..last.  Guards the word reads:
		 * i + sizeof(word) <= last < avail. */
		while (i + sizeof(bcj_word) <= last) {
			bcj_word w;

			memcpy(&w, buf + i, sizeof w);
			w = (w ^ (BCJ_ONES * 0xE8)) & (BCJ_ONES * 0xFE);
			w = (w - BCJ_ONES) & ~w & (BCJ_ONES * 0x80);
			if (w) {
				i += (size_t)__builtin_ctzl((unsigned long)w) / 8;
				goto opcode;
			}
			i += sizeof w;
		}
		while (i <= last && (buf[i] & 0xFE) != 0xE8)
			i++;
		if (i > last)
			break;
opcode:;
		const size_t gap = i - prev;

		prev = i;
		/* Age the history by gap bytes, dropping what passes 3. */
		hist = gap > 3 ? 0 : (hist & (((1u << (4 - gap)) - 1) * 0x11u)) << gap;

		/* Guards nothing: i <= last keeps buf[i..i+4] inside. */
		const unsigned top = buf[i + 4];
		const unsigned near = (hist >> 1) & 7;  /* opcodes 1..3 bytes back */

		/* Allowed: none, or exactly one (near is 1, 2 or 4), and no
		 * near operand among them. */
		if (bcj_near_byte(top) && (hist >> 5) == 0 && ((0x17u >> near) & 1)) {
			const uint32_t pc = s->start + (uint32_t)i + BCJ_INSN_SIZE;
			uint32_t x = load_le32(buf + i + 1);
			uint32_t v = encode ? x + pc : x - pc;

			if (near) {
				/* d = 1, 2, 3: the byte at bit 24 - 8d. */
				const unsigned sh = near == 1 ? 16 : near == 2 ? 8 : 0;

				while (bcj_near_byte((v >> sh) & 0xFF)) {
					x = v ^ ((1u << (sh + 8)) - 1);
					v = encode ? x + pc : x - pc;
					if (!encode)
						break;
				}
			}
			buf[i + 1] = (uint8_t)v;
			buf[i + 2] = (uint8_t)(v >> 8);
			buf[i + 3] = (uint8_t)(v >> 16);
			buf[i + 4] = (uint8_t)(0u - ((v >> 24) & 1));
			i += BCJ_INSN_SIZE;
			hist = 0;
		} else {
			hist |= 1u | (unsigned)bcj_near_byte(top) << 4;
			i++;
		}
	}
	s->next = i;
	s->prev = prev;
	s->hist = hist;
}

/* Undo the filter on what of buf[0, avail) has not been undone yet. */
static inline void bcj_x86_decode(struct bcj_x86 *s, uint8_t *buf, size_t avail)
{
	bcj_x86_run(s, buf, avail, 0);
}

/* Apply the filter (the packer, and the tests). */
static inline void bcj_x86_encode(struct bcj_x86 *s, uint8_t *buf, size_t avail)
{
	bcj_x86_run(s, buf, avail, 1);
}

#endif
