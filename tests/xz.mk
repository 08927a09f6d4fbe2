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

# ---- -m32 without the i386 liblzma -------------------------------------------
# tests/xz_files.c decodes files made by the xz command-line tool (test
# kernel prefixes and whole kernels, several presets, checks, BCJ, block
# sizes, .lzma with odd lc/lp/pb) and needs no liblzma: built -m32 with
# ASan + UBSan it covers the 32-bit decoders (size_t, pointers) the -m32
# stub runs.  `make check-xz-m32`.

XZ_FILES_DIR  := $(B)/tests/xz-files
XZ_FILES_SRC  := $(B)/images/testkern64.elf
XZ_FILES_PART := $(XZ_FILES_DIR)/part
# name:xz-options, options separated by + (on the 256 KiB prefix "part")
XZ_FILES_VARIANTS := p0:-0 p6:-6 p9e:-9e none:-6+--check=none crc64:-6+--check=crc64 \
	bcj:--x86+--lzma2=preset=6 blocks:-T2+--block-size=32KiB+--check=crc64+--x86+--lzma2=preset=6 \
	lclp:--lzma2=preset=6,lc=0,lp=4,pb=4 lzma:--format=lzma+-9e lzma-lp:--format=lzma+--lzma1=preset=6,lc=1,lp=3,pb=0
XZ_FILES := $(foreach v,$(XZ_FILES_VARIANTS),$(XZ_FILES_DIR)/part-$(firstword $(subst :, ,$(v))).xz)

$(XZ_FILES_PART): $(XZ_FILES_SRC)
	@mkdir -p $(@D)
	head -c 262144 $< > $@

$(XZ_FILES_DIR)/part-%.xz: $(XZ_FILES_PART) tests/xz.mk
	xz -c -k $(subst +, ,$(patsubst $*:%,%,$(filter $*:%,$(XZ_FILES_VARIANTS)))) $< > $@
$(XZ_FILES_DIR)/whole.xz: $(XZ_FILES_SRC)
	@mkdir -p $(@D)
	xz -c -k --x86 --lzma2=preset=9e $< > $@
$(XZ_FILES_DIR)/whole.lzma: $(XZ_FILES_SRC)
	@mkdir -p $(@D)
	xz -c -k --format=lzma -6 $< > $@

$(B)/tests/xz_files_m32: tests/xz_files.c $(TEST_XZ_DECODERS) $(TEST_XZ_HDRS)
	@mkdir -p $(@D)
	$(CC) -m32 $(filter-out -MMD -MP,$(HOST_CFLAGS)) $(TEST_SAN_FLAGS) -o $@ tests/xz_files.c $(TEST_XZ_DECODERS)

check-xz-m32: $(B)/tests/xz_files_m32 $(XZ_FILES) $(XZ_FILES_DIR)/whole.xz $(XZ_FILES_DIR)/whole.lzma
	$(B)/tests/xz_files_m32 $(XZ_FILES_PART) $(XZ_FILES)
	$(B)/tests/xz_files_m32 $(XZ_FILES_SRC) $(XZ_FILES_DIR)/whole.xz $(XZ_FILES_DIR)/whole.lzma

.PHONY: check-xz-m32
