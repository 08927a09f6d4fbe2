/* relocs.h - the packer's side of a kernel's relocation table: found
 * after the ELF in a Linux bzImage's payload, or read from a build's
 * vmlinux.relocs (--relocs), checked with the stub's own walker and
 * carried at the end of the kernel's blob. */
#ifndef RELOCS_H
#define RELOCS_H

#include "kernel.h"
#include "util.h"

/* Checks table against k and appends it to k's blob; align (a power of
 * two, raised to 4 KiB) is where the kernel may run. */
int relocs_attach(struct kernel *k, const uint8_t *table, uint64_t size, uint64_t align, struct error *err);

/* A Linux payload (decompressed vmlinux plus whatever follows the ELF
 * file): the bytes after k->file_end, if any, are the table. */
int relocs_from_payload(struct kernel *k, const struct buffer *payload, uint64_t align, struct error *err);

#endif
