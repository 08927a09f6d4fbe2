# xz.mk - host tests and the fuzzer of the lzma and xz codecs
# (decode/lzma_decode.c, decode/xz_decode.c and their shared
# decode/lzma_core.h), against liblzma.  Included by the top Makefile;
# uses B, CC, HOST_CFLAGS, HOST_LDLIBS and TEST_SAN_FLAGS (tests/tests.mk),
# FUZZ_CC and FUZZ_FLAGS (tests/fuzz.mk).
#
#   $(B)/tests/test_xz          tests/test_xz.c and both decoders, -O2
#   $(B)/tests/test_xz_asan     the same, built with ASan + UBSan
#   $(B)/tests/xz_files_m32     -m32 + ASan + UBSan, without liblzma: the
#                               xz tool compresses, both decoders decode
#                               (tests/xz_files.c)
#   $(B)/tests/test_xz_m32      test_xz itself -m32 (only with XZ_M32=1:
#                               needs liblzma-dev:i386, not installable
#                               beside the amd64 liblzma on Debian 12 here)
#   $(B)/fuzz/fuzz_xz           libFuzzer target, differential against
#                               liblzma (tests/fuzz_xz.c)
#   $(B)/fuzz/seeds/xz/         its seed corpus (FUZZERS += xz)
#   make check-xz               build and run the tests with the test kernels
#   make check-xz-m32           the same for xz_files_m32
#
# The tests take optional extra input files (the test kernels):
#   $(B)/tests/test_xz $(B)/images/testkern32.elf $(B)/images/testkern64.elf

TEST_XZ_LIBS := $(HOST_LDLIBS) -llzma
TEST_XZ_ARGS  = $(B)/images/testkern32.elf $(B)/images/testkern64.elf
TEST_XZ_DECODERS := decode/lzma_decode.c decode/xz_decode.c
TEST_XZ_HDRS := decode/lzma_core.h decode/decode.h decode/mem.h decode/codecs.def

HOST_TESTS += $(B)/tests/test_xz $(B)/tests/test_xz_asan

$(B)/tests/test_xz: tests/test_xz.c $(TEST_XZ_DECODERS) $(TEST_XZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(filter-out -MMD -MP,$(HOST_CFLAGS)) -o $@ tests/test_xz.c $(TEST_XZ_DECODERS) $(TEST_XZ_LIBS)

$(B)/tests/test_xz_asan: tests/test_xz.c $(TEST_XZ_DECODERS) $(TEST_XZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(filter-out -MMD -MP,$(HOST_CFLAGS)) $(TEST_SAN_FLAGS) -o $@ tests/test_xz.c $(TEST_XZ_DECODERS) $(TEST_XZ_LIBS)

# 32-bit build of the same (size_t and pointers of the -m32 stub); opt-in,
# it needs the i386 liblzma.
ifeq ($(XZ_M32),1)
HOST_TESTS += $(B)/tests/test_xz_m32
$(B)/tests/test_xz_m32: tests/test_xz.c $(TEST_XZ_DECODERS) $(TEST_XZ_HDRS)
	@mkdir -p $(@D)
	$(CC) -m32 $(filter-out -MMD -MP,$(HOST_CFLAGS)) -o $@ tests/test_xz.c $(TEST_XZ_DECODERS) $(TEST_XZ_LIBS)
endif

check-xz: $(B)/tests/test_xz $(B)/tests/test_xz_asan $(TEST_XZ_ARGS)
	$(B)/tests/test_xz $(TEST_XZ_ARGS)
	$(B)/tests/test_xz_asan $(TEST_XZ_ARGS)

.PHONY: check-xz

# ---- libFuzzer (include this file after tests/fuzz.mk) ---------------------
# `make fuzz` runs every fuzzer in FUZZERS; fuzz-build builds them.

FUZZERS += xz

$(B)/fuzz/fuzz_xz: tests/fuzz_xz.c $(TEST_XZ_DECODERS) $(TEST_XZ_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz_xz.c $(TEST_XZ_DECODERS) -llzma

# Seeds: small inputs compressed by liblzma, in the fuzzer's input format.
$(B)/fuzz/mkseeds_xz: tests/fuzz_xz.c
	@mkdir -p $(@D)
	$(CC) $(filter-out -MMD -MP,$(HOST_CFLAGS)) -DFUZZ_XZ_MKSEEDS -o $@ $< -llzma

$(B)/fuzz/seeds/xz.stamp: $(B)/fuzz/mkseeds_xz
	rm -rf $(B)/fuzz/seeds/xz
	@mkdir -p $(B)/fuzz/seeds/xz
	$(B)/fuzz/mkseeds_xz $(B)/fuzz/seeds/xz
	@touch $@

fuzz-build: $(B)/fuzz/fuzz_xz $(B)/fuzz/seeds/xz.stamp

# ---- -m32 without the i386 liblzma -------------------------------------------
# tests/xz_files.c has the xz command-line tool compress its arguments
# (the test kernels, whole and their first 256 KiB, several presets,
# checks, BCJ, block sizes, .lzma with odd lc/lp/pb) and needs no liblzma:
# built -m32 with ASan + UBSan it covers the 32-bit decoders (size_t,
# pointers) the -m32 stub runs.  It is a host test like the others
# (ci/test-host.sh runs it with the test kernels); `make check-xz-m32`
# runs it alone.

HOST_TESTS += $(B)/tests/xz_files_m32

$(B)/tests/xz_files_m32: tests/xz_files.c $(TEST_XZ_DECODERS) $(TEST_XZ_HDRS)
	@mkdir -p $(@D)
	$(CC) -m32 $(filter-out -MMD -MP,$(HOST_CFLAGS)) $(TEST_SAN_FLAGS) -o $@ tests/xz_files.c $(TEST_XZ_DECODERS)

check-xz-m32: $(B)/tests/xz_files_m32 $(TEST_XZ_ARGS)
	$(B)/tests/xz_files_m32 $(TEST_XZ_ARGS)

.PHONY: check-xz-m32
