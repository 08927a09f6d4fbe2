# The boot side: the real-mode setup (one, shared) and a protected-mode
# stub per codec and word size, each carrying only its own decoder:
# stub/*.c, the codec glue stub/codec.c built with -DSTUB_CODEC=<ident>,
# and decode/<ident>_*.c (CODEC_SRCS in the top Makefile).  The codecs come from decode/codecs.def
# (CODECS in the top Makefile).

STUB_COMMON_OBJS = $(addprefix $(B)/stub/$(1)/,main.o memory.o kaslr.o initrd.o serial.o string.o decode/crc32c.o decode/xxh3.o)
# A -bcj stub (<codec>-bcj-<bits>.bin) takes payloads the packer ran
# through the x86 filter (bzpack --bcj): main.c built again as main-bcj.o
# with -DSTUB_FLAGS=BZPACK_FLAG_X86 (it calls the un-filter and requires
# the header flag) and the un-filter, bcj.o.  The other stubs link neither.
STUB_BCJ_OBJS    = $(addprefix $(B)/stub/$(1)/,main-bcj.o memory.o kaslr.o initrd.o serial.o string.o decode/crc32c.o decode/xxh3.o bcj.o)
STUB_CODEC_OBJS  = $(B)/stub/$(2)/codec-$(1).o \
	$(patsubst decode/%.c,$(B)/stub/$(2)/decode/%.o,$(call CODEC_SRCS,$(1)))
# Only 64-bit stubs have UEFI entries (a 64-bit firmware cannot enter a
# 32-bit kernel the way the boot protocol wants).
STUB_EFI_OBJS_32 :=
STUB_EFI_OBJS_64 := $(B)/stub/64/efi.o $(B)/stub/64/efi_entry.o
# Cold code is built for size: it runs once per boot, and its time is
# the firmware's and the serial port's, not ours.  The UEFI entry
# (efi.c), the boot story and its report (main.c), the memory plan
# (memory.c), KASLR (kaslr.c) and COM1 (serial.c).  -Oz (GCC 12) is -Os
# and fewer bytes per constant and call; switch statements as compares,
# not tables of PIC offsets.  What the decompress and verify phases run
# stays -O2: the decoders, the payload checksums (decode/crc32c.c,
# decode/xxh3.c), the mem* functions and stub/codec.c's stub_decode.
STUB_COLD_CFLAGS := -Oz -fno-jump-tables
STUB_COLD_OBJS := $(foreach w,$(BITS),$(addprefix $(B)/stub/$(w)/,main.o main-bcj.o memory.o kaslr.o initrd.o serial.o)) \
	$(B)/stub/64/efi.o
$(STUB_COLD_OBJS): STUB_CFLAGS += $(STUB_COLD_CFLAGS)
# XXH3's lanes are SSE2 vectors.  The 32-bit stub is all -msse2 already;
# the 64-bit one keeps to the general registers but here: long mode
# implies SSE2, and stub/head_64.asm enables it before any C runs (UEFI
# firmware runs with it enabled).
$(B)/stub/64/decode/xxh3.o: STUB_CFLAGS_64 := $(filter-out -mgeneral-regs-only,$(STUB_CFLAGS_64)) -msse2

STUB_BINS := $(B)/stub/setup.bin $(foreach c,$(CODECS),$(foreach w,$(BITS),$(B)/stub/$(c)-$(w).bin \
	$(B)/stub/$(c)-bcj-$(w).bin))
GEN_INC   := $(B)/gen/bzpack_format.inc

$(B)/stub/setup.bin: stub/setup.asm stub/selfcheck.inc $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f bin -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<

# C objects, once per word size: the boot side's own, and the shared
# decoders and CRC.
define stub_objs
$(B)/stub/$(1)/%.o: stub/%.c $(B)/stub/cflags stub/stub.mk
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STUB_CFLAGS) $$(STUB_CFLAGS_$(1)) -c -o $$@ $$<
$(B)/stub/$(1)/decode/%.o: decode/%.c $(B)/stub/cflags stub/stub.mk
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STUB_CFLAGS) $$(STUB_CFLAGS_$(1)) -c -o $$@ $$<
$(B)/stub/$(1)/main-bcj.o: stub/main.c $(B)/stub/cflags stub/stub.mk
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STUB_CFLAGS) $$(STUB_CFLAGS_$(1)) -DSTUB_FLAGS=BZPACK_FLAG_X86 -c -o $$@ $$<
$(B)/stub/$(1)/codec-%.o: stub/codec.c $(B)/stub/cflags stub/stub.mk decode/codecs.def
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STUB_CFLAGS) $$(STUB_CFLAGS_$(1)) -DSTUB_CODEC=$$* -c -o $$@ $$<
endef
$(foreach w,$(BITS),$(eval $(call stub_objs,$(w))))

$(B)/stub/32/head.o: stub/head_32.asm stub/head_common.inc stub/selfcheck.inc $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f elf32 -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<
$(B)/stub/64/head.o: stub/head_64.asm stub/head_common.inc stub/selfcheck.inc $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f elf64 -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<

$(B)/stub/64/efi_entry.o: stub/efi_entry.asm stub/selfcheck.inc $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f elf64 -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<

LD_EMULATION_32 := elf_i386
LD_EMULATION_64 := elf_x86_64

# stub_rule codec bits.  -pie: see linker/stub.ld.  The stub becomes one
# flat binary, so its ELF segments' permissions mean nothing (i386's
# .got.plt makes one writable): no warning about them.
define stub_rule
$(B)/stub/$(1)-$(2).elf: $(B)/stub/$(2)/head.o $(call STUB_COMMON_OBJS,$(2)) $(call STUB_CODEC_OBJS,$(1),$(2)) $(STUB_EFI_OBJS_$(2)) linker/stub.ld $(B)/gen/bzpack_format.ld
	$(LD) -m $(LD_EMULATION_$(2)) -nostdlib -pie --no-dynamic-linker --no-warn-rwx-segments \
		--build-id=none -z noexecstack -L$(B)/gen \
		-T linker/stub.ld -o $$@ $$(filter %.o,$$^)
endef
$(foreach c,$(CODECS),$(foreach w,$(BITS),$(eval $(call stub_rule,$(c),$(w)))))
define stub_bcj_rule
$(B)/stub/$(1)-bcj-$(2).elf: $(B)/stub/$(2)/head.o $(call STUB_BCJ_OBJS,$(2)) $(call STUB_CODEC_OBJS,$(1),$(2)) $(STUB_EFI_OBJS_$(2)) linker/stub.ld $(B)/gen/bzpack_format.ld
	$(LD) -m $(LD_EMULATION_$(2)) -nostdlib -pie --no-dynamic-linker --no-warn-rwx-segments \
		--build-id=none -z noexecstack -L$(B)/gen \
		-T linker/stub.ld -o $$@ $$(filter %.o,$$^)
endef
$(foreach c,$(CODECS),$(foreach w,$(BITS),$(eval $(call stub_bcj_rule,$(c),$(w)))))

# The flat binary runs up to _stub_end exactly: the packer puts the header there.
$(B)/stub/%.bin: $(B)/stub/%.elf
	$(OBJCOPY) -O binary --pad-to=0x$$(nm $< | awk '$$3 == "_stub_end" { print $$1 }') $< $@
