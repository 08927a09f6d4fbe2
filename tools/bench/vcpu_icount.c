/*
 * vcpu_icount.c - a QEMU TCG plugin that counts the guest instructions each
 * vCPU executes, and notes the count at every RDTSC it executes.
 *
 * Why: under `-icount shift=0` RDTSC reads a virtual clock that advances
 * by one per instruction executed by *any* vCPU, so the stub's own
 * cycles= figures are exact on one CPU but add the CPUs' work up on
 * several.  The busiest CPU's instruction count, the figure that says what
 * decompressing on several CPUs gains, needs a count per vCPU; this plugin
 * keeps one.  RDTSC is where the stub already marks its phases (start,
 * verify, decompress, hand-off), so noting the per-vCPU count there ties
 * the two together with no extra marker in the stub: on one vCPU the
 * difference between two notes is the stub's own figure for the phase
 * between them (ci/tests/test-vcpu-icount.sh checks that it is).
 *
 *   qemu-system-x86_64 -icount shift=0,sleep=off \
 *       -plugin build/tools/vcpu_icount.so,out=FILE ...
 *
 * FILE gets, when QEMU exits, one line per RDTSC in execution order per
 * vCPU and one total per vCPU:
 *
 *   rdtsc VCPU N COUNT    the N-th RDTSC of VCPU (from 1) came after COUNT
 *                         instructions of that vCPU (the RDTSC itself not
 *                         counted)
 *   total VCPU COUNT      instructions VCPU executed in all
 *
 * Counting is per instruction, each when it executes.  Adding a block's
 * instructions when the block starts would be cheaper, but a block left
 * early is then counted whole: on the 64-bit stub's XXH3 loop that came to
 * one instruction too many per 64-byte stripe, against QEMU's own icount.
 * A `rep movs` counts once per iteration, as icount counts it.
 *
 * Only the calls this plugin uses are declared below, written from QEMU's docs/devel/tcg-plugins.rst and the
 * plugin API of QEMU 7.2 (Debian 12's), plugin API version 1.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the QEMU plugin API, the part used here ------------------------- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;
__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
							      int argc, char **argv);

/* ---- the counts ------------------------------------------------------- */
/* Notes are kept in memory and written at exit; a stub executes a handful
 * of RDTSCs, a kernel a few more (its TSC calibration): past this many a
 * vCPU's later notes are dropped and the file says so. */
#define MAX_NOTES 4096

struct vcpu_count {
	uint64_t insns;
	size_t notes;
	uint64_t note[MAX_NOTES];
	bool overflow;
};

static struct vcpu_count *vcpus;
static unsigned n_vcpus;
static char *out_path;

static struct vcpu_count *vcpu(unsigned int index)
{
	/* QEMU numbers vCPUs from 0 below max_vcpus; anything else would be
	 * a change of API: stop loudly rather than count wrong. */
	if (index >= n_vcpus) {
		fprintf(stderr, "vcpu_icount: vCPU %u of %u\n", index, n_vcpus);
		abort();
	}
	return &vcpus[index];
}

static void on_insn(unsigned int index, void *unused)
{
	(void)unused;
	vcpu(index)->insns++;
}

/* Before an RDTSC: note the count so far, then count the RDTSC itself. */
static void on_rdtsc(unsigned int index, void *unused)
{
	struct vcpu_count *v = vcpu(index);

	(void)unused;
	if (v->notes < MAX_NOTES)
		v->note[v->notes++] = v->insns;
	else
		v->overflow = true;
	v->insns++;
}

static bool is_rdtsc(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);

	return qemu_plugin_insn_size(insn) == 2 && b[0] == 0x0f && b[1] == 0x31;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_insn_exec_cb(insn, is_rdtsc(insn) ? on_rdtsc : on_insn,
						       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void write_counts(qemu_plugin_id_t id, void *unused)
{
	FILE *f = fopen(out_path, "w");
	unsigned i;
	size_t k;

	(void)id;
	(void)unused;
	if (!f) {
		perror(out_path);
		return;
	}
	for (i = 0; i < n_vcpus; i++) {
		for (k = 0; k < vcpus[i].notes; k++)
			fprintf(f, "rdtsc %u %zu %" PRIu64 "\n", i, k + 1, vcpus[i].note[k]);
		if (vcpus[i].overflow)
			fprintf(f, "overflow %u more than %d RDTSCs: later ones not noted\n", i, MAX_NOTES);
		fprintf(f, "total %u %" PRIu64 "\n", i, vcpus[i].insns);
	}
	if (fclose(f) != 0)
		perror(out_path);
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strncmp(argv[i], "out=", 4) == 0)
			out_path = argv[i] + 4;
	if (!out_path || !*out_path) {
		fprintf(stderr, "vcpu_icount: usage: -plugin vcpu_icount.so,out=FILE\n");
		return -1;
	}
	if (!info->system_emulation || info->system.max_vcpus < 1) {
		fprintf(stderr, "vcpu_icount: needs system emulation\n");
		return -1;
	}
	n_vcpus = (unsigned)info->system.max_vcpus;
	vcpus = calloc(n_vcpus, sizeof(*vcpus));
	if (!vcpus) {
		fprintf(stderr, "vcpu_icount: out of memory\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
