# bench.mk - `make bench-native`: our decoders, compiled for the host the
# way the stub compiles them, against the reference libraries on the same
# inputs (tools/bench/bench_native.c, run by ci/benchmarks/bench-native.sh).  Included by
# the top Makefile; uses B, CC, CODECS, HOST_CFLAGS, STUB_CFLAGS and
# TESTKERNELS.
#
#   $(B)/tools/bench_native     the benchmark
#   $(B)/tools/bench_seed       the seed's experiment (`make bench-seed`,
#                               which bench-native runs too)
#   $(B)/tools/bench/           their decoder objects
#   $(B)/bench/native.json      their results (ci/benchmarks/bench-native.sh,
#                               ci/benchmarks/bench-seed.sh, ci/benchmarks/nativejson.py)
#   $(B)/bench/native-cache/    compressed inputs, reused between runs (the
#                               payload cache, tools/packer/payload_cache.h)
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
# The reference decoders' libraries, and whatever the codecs' compressor
# glue needs (the packer's list, BZPACK_LIBS, covers every compress_*.c).
BENCH_LIBS         := $(sort -llz4 -llzo2 -lz -ldeflate -lzstd -llzma -lbz2 $(BZPACK_LIBS))

# Every decoder in decode/codecs.def and the CRC, exactly as the stub's
# sources have them, built with the bench flags under their own object
# names so that they never mix with the test or packer builds.  The
# packer's codec table (codecs.c) and compressor glue (compress_*.c) are
# linked as the packer builds them; their references to <ident>_decode
# resolve to these objects, so the table's decode pointers are the
# stub-flag builds.
BENCH_DECODE_OBJS := $(patsubst decode/%.c,$(B)/tools/bench/decode/%.o,$(foreach c,$(CODECS),$(call CODEC_SRCS,$(c)))) \
	$(B)/tools/bench/decode/crc32c.o
BENCH_CODEC_OBJS  := $(patsubst %.c,$(B)/host/%.o,$(CODEC_TABLE_SRCS))
# What they share with `bzpack bench` and the packer, as those build it:
# the one JSON writer and the messages (bench_out.c), the payload cache.
BENCH_SHARED_OBJS := $(B)/host/tools/bench/bench_out.o $(B)/host/tools/packer/payload_cache.o

# Rebuild when the flags change (e.g. EXTRA_STUB_CFLAGS on the command
# line): the stamp is rewritten only when its contents would differ.
$(B)/tools/bench_native.flags: bench-native-flags-check
	@mkdir -p $(@D)
	@echo '$(CC) $(BENCH_CFLAGS)' | cmp -s - $@ || echo '$(CC) $(BENCH_CFLAGS)' > $@

$(B)/tools/bench_native.o: tools/bench/bench_native.c $(B)/tools/bench_native.flags
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -DBENCH_OURS_CFLAGS='"$(BENCH_STUB_CODEGEN)"' -c -o $@ $<

$(B)/tools/bench/decode/%.o: decode/%.c $(B)/tools/bench_native.flags
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -c -o $@ $<

# The reference glue (decode/references.def, REF_* of tests/tests.mk);
# compress_lzo_rle_opt.c is in the codec table's sources already.
BENCH_REF_OBJS    = $(patsubst %.c,$(B)/host/%.o,$(filter-out $(CODEC_TABLE_SRCS),$(call REF_SRCS,$(REF_NAMES))))
$(B)/tools/bench_native: $(B)/tools/bench_native.o $(BENCH_DECODE_OBJS) $(BENCH_CODEC_OBJS) $(BENCH_REF_OBJS) \
		$(BENCH_SHARED_OBJS)
	$(CC) -o $@ $^ $(BENCH_LIBS)

# The seed's experiment (tools/bench/bench_seed.c): the same decoder
# objects and codec table, on synthetic zram-like pages.
$(B)/tools/bench_seed.o: tools/bench/bench_seed.c $(B)/tools/bench_native.flags
	@mkdir -p $(@D)
	$(CC) $(BENCH_CFLAGS) -DBENCH_OURS_CFLAGS='"$(BENCH_STUB_CODEGEN)"' -c -o $@ $<

$(B)/tools/bench_seed: $(B)/tools/bench_seed.o $(BENCH_DECODE_OBJS) $(BENCH_CODEC_OBJS) $(BENCH_SHARED_OBJS)
	$(CC) -o $@ $^ $(BENCH_LIBS)

bench-native: $(B)/tools/bench_native $(B)/tools/bench_seed $(TESTKERNELS)
	@B=$(B) bash ci/benchmarks/bench-native.sh

# The seed's experiment alone (ci/benchmarks/bench-seed.sh): the "seed" section of
# $(B)/bench/native.json, README's seed table, docs/seed.svg.
bench-seed: $(B)/tools/bench_seed
	@B=$(B) bash ci/benchmarks/bench-seed.sh

.PHONY: bench-native bench-seed bench-native-flags-check
bench-native-flags-check: ;

# The per-vCPU instruction counter (tools/bench/vcpu_icount.c), a QEMU TCG
# plugin: a shared object QEMU loads with -plugin, so built -fPIC with
# only its two entry symbols exported.  Part of `all`: the tests use it.
$(B)/tools/vcpu_icount.so: tools/bench/vcpu_icount.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -O2 $(WARN) -shared -fPIC -fvisibility=hidden -o $@ $<
