# gzip.mk - host tests and the libFuzzer target of the gzip codec
# (decode/gzip_decode.c).  Included by the top Makefile after
# tests/fuzz.mk (uses B, CC, HOST_CFLAGS, HOST_LDLIBS, TEST_SAN_FLAGS,
# FUZZ_CC, FUZZ_FLAGS from there; adds gzip to FUZZERS).
#
#   $(B)/tests/test_gzip          decode/gzip_decode.c against libdeflate
#                                 and zlib (tests/test_gzip.c), -O2
#   $(B)/tests/test_gzip_asan     the same, decoder and test built with
#                                 ASan + UBSan
#   $(B)/tests/test_gzip32_asan   ASan + UBSan, the decoder built with a
#                                 32-bit bit buffer: the paths the -m32
#                                 stub takes, on the 64-bit host
#   $(B)/fuzz/fuzz_gzip           libFuzzer target, differential against
#                                 zlib's inflate (tests/fuzz_gzip.c)
#   $(B)/fuzz/seeds/gzip/         its seed corpus ($(B)/fuzz/mkseeds_gzip)
#   make check-gzip               build and run the three tests
#   make fuzz-gzip                run the fuzzer alone for FUZZ_SECONDS
#
# The tests take the test kernels as extra inputs (ci/test-host.sh passes
# them to every executable in $(B)/tests/).  Each links the decoder twice:
# as it is, and built with GZIP_SAFE_LOOP_ONLY as gzip_decode_safe (no
# fast loop), to check that the fast loop changes no status and no byte.

GZIP_SAFE_ONLY := -DGZIP_SAFE_LOOP_ONLY -Dgzip_decode=gzip_decode_safe
GZIP_BITBUF32  := -DGZIP_BITBUF_T=uint32_t

TEST_GZIP_LIBS := $(HOST_LDLIBS) -ldeflate -lz
TEST_GZIP_ARGS  = $(B)/images/testkern32.elf $(B)/images/testkern64.elf
GZIP_TESTS     := $(B)/tests/test_gzip $(B)/tests/test_gzip_asan $(B)/tests/test_gzip32_asan

HOST_TESTS += $(GZIP_TESTS)
all: $(GZIP_TESTS)

# Plain build.
$(B)/tests/test_gzip.o: tests/test_gzip.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/tests/gzip_decode.o: decode/gzip_decode.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/tests/gzip_decode_safe.o: decode/gzip_decode.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(GZIP_SAFE_ONLY) -c -o $@ $<

$(B)/tests/test_gzip: $(B)/tests/test_gzip.o $(B)/tests/gzip_decode.o $(B)/tests/gzip_decode_safe.o
	$(CC) -o $@ $^ $(TEST_GZIP_LIBS)

# Sanitizer builds: the decoder and the test both instrumented.
$(B)/tests/asan/test_gzip.o: tests/test_gzip.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_SAN_FLAGS) -c -o $@ $<

$(B)/tests/asan/gzip_decode.o: decode/gzip_decode.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_SAN_FLAGS) -c -o $@ $<

$(B)/tests/asan/gzip_decode_safe.o: decode/gzip_decode.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_SAN_FLAGS) $(GZIP_SAFE_ONLY) -c -o $@ $<

$(B)/tests/asan/gzip_decode32.o: decode/gzip_decode.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_SAN_FLAGS) $(GZIP_BITBUF32) -c -o $@ $<

$(B)/tests/asan/gzip_decode32_safe.o: decode/gzip_decode.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_SAN_FLAGS) $(GZIP_BITBUF32) $(GZIP_SAFE_ONLY) -c -o $@ $<

$(B)/tests/test_gzip_asan: $(B)/tests/asan/test_gzip.o $(B)/tests/asan/gzip_decode.o \
		$(B)/tests/asan/gzip_decode_safe.o
	$(CC) $(TEST_SAN_FLAGS) -o $@ $^ $(TEST_GZIP_LIBS)

$(B)/tests/test_gzip32_asan: $(B)/tests/asan/test_gzip.o $(B)/tests/asan/gzip_decode32.o \
		$(B)/tests/asan/gzip_decode32_safe.o
	$(CC) $(TEST_SAN_FLAGS) -o $@ $^ $(TEST_GZIP_LIBS)

check-gzip: $(GZIP_TESTS)
	@for t in $(GZIP_TESTS); do $$t $(TEST_GZIP_ARGS) | tail -n 1 || exit 1; done

# ---- libFuzzer ----------------------------------------------------------------

FUZZERS += gzip

$(B)/fuzz/gzip_decode_safe.o: decode/gzip_decode.c decode/decode.h decode/mem.h decode/codecs.def
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(GZIP_SAFE_ONLY) -c -o $@ decode/gzip_decode.c

$(B)/fuzz/fuzz_gzip: tests/fuzz_gzip.c decode/gzip_decode.c decode/decode.h decode/mem.h decode/codecs.def \
		$(B)/fuzz/gzip_decode_safe.o
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz_gzip.c decode/gzip_decode.c $(B)/fuzz/gzip_decode_safe.o -lz

# Seeds: small members from libdeflate and zlib, in the fuzzer's input
# format.  Plain host build: it only writes files.
$(B)/fuzz/mkseeds_gzip: tests/fuzz_gzip.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -DFUZZ_GZIP_MKSEEDS -o $@ $< -ldeflate -lz

$(B)/fuzz/seeds/gzip.stamp: $(B)/fuzz/mkseeds_gzip
	rm -rf $(B)/fuzz/seeds/gzip
	@mkdir -p $(B)/fuzz/seeds/gzip
	$(B)/fuzz/mkseeds_gzip $(B)/fuzz/seeds/gzip
	@touch $@

fuzz-build: $(B)/fuzz/fuzz_gzip $(B)/fuzz/seeds/gzip.stamp

fuzz-gzip: $(B)/fuzz/fuzz_gzip $(B)/fuzz/seeds/gzip.stamp
	@mkdir -p $(B)/fuzz/corpus/gzip $(B)/fuzz/crashes/gzip
	$(B)/fuzz/fuzz_gzip -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=$(B)/fuzz/crashes/gzip/ $(FUZZ_ARGS) \
		$(B)/fuzz/corpus/gzip $(B)/fuzz/seeds/gzip

.PHONY: check-gzip fuzz-gzip
