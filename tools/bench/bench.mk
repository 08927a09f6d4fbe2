# bench.mk - `make bench-native`: our decoders, compiled for the host the
# way the stub compiles them, against the reference libraries on the same
# inputs (tools/bench/bench_native.c, run by ci/bench-native.sh).  Included by
# the top Makefile; uses B, CC, HOST_CFLAGS, STUB_CFLAGS and TESTKERNELS.
#
#   $(B)/tools/bench_native     the benchmark
#   $(B)/bench/native.json      its results (written by ci/bench-native.sh)
#   $(B)/bench/native-cache/    compressed inputs, reused between runs
#
# `make bench-native EXTRA_STUB_CFLAGS=-fno-builtin` measures what losing
# the inlined memcpy costs, like the stub itself would.

# The stub's code-generation flags that still mean something in a hosted
# build: its -O level and its builtin setting (-fbuiltin, or a later
# -fno-builtin* from EXTRA_STUB_CFLAGS).  The rest is HOST_CFLAGS without
# its own -O.  (-ffreestanding, -mgeneral-regs-only and the 32-bit and
# kernel code-model flags are left out: this is a hosted 64-bit build.)
BENCH_STUB_CODEGEN := $(filter -O% -fbuiltin -fno-builtin%,$(STUB_CFLAGS))
BENCH_CFLAGS       := $(filter-out -O%,$(HOST_CFLAGS)) $(BENCH_STUB_CODEGEN)
BENCH_LIBS         := -llz4 -llzo2 -lz -ldeflate -lzstd -llzma

# Rebuild when the flags change (e.g. EXTRA_STUB_CFLAGS on the command
# line): the stamp is rewritten only when its contents would differ.
$(B)/tools/bench_native.flags: bench-native-flags-check
	@mkdir -p $(@D)
	@echo '$(CC) $(BENCH_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(BENCH_CFLAGS)' > $@

$(B)/tools/bench_native.o: tools/bench/bench_native.c $(B)/tools/bench_native.flags
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -DBENCH_OURS_CFLAGS='"$(BENCH_STUB_CODEGEN)"' -c -o $@ $<

# The decoder exactly as the stub's source has it, under its own object
# name so that it never mixes with the test or packer builds of it.
$(B)/tools/bench_lz4_decode.o: decode/lz4_decode.c $(B)/tools/bench_native.flags
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -c -o $@ $<

$(B)/tools/bench_native: $(B)/tools/bench_native.o $(B)/tools/bench_lz4_decode.o $(B)/host/tools/bzpack/util.o
	$(CC) -o $@ $^ $(BENCH_LIBS)

bench-native: $(B)/tools/bench_native $(TESTKERNELS)
	@B=$(B) bash ci/bench-native.sh

.PHONY: bench-native bench-native-flags-check
bench-native-flags-check: ;
