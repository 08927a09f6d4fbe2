/* elf_kernel.c - an ELF32/ELF64 x86 executable (a vmlinux or a test
 * kernel) to a struct kernel.  Every field read from the file is checked
 * against the file's size before use. */
#define _GNU_SOURCE /* memmem */
#include "kernel.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define LOW_MEMORY_END     0x100000ull     /* BIOS, real-mode part, boot_params */
#define ADDR_LIMIT         (1ull << 32)    /* the stub reaches the low 4 GiB */
#define MAX_KERNEL_SPAN    (1ull << 30)    /* anything larger is not a kernel */
#define MAX_SEGMENTS       64

struct segment {
	uint64_t offset, paddr, vaddr, filesz, memsz, align;
};

/* What tells the two ELF classes apart: the rest of a header is the same
 * fields in narrower or wider structs. */
static const struct elf_class {
	unsigned char id;
	int bits;
	size_t ehdr_size, phdr_size;
	unsigned machine;
	const char *arch;
} classes[] = {
	{ ELFCLASS64, 64, sizeof(Elf64_Ehdr), sizeof(Elf64_Phdr), EM_X86_64, "x86-64" },
	{ ELFCLASS32, 32, sizeof(Elf32_Ehdr), sizeof(Elf32_Phdr), EM_386, "i386" },
};

/* The ELF header fields read here, widened from either class. */
struct ehdr {
	uint64_t type, machine, entry, flags, phoff, phentsize, phnum, shoff, shentsize, shnum;
};

/* Elf32_* and Elf64_* name the same fields, so one list of them serves
 * both classes' structs. */
#define WIDEN_EHDR(h, eh)                                                                           \
	(*(h) = (struct ehdr){ (eh).e_type,  (eh).e_machine, (eh).e_entry,     (eh).e_flags,             \
			       (eh).e_phoff, (eh).e_phentsize, (eh).e_phnum,   (eh).e_shoff,             \
			       (eh).e_shentsize, (eh).e_shnum })
#define WIDEN_PHDR(s, ptype, pflags, ph)                                                            \
	((ptype) = (ph).p_type, (pflags) = (ph).p_flags,                                            \
	 (s) = (struct segment){ (ph).p_offset, (ph).p_paddr, (ph).p_vaddr, (ph).p_filesz, (ph).p_memsz, \
				 (ph).p_align })

/* The program headers an image's ELF record keeps (bzpack_elf.h): every
 * PT_LOAD, and any other whose bytes --extract can place again, inside a
 * PT_LOAD's at the same distance from its start in the file and in
 * memory, or that has none. */
static void keep_phdrs(struct kernel_elf *e, const struct segment *all, const uint32_t *types,
		       const uint32_t *flags, int n)
{
	e->phnum = 0;
	for (int i = 0; i < n && e->phnum < BZPACK_ELF_PHDRS_MAX; i++) {
		const struct segment *s = &all[i];
		int keep = types[i] == PT_LOAD || s->filesz == 0;
		for (int j = 0; j < n && !keep; j++) {
			const struct segment *l = &all[j];
			keep = types[j] == PT_LOAD && s->offset >= l->offset && s->vaddr >= l->vaddr &&
			       s->offset - l->offset == s->vaddr - l->vaddr && s->filesz <= l->filesz &&
			       s->offset - l->offset <= l->filesz - s->filesz;
		}
		if (keep)
			e->ph[e->phnum++] = (struct bzpack_elf_phdr){ types[i], flags[i], s->vaddr, s->paddr,
								       s->filesz, s->memsz, s->align };
	}
}

static int by_paddr(const void *a, const void *b)
{
	const struct segment *x = a, *y = b;
	return x->paddr < y->paddr ? -1 : x->paddr > y->paddr;
}

/* Read the header fields both classes share into one shape. */
static int read_headers(const struct buffer *f, int *bits, uint64_t *entry, uint64_t *file_end,
			struct segment *segs, int *nsegs, struct kernel_elf *elf, struct error *err)
{
	const uint8_t *d = f->data;
	struct segment all[BZPACK_ELF_PHDRS_MAX];
	uint32_t types[BZPACK_ELF_PHDRS_MAX], flags[BZPACK_ELF_PHDRS_MAX];
	int nall = 0;

	if (f->size < EI_NIDENT || memcmp(d, ELFMAG, SELFMAG) != 0)
		return fail_with(err, "not an ELF file or a bzImage");
	if (d[EI_DATA] != ELFDATA2LSB)
		return fail_with(err, "ELF file is not little-endian");

	const struct elf_class *c = NULL;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (classes[i].id == d[EI_CLASS])
			c = &classes[i];
	if (!c)
		return fail_with(err, "unknown ELF class %u", d[EI_CLASS]);
	if (f->size < c->ehdr_size)
		return fail_with(err, "truncated ELF%d header (%zu bytes)", c->bits, f->size);
	struct ehdr h;
	if (c->bits == 64) {
		Elf64_Ehdr eh;
		memcpy(&eh, d, sizeof(eh));
		WIDEN_EHDR(&h, eh);
	} else {
		Elf32_Ehdr eh;
		memcpy(&eh, d, sizeof(eh));
		WIDEN_EHDR(&h, eh);
	}
	if (h.machine != c->machine)
		return fail_with(err, "ELF%d file is not for %s (e_machine %llu)", c->bits, c->arch,
				 (unsigned long long)h.machine);
	if (h.phentsize != c->phdr_size)
		return fail_with(err, "bad program header size %llu", (unsigned long long)h.phentsize);
	*bits = c->bits, *entry = h.entry, elf->flags = (uint32_t)h.flags;
	elf->elf_class = d[EI_CLASS], elf->osabi = d[EI_OSABI], elf->machine = (uint16_t)h.machine;
	if (h.type != ET_EXEC)
		return fail_with(err, "ELF file is not an executable (e_type %llu)", (unsigned long long)h.type);
	if (h.phnum == 0)
		return fail_with(err, "ELF file has no program headers");
	if (h.phoff > f->size || h.phnum * h.phentsize > f->size - h.phoff)
		return fail_with(err, "program headers lie beyond the end of the file");
	/* Where the ELF file ends: Linux appends the relocation table to it
	 * in a bzImage's payload.  The section table comes last in a vmlinux;
	 * the segments' extents are taken in below. */
	*file_end = h.phoff + h.phnum * h.phentsize;
	if (h.shnum && h.shoff <= f->size && h.shnum * h.shentsize <= f->size - h.shoff &&
	    h.shoff + h.shnum * h.shentsize > *file_end)
		*file_end = h.shoff + h.shnum * h.shentsize;

	*nsegs = 0;
	for (uint64_t i = 0; i < h.phnum; i++) {
		const uint8_t *p = d + h.phoff + i * h.phentsize;
		struct segment s;
		uint32_t ptype, pflags;
		if (*bits == 64) {
			Elf64_Phdr ph;
			memcpy(&ph, p, sizeof(ph));
			WIDEN_PHDR(s, ptype, pflags, ph);
		} else {
			Elf32_Phdr ph;
			memcpy(&ph, p, sizeof(ph));
			WIDEN_PHDR(s, ptype, pflags, ph);
		}
		int loads = ptype == PT_LOAD && (s.memsz != 0 || s.filesz != 0);
		if (loads && *nsegs == MAX_SEGMENTS)
			return fail_with(err, "more than %d PT_LOAD segments", MAX_SEGMENTS);
		if (nall < BZPACK_ELF_PHDRS_MAX)
			all[nall] = s, types[nall] = ptype, flags[nall++] = pflags;
		else if (ptype == PT_LOAD)
			return fail_with(err, "more than %d program headers: an image cannot keep them all",
					 BZPACK_ELF_PHDRS_MAX);
		/* An empty PT_LOAD loads nothing; one with file bytes but
		 * no memory is caught as filesz > memsz below. */
		if (!loads)
			continue;
		segs[(*nsegs)++] = s;
		if (s.offset <= f->size && s.filesz <= f->size - s.offset && s.offset + s.filesz > *file_end)
			*file_end = s.offset + s.filesz;
	}
	if (*nsegs == 0)
		return fail_with(err, "ELF file has no PT_LOAD segment");
	keep_phdrs(elf, all, types, flags, nall);
	return 0;
}

static int check_segments(const struct buffer *f, int bits, struct segment *segs, int n,
			  struct error *err)
{
	for (int i = 0; i < n; i++) {
		const struct segment *s = &segs[i];
		if (s->filesz > s->memsz)
			return fail_with(err, "segment at 0x%llx has filesz > memsz", (unsigned long long)s->paddr);
		if (s->offset > f->size || s->filesz > f->size - s->offset)
			return fail_with(err, "segment at 0x%llx runs past the end of the file (truncated?)",
					 (unsigned long long)s->paddr);
		if (s->memsz > MAX_KERNEL_SPAN)
			return fail_with(err, "segment at 0x%llx has an absurd memsz of %llu bytes",
					 (unsigned long long)s->paddr, (unsigned long long)s->memsz);
		if (s->paddr < LOW_MEMORY_END)
			return fail_with(err, "segment loads at 0x%llx, below 1 MiB", (unsigned long long)s->paddr);
		if (s->paddr >= ADDR_LIMIT || s->memsz > ADDR_LIMIT - s->paddr)
			return fail_with(err, "%d-bit segment at 0x%llx reaches above 4 GiB", bits,
					 (unsigned long long)s->paddr);
	}
	qsort(segs, (size_t)n, sizeof(*segs), by_paddr);
	for (int i = 1; i < n; i++)
		if (segs[i - 1].paddr + segs[i - 1].memsz > segs[i].paddr)
			return fail_with(err, "segments at 0x%llx and 0x%llx overlap",
					 (unsigned long long)segs[i - 1].paddr, (unsigned long long)segs[i].paddr);
	return 0;
}

/* "Linux version 6.1.0-28-amd64 (...) #1 SMP ..." -> the part after the
 * prefix, as Linux's own bzImage puts it in kernel_version. */
static void find_version(struct kernel *k)
{
	static const char prefix[] = "Linux version ";
	const uint8_t *d = k->blob.data, *end = d + k->blob.size;

	k->version[0] = 0;
	for (const uint8_t *p = d; (p = memmem(p, (size_t)(end - p), prefix, sizeof(prefix) - 1)); p++) {
		const uint8_t *v = p + sizeof(prefix) - 1;
		size_t n = 0;
		while (v + n < end && n < KERNEL_VERSION_MAX - 1 && v[n] >= 0x20 && v[n] < 0x7f)
			n++;
		if (n >= 5 && v[0] >= '0' && v[0] <= '9') {  /* a real banner, not a format string */
			memcpy(k->version, v, n);
			k->version[n] = 0;
			return;
		}
	}
}

int kernel_from_elf(const struct buffer *f, int want_bits, struct kernel *k, struct error *err)
{
	struct segment segs[MAX_SEGMENTS];
	int n;

	memset(k, 0, sizeof(*k));
	k->packed_level = -1;
	if (read_headers(f, &k->bits, &k->entry, &k->file_end, segs, &n, &k->elf, err) < 0)
		return -1;
	if (want_bits && want_bits != k->bits)
		return fail_with(err, "ELF%d file, but a %d-bit kernel was asked for", k->bits, want_bits);
	if (check_segments(f, k->bits, segs, n, err) < 0)
		return -1;

	uint64_t lo = segs[0].paddr, file_hi = lo, mem_hi = 0;
	for (int i = 0; i < n; i++) {
		if (segs[i].filesz && segs[i].paddr + segs[i].filesz > file_hi)
			file_hi = segs[i].paddr + segs[i].filesz;
		if (segs[i].paddr + segs[i].memsz > mem_hi)
			mem_hi = segs[i].paddr + segs[i].memsz;
	}
	if (mem_hi - lo > MAX_KERNEL_SPAN)
		return fail_with(err, "segments span %llu bytes: not a kernel", (unsigned long long)(mem_hi - lo));
	if (k->entry < lo || k->entry >= file_hi)
		return fail_with(err, "entry point 0x%llx lies outside the loaded segments",
				 (unsigned long long)k->entry);
	/* Inside the span is not enough: a gap between segments or a bss
	 * would be entered as zeroes. */
	int entry_in_file = 0;
	for (int i = 0; i < n; i++)
		if (k->entry >= segs[i].paddr && k->entry - segs[i].paddr < segs[i].filesz)
			entry_in_file = 1;
	if (!entry_in_file)
		return fail_with(err, "entry point 0x%llx is not in any segment's file bytes (a gap or a bss)",
				 (unsigned long long)k->entry);

	k->addr = lo;
	k->virt_addr = segs[0].vaddr;
	k->align = segs[0].align;
	k->segments = n;
	k->zero_size = mem_hi - file_hi;
	k->blob.size = (size_t)(file_hi - lo);
	k->blob.data = calloc(1, k->blob.size ? k->blob.size : 1);
	if (!k->blob.data)
		return fail_with(err, "out of memory for a %zu-byte kernel", k->blob.size);
	for (int i = 0; i < n; i++)
		memcpy(k->blob.data + (segs[i].paddr - lo), f->data + segs[i].offset, segs[i].filesz);
	find_version(k);
	return 0;
}

void kernel_print(FILE *out, const char *label, int width, const struct kernel *k)
{
	fprintf(out, "%-*s ELF%d, %d PT_LOAD, 0x%llx-0x%llx (%zu bytes + %llu zeroed), entry 0x%llx\n",
		width, label, k->bits, k->segments, (unsigned long long)k->addr,
		(unsigned long long)(k->addr + kernel_size(k) + k->zero_size), (size_t)kernel_size(k),
		(unsigned long long)k->zero_size, (unsigned long long)k->entry);
	if (k->relocs_size)
		fprintf(out, "%-*s %llu bytes: the kernel can move (aligned to 0x%llx)\n", width, "relocations:",
			(unsigned long long)k->relocs_size, (unsigned long long)k->align);
	else
		fprintf(out, "%-*s none: the kernel runs at its link address\n", width, "relocations:");
	if (k->version[0])
		fprintf(out, "%-*s %s\n", width, "version:", k->version);
}
