/* xxh3.h - XXH3-64 (the xxHash specification, "XXH3 Algorithm
 * Description"), seed 0 and the default secret: the payload check of the
 * boot stub and the packer where the CPU has no SSE4.2 for CRC32C
 * (include/bzpack_format.h, payload_xxh3; README, "Integrity"). */
#ifndef XXH3_H
#define XXH3_H

#include <stddef.h>
#include <stdint.h>

/* XXH3_64bits(buf, len) as libxxhash computes it.  Large inputs take the
 * SSE2 loop (decode/xxh3.c): the host's, the 32-bit stub's (its head
 * enables SSE2, which it requires) and the 64-bit stub's (long mode
 * implies SSE2; its head enables it). */
uint64_t xxh3_64(const void *buf, size_t len);

#endif
