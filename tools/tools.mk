# Host tools: the packer (tools/packer/: command line, kernel readers,
# image layout, PE and signing), the codecs it compresses with
# (tools/compress/), `bzpack bench` (tools/bench/bench_*.c) and the
# build-time generators (tools/gen/).  The native benchmark, also in
# tools/bench/, has its own tools/bench/bench.mk.

$(B)/tools/gen_consts: tools/gen/gen_consts.c include/bzpack_format.h decode/codecs.def
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ tools/gen/gen_consts.c

# The packer's codec table and what it links: each codec's compressor
# glue, tools/compress/compress_<ident>.c, and any file of its own it needs,
# named compress_<ident>_*.c (a compressor of ours), with every decoder.
# The host tests and the native benchmark link these too.
CODEC_TABLE_SRCS := tools/compress/codecs.c tools/packer/util.c $(wildcard tools/compress/compress_*.c)

# `bzpack bench`'s sources: tools/bench/ without the native benchmark's
# two programs (bench.mk), which have main()s of their own, and the QEMU
# plugin (a shared object of its own, also bench.mk's).
BENCH_CMD_SRCS := $(filter-out tools/bench/bench_native.c tools/bench/bench_seed.c tools/bench/vcpu_icount.c,$(wildcard tools/bench/*.c))

# The packer: its own sources, the codecs, `bzpack bench`, and the
# decoders and checksums the stub runs (decode/).
BZPACK_SRCS := $(wildcard tools/packer/*.c tools/compress/*.c) $(BENCH_CMD_SRCS) decode/crc32c.c decode/xxh3.c \
	$(foreach c,$(CODECS),$(call CODEC_SRCS,$(c)))
BZPACK_OBJS := $(patsubst %.c,$(B)/host/%.o,$(BZPACK_SRCS)) $(B)/host/stubs_blob.o

$(B)/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

# The stubs are data inside the packer (build/gen/stubs.S, generated).
$(B)/host/stubs_blob.o: $(B)/gen/stubs.S $(STUB_BINS)
	@mkdir -p $(dir $@)
	$(CC) -c -Wa,-I$(B) -o $@ $(B)/gen/stubs.S

# The codecs' compressors (liblz4, ...), and the libraries that read the
# payloads of existing bzImages (tools/packer/bzimage.c, linux_codecs.c);
# libcrypto signs and checks Authenticode signatures (sign.c).
BZPACK_LIBS := -llz4 -ldeflate -lz -lbz2 -llzma -lzstd -llzo2 -lcrypto -pthread

$(B)/bzpack: $(BZPACK_OBJS)
	$(CC) -o $@ $^ $(BZPACK_LIBS)
