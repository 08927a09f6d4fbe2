# Host tools: the packer and its build-time helpers.

$(B)/tools/gen_consts: tools/gen_consts.c stub/bzpack_format.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ tools/gen_consts.c

BZPACK_SRCS := tools/bzpack.c tools/elf_kernel.c tools/compress.c tools/image.c tools/stubs.c \
	tools/util.c tools/bzimage.c tools/linux_codecs.c stub/crc32c.c stub/lz4_decode.c stub/none_decode.c
BZPACK_OBJS := $(patsubst %.c,$(B)/host/%.o,$(BZPACK_SRCS)) $(B)/host/tools/stubs_blob.o

$(B)/host/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -c -o $@ $<

# The stubs are data inside the packer.
$(B)/host/tools/stubs_blob.o: tools/stubs.S $(STUB_BINS)
	@mkdir -p $(dir $@)
	$(CC) -c -Wa,-I$(B) -o $@ tools/stubs.S

# liblz4 packs; the rest read the payloads of existing bzImages (tools/bzimage.c tools/linux_codecs.c).
BZPACK_LIBS := -llz4 -lz -lbz2 -llzma -lzstd -llzo2

$(B)/bzpack: $(BZPACK_OBJS)
	$(CC) -o $@ $^ $(BZPACK_LIBS)
