/*
 * smp.c - the other CPUs, on the BIOS path (a BIOS loader, or kexec):
 *
 *   which     the ACPI MADT's enabled local APICs (its RSDP from
 *             boot_params.acpi_rsdp_addr, else found in the EBDA's first
 *             KiB or the BIOS ROM area, as ACPI says), up to the
 *             caller's max (frames.c: one per frame and decoder
 *             workspace) and what the command line allows: nosmp,
 *             maxcpus=N, bzpack.cpus=N;
 *   where     the lowest free RAM below 1 MiB that holds the trampoline
 *             page and a stack for each (memory.c's rules: clear of
 *             boot_params, the command line, setup_data, the initrd);
 *   how       INIT, 10 ms, start-up IPI, 200 us, start-up IPI again to
 *             those that have not started (the MP start-up sequence of
 *             Intel's SDM, vol. 3, 9.4.4), through the local APIC in the
 *             mode the loader left it, xAPIC or x2APIC; each climbs to the
 *             stub's mode in stub/smp_trampoline.asm and runs the work;
 *   waits     for each to start, 100 ms (the PIT's channel 2 counts), then
 *             gives its slot up: the work is taken from a shared queue,
 *             so the others do its share; for each that started to
 *             finish and park, 60 s, and halts with an error if one does
 *             not: it would still write where the kernel goes.
 *
 * Parking.  A CPU that is done halts with interrupts off, in real mode
 * (a stray NMI finds the BIOS's vector table), in the trampoline page:
 * what firmware and kexec leave, and what the kernel's own INIT-SIPI-SIPI
 * wakes.  The page is below 1 MiB and never in the kernel's range (that
 * starts at 1 MiB at the lowest); its stacks, page tables and our stub
 * are no longer touched once a CPU has said PARKED.  To keep the kernel
 * from writing the page before it sends its INIT, the E820 map the kernel
 * gets calls the page reserved: Linux reserves all of the first MiB in
 * memblock (since 5.13), but takes its own real-mode trampoline from the
 * free RAM there first, which without this could be our page.
 *
 * The UEFI path has the firmware run the work on its CPUs instead
 * (stub/efi_smp.c).
 */
#include <cpuid.h>

#include "mem.h"
#include "portio.h"
#include "smp.h"

extern const uint8_t smp_trampoline[], smp_trampoline_end[];
extern const uint8_t smp_trampoline_pm32[], smp_trampoline_rm[];

#define PAGE                    0x1000u
#define LOW_FIRST               0x1000u         /* above the real-mode IVT and BIOS data */
#define LOW_LIMIT               0xa0000u        /* start-up vectors 0xa0-0xbf are reserved */
#define E820_TYPE_RESERVED      2
#define ACPI_LIMIT              (1ull << 32)    /* what every stub maps */
#define ACPI_TABLE_MAX          0x10000u        /* a loop guard: MADTs are a few KiB */

#define MSR_APIC_BASE           0x1b
#define APIC_BASE_X2APIC        (1u << 10)
#define APIC_BASE_ENABLE        (1u << 11)
#define MSR_X2APIC_FIRST        0x800
#define APIC_ID                 0x20
#define APIC_SVR                0xf0
#define APIC_SVR_ENABLE         0x100
#define APIC_ICR_LOW            0x300
#define APIC_ICR_HIGH           0x310
#define APIC_ICR_BUSY           (1u << 12)
#define ICR_INIT                0x4500u         /* INIT, level assert */
#define ICR_STARTUP             0x4600u         /* start-up; | the page's number */
#define CPUID_EDX_APIC          (1u << 9)
#define CR4_PCIDE               (1u << 17)      /* only in long mode */
#define CR4_CET                 (1u << 23)      /* only with CR0.WP, which the CPU lacks at start */

#define PIT_CONTROL             0x43
#define PIT_COUNTER2            0x42
#define PIT_GATE_PORT           0x61            /* bit 0: gate 2; bit 1: speaker; bit 5: out 2 */
#define PIT_HZ                  1193182u

#define START_POLLS             1000u           /* x 100 us: 100 ms to start */
#define FINISH_POLLS            600000u         /* x 100 us: 60 s to finish */

static uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)) : "memory");
}

/* Waits us microseconds (at most 54 ms): the PIT's channel 2 counting
 * down once, in mode 0, its output read back at port 0x61, as Linux's
 * TSC calibration does (arch/x86/kernel/tsc.c, read, not copied). */
static void pit_wait_us(uint32_t us)
{
	uint32_t count = us * (PIT_HZ / 1000) / 1000;

	outb(PIT_GATE_PORT, (inb(PIT_GATE_PORT) & ~0x02) | 0x01);  /* gate on, speaker off */
	outb(PIT_CONTROL, 0xb0);        /* channel 2, low then high byte, mode 0 */
	outb(PIT_COUNTER2, count & 0xff);
	outb(PIT_COUNTER2, count >> 8);
	while (!(inb(PIT_GATE_PORT) & 0x20))
		;
}

/* ---- ACPI: the MADT's APIC IDs ------------------------------------------- */

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}

static int sums_to_zero(const uint8_t *p, uint32_t n)
{
	uint8_t s = 0;
	while (n--)
		s += *p++;
	return s == 0;
}

static const uint8_t *find_rsdp_in(uintptr_t from, uintptr_t to)
{
	for (; from + 20 <= to; from += 16) {
		const uint8_t *p = (const uint8_t *)from;
		if (get32(p) == 0x20445352 && get32(p + 4) == 0x20525450 && sums_to_zero(p, 20)) /* "RSD PTR " */
			return p;
	}
	return 0;
}

/* A table at addr with signature sig, its checksum intact; NULL if not. */
static const uint8_t *acpi_table(uint64_t addr, uint32_t sig)
{
	if (!addr || addr >= ACPI_LIMIT - ACPI_TABLE_MAX)
		return 0;
	const uint8_t *t = (const uint8_t *)(uintptr_t)addr;
	uint32_t len = get32(t + 4);
	if (get32(t) != sig || len < 36 || len > ACPI_TABLE_MAX || !sums_to_zero(t, len))
		return 0;
	return t;
}

static const uint8_t *find_madt(const struct boot_params *bp)
{
	const uint8_t *rsdp = 0;

	if (bp->acpi_rsdp_addr && bp->acpi_rsdp_addr < LOW_LIMIT * 16)
		rsdp = find_rsdp_in((uintptr_t)bp->acpi_rsdp_addr, (uintptr_t)bp->acpi_rsdp_addr + 20);
	if (!rsdp) {
		/* The BIOS data area's word at 0x40e: the EBDA's segment.  (Its
		 * address through asm: GCC takes a constant one for a null
		 * pointer's offset.) */
		uintptr_t bda = 0x40e;
		__asm__("" : "+r"(bda));
		uintptr_t ebda = (uintptr_t)*(const uint16_t *)bda << 4;
		if (ebda)
			rsdp = find_rsdp_in(ebda, ebda + 1024);
	}
	if (!rsdp)
		rsdp = find_rsdp_in(0xe0000, 0x100000);
	if (!rsdp)
		return 0;
	/* ACPI 2.0 and later: the XSDT, 64-bit entries; else the RSDT's. */
	uint64_t xsdt;
	__builtin_memcpy(&xsdt, rsdp + 24, 8);
	int wide = rsdp[15] >= 2 && xsdt;
	const uint8_t *sdt = wide ? acpi_table(xsdt, 0x54445358) : acpi_table(get32(rsdp + 16), 0x54445352);
	if (!sdt)
		return 0;
	uint32_t len = get32(sdt + 4), step = wide ? 8 : 4;
	for (uint32_t at = 36; at + step <= len; at += step) {
		uint64_t entry = get32(sdt + at);
		if (wide)
			entry |= (uint64_t)get32(sdt + at + 4) << 32;
		const uint8_t *madt = acpi_table(entry, 0x43495041); /* "APIC" */
		if (madt)
			return madt;
	}
	return 0;
}

/* The enabled APIC IDs other than ours (ids[0]) into ids[1..], up to max
 * slots in all; returns how many slots there are. */
static unsigned madt_apic_ids(const uint8_t *madt, uint32_t *ids, unsigned max, int x2apic)
{
	uint32_t len = get32(madt + 4);
	unsigned n = 1;

	for (uint32_t at = 44; at + 2 <= len && n < max; at += madt[at + 1]) {
		const uint8_t *e = madt + at;
		uint32_t id, flags;
		if (e[1] < 2 || at + e[1] > len)
			break;
		if (e[0] == 0 && e[1] >= 8) {           /* processor local APIC */
			id = e[3];
			flags = get32(e + 4);
		} else if (e[0] == 9 && e[1] >= 16) {   /* processor local x2APIC */
			id = get32(e + 4);
			flags = get32(e + 8);
		} else {
			continue;
		}
		/* Enabled; an xAPIC reaches IDs below 0xff only. */
		if (!(flags & 1) || id == ids[0] || (!x2apic && id >= 0xff))
			continue;
		ids[n++] = id;
	}
	return n;
}

/* ---- the local APIC -------------------------------------------------------- */

struct lapic {
	int x2apic;
	volatile uint32_t *mmio;
};

static uint32_t lapic_read(const struct lapic *l, uint32_t reg)
{
	if (l->x2apic)
		return (uint32_t)rdmsr(MSR_X2APIC_FIRST + (reg >> 4));
	return l->mmio[reg / 4];
}

static void lapic_write(const struct lapic *l, uint32_t reg, uint32_t v)
{
	if (l->x2apic)
		wrmsr(MSR_X2APIC_FIRST + (reg >> 4), v);
	else
		l->mmio[reg / 4] = v;
}

static void lapic_ipi(const struct lapic *l, uint32_t apic_id, uint32_t command)
{
	if (l->x2apic) {        /* one 64-bit ICR, no busy bit */
		wrmsr(MSR_X2APIC_FIRST + (APIC_ICR_LOW >> 4), (uint64_t)apic_id << 32 | command);
		return;
	}
	lapic_write(l, APIC_ICR_HIGH, apic_id << 24);
	lapic_write(l, APIC_ICR_LOW, command);
	for (int i = 0; i < 1000 && (lapic_read(l, APIC_ICR_LOW) & APIC_ICR_BUSY); i++)
		pit_wait_us(10);
}

/* ---- the run ---------------------------------------------------------------- */

/* Where the rest of the command line's first word that starts with key
 * begins (for "key=", its value), or NULL if no word does.  Words are
 * what spaces separate.  smp.c's own: kaslr.c's word test is left as the
 * stubs without other CPUs carry it. */
static const char *cmdline_word(const char *cmd, uint64_t len, const char *key)
{
	for (uint64_t i = 0; i < len; i++) {
		if (i && cmd[i - 1] != ' ')
			continue;
		uint64_t j = 0;
		while (key[j] && i + j < len && cmd[i + j] == key[j])
			j++;
		if (!key[j])
			return cmd + i + j;
	}
	return 0;
}

/* cap, or less if option=N on the command line says so (N = 0 counts
 * as 1); then *why = name.  (No table of the options: pointers in data
 * would be absolute addresses, which the stub may not hold.) */
static unsigned option_cap(const char *cmd, uint64_t len, const char *option, const char *name, unsigned cap,
			   const char **why)
{
	const char *v = cmdline_word(cmd, len, option);
	unsigned n = 0;

	if (!v)
		return cap;
	while (v < cmd + len && *v >= '0' && *v <= '9' && n < BZPACK_MAX_CPUS)
		n = n * 10 + (unsigned)(*v++ - '0');
	if (n >= cap)
		return cap;
	*why = name;
	return n ? n : 1;
}

unsigned smp_cmdline_cap(const struct boot_params *bp, unsigned max, const char **why)
{
	uint64_t len;
	const char *cmd = memory_cmdline(bp, &len);

	const char *nosmp = cmdline_word(cmd, len, "nosmp");
	if (nosmp && (nosmp == cmd + len || *nosmp == ' ')) {
		*why = "nosmp";
		return 1;
	}
	unsigned cap = option_cap(cmd, len, "maxcpus=", "maxcpus", max, why);
	return option_cap(cmd, len, "bzpack.cpus=", "bzpack.cpus", cap, why);
}

/* The page at addr becomes reserved in bp's E820 map: its RAM entry is
 * split around it.  Returns 0 if the table has no room for that. */
static int reserve_page(struct boot_params *bp, uint64_t addr)
{
	unsigned n = bp->e820_entries;

	if (n + 2 > E820_MAX_ENTRIES)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		struct e820_entry *e = &bp->e820_table[i];
		uint64_t end = e->addr + e->size;
		if (e->type != E820_TYPE_RAM || e->addr > addr || end < addr + PAGE)
			continue;
		e->size = addr - e->addr;       /* what lies below (may be none) */
		bp->e820_table[n++] = (struct e820_entry){ addr, PAGE, E820_TYPE_RESERVED };
		if (end > addr + PAGE)
			bp->e820_table[n++] = (struct e820_entry){ addr + PAGE, end - addr - PAGE, E820_TYPE_RAM };
		bp->e820_entries = (uint8_t)n;
		return 1;
	}
	return 0;
}

void smp_ap_main(struct smp_params *p, unsigned cpu)
{
	void (*work)(void *, unsigned) = (void (*)(void *, unsigned))(uintptr_t)p->work;
	work((void *)(uintptr_t)p->arg, cpu);
}

static uint32_t state(const struct smp_params *p, unsigned i)
{
	return __atomic_load_n(&p->state[i], __ATOMIC_ACQUIRE);
}

/* Slots still WAITING after polls x 100 us (0: none). */
static unsigned wait_started(const struct smp_params *p, unsigned polls)
{
	for (;;) {
		unsigned waiting = 0;
		for (unsigned i = 1; i < p->count; i++)
			waiting += state(p, i) == BZPACK_SMP_WAITING;
		if (!waiting || !polls--)
			return waiting;
		pit_wait_us(100);
	}
}

unsigned smp_run(struct boot_params *bp, unsigned max, void (*work)(void *arg, unsigned cpu), void *arg,
		 const char **why_one)
{
	unsigned a, b, c, d;
	const char *why = 0;
	unsigned cap = smp_cmdline_cap(bp, max, &why);
	__cpuid(1, a, b, c, d);
	uint64_t apic_base = rdmsr(MSR_APIC_BASE);
	if (cap > 1 && (!(d & CPUID_EDX_APIC) || !(apic_base & APIC_BASE_ENABLE)))
		cap = 1, why = "no-apic";
	struct lapic l = { !!(apic_base & APIC_BASE_X2APIC),
			   (volatile uint32_t *)(uintptr_t)(apic_base & 0xfffff000u) };
	uintptr_t cr0, cr3, cr4;
	__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
	__asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
	__asm__ volatile("mov %%cr4, %0" : "=r"(cr4));
	if (cap > 1 && (uint64_t)cr3 >> 32)
		cap = 1, why = "page-tables-above-4g";

	/* The slots: ours first, then the MADT's others. */
	uint32_t ids[BZPACK_MAX_CPUS];
	unsigned count = 1;
	ids[0] = l.x2apic ? lapic_read(&l, APIC_ID) : lapic_read(&l, APIC_ID) >> 24;
	const uint8_t *madt = cap > 1 ? find_madt(bp) : 0;
	if (cap > 1 && !madt)
		cap = 1, why = "no-madt";
	if (madt)
		count = madt_apic_ids(madt, ids, cap, l.x2apic);
	if (cap > 1 && count == 1)
		why = "one-cpu";
	uint32_t size = PAGE + (count - 1) * BZPACK_SMP_STACK;
	uint64_t found = count > 1 ? memory_find_free(bp, LOW_FIRST, size, PAGE, 0, 0) : 0;
	if (count > 1 && (!found || found + size > LOW_LIMIT || !reserve_page(bp, found)))
		found = 0, why = "no-low-memory";
	if (!found) {
		work(arg, 0);
		*why_one = why;
		return 1;
	}

	/* The page: the trampoline, then what it reads. */
	uint32_t block = (uint32_t)found;
	uint8_t *page = (uint8_t *)(uintptr_t)block;
	struct smp_params *pp = (struct smp_params *)(page + BZPACK_SMP_PARAMS);
	memcpy(page, smp_trampoline, (size_t)(smp_trampoline_end - smp_trampoline));
	memset(pp, 0, sizeof(*pp));
	pp->gdt_limit = sizeof(pp->gdt) - 1;
	pp->gdt_base = (uint32_t)(uintptr_t)pp->gdt;
	pp->gdt[1] = 0x00cf9b000000ffffull;             /* SMP_CS32: flat, 32-bit */
	pp->gdt[2] = 0x00af9b000000ffffull;             /* SMP_CS64: long mode */
	pp->gdt[3] = 0x00cf93000000ffffull;             /* SMP_DS: flat data */
	pp->gdt[4] = 0x00009b000000ffffull | (uint64_t)block << 16; /* SMP_CS16: 16-bit, the page */
	pp->cr0 = (uint32_t)cr0;
	pp->cr3 = (uint32_t)cr3;
	pp->cr4 = (uint32_t)cr4 & ~(CR4_PCIDE | CR4_CET);
	pp->x2apic = l.x2apic;
	pp->count = count;
	pp->entry = (uintptr_t)smp_ap_main;
	pp->work = (uintptr_t)work;
	pp->arg = (uintptr_t)arg;
	memcpy(pp->apic_id, ids, sizeof(ids));
	for (unsigned i = 1; i < count; i++)
		pp->stack[i] = block + PAGE + i * BZPACK_SMP_STACK;
	pp->pm32_eip = block + (uint32_t)(smp_trampoline_pm32 - smp_trampoline);
	pp->pm32_cs = SMP_CS32;
	pp->rm_ip = (uint16_t)(smp_trampoline_rm - smp_trampoline);
	pp->rm_cs = (uint16_t)(block >> 4);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);

	/* Wake them; software-enable our local APIC for it if need be. */
	uint32_t svr = lapic_read(&l, APIC_SVR);
	if (!(svr & APIC_SVR_ENABLE))
		lapic_write(&l, APIC_SVR, svr | APIC_SVR_ENABLE | 0xff);
	for (unsigned i = 1; i < pp->count; i++)
		lapic_ipi(&l, pp->apic_id[i], ICR_INIT);
	pit_wait_us(10000);
	for (int round = 0; round < 2; round++) {
		for (unsigned i = 1; i < pp->count; i++)
			if (state(pp, i) == BZPACK_SMP_WAITING)
				lapic_ipi(&l, pp->apic_id[i], ICR_STARTUP | block >> 12);
		pit_wait_us(200);
	}
	unsigned cpus = 1;
	/* Too late: the slot is ours again, and a CPU that still comes parks
	 * at once (the trampoline claims a slot the same way). */
	if (wait_started(pp, START_POLLS)) {
		for (unsigned i = 1; i < pp->count; i++) {
			uint32_t waiting = BZPACK_SMP_WAITING;
			__atomic_compare_exchange_n(&pp->state[i], &waiting, BZPACK_SMP_ABANDONED, 0,
						    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		}
	}
	lapic_write(&l, APIC_SVR, svr);

	work(arg, 0);
	/* Every CPU that started: finished and parked, or we stop here. */
	for (unsigned i = 1; i < pp->count; i++) {
		if (state(pp, i) == BZPACK_SMP_ABANDONED)
			continue;
		cpus++;
		for (uint32_t polls = 0; state(pp, i) != BZPACK_SMP_PARKED; polls++) {
			if (polls == FINISH_POLLS)
				fail("a CPU did not finish its share of the work in time", "");
			pit_wait_us(100);
		}
	}
	*why_one = cpus == 1 ? "ap-timeout" : 0;
	return cpus;
}
