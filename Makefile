# bzpack - one `make` builds everything into build/.
#   make          build the packer, the stubs and the test kernels
#   make run      build, pack the default image and boot it under QEMU
#   make test     install what is missing, build, run every test
#   make install  bzpack and its man page under PREFIX (/usr/local), DESTDIR
# Stub flags may be extended with EXTRA_STUB_CFLAGS (the bench gate uses
# EXTRA_STUB_CFLAGS=-fno-builtin to show what losing inlined memcpy costs).

# No built-in rules: with them, make tries to remake the included *.d
# files through `%: %.o` and our codec-%.o pattern (stem "none.d").
MAKEFLAGS += -r
.SUFFIXES:

B        := build
CC       ?= gcc
NASM     ?= nasm
LD       ?= ld
OBJCOPY  ?= objcopy

WARN        := -Wall -Wextra -Werror
# Where the headers are: include/ (the format), decode/ (decoders, CRC and
# the codec list, shared by every side), the side's own folder.
INCLUDES    := -Iinclude -Idecode
HOST_CFLAGS := -std=c11 -O2 -g $(WARN) -D_POSIX_C_SOURCE=200809L $(INCLUDES) -Itools/packer -Itools/compress -Itools/bench -Itools/reference -I$(B)/gen -MMD -MP
HOST_LDLIBS :=

# The stub is freestanding and position independent: -fPIE, and every
# symbol hidden (stub/hidden.h) so that nothing goes through a GOT; the
# heads find their own address with call/pop or rip.  -ffreestanding alone
# implies -fno-builtin, which makes every constant-size memcpy an
# out-of-line call (Linux's pre-boot LZ4 ran 10x slower for years that
# way); -fbuiltin gives the builtins back.  No loop-to-memcpy rewriting
# inside memcpy itself.  SSE: stub/head_32.asm checks for SSE2 and enables
# it before any C runs, so the 32-bit stub moves 16 bytes per instruction
# (-mtune=generic: i686 tuning would still split unaligned 16-byte copies
# into 4-byte moves); the 64-bit head enables no SSE, so that stub keeps to
# the general registers.
STUB_CFLAGS := -std=c11 -O2 $(WARN) -ffreestanding -fbuiltin -fPIE -include stub/hidden.h \
	-fno-stack-protector -fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns \
	-fcf-protection=none $(INCLUDES) -Istub -MMD -MP $(EXTRA_STUB_CFLAGS)
STUB_CFLAGS_32 := -m32 -march=i686 -msse2 -mtune=generic
STUB_CFLAGS_64 := -m64 -mno-red-zone -mcmodel=small -mgeneral-regs-only

# Every codec in decode/codecs.def, by its C identifier (the file stem).
CODECS := $(shell sed -n 's/^CODEC.\([a-z0-9_]*\),.*/\1/p' decode/codecs.def)
# CODEC_SRCS ident: a codec's decoder sources, decode/<ident>_*.c (its
# <ident>_decode.c and any other files of its own), less those of a codec
# whose ident extends it (lzo_rle_decode.c is not lzo's).
CODEC_SRCS = $(sort $(filter-out $(foreach o,$(filter $(1)_%,$(CODECS)),$(wildcard decode/$(o)_*.c)),\
	$(wildcard decode/$(1)_*.c)))
BITS   := 32 64

all:

GEN_FILES := $(B)/gen/bzpack_format.inc $(B)/gen/bzpack_format.ld $(B)/gen/bzpack_format.sh $(B)/gen/stubs.S

include stub/stub.mk
include tools/tools.mk
include images/images.mk
include tests/tests.mk
include tools/bench/bench.mk
include tests/fuzz.mk

all: $(B)/bzpack $(STUB_BINS) $(TESTKERNELS) $(HOST_TESTS) $(GEN_FILES) $(B)/tools/vcpu_icount.so

# Objects depend on the flags they were built with: changing
# EXTRA_STUB_CFLAGS rebuilds the stubs.
$(B)/stub/cflags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(STUB_CFLAGS) | $(STUB_CFLAGS_32) | $(STUB_CFLAGS_64)' | cmp -s - $@ || \
		echo '$(STUB_CFLAGS) | $(STUB_CFLAGS_32) | $(STUB_CFLAGS_64)' > $@

# Generated from the C header and the codec list: constants for NASM, ld
# and the test scripts; the stubs.S that carries every stub into the packer.
$(B)/gen/bzpack_format.%: $(B)/tools/gen_consts
	@mkdir -p $(B)/gen
	$(B)/tools/gen_consts $* > $@.tmp && mv $@.tmp $@
$(B)/gen/stubs.S: $(B)/tools/gen_consts
	@mkdir -p $(B)/gen
	$(B)/tools/gen_consts stubs > $@.tmp && mv $@.tmp $@

deps:
	@sh ci/deps.sh

# Timing: see ci/benchmarks/bench.sh.  bench-check is CI's regression gate;
# bench-baseline writes ci/benchmarks/baseline.json and README's timing table from one
# run.  The codecs come from the packer (--list-codecs); BENCH_CODECS="..."
# overrides that for a quick look.  CODECS above is this Makefile's own
# list and leaks into the environment when the caller had one, so it is
# dropped rather than passed on.
BENCH_ENV = env -u CODECS B=$(B) $(if $(BENCH_CODECS),CODECS='$(BENCH_CODECS)')
bench: deps all
	@$(BENCH_ENV) bash ci/benchmarks/bench.sh run
bench-check: deps all
	@$(BENCH_ENV) bash ci/benchmarks/bench.sh check
bench-baseline: deps all
	@$(BENCH_ENV) bash ci/benchmarks/bench.sh baseline
	@B=$(B) bash ci/stub-sizes.sh readme

# The README's generated tables that need no QEMU: what each stub adds.
readme: all
	@B=$(B) bash ci/stub-sizes.sh readme
# test-debian with its side-by-side boots taken 3 times (median) instead of once.
bench-debian: deps all
	@SIDE_ROUNDS=3 TEST_SCRIPTS=debian bash ci/test.sh
# The side-by-side table of Debian's kernels from the last make test or bench-debian
# (ci/tests/test-debian.sh writes it; wall times, so never checked, only copied).
readme-debian:
	@bash ci/readme-table.sh debian-table $(B)/test/side-by-side.md
# Debian's setup_header against our repack's, field by field (ci/tests/test-repack.sh).
readme-repack:
	@bash ci/readme-table.sh repack-table $(B)/test/repack-header.md
# The loaders x images table from the last make test: the UEFI routes
# (ci/tests/test-efi.sh), then the other loaders (ci/tests/test-loaders.sh).
readme-efi:
	@bash ci/readme-table.sh efi-table $(B)/test/efi-loaders.md $(B)/test/loaders.md
	@bash ci/readme-table.sh efi-firmware-table $(B)/test/efi-firmware.md
# Linux's own decompressor against ours, and the seed, in exact
# instructions, from the last make test (ci/tests/test-linux.sh).
readme-linux:
	@bash ci/readme-table.sh linux-table $(B)/test/linux/readme.md
# --bcj's trade per codec, in exact instructions (ci/benchmarks/bcj-table.sh), and
# the README table from its last run.
bench-bcj: deps all
	@B=$(B) bash ci/benchmarks/bcj-table.sh
readme-bcj:
	@bash ci/readme-table.sh bcj-table $(B)/test/bcj-table.md
# Time to /init with the kernel or the stub decompressing the initrd
# (ci/benchmarks/initrd-table.sh), and the README table from its last run.
bench-initrd: deps all
	@B=$(B) bash ci/benchmarks/initrd-table.sh
readme-initrd:
	@bash ci/readme-table.sh initrd-table $(B)/test/initrd-table.md
# What decoding on several CPUs gains (ci/benchmarks/smp-table.sh): the
# busiest CPU's exact instructions per CPU count, and the wall clock
# under multi-threaded TCG; the README tables from its last run.
bench-smp: deps all
	@B=$(B) bash ci/benchmarks/smp-table.sh
readme-smp:
	@bash ci/readme-table.sh smp-table $(B)/test/smp-table.md
	@bash ci/readme-table.sh smp-wall $(B)/test/smp-wall.md
# The payload check's cost per word size and CPU, in exact instructions
# (ci/verify-table.sh boots lz4 images of the test and Debian kernels).
readme-verify: all
	@B=$(B) bash ci/verify-table.sh
	@bash ci/readme-table.sh verify-table $(B)/test/verify.md
# The Layout table, from the tree and ci/layout.txt (ci/layout.sh).
readme-layout:
	@bash ci/layout.sh readme

run: deps all
	@bash ci/run-default.sh

# The build before the tests takes every core when make was given no -j
# (CI runs a plain `make test`); a -j given is kept.
test: deps
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc)) all
	@bash ci/test.sh

# Every stub byte flipped and booted (ci/tests/test-selfcheck.sh with
# SELFCHECK_FULL=1): days for all codecs, so not in make test; narrow it
# with SELFCHECK_CODECS="xz".
sweep-stub: deps all
	@bash -c '. ci/lib.sh; SELFCHECK_FULL=1; . ci/tests/test-selfcheck.sh; \
		echo "$$PASSED passed, $$FAILED failed, $$SKIPPED skipped"; [ "$$FAILED" -eq 0 ]'

# make install PREFIX=/usr/local DESTDIR=: the packer (its stubs are data
# inside it, so it runs from anywhere) and its man page.  uninstall removes
# exactly those two files and leaves the directories, which others share.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(DESTDIR)$(PREFIX)/bin
MAN1DIR := $(DESTDIR)$(PREFIX)/share/man/man1

install: $(B)/bzpack docs/bzpack.1
	install -d $(BINDIR) $(MAN1DIR)
	install -m 755 $(B)/bzpack $(BINDIR)/bzpack
	install -m 644 docs/bzpack.1 $(MAN1DIR)/bzpack.1

uninstall:
	rm -f $(BINDIR)/bzpack $(MAN1DIR)/bzpack.1

clean:
	rm -rf $(B)

.PHONY: all deps run test sweep-stub install uninstall clean bench bench-check bench-baseline readme bench-debian readme-debian readme-repack readme-efi readme-linux bench-bcj readme-bcj bench-smp readme-smp bench-initrd readme-initrd readme-verify readme-layout FORCE
.DELETE_ON_ERROR:

# build/linux holds Linux's source and Kbuild trees (ci/fixtures/linux-src.sh): not ours.
# build/regress is a build of its own (B=build/regress, made by
# ci/tests/test-bench.sh and test-bench-cmd.sh while other scripts run
# make here): its half-written .d files are none of this build's business.
-include $(shell find $(B) \( -path $(B)/linux -o -path $(B)/regress \) -prune -o -name '*.d' -type f -print 2>/dev/null)
