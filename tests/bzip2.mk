# bzip2.mk - the bzip2 codec's host tests and fuzzer.  Included by the top
# Makefile (after tests/fuzz.mk, so that `make fuzz` runs this fuzzer too);
# uses B, CC, WARN, INCLUDES and HOST_CFLAGS from there and nothing from
# the other test makefiles.
#
#   $(B)/tests/test_bzip2        decode/bzip2_decode.c against libbz2, -O2
#   $(B)/tests/test_bzip2_asan   the same, built with ASan + UBSan
#   $(B)/fuzz/fuzz_bzip2         libFuzzer target: differential against
#                                libbz2 (tests/fuzz_bzip2.c)
#   $(B)/fuzz/seeds/bzip2/       its seed corpus (made by mkseeds_bzip2)
#   make check-bzip2             build and run both tests with the test kernels
#   make fuzz-bzip2              fuzz it alone for FUZZ_SECONDS (default 30)
#
# Both tests take optional extra input files (the test kernels) as
# arguments and skip the ones that do not exist; ci/test-host.sh runs every
# executable in $(B)/tests/ that way.

BZIP2_SAN_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
BZIP2_TEST_LIBS  := -lbz2
BZIP2_TEST_ARGS   = $(B)/images/testkern32.elf $(B)/images/testkern64.elf
BZIP2_DECODE_DEPS := decode/bzip2_decode.c decode/decode.h decode/mem.h decode/codecs.def

HOST_TESTS += $(B)/tests/test_bzip2 $(B)/tests/test_bzip2_asan

# Plain build.
$(B)/tests/test_bzip2.o: tests/test_bzip2.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/tests/bzip2_decode.o: $(BZIP2_DECODE_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/tests/test_bzip2: $(B)/tests/test_bzip2.o $(B)/tests/bzip2_decode.o
	$(CC) -o $@ $^ $(BZIP2_TEST_LIBS)

# Sanitizer build: the decoder and the test both instrumented.
$(B)/tests/asan/test_bzip2.o: tests/test_bzip2.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(BZIP2_SAN_FLAGS) -c -o $@ $<

$(B)/tests/asan/bzip2_decode.o: $(BZIP2_DECODE_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(BZIP2_SAN_FLAGS) -c -o $@ $<

$(B)/tests/test_bzip2_asan: $(B)/tests/asan/test_bzip2.o $(B)/tests/asan/bzip2_decode.o
	$(CC) $(BZIP2_SAN_FLAGS) -o $@ $^ $(BZIP2_TEST_LIBS)

check-bzip2: $(B)/tests/test_bzip2 $(B)/tests/test_bzip2_asan
	$(B)/tests/test_bzip2 $(BZIP2_TEST_ARGS)
	$(B)/tests/test_bzip2_asan $(BZIP2_TEST_ARGS)

.PHONY: check-bzip2

# ---- libFuzzer ---------------------------------------------------------------
# clang-14 with libFuzzer (Debian 12: clang-14 and libclang-rt-14-dev).

FUZZ_CC      ?= $(shell command -v clang-14 || command -v clang || echo clang)
FUZZ_SECONDS ?= 30
FUZZ_ARGS    ?=
BZIP2_FUZZ_FLAGS := -std=c11 -O1 -g $(WARN) -D_POSIX_C_SOURCE=200809L $(INCLUDES) \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

$(B)/fuzz/fuzz_bzip2: tests/fuzz_bzip2.c $(BZIP2_DECODE_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(BZIP2_FUZZ_FLAGS) -o $@ tests/fuzz_bzip2.c decode/bzip2_decode.c -lbz2

# Seeds: small inputs compressed by libbz2 (levels 1 and 9), in the
# fuzzer's input format.  Plain host build: it only writes files.
$(B)/fuzz/mkseeds_bzip2: tests/fuzz_bzip2.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -DFUZZ_BZIP2_MKSEEDS -o $@ $< -lbz2

$(B)/fuzz/seeds/bzip2.stamp: $(B)/fuzz/mkseeds_bzip2
	rm -rf $(B)/fuzz/seeds/bzip2
	@mkdir -p $(B)/fuzz/seeds/bzip2
	$(B)/fuzz/mkseeds_bzip2 $(B)/fuzz/seeds/bzip2
	@touch $@

# `make fuzz` (tests/fuzz.mk) loops over FUZZERS when it runs.
FUZZERS += bzip2
fuzz-build: $(B)/fuzz/fuzz_bzip2 $(B)/fuzz/seeds/bzip2.stamp

# This fuzzer alone: the seeds plus what earlier runs found
# ($(B)/fuzz/corpus/bzip2/, kept); crashes in $(B)/fuzz/crashes/bzip2/.
# Replay one with: $(B)/fuzz/fuzz_bzip2 CRASH-FILE
fuzz-bzip2: $(B)/fuzz/fuzz_bzip2 $(B)/fuzz/seeds/bzip2.stamp
	rm -rf $(B)/fuzz/crashes/bzip2
	@mkdir -p $(B)/fuzz/corpus/bzip2 $(B)/fuzz/crashes/bzip2
	$(B)/fuzz/fuzz_bzip2 -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=$(B)/fuzz/crashes/bzip2/ $(FUZZ_ARGS) \
		$(B)/fuzz/corpus/bzip2 $(B)/fuzz/seeds/bzip2

.PHONY: fuzz-bzip2
