/* elf_extract.c - see elf_extract.h.
 *
 *   file: ELF header | program headers (the record's, in its order)
 *         | each PT_LOAD's bytes, its offset congruent to its address
 *           modulo its p_align (the ELF rule loaders rely on)
 *         | .note.bzpack | .vmlinux.relocs | .shstrtab | section headers
 *
 * The sections are there for the tools that look for them (gdb reads an
 * executable's memory through its sections): one per segment's bytes,
 * ".segN", and one SHT_NOBITS ".segN.bss" for its zeroed tail.  None of
 * them is loaded or read by the packer but the note and the table.
 */
#include "elf_extract.h"

#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "relocs_elf.h"

#define NOTE_SECTION        ".note.bzpack"
#define MAX_FILE_ALIGN      (16u << 20)  /* a larger p_align is not kept in the file offsets */
#define SECTIONS_MAX        (2 * BZPACK_ELF_PHDRS_MAX + 4)

struct out {
	uint8_t *d;
	size_t size, cap;
	int failed;
};

static void grow(struct out *o, size_t size)
{
	if (o->failed || size <= o->cap) {
		if (!o->failed && size > o->size)
			o->size = size;
		return;
	}
	size_t cap = o->cap ? o->cap : 4096;
	while (cap < size)
		cap *= 2;
	uint8_t *d = realloc(o->d, cap);
	if (!d) {
		o->failed = 1;
		return;
	}
	memset(d + o->cap, 0, cap - o->cap);
	o->d = d, o->cap = cap, o->size = size;
}

static void put(struct out *o, size_t at, const void *src, size_t n)
{
	grow(o, at + n);
	if (!o->failed)
		memcpy(o->d + at, src, n);
}

struct section_out {
	uint32_t name, type;
	uint64_t flags, addr, offset, size, align;
};

static void put_shdr(struct out *o, int wide, size_t at, const struct section_out *s)
{
	if (wide) {
		Elf64_Shdr h = { s->name, s->type, s->flags, s->addr, s->offset, s->size, 0, 0, s->align, 0 };
		put(o, at, &h, sizeof(h));
	} else {
		Elf32_Shdr h = { s->name, s->type, (uint32_t)s->flags, (uint32_t)s->addr, (uint32_t)s->offset,
				 (uint32_t)s->size, 0, 0, (uint32_t)s->align, 0 };
		put(o, at, &h, sizeof(h));
	}
}

static void put_phdr(struct out *o, int wide, size_t at, const struct bzpack_elf_phdr *p, uint64_t offset)
{
	if (wide) {
		Elf64_Phdr h = { p->type, p->flags, offset, p->vaddr, p->paddr, p->filesz, p->memsz, p->align };
		put(o, at, &h, sizeof(h));
	} else {
		Elf32_Phdr h = { p->type, (uint32_t)offset, (uint32_t)p->vaddr, (uint32_t)p->paddr,
				 (uint32_t)p->filesz, (uint32_t)p->memsz, p->flags, (uint32_t)p->align };
		put(o, at, &h, sizeof(h));
	}
}

static int loads(const struct bzpack_elf_phdr *p)
{
	return p->type == PT_LOAD && (p->filesz || p->memsz);
}

/* The record describes k exactly: its PT_LOADs span the blob's kernel
 * bytes from k->addr, then k->zero_size zeroes, and every byte no segment
 * holds is zero; so kernel_from_elf reads the ELF back into the same k. */
static int check_record(const struct kernel *k, struct error *err)
{
	const struct kernel_elf *e = &k->elf;
	uint64_t lo = UINT64_MAX, file_hi = 0, mem_hi = 0, size = kernel_size(k);
	int wide = k->bits == 64;

	if (e->phnum < 1 || e->phnum > BZPACK_ELF_PHDRS_MAX || e->elf_class != (wide ? ELFCLASS64 : ELFCLASS32))
		return fail_with(err, "ELF record: not one for this %d-bit kernel", k->bits);
	for (int i = 0; i < e->phnum; i++) {
		const struct bzpack_elf_phdr *p = &e->ph[i];
		if (!wide && (p->vaddr | p->paddr | p->filesz | p->memsz | p->align) > UINT32_MAX)
			return fail_with(err, "ELF record: a 32-bit program header has 64-bit values");
		if (!loads(p))
			continue;
		if (p->filesz > p->memsz || p->paddr < k->addr || p->paddr - k->addr > size ||
		    p->filesz > size - (p->paddr - k->addr) || p->memsz > (1ull << 32))
			return fail_with(err, "ELF record: segment at 0x%llx lies outside the kernel",
					 (unsigned long long)p->paddr);
		lo = p->paddr < lo ? p->paddr : lo;
		if (p->filesz && p->paddr + p->filesz > file_hi)
			file_hi = p->paddr + p->filesz;
		if (p->paddr + p->memsz > mem_hi)
			mem_hi = p->paddr + p->memsz;
	}
	if (lo != k->addr || file_hi != k->addr + size || mem_hi - file_hi != k->zero_size)
		return fail_with(err, "ELF record: its segments do not span the kernel (0x%llx-0x%llx)",
				 (unsigned long long)k->addr, (unsigned long long)(k->addr + size + k->zero_size));
	/* Walk the blob: a byte outside every segment's file bytes must be 0. */
	uint64_t pos = 0;
	while (pos < size) {
		uint64_t next = size;
		int covered = 0;
		for (int i = 0; i < e->phnum; i++) {
			const struct bzpack_elf_phdr *p = &e->ph[i];
			if (!loads(p) || !p->filesz)
				continue;
			uint64_t from = p->paddr - k->addr, to = from + p->filesz;
			if (from <= pos && pos < to) {
				covered = 1;
				next = to;
				break;
			}
			if (from > pos && from < next)
				next = from;
		}
		if (!covered)
			for (uint64_t b = pos; b < next; b++)
				if (k->blob.data[b])
					return fail_with(err, "ELF record: kernel byte at 0x%llx lies in no segment",
							 (unsigned long long)(k->addr + b));
		pos = next;
	}
	return 0;
}

/* Where each program header's bytes go in the file. */
static int place_segments(const struct kernel *k, uint64_t start, uint64_t *offset, uint64_t *end,
			  struct error *err)
{
	const struct kernel_elf *e = &k->elf;
	uint64_t off = start;

	for (int i = 0; i < e->phnum; i++) {
		const struct bzpack_elf_phdr *p = &e->ph[i];
		offset[i] = 0;
		if (p->type != PT_LOAD)
			continue;
		uint64_t a = p->align;
		if (a < 2 || (a & (a - 1)) || a > MAX_FILE_ALIGN)
			a = 1;
		off += (p->vaddr - off) & (a - 1);
		offset[i] = off;
		off += p->filesz;
	}
	/* Another header's bytes are some PT_LOAD's (bzpack_elf.h). */
	for (int i = 0; i < e->phnum; i++) {
		const struct bzpack_elf_phdr *p = &e->ph[i];
		if (p->type == PT_LOAD || !p->filesz)
			continue;
		int found = 0;
		for (int j = 0; j < e->phnum && !found; j++) {
			const struct bzpack_elf_phdr *l = &e->ph[j];
			if (l->type == PT_LOAD && p->vaddr >= l->vaddr && p->filesz <= l->filesz &&
			    p->vaddr - l->vaddr <= l->filesz - p->filesz)
				offset[i] = offset[j] + (p->vaddr - l->vaddr), found = 1;
		}
		if (!found)
			return fail_with(err, "ELF record: program header %d (type 0x%x) lies in no segment", i,
					 p->type);
	}
	*end = off;
	return 0;
}

/* A section name into the string table: its offset there. */
static uint32_t __attribute__((format(printf, 4, 5))) add_name(char *names, size_t cap, size_t *len,
								 const char *fmt, ...)
{
	va_list ap;
	size_t at = *len;

	va_start(ap, fmt);
	int n = vsnprintf(names + at, cap - at, fmt, ap);
	va_end(ap);
	*len += n > 0 && (size_t)n < cap - at ? (size_t)n + 1 : 0;
	return (uint32_t)at;
}

/* The note descriptor's CRC: of its bytes after the crc field. */
static uint32_t note_crc(const uint8_t *desc, size_t size)
{
	static struct crc32c_table crc;
	crc32c_init(&crc, 0);
	return crc32c_update(&crc, 0, desc + sizeof(uint32_t), size - sizeof(uint32_t));
}

/* The note's bytes: Elf_Nhdr, the name, the descriptor (bzpack_elf.h). */
static size_t build_note(const struct kernel *k, unsigned codec, uint8_t *dst)
{
	const struct carried_setup *c = &k->carried;
	size_t vlen = strlen(k->version) + 1, name = sizeof(BZPACK_NOTE_NAME);
	struct bzpack_note_packed d = {
		.out_align = (uint32_t)(k->relocs_size ? k->align : 0),
		.root_flags = c->root_flags, .ram_size = c->ram_size, .vid_mode = c->vid_mode,
		.root_dev = c->root_dev, .start_sys_seg = c->start_sys_seg,
		.setup_move_size = c->setup_move_size, .initrd_addr_max = c->initrd_addr_max,
		.cmdline_size = c->cmdline_size, .xloadflags = c->xloadflags, .codec = (uint8_t)codec,
		.level = (uint8_t)(k->packed_level < 0 ? 0 : k->packed_level),
	};
	Elf32_Nhdr n = { (uint32_t)name, (uint32_t)(sizeof(d) + vlen), BZPACK_NOTE_PACKED };
	size_t at = 0;

	memcpy(dst + at, &n, sizeof(n)), at += sizeof(n);
	memcpy(dst + at, BZPACK_NOTE_NAME, name), at += align_up(name, 4);
	memcpy(dst + at + sizeof(d), k->version, vlen);
	memcpy(dst + at, &d, sizeof(d));
	d.crc = note_crc(dst + at, sizeof(d) + vlen);
	memcpy(dst + at, &d, sizeof(d)), at += sizeof(d) + vlen;
	return align_up(at, 4);
}

int elf_extract(const struct kernel *k, unsigned codec, struct buffer *out, struct error *err)
{
	const struct kernel_elf *e = &k->elf;
	int wide = k->bits == 64;
	size_t ehsize = wide ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t phentsize = wide ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t shentsize = wide ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	uint64_t offset[BZPACK_ELF_PHDRS_MAX], end = 0;
	struct section_out sec[SECTIONS_MAX];
	char names[SECTIONS_MAX * 16 + 64];
	uint8_t note[sizeof(Elf32_Nhdr) + 8 + BZPACK_NOTE_PACKED_SIZE + KERNEL_VERSION_MAX + 4];
	struct out o = { 0 };
	size_t nsec = 1, nlen = 1;

	if (check_record(k, err) < 0 || place_segments(k, ehsize + e->phnum * phentsize, offset, &end, err) < 0)
		return -1;
	if (!wide && end + k->relocs_size + sizeof(note) + sizeof(names) + SECTIONS_MAX * shentsize > UINT32_MAX)
		return fail_with(err, "kernel too large for an ELF32 file");
	memset(sec, 0, sizeof(sec));
	names[0] = 0;
#define NAME(...) add_name(names, sizeof(names), &nlen, __VA_ARGS__)

	for (int i = 0, load = 0; i < e->phnum; i++) {
		const struct bzpack_elf_phdr *p = &e->ph[i];
		if (p->type != PT_LOAD)
			continue;
		put_phdr(&o, wide, ehsize + (size_t)i * phentsize, p, offset[i]);
		put(&o, offset[i], k->blob.data + (p->paddr - k->addr), p->filesz);
		uint64_t flags = SHF_ALLOC | (p->flags & PF_W ? SHF_WRITE : 0) | (p->flags & PF_X ? SHF_EXECINSTR : 0);
		uint64_t align = 4096;
		while (p->vaddr % align)
			align >>= 1;
		if (p->filesz) {
			uint32_t n = NAME(".seg%d", load);
			sec[nsec++] = (struct section_out){ n, SHT_PROGBITS, flags, p->vaddr, offset[i], p->filesz, align };
		}
		if (p->memsz > p->filesz) {
			uint32_t n = NAME(".seg%d.bss", load);
			sec[nsec++] = (struct section_out){ n, SHT_NOBITS, flags, p->vaddr + p->filesz,
							    offset[i] + p->filesz, p->memsz - p->filesz, 1 };
		}
		load++;
	}
	for (int i = 0; i < e->phnum; i++)
		if (e->ph[i].type != PT_LOAD)
			put_phdr(&o, wide, ehsize + (size_t)i * phentsize, &e->ph[i], offset[i]);

	end = align_up(end, 4);
	size_t note_size = build_note(k, codec, note);
	put(&o, end, note, note_size);
	sec[nsec++] = (struct section_out){ NAME(NOTE_SECTION), SHT_NOTE, 0, 0, end, note_size, 4 };
	end += note_size;
	if (k->relocs_size) {
		put(&o, end, k->blob.data + kernel_size(k), k->relocs_size);
		sec[nsec++] = (struct section_out){ NAME(BZPACK_RELOCS_SECTION), SHT_PROGBITS, 0, 0, end,
						    k->relocs_size, 4 };
		end += k->relocs_size;
	}
	uint32_t shstrtab = NAME(".shstrtab");
	sec[nsec++] = (struct section_out){ shstrtab, SHT_STRTAB, 0, 0, end, nlen, 1 };
#undef NAME
	put(&o, end, names, nlen);
	end = align_up(end + nlen, 8);
	for (size_t i = 0; i < nsec; i++)
		put_shdr(&o, wide, end + i * shentsize, &sec[i]);

	unsigned char ident[EI_NIDENT] = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, e->elf_class, ELFDATA2LSB,
					   EV_CURRENT, e->osabi };
	if (wide) {
		Elf64_Ehdr h = { .e_type = ET_EXEC, .e_machine = e->machine, .e_version = EV_CURRENT,
				 .e_entry = k->entry, .e_phoff = ehsize, .e_shoff = end, .e_flags = e->flags,
				 .e_ehsize = (uint16_t)ehsize, .e_phentsize = (uint16_t)phentsize,
				 .e_phnum = (uint16_t)e->phnum, .e_shentsize = (uint16_t)shentsize,
				 .e_shnum = (uint16_t)nsec, .e_shstrndx = (uint16_t)(nsec - 1) };
		memcpy(h.e_ident, ident, EI_NIDENT);
		put(&o, 0, &h, sizeof(h));
	} else {
		Elf32_Ehdr h = { .e_type = ET_EXEC, .e_machine = e->machine, .e_version = EV_CURRENT,
				 .e_entry = (uint32_t)k->entry, .e_phoff = (uint32_t)ehsize, .e_shoff = (uint32_t)end,
				 .e_flags = e->flags, .e_ehsize = (uint16_t)ehsize,
				 .e_phentsize = (uint16_t)phentsize, .e_phnum = (uint16_t)e->phnum,
				 .e_shentsize = (uint16_t)shentsize, .e_shnum = (uint16_t)nsec,
				 .e_shstrndx = (uint16_t)(nsec - 1) };
		memcpy(h.e_ident, ident, EI_NIDENT);
		put(&o, 0, &h, sizeof(h));
	}
	if (o.failed) {
		free(o.d);
		return fail_with(err, "out of memory for the ELF file");
	}
	out->data = o.d;
	out->size = o.size;
	return 0;
}

int elf_note_apply(struct kernel *k, const struct buffer *f, struct error *err)
{
	struct buffer n;
	struct bzpack_note_packed d;
	Elf32_Nhdr h;
	size_t name = sizeof(BZPACK_NOTE_NAME), at = sizeof(h) + align_up(name, 4);

	int r = elf_find_section(f, k->bits, NOTE_SECTION, SHT_NOTE, &n, err);
	if (r <= 0)
		return r;
	if (n.size >= sizeof(h))
		memcpy(&h, n.data, sizeof(h));
	if (n.size < at + sizeof(d) || h.n_namesz != name || memcmp(n.data + sizeof(h), BZPACK_NOTE_NAME, name) ||
	    h.n_type != BZPACK_NOTE_PACKED || h.n_descsz < sizeof(d) + 1 || h.n_descsz > n.size - at)
		return fail_with(err, "%s note: not one bzpack wrote", NOTE_SECTION);
	memcpy(&d, n.data + at, sizeof(d));
	if (d.crc != note_crc(n.data + at, h.n_descsz))
		return fail_with(err, "%s note: checksum mismatch", NOTE_SECTION);
	const char *version = (const char *)n.data + at + sizeof(d);
	size_t vmax = h.n_descsz - sizeof(d), vlen = strnlen(version, vmax);
	if (vlen == vmax || vlen >= KERNEL_VERSION_MAX)
		return fail_with(err, "%s note: its version string is damaged", NOTE_SECTION);
	if (d.out_align && (d.out_align < 4096 || (d.out_align & (d.out_align - 1))))
		return fail_with(err, "%s note: kernel alignment 0x%x", NOTE_SECTION, d.out_align);
	k->carried = (struct carried_setup){ 1, d.root_flags, d.ram_size, d.vid_mode, d.root_dev,
					     d.start_sys_seg, d.setup_move_size, d.initrd_addr_max,
					     d.cmdline_size, d.xloadflags };
	memcpy(k->version, version, vlen + 1);
	if (d.out_align)
		k->align = d.out_align;
	k->packed_level = d.level;
	return 1;
}
