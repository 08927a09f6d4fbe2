/*
 * efi_smp.c - the other CPUs on the UEFI path, before ExitBootServices:
 * the firmware's EFI_MP_SERVICES_PROTOCOL (PI specification, vol. 2,
 * 13.4) runs our work on every enabled AP, on the firmware's own AP
 * stacks (EDK2's are 32 KiB; the decoders need far less: README, "Other
 * CPUs"), with its page tables, which map all of memory.  StartupAllAPs
 * with an event returns at once, so the boot CPU runs the work too, then
 * waits for the event: the firmware signals it when every AP has
 * returned, or when its timeout has ended the stragglers.
 */
#include "efi.h"
#include "smp.h"

#define MP_TIMEOUT_US   60000000ull     /* 60 s, as on the BIOS path */
#define EFI_NOT_READY   (EFI_ERROR_BIT | 6)

static const struct efi_guid mp_services_guid = {
	0x3fdda605, 0xa76e, 0x4f46, { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } };

struct efi_mp_services {
	efi_status (EFIAPI *get_number_of_processors)(struct efi_mp_services *self, uint64_t *count,
						      uint64_t *enabled);
	void *get_processor_info;
	efi_status (EFIAPI *startup_all_aps)(struct efi_mp_services *self, void (EFIAPI *procedure)(void *),
					     uint8_t single_thread, void *wait_event, uint64_t timeout_us,
					     void *arg, uint64_t **failed);
};

typedef efi_status (EFIAPI *create_event_fn)(uint32_t type, uint64_t tpl, void *notify, void *ctx, void **event);
typedef efi_status (EFIAPI *event_fn)(void *event);

struct efi_smp {
	void (*work)(void *arg, unsigned cpu);
	void *arg;
	unsigned cap;           /* CPUs that may run the work, the boot CPU included */
	unsigned next;          /* the last cpu number taken */
	unsigned ran;           /* APs that ran the work */
};

/* On each AP, called by the firmware: the next cpu number, if the cap
 * leaves one. */
static void EFIAPI efi_ap(void *ctx)
{
	struct efi_smp *s = ctx;
	unsigned cpu = __atomic_add_fetch(&s->next, 1, __ATOMIC_SEQ_CST);

	if (cpu >= s->cap)
		return;
	s->work(s->arg, cpu);
	__atomic_fetch_add(&s->ran, 1, __ATOMIC_SEQ_CST);
}

unsigned smp_run_efi(struct efi_boot_services *bs, const struct boot_params *bp, unsigned max,
		     void (*work)(void *arg, unsigned cpu), void *arg, const char **why_one)
{
	struct efi_smp s = { work, arg, 0, 0, 0 };
	struct efi_mp_services *mp;
	uint64_t count, enabled;
	void *event;
	const char *why = 0;

	s.cap = smp_cmdline_cap(bp, max, &why);
	if (s.cap > 1 && (bs->locate_protocol(&mp_services_guid, 0, (void **)&mp) != EFI_SUCCESS ||
			  mp->get_number_of_processors(mp, &count, &enabled) != EFI_SUCCESS))
		s.cap = 1, why = "no-mp-services";
	if (s.cap > 1 && enabled < 2)
		s.cap = 1, why = "one-cpu";
	if (s.cap > 1 && (((create_event_fn)bs->create_event)(0, 0, 0, 0, &event) != EFI_SUCCESS))
		s.cap = 1, why = "no-event";
	if (s.cap > 1 && mp->startup_all_aps(mp, efi_ap, 0, event, MP_TIMEOUT_US, &s, 0) != EFI_SUCCESS) {
		((event_fn)bs->close_event)(event);
		s.cap = 1, why = "mp-services-failed";
	}
	work(arg, 0);
	if (s.cap > 1) {
		while (((event_fn)bs->check_event)(event) == EFI_NOT_READY)
			;
		((event_fn)bs->close_event)(event);
	}
	unsigned cpus = 1 + __atomic_load_n(&s.ran, __ATOMIC_SEQ_CST);
	*why_one = cpus == 1 ? (why ? why : "ap-timeout") : 0;
	return cpus;
}
