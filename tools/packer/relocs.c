/* relocs.c - see relocs.h. */
#include "relocs.h"

#include <stdlib.h>
#include <string.h>

#include "bzpack_relocs.h"

#define MIN_ALIGN 4096u         /* the stub's own load alignment */

int relocs_attach(struct kernel *k, const uint8_t *table, uint64_t size, uint64_t align, struct error *err)
{
	if (k->relocs_size)
		return fail_with(err, "internal error: the kernel already has a relocation table");
	if (align & (align - 1))
		return fail_with(err, "kernel alignment 0x%llx is not a power of two", (unsigned long long)align);
	if (size > UINT32_MAX - k->blob.size)
		return fail_with(err, "relocation table of %llu bytes is too large", (unsigned long long)size);
	enum relocs_status s = relocs_walk(k->blob.data, k->blob.size, table, size, k->bits, k->virt_addr, 0, 0);
	if (s != RELOCS_OK)
		return fail_with(err, "relocation table (%llu bytes) does not fit this kernel: %s",
				 (unsigned long long)size, relocs_status_name(s));
	uint8_t *blob = realloc(k->blob.data, k->blob.size + size);
	if (!blob)
		return fail_with(err, "out of memory for the relocation table");
	memcpy(blob + k->blob.size, table, size);
	k->blob.data = blob;
	k->blob.size += size;
	k->relocs_size = size;
	k->align = align > MIN_ALIGN ? align : MIN_ALIGN;
	return 0;
}

int relocs_from_payload(struct kernel *k, const struct buffer *payload, uint64_t align, struct error *err)
{
	if (k->file_end >= payload->size)
		return 0;
	return relocs_attach(k, payload->data + k->file_end, payload->size - k->file_end, align, err);
}
