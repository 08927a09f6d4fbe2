# lzo.mk - host tests and the libFuzzer target for the lzo and lzo-rle
# codecs (decode/lzo_decode.c, decode/lzo_rle_decode.c, their core
# decode/lzo1x_core.h, and our compressor tools/bzpack/lzo_opt.c).
# Included by the top Makefile; uses B, CC, HOST_CFLAGS, HOST_LDLIBS, WARN
# and INCLUDES from there.
#
#   $(B)/tests/test_lzo        tests/test_lzo.c against liblzo2, -O2
#   $(B)/tests/test_lzo_asan   the same, everything built with ASan + UBSan
#   $(B)/fuzz/fuzz_lzo         libFuzzer target (tests/fuzz_lzo.c): both
#                              decoders against the reference decoder
#                              (tests/lzo_ref.h) and lzo1x_decompress_safe
#   $(B)/fuzz/seeds/lzo/       its seed corpus, made by $(B)/fuzz/mkseeds_lzo
#   make check-lzo             build and run both tests on the test kernels
#   make fuzz-lzo              fuzz for FUZZ_SECONDS (default 30) seconds
#
# The test binaries live in $(B)/tests/, which ci/test-host.sh runs with
# the test kernels as arguments; the fuzzer in $(B)/fuzz/ (not run there).

LZO_SAN_FLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LZO_TEST_LIBS  := $(HOST_LDLIBS) -llzo2
LZO_TEST_ARGS   = $(B)/images/testkern32.elf $(B)/images/testkern64.elf
# What a test build compiles: the test, both decoder entry points and our
# compressor.
LZO_TEST_SRCS  := tests/test_lzo.c decode/lzo_decode.c decode/lzo_rle_decode.c tools/bzpack/lzo_opt.c

HOST_TESTS += $(B)/tests/test_lzo $(B)/tests/test_lzo_asan

$(B)/tests/lzo/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/tests/lzo-asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(LZO_SAN_FLAGS) -c -o $@ $<

$(B)/tests/test_lzo: $(patsubst %.c,$(B)/tests/lzo/%.o,$(LZO_TEST_SRCS))
	$(CC) -o $@ $^ $(LZO_TEST_LIBS)

$(B)/tests/test_lzo_asan: $(patsubst %.c,$(B)/tests/lzo-asan/%.o,$(LZO_TEST_SRCS))
	$(CC) $(LZO_SAN_FLAGS) -o $@ $^ $(LZO_TEST_LIBS)

check-lzo: $(B)/tests/test_lzo $(B)/tests/test_lzo_asan
	$(B)/tests/test_lzo $(LZO_TEST_ARGS)
	$(B)/tests/test_lzo_asan $(LZO_TEST_ARGS)

# ---- libFuzzer -------------------------------------------------------------

LZO_FUZZ_CC      ?= $(shell command -v clang-14 || command -v clang || echo clang)
FUZZ_SECONDS     ?= 30
FUZZ_ARGS        ?=
LZO_FUZZ_FLAGS   := -std=c11 -O1 -g $(WARN) -D_POSIX_C_SOURCE=200809L $(INCLUDES) -Itests \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LZO_DECODE_DEPS  := decode/lzo_decode.c decode/lzo_rle_decode.c decode/lzo1x_core.h decode/decode.h \
	decode/mem.h decode/codecs.def tests/lzo_ref.h

$(B)/fuzz/fuzz_lzo: tests/fuzz_lzo.c $(LZO_DECODE_DEPS)
	@mkdir -p $(@D)
	$(LZO_FUZZ_CC) $(LZO_FUZZ_FLAGS) -o $@ tests/fuzz_lzo.c decode/lzo_decode.c decode/lzo_rle_decode.c -llzo2

# Seeds: small inputs compressed by liblzo2 (lzo1x_1, lzo1x_999) and by our
# compressor in both versions, in the fuzzer's input format.
$(B)/fuzz/mkseeds_lzo: tests/fuzz_lzo.c tools/bzpack/lzo_opt.c tools/bzpack/lzo_opt.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -Itests -DFUZZ_LZO_MKSEEDS -o $@ tests/fuzz_lzo.c tools/bzpack/lzo_opt.c -llzo2

$(B)/fuzz/seeds/lzo.stamp: $(B)/fuzz/mkseeds_lzo
	rm -rf $(B)/fuzz/seeds/lzo
	@mkdir -p $(B)/fuzz/seeds/lzo
	$(B)/fuzz/mkseeds_lzo $(B)/fuzz/seeds/lzo
	@touch $@

fuzz-lzo-build: $(B)/fuzz/fuzz_lzo $(B)/fuzz/seeds/lzo.stamp

# Like tests/fuzz.mk's `fuzz`: seeds plus the kept corpus, FUZZ_SECONDS of
# fuzzing, crash files in $(B)/fuzz/crashes/lzo/; fails on any finding.
fuzz-lzo: fuzz-lzo-build
	@rm -rf $(B)/fuzz/crashes/lzo
	@mkdir -p $(B)/fuzz/corpus/lzo $(B)/fuzz/crashes/lzo
	@echo "fuzz lzo: $(FUZZ_SECONDS) s, log in $(B)/fuzz/lzo.log"
	@if $(B)/fuzz/fuzz_lzo -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-artifact_prefix=$(B)/fuzz/crashes/lzo/ $(FUZZ_ARGS) \
		$(B)/fuzz/corpus/lzo $(B)/fuzz/seeds/lzo > $(B)/fuzz/lzo.log 2>&1; then \
		echo "fuzz lzo: ok: $$(sed -n 's/^stat::number_of_executed_units: *//p' $(B)/fuzz/lzo.log | tail -n 1) execs"; \
	else \
		echo "fuzz lzo: FAIL"; grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|fuzz_lzo:)' $(B)/fuzz/lzo.log | head -n 5; \
		ls $(B)/fuzz/crashes/lzo | sed "s|^|  $(B)/fuzz/crashes/lzo/|"; exit 1; \
	fi

.PHONY: check-lzo fuzz-lzo fuzz-lzo-build
