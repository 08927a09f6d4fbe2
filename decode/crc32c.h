/* crc32c.h - CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), the
 * checksum over bzpack's header, and over the payload where the CPU has
 * SSE4.2 (without it, XXH3-64: decode/xxh3.h).  One source for the stub, the
 * test kernels and the host tools.  The tables are built at run time into
 * caller memory: the stub has no .bss, so they live on its stack. */
#ifndef CRC32C_H
#define CRC32C_H

#include <stddef.h>
#include <stdint.h>

#define CRC32C_POLY_REFLECTED 0x82f63b78u

/* The SSE4.2 crc32 instruction where the CPU has it (every x86 since
 * 2008); otherwise slicing-by-8: eight 256-entry tables, eight input bytes
 * per step. */
struct crc32c_table {
	int hw;                 /* use the crc32 instruction */
	uint32_t t[8][256];     /* built only when !hw */
};

/* Probes the CPU and builds the tables if it must; force_tables skips the
 * probe (the host tests check both paths). */
void crc32c_init(struct crc32c_table *tab, int force_tables);

/* Continue a CRC: crc32c_update(tab, 0, a, n) starts a new one; the
 * pre- and post-inversion are done inside, so calls chain. */
uint32_t crc32c_update(const struct crc32c_table *tab, uint32_t crc,
		       const void *buf, size_t len);

#endif
