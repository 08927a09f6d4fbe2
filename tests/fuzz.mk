# fuzz.mk - sanitizer builds of the host side and libFuzzer targets.
# Included by the top Makefile (uses B, CC, HOST_CFLAGS, TEST_SAN_FLAGS,
# BZPACK_SRCS, BZPACK_LIBS and the stub blobs from there).
#
#   $(B)/asan/bzpack          the packer, every source built with ASan +
#                             UBSan (ci/tests/test-malformed.sh runs the
#                             malformed-input corpus through it); part of
#                             `make all`
#   $(B)/fuzz/fuzz_lz4        libFuzzer target: decode/lz4_decode.c, checked
#                             against liblz4 (tests/fuzz_lz4.c)
#   $(B)/fuzz/fuzz_lz4_m32    the same built -m32: the stub's 32-bit decoder
#                             is this C, and its size_t is 32 bits only here
#   $(B)/fuzz/seeds/lz4/      their seed corpus, made by $(B)/fuzz/mkseeds_lz4
#   make fuzz                 run every fuzzer, native and -m32, for
#                             FUZZ_SECONDS (default 20) seconds each; fails
#                             if one finds a crash
#
# The fuzzers need clang with libFuzzer (Debian 12: clang-14 and
# libclang-rt-14-dev, which carries the i386 runtimes too), and for -m32
# liblz4-dev:i386 and lib32stdc++-12-dev (ci/deps.sh).  They live in
# $(B)/fuzz/, apart from the unit tests in $(B)/tests/ that
# ci/tests/test-host.sh runs; `make fuzz` runs them (.ci/run).

# ---- the packer under ASan + UBSan ----------------------------------------

ASAN_BZPACK_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_BZPACK_OBJS  := $(patsubst %.c,$(B)/asan/%.o,$(BZPACK_SRCS))

$(B)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(ASAN_BZPACK_FLAGS) -c -o $@ $<

# The stub binaries are data: the plain build's blob object is reused.
$(B)/asan/bzpack: $(ASAN_BZPACK_OBJS) $(B)/host/stubs_blob.o
	$(CC) $(ASAN_BZPACK_FLAGS) -o $@ $^ $(BZPACK_LIBS)

all: $(B)/asan/bzpack

# ---- libFuzzer -------------------------------------------------------------

FUZZ_CC      ?= $(shell command -v clang-14 || command -v clang || echo clang)
# 20 s for each of the native and the -m32 run: 40 s per fuzzer in CI.
FUZZ_SECONDS ?= 20
# Extra libFuzzer options for `make fuzz`, e.g. FUZZ_ARGS=-jobs=2
FUZZ_ARGS    ?=
FUZZ_FLAGS   := -std=c11 -O1 -g $(WARN) -D_POSIX_C_SOURCE=200809L $(INCLUDES) -Itools/packer -Itools/compress -Itools/bench -Itools/reference \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# One libFuzzer target per decoder family, tests/fuzz_<f>.c, differential
# against the reference library.  FUZZ_SRCS_<f>: the decoders it links;
# FUZZ_LIBS_<f>: the reference library; FUZZ_SEED_SRCS_<f>: what its seed
# generator (the same file built -DFUZZ_MKSEEDS) links besides;
# FUZZ_CFLAGS_<f>: extra flags for its build.
FUZZERS      := reference lz4 lzo gzip bzip2 xz zstd
# reference: every line of decode/references.def against our decoder of
# its codec (tests/fuzz_reference.c); a line added there is fuzzed with no
# edit here.  REF_* and REF_SRCS are tests/tests.mk's.
FUZZ_SRCS_reference := $(call REF_SRCS,$(REF_NAMES)) $(foreach c,$(CODECS),$(call CODEC_SRCS,$(c)))
FUZZ_LIBS_reference := $(REF_LIBS)
FUZZ_SEED_SRCS_reference := $(FUZZ_SRCS_reference)
FUZZ_SRCS_lz4 := decode/lz4_decode.c
FUZZ_LIBS_lz4 := -llz4
FUZZ_SRCS_lzo := decode/lzo_decode.c decode/lzo_rle_decode.c
FUZZ_LIBS_lzo := -llzo2
FUZZ_SEED_SRCS_lzo := tools/compress/compress_lzo_rle_opt.c
FUZZ_SRCS_gzip := decode/gzip_decode.c tests/gzip_decode_safe.c
FUZZ_LIBS_gzip := -lz -ldeflate
FUZZ_SRCS_xz := decode/lzma_decode.c decode/xz_decode.c
FUZZ_LIBS_xz := -llzma
FUZZ_SRCS_zstd := $(call CODEC_SRCS,zstd)
FUZZ_LIBS_zstd := -lzstd
# the decoder names why it refused, for the fuzzer's checks against libzstd
FUZZ_CFLAGS_zstd := -DZSTD_DECODE_NOTES
FUZZ_SRCS_bzip2 := decode/bzip2_decode.c
FUZZ_LIBS_bzip2 := -lbz2
# Every fuzzer runs in both builds; the -m32 binary has the suffix _m32.
# FUZZ_NO_M32: those whose reference library has no installable i386
# build (see ci/deps.sh); their decoders' 32-bit C runs in the stubs.
# reference: its -m32 twin would cover only the i386 references, which the
# per-codec fuzzers already run -m32.
FUZZ_NO_M32  := reference gzip bzip2 xz zstd
FUZZ_BUILDS  := $(foreach f,$(FUZZERS),$(f) $(if $(filter $(f),$(FUZZ_NO_M32)),,$(f)_m32))
FUZZ_DEPS    := $(wildcard decode/*.h tests/*.h tools/reference/*.h) decode/codecs.def

# FUZZ_RULES f
define FUZZ_RULES
$(B)/fuzz/fuzz_$(1): tests/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_DEPS)
	@mkdir -p $$(@D)
	$$(FUZZ_CC) $$(FUZZ_FLAGS) $(FUZZ_CFLAGS_$(1)) -o $$@ tests/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_LIBS_$(1))

$(B)/fuzz/fuzz_$(1)_m32: tests/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_DEPS)
	@mkdir -p $$(@D)
	$$(FUZZ_CC) -m32 $$(FUZZ_FLAGS) $(FUZZ_CFLAGS_$(1)) -o $$@ tests/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_LIBS_$(1))

# Seeds: small inputs compressed by the reference library (and our own
# compressor where there is one), in the fuzzer's input format.  Plain
# host build: it only writes files.
$(B)/fuzz/mkseeds_$(1): tests/fuzz_$(1).c $(FUZZ_SEED_SRCS_$(1)) $(FUZZ_DEPS)
	@mkdir -p $$(@D)
	$$(CC) $$(HOST_CFLAGS) -DFUZZ_MKSEEDS -o $$@ tests/fuzz_$(1).c $(FUZZ_SEED_SRCS_$(1)) $(FUZZ_LIBS_$(1))

$(B)/fuzz/seeds/$(1).stamp: $(B)/fuzz/mkseeds_$(1)
	rm -rf $(B)/fuzz/seeds/$(1)
	@mkdir -p $(B)/fuzz/seeds/$(1)
	$(B)/fuzz/mkseeds_$(1) $(B)/fuzz/seeds/$(1)
	@touch $$@
endef
$(foreach f,$(FUZZERS),$(eval $(call FUZZ_RULES,$(f))))

fuzz-build: $(foreach f,$(FUZZ_BUILDS),$(B)/fuzz/fuzz_$(f)) \
	$(foreach f,$(FUZZERS),$(B)/fuzz/seeds/$(f).stamp)

# Each fuzzer build (f: lz4, lz4_m32, ...): the seeds plus what earlier
# runs found ($(B)/fuzz/corpus/, kept, one per fuzzer: both builds read
# the same input format and add to it), FUZZ_SECONDS of fuzzing, this
# run's crash files in $(B)/fuzz/crashes/f/.  A crash, a sanitizer
# report, a leak, a timeout or running out of memory makes libFuzzer exit
# nonzero and `make fuzz` fail.  The summary line comes from libFuzzer's
# own final statistics.  Replay a crash with the binary that found it:
# $(B)/fuzz/fuzz_lz4_m32 CRASH-FILE
#
# FUZZ_JOBS (2) builds fuzz at a time, each on a core of its own for its
# FUZZ_SECONDS; each one's lines are printed together when it ends, and
# every build runs even when another failed.
FUZZ_JOBS ?= 2
fuzz: fuzz-build
	@$(MAKE) --no-print-directory -k -j$(FUZZ_JOBS) -Otarget $(addprefix fuzz-run-,$(FUZZ_BUILDS))

# FUZZ_RUN_RULE f: one fuzzer build's run
define FUZZ_RUN_RULE
fuzz-run-$(1):
	@f=$(1); base=$$$${f%_m32}; \
	rm -rf $(B)/fuzz/crashes/$$$$f; \
	mkdir -p $(B)/fuzz/corpus/$$$$base $(B)/fuzz/crashes/$$$$f; \
	log=$(B)/fuzz/$$$$f.log; \
	echo "fuzz $$$$f: $(FUZZ_SECONDS) s, log in $$$$log"; \
	if $(B)/fuzz/fuzz_$$$$f -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=$(B)/fuzz/crashes/$$$$f/ $(FUZZ_ARGS) \
		$(B)/fuzz/corpus/$$$$base $(B)/fuzz/seeds/$$$$base > $$$$log 2>&1; then \
		status=ok; \
	else \
		status=FAIL; \
	fi; \
	runs=$$$$(sed -n 's/^stat::number_of_executed_units: *//p' $$$$log | tail -n 1); \
	rate=$$$$(sed -n 's/^stat::average_exec_per_sec: *//p' $$$$log | tail -n 1); \
	cov=$$$$(grep -Eo 'cov: [0-9]+' $$$$log | tail -n 1); \
	corp=$$$$(ls $(B)/fuzz/corpus/$$$$base | wc -l); \
	crashes=$$$$(ls $(B)/fuzz/crashes/$$$$f | wc -l); \
	echo "fuzz $$$$f: $$$$status: $$$${runs:-?} execs ($$$${rate:-?}/s), $$$${cov:-cov: ?}, corpus $$$$corp, crash files $$$$crashes"; \
	if [ $$$$status = FAIL ]; then \
		grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' $$$$log | head -n 5; \
		ls $(B)/fuzz/crashes/$$$$f | sed "s|^|  $(B)/fuzz/crashes/$$$$f/|"; \
		exit 1; \
	fi
.PHONY: fuzz-run-$(1)
endef
$(foreach f,$(FUZZ_BUILDS),$(eval $(call FUZZ_RUN_RULE,$(f))))

.PHONY: fuzz fuzz-build
