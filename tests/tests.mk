# Host unit tests (included by the top Makefile; uses B, CC, HOST_CFLAGS,
# HOST_LDLIBS from there).
#   $(B)/tests/test_lz4        decode/lz4_decode.c against liblz4, -O2
#   $(B)/tests/test_lz4_asan   the same, built with ASan + UBSan
# Both take optional extra input files (the test kernels) as arguments and
# skip the ones that do not exist:
#   $(B)/tests/test_lz4 $(B)/images/testkern32.elf $(B)/images/testkern64.elf

# -fno-sanitize-recover: make a UBSan report fail the run instead of
# printing and carrying on.
TEST_SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TEST_LZ4_LIBS  := $(HOST_LDLIBS) -llz4
TEST_LZ4_ARGS   = $(B)/images/testkern32.elf $(B)/images/testkern64.elf

HOST_TESTS += $(B)/tests/test_lz4 $(B)/tests/test_lz4_asan

# Plain build.
$(B)/tests/test_lz4.o: tests/test_lz4.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/tests/lz4_decode.o: decode/lz4_decode.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

$(B)/tests/test_lz4: $(B)/tests/test_lz4.o $(B)/tests/lz4_decode.o
	$(CC) -o $@ $^ $(TEST_LZ4_LIBS)

# Sanitizer build: the decoder and the test both instrumented.
$(B)/tests/asan/test_lz4.o: tests/test_lz4.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_SAN_FLAGS) -c -o $@ $<

$(B)/tests/asan/lz4_decode.o: decode/lz4_decode.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_SAN_FLAGS) -c -o $@ $<

$(B)/tests/test_lz4_asan: $(B)/tests/asan/test_lz4.o $(B)/tests/asan/lz4_decode.o
	$(CC) $(TEST_SAN_FLAGS) -o $@ $^ $(TEST_LZ4_LIBS)

# Convenience: build and run both (the test kernels are passed when they
# exist; the test notes and skips missing ones).
check-lz4: $(B)/tests/test_lz4 $(B)/tests/test_lz4_asan
	$(B)/tests/test_lz4 $(TEST_LZ4_ARGS)
	$(B)/tests/test_lz4_asan $(TEST_LZ4_ARGS)

.PHONY: check-lz4

# CRC-32C: check value, SSE4.2 path against the table path.
HOST_TESTS += $(B)/tests/test_crc32c
$(B)/tests/test_crc32c: tests/test_crc32c.c decode/crc32c.c decode/crc32c.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $(TEST_SAN_FLAGS) -o $@ tests/test_crc32c.c decode/crc32c.c
