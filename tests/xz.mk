# xz.mk - host tests and the fuzzer of the lzma and xz codecs
# (decode/lzma_decode.c, decode/xz_decode.c and their shared
# decode/lzma_core.h), against liblzma.  Included by the top Makefile;
# uses B, CC, HOST_CFLAGS, HOST_LDLIBS and TEST_SAN_FLAGS (tests/tests.mk),
# FUZZ_CC and FUZZ_FLAGS (tests/fuzz.mk).
#
#   $(B)/tests/test_xz          tests/test_xz.c and both decoders, -O2
#   $(B)/tests/test_xz_asan     the same, built with ASan + UBSan
#   $(B)/tests/test_xz_m32      the same, -m32 (only with XZ_M32=1: needs
#                               liblzma-dev:i386)
#   $(B)/fuzz/fuzz_xz           libFuzzer target, differential against
#                               liblzma (tests/fuzz_xz.c)
#   $(B)/fuzz/seeds/xz/         its seed corpus (FUZZERS += xz)
#   make check-xz               build and run the tests with the test kernels
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
