# zstd.mk - host tests and the libFuzzer target for decode/zstd_decode.c.
# Included by the top Makefile after tests/tests.mk and tests/fuzz.mk (uses
# B, CC, HOST_CFLAGS, HOST_LDLIBS and, for the fuzzer, FUZZ_CC and
# FUZZ_FLAGS from there).
#
#   $(B)/tests/test_zstd        tests/test_zstd.c against libzstd, -O2
#   $(B)/tests/test_zstd_asan   the same, decoder and test built with ASan + UBSan
#   $(B)/fuzz/fuzz_zstd         libFuzzer target, differential against libzstd
#   $(B)/fuzz/seeds/zstd/       its seed corpus (made by $(B)/fuzz/mkseeds_zstd)
#   make check-zstd             build and run both tests on the test kernels
#   make fuzz-zstd              run the fuzzer alone for FUZZ_SECONDS
#
# The tests take the test kernels as arguments (ci/test-host.sh passes
# them to every executable in $(B)/tests/) and skip missing ones.

TEST_ZSTD_SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TEST_ZSTD_LIBS      := $(HOST_LDLIBS) -lzstd
TEST_ZSTD_DEPS      := decode/decode.h decode/mem.h decode/codecs.def tests/zstd.mk

HOST_TESTS += $(B)/tests/test_zstd $(B)/tests/test_zstd_asan

# Plain build.
$(B)/tests/test_zstd.o: tests/test_zstd.c $(TEST_ZSTD_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/tests/zstd_decode.o: decode/zstd_decode.c $(TEST_ZSTD_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/tests/test_zstd: $(B)/tests/test_zstd.o $(B)/tests/zstd_decode.o
	$(CC) -o $@ $^ $(TEST_ZSTD_LIBS)

# Sanitizer build: the decoder and the test both instrumented.
$(B)/tests/asan/test_zstd.o: tests/test_zstd.c $(TEST_ZSTD_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_ZSTD_SAN_FLAGS) -c -o $@ $<

$(B)/tests/asan/zstd_decode.o: decode/zstd_decode.c $(TEST_ZSTD_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_ZSTD_SAN_FLAGS) -c -o $@ $<

$(B)/tests/test_zstd_asan: $(B)/tests/asan/test_zstd.o $(B)/tests/asan/zstd_decode.o
	$(CC) $(TEST_ZSTD_SAN_FLAGS) -o $@ $^ $(TEST_ZSTD_LIBS)

check-zstd: $(B)/tests/test_zstd $(B)/tests/test_zstd_asan
	$(B)/tests/test_zstd $(B)/images/testkern32.elf $(B)/images/testkern64.elf
	$(B)/tests/test_zstd_asan $(B)/images/testkern32.elf $(B)/images/testkern64.elf

# ---- libFuzzer ----------------------------------------------------------------

$(B)/fuzz/fuzz_zstd: tests/fuzz_zstd.c decode/zstd_decode.c $(TEST_ZSTD_DEPS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -DZSTD_DECODE_NOTES -o $@ tests/fuzz_zstd.c decode/zstd_decode.c -lzstd

# Seeds: small inputs compressed by libzstd at several levels and options,
# in the fuzzer's input format.  Plain host build: it only writes files.
$(B)/fuzz/mkseeds_zstd: tests/fuzz_zstd.c $(TEST_ZSTD_DEPS)
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -DFUZZ_ZSTD_MKSEEDS -o $@ $< -lzstd

$(B)/fuzz/seeds/zstd.stamp: $(B)/fuzz/mkseeds_zstd
	rm -rf $(B)/fuzz/seeds/zstd
	@mkdir -p $(B)/fuzz/seeds/zstd
	$(B)/fuzz/mkseeds_zstd $(B)/fuzz/seeds/zstd
	@touch $@

# `make fuzz` runs every fuzzer in FUZZERS (tests/fuzz.mk).
FUZZERS += zstd
fuzz-build: $(B)/fuzz/fuzz_zstd $(B)/fuzz/seeds/zstd.stamp

fuzz-zstd: $(B)/fuzz/fuzz_zstd $(B)/fuzz/seeds/zstd.stamp
	@$(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) -f tests/zstd.mk \
		fuzz FUZZERS=zstd

.PHONY: check-zstd fuzz-zstd
