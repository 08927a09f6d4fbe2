# The boot side: the real-mode setup (one, shared) and a protected-mode
# stub per codec and word size, each carrying only its own decoder.

STUB_COMMON_SRCS := stub/main.c stub/memory.c stub/serial.c stub/string.c stub/crc32c.c
STUB_CODEC_SRCS_none := stub/codec_none.c stub/none_decode.c
STUB_CODEC_SRCS_lz4  := stub/codec_lz4.c stub/lz4_decode.c

STUB_BINS := $(B)/stub/setup.bin $(foreach c,$(CODECS),$(foreach w,$(BITS),$(B)/stub/$(c)-$(w).bin))
GEN_INC   := $(B)/gen/bzpack_format.inc

$(B)/stub/setup.bin: stub/setup.asm $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f bin -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<

# C objects, once per word size
$(B)/stub/32/%.o: stub/%.c $(B)/stub/cflags stub/stub.mk
	@mkdir -p $(dir $@)
	$(CC) $(STUB_CFLAGS) $(STUB_CFLAGS_32) -c -o $@ $<
$(B)/stub/64/%.o: stub/%.c $(B)/stub/cflags stub/stub.mk
	@mkdir -p $(dir $@)
	$(CC) $(STUB_CFLAGS) $(STUB_CFLAGS_64) -c -o $@ $<

$(B)/stub/32/head.o: stub/head_32.asm stub/head_common.inc $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f elf32 -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<
$(B)/stub/64/head.o: stub/head_64.asm stub/head_common.inc $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f elf64 -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<

LD_EMULATION_32 := elf_i386
LD_EMULATION_64 := elf_x86_64

# stub_rule codec bits
define stub_rule
$(B)/stub/$(1)-$(2).elf: $(B)/stub/$(2)/head.o $(patsubst stub/%.c,$(B)/stub/$(2)/%.o,$(STUB_COMMON_SRCS) $(STUB_CODEC_SRCS_$(1))) linker/stub.ld $(B)/gen/bzpack_format.ld
	$(LD) -m $(LD_EMULATION_$(2)) -nostdlib -static --build-id=none -z noexecstack -L$(B)/gen \
		-T linker/stub.ld -o $$@ $$(filter %.o,$$^)
endef
$(foreach c,$(CODECS),$(foreach w,$(BITS),$(eval $(call stub_rule,$(c),$(w)))))

# The flat binary runs up to _stub_end exactly: the packer puts the header there.
$(B)/stub/%.bin: $(B)/stub/%.elf
	$(OBJCOPY) -O binary --pad-to=0x$$(nm $< | awk '$$3 == "_stub_end" { print $$1 }') $< $@
