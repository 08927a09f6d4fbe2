/*
 * relocs_elf.c - see relocs_elf.h.
 *
 * The rules are those of Linux's arch/x86/tools/relocs.c, which builds
 * vmlinux.relocs from the same sections (read, not copied):
 *   - only relocations that apply to a loaded (SHF_ALLOC) section count;
 *   - a field that holds an absolute address moves with the kernel:
 *     i386 R_386_32 and x86_64 R_X86_64_32/32S go to the 32-bit list,
 *     x86_64 R_X86_64_64 to the 64-bit list;
 *   - PC-relative fields (R_386_PC32/PLT32, R_X86_64_PC32/PLT32/PC64)
 *     move with their target and need nothing, and neither does a field
 *     against an absolute or undefined (weak, zero) symbol.
 * What Linux does beyond that - per-CPU symbols on x86_64 (linked at 0,
 * the inverse list), its lists of absolute symbols that are really
 * relative, real-mode code - is refused here with one line that points
 * at --relocs: better no table than a wrong one.
 *
 * Every header, section and entry is checked against the file's size;
 * the result goes through relocs_attach, which checks it against the
 * kernel like any other table.
 */
#include "relocs_elf.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "relocs.h"

#define PERCPU_SECTION ".data..percpu"

/* One section header, either class. */
struct section {
	uint32_t name, type, link, info;
	uint64_t flags, offset, size;
};

struct elf_view {
	const struct buffer *f;
	int bits;
	const uint8_t *shdrs;
	uint64_t shnum, shentsize, shstrndx;
};

/* A list of 32-bit table words that grows as entries are found. */
struct words {
	uint32_t *v;
	size_t n, cap;
};

static int push(struct words *w, uint32_t x, struct error *err)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 1024;
		uint32_t *v = realloc(w->v, cap * sizeof(*v));
		if (!v)
			return fail_with(err, "out of memory for the relocation table");
		w->v = v, w->cap = cap;
	}
	w->v[w->n++] = x;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static int in_file(const struct buffer *f, uint64_t offset, uint64_t size)
{
	return offset <= f->size && size <= f->size - offset;
}

static struct section section_at(const struct elf_view *e, uint64_t i)
{
	const uint8_t *p = e->shdrs + i * e->shentsize;
	if (e->bits == 64) {
		Elf64_Shdr s;
		memcpy(&s, p, sizeof(s));
		return (struct section){ s.sh_name, s.sh_type, s.sh_link, s.sh_info, s.sh_flags, s.sh_offset, s.sh_size };
	}
	Elf32_Shdr s;
	memcpy(&s, p, sizeof(s));
	return (struct section){ s.sh_name, s.sh_type, s.sh_link, s.sh_info, s.sh_flags, s.sh_offset, s.sh_size };
}

/* A section's name, or "?" when the string table does not hold it. */
static const char *section_name(const struct elf_view *e, uint64_t i)
{
	if (e->shstrndx >= e->shnum || i >= e->shnum)
		return "?";
	struct section strs = section_at(e, e->shstrndx), s = section_at(e, i);
	if (!in_file(e->f, strs.offset, strs.size) || s.name >= strs.size)
		return "?";
	const char *name = (const char *)e->f->data + strs.offset + s.name;
	return memchr(name, 0, strs.size - s.name) ? name : "?";
}

static int open_sections(const struct buffer *f, int bits, struct elf_view *e, struct error *err)
{
	uint64_t shoff;

	memset(e, 0, sizeof(*e));
	e->f = f, e->bits = bits;
	if (bits == 64) {
		Elf64_Ehdr eh;
		memcpy(&eh, f->data, sizeof(eh));  /* kernel_from_elf checked the size */
		shoff = eh.e_shoff, e->shnum = eh.e_shnum, e->shentsize = eh.e_shentsize, e->shstrndx = eh.e_shstrndx;
		if (e->shnum && e->shentsize != sizeof(Elf64_Shdr))
			return fail_with(err, "bad section header size %llu", (unsigned long long)e->shentsize);
	} else {
		Elf32_Ehdr eh;
		memcpy(&eh, f->data, sizeof(eh));
		shoff = eh.e_shoff, e->shnum = eh.e_shnum, e->shentsize = eh.e_shentsize, e->shstrndx = eh.e_shstrndx;
		if (e->shnum && e->shentsize != sizeof(Elf32_Shdr))
			return fail_with(err, "bad section header size %llu", (unsigned long long)e->shentsize);
	}
	/* More than 0xff00 sections keeps the count in section 0: not read
	 * here, and better refused than taken for "no sections". */
	if (e->shnum == 0 && shoff != 0)
		return fail_with(err, "extended section numbering is not supported: use --relocs");
	if (e->shnum == 0)
		return 0;
	if (!in_file(f, shoff, e->shnum * e->shentsize))
		return fail_with(err, "section headers lie beyond the end of the file");
	e->shdrs = f->data + shoff;
	return 0;
}

/* The symbol's section index (SHN_ABS, SHN_UNDEF or a section). */
static int symbol_section(const struct elf_view *e, const struct section *symtab, uint64_t sym, uint64_t *shndx,
			  struct error *err)
{
	uint64_t size = e->bits == 64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	if (sym >= symtab->size / size)
		return fail_with(err, "relocation names symbol %llu, beyond its symbol table",
				 (unsigned long long)sym);
	const uint8_t *p = e->f->data + symtab->offset + sym * size;
	if (e->bits == 64) {
		Elf64_Sym s;
		memcpy(&s, p, sizeof(s));
		*shndx = s.st_shndx;
	} else {
		Elf32_Sym s;
		memcpy(&s, p, sizeof(s));
		*shndx = s.st_shndx;
	}
	if (*shndx == SHN_XINDEX)
		return fail_with(err, "symbol %llu has an extended section index: use --relocs",
				 (unsigned long long)sym);
	return 0;
}

enum list { NONE, LIST32, LIST64, UNSUPPORTED };

static enum list list_for(int bits, uint32_t type)
{
	if (bits == 32) {
		switch (type) {
		case R_386_32: return LIST32;
		case R_386_NONE: case R_386_PC32: case R_386_PLT32: return NONE;
		}
		return UNSUPPORTED;
	}
	switch (type) {
	case R_X86_64_64: return LIST64;
	case R_X86_64_32: case R_X86_64_32S: return LIST32;
	case R_X86_64_NONE: case R_X86_64_PC32: case R_X86_64_PLT32: case R_X86_64_PC64: return NONE;
	}
	return UNSUPPORTED;
}

/* One relocation section's entries into the lists. */
static int walk_section(const struct elf_view *e, uint64_t index, const struct section *rel, struct words *l32,
			struct words *l64, struct error *err)
{
	int rela = rel->type == SHT_RELA, wide = e->bits == 64;
	uint64_t entsize = wide ? (rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel))
				: (rela ? sizeof(Elf32_Rela) : sizeof(Elf32_Rel));
	const char *target = section_name(e, rel->info);

	if (rel->link >= e->shnum || section_at(e, rel->link).type != SHT_SYMTAB)
		return fail_with(err, "relocation section %s has no symbol table", section_name(e, index));
	struct section symtab = section_at(e, rel->link);
	if (!in_file(e->f, rel->offset, rel->size) || !in_file(e->f, symtab.offset, symtab.size) ||
	    rel->size % entsize)
		return fail_with(err, "relocation section %s is truncated", section_name(e, index));
	if (wide && !strcmp(target, PERCPU_SECTION))
		return fail_with(err, "relocations in per-CPU section %s are not supported: use --relocs",
				 PERCPU_SECTION);

	for (uint64_t i = 0; i < rel->size / entsize; i++) {
		const uint8_t *p = e->f->data + rel->offset + i * entsize;
		uint64_t where, sym;
		uint32_t type;
		if (wide) {
			Elf64_Rel r;  /* Elf64_Rela begins the same way */
			memcpy(&r, p, sizeof(r));
			where = r.r_offset, sym = ELF64_R_SYM(r.r_info), type = (uint32_t)ELF64_R_TYPE(r.r_info);
		} else {
			Elf32_Rel r;
			memcpy(&r, p, sizeof(r));
			where = r.r_offset, sym = ELF32_R_SYM(r.r_info), type = ELF32_R_TYPE(r.r_info);
		}
		enum list list = list_for(e->bits, type);
		if (list == UNSUPPORTED)
			return fail_with(err, "relocation type %u at 0x%llx (in %s) is not supported: use --relocs",
					 type, (unsigned long long)where, target);
		uint64_t shndx = 0;  /* set by symbol_section; gcc cannot see that */
		if (symbol_section(e, &symtab, sym, &shndx, err) < 0)
			return -1;
		/* Linux's x86_64 per-CPU symbols are linked at 0: a PC-relative
		 * field against one needs the inverse list, an absolute one a
		 * per-CPU offset; neither is made here. */
		if (wide && shndx < e->shnum && !strcmp(section_name(e, shndx), PERCPU_SECTION))
			return fail_with(err, "relocation at 0x%llx (in %s) against a per-CPU symbol is not supported: use --relocs",
					 (unsigned long long)where, target);
		if (list == NONE || shndx == SHN_ABS || shndx == SHN_UNDEF)
			continue;
		/* Table entries are 32 bits: x86_64's sign-extended. */
		uint32_t entry = (uint32_t)where;
		if (where != (wide ? (uint64_t)(int64_t)(int32_t)entry : entry) || entry == 0)
			return fail_with(err, "relocation at 0x%llx (in %s) has no 32-bit table entry",
					 (unsigned long long)where, target);
		if (push(list == LIST64 ? l64 : l32, entry, err) < 0)
			return -1;
	}
	return 0;
}

/* Linux's layout, read backwards by relocs_walk: a zero, then the
 * entries; on x86_64 three such lists, 64-bit first, then the (here
 * always empty) inverse list, then the 32-bit one last. */
static int assemble(int bits, struct words *l32, struct words *l64, struct words *table, struct error *err)
{
	qsort(l32->v, l32->n, sizeof(uint32_t), by_value);
	qsort(l64->v, l64->n, sizeof(uint32_t), by_value);
	if (bits == 64) {
		if (push(table, 0, err) < 0)
			return -1;
		for (size_t i = 0; i < l64->n; i++)
			if (push(table, l64->v[i], err) < 0)
				return -1;
		if (push(table, 0, err) < 0)   /* the inverse list's terminator */
			return -1;
	}
	if (push(table, 0, err) < 0)
		return -1;
	for (size_t i = 0; i < l32->n; i++)
		if (push(table, l32->v[i], err) < 0)
			return -1;
	return 0;
}

int elf_find_section(const struct buffer *f, int bits, const char *name, uint32_t type, struct buffer *contents,
		     struct error *err)
{
	struct elf_view e;

	if (open_sections(f, bits, &e, err) < 0)
		return -1;
	for (uint64_t i = 0; i < e.shnum; i++) {
		struct section s = section_at(&e, i);
		if (s.type != type || strcmp(section_name(&e, i), name) != 0)
			continue;
		if (!in_file(f, s.offset, s.size))
			return fail_with(err, "section %s runs past the end of the file", name);
		contents->data = f->data + s.offset;
		contents->size = s.size;
		return 1;
	}
	return 0;
}

int relocs_from_elf(struct kernel *k, const struct buffer *f, struct error *err)
{
	struct elf_view e;
	struct words l32 = { 0 }, l64 = { 0 }, table = { 0 };
	int found = 0, r = -1;

	if (open_sections(f, k->bits, &e, err) < 0)
		return -1;
	for (uint64_t i = 0; i < e.shnum; i++) {
		struct section s = section_at(&e, i);
		if (s.type != SHT_REL && s.type != SHT_RELA)
			continue;
		if (s.info >= e.shnum || !(section_at(&e, s.info).flags & SHF_ALLOC))
			continue;  /* debug information: not loaded, nothing to move */
		found = 1;
		if (walk_section(&e, i, &s, &l32, &l64, err) < 0)
			goto done;
	}
	if (!found) {
		/* An ELF that --extract gave back carries its table as is. */
		struct buffer t;
		r = elf_find_section(f, k->bits, BZPACK_RELOCS_SECTION, SHT_PROGBITS, &t, err);
		if (r > 0)
			r = relocs_attach(k, t.data, t.size, k->align, err);
		goto done;
	}
	if (assemble(k->bits, &l32, &l64, &table, err) < 0)
		goto done;
	r = relocs_attach(k, (const uint8_t *)table.v, table.n * sizeof(uint32_t), k->align, err);
done:
	free(l32.v);
	free(l64.v);
	free(table.v);
	return r;
}
