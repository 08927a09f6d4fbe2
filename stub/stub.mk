# The boot side: the real-mode setup (one, shared) and a protected-mode
# stub per codec and word size, each carrying only its own decoder:
# stub/*.c, the codec glue stub/codec.c built with -DSTUB_CODEC=<ident>,
# and decode/<ident>_*.c (CODEC_SRCS in the top Makefile).  The codecs come from decode/codecs.def
# (CODECS in the top Makefile).

# A stub's kind: the optional features it carries, and so the header
# flags it accepts and requires (main.c's STUB_FLAGS).  The plain stub has
# none; the others any set of
#   bcj     the x86 un-filter, bcj.o, for payloads the packer ran through
#           the filter (bzpack --bcj; BZPACK_FLAG_X86);
#   frames  the frame queue, frames.o, for framed payloads (bzpack
#           --frames; BZPACK_FLAG_FRAMES), and the other CPUs that decode
#           frames with the boot CPU: smp.o and smp_trampoline.o, and in
#           64-bit stubs the UEFI path's efi_smp.o;
#   initrd  the initrd unpacker, initrd_unpack.o, with the decoders of
#           INITRD_CODECS besides the codec's own (bzpack
#           --initrd-decompress; BZPACK_FLAG_INITRD).
# A kind is named by its features joined with "-" in that order
# (bcj-frames-initrd), its stubs <codec>-<kind>-<bits>.bin (plain:
# <codec>-<bits>.bin), and its main.c main-<kind>.o, built with
# -DSTUB_FLAGS=<its flags>.  tools/gen/gen_consts.c lists the same kinds.
STUB_KINDS := plain bcj frames bcj-frames initrd bcj-initrd frames-initrd bcj-frames-initrd
STUB_FEATURE_FLAG_bcj    := BZPACK_FLAG_X86
STUB_FEATURE_FLAG_frames := BZPACK_FLAG_FRAMES
STUB_FEATURE_FLAG_initrd := BZPACK_FLAG_INITRD
STUB_FEATURE_OBJS_bcj    := bcj.o
STUB_FEATURE_OBJS_frames := frames.o smp.o smp_trampoline.o
STUB_FEATURE_OBJS_frames_64 := efi_smp.o
STUB_FEATURE_OBJS_initrd := initrd_unpack.o
INITRD_CODECS := gzip xz zstd
# stub_features kind, stub_suffix kind ("" or -<kind>), stub_kind_flags kind
stub_features   = $(filter-out plain,$(subst -, ,$(1)))
stub_suffix     = $(if $(call stub_features,$(1)),-$(1))
stub_kind_flags = '(0$(foreach f,$(call stub_features,$(1)),|$(STUB_FEATURE_FLAG_$(f))))'
# STUB_KIND_OBJS kind bits: a feature's objects (STUB_FEATURE_OBJS_<f>)
# and those of one word size only (STUB_FEATURE_OBJS_<f>_<bits>).
STUB_KIND_OBJS = $(addprefix $(B)/stub/$(2)/,main$(call stub_suffix,$(1)).o memory.o kaslr.o initrd.o serial.o \
	string.o decode/crc32c.o decode/xxh3.o \
	$(foreach f,$(call stub_features,$(1)),$(STUB_FEATURE_OBJS_$(f)) $(STUB_FEATURE_OBJS_$(f)_$(2))))
# STUB_CODEC_OBJS codec bits kind: the codec's glue and decoder, and in an
# initrd kind the initrd formats' decoders too.
STUB_CODEC_OBJS  = $(B)/stub/$(2)/codec-$(1).o \
	$(patsubst decode/%.c,$(B)/stub/$(2)/decode/%.o,$(sort $(foreach c,$(1) \
		$(if $(filter initrd,$(call stub_features,$(3))),$(INITRD_CODECS)),$(call CODEC_SRCS,$(c)))))
# STUB_EFI_OBJS_<bits> kind: only 64-bit stubs have UEFI entries (a
# 64-bit firmware cannot enter a 32-bit kernel the way the boot protocol
# wants).  efi.c reads two features, so it is built once for each set of
# them (STUB_EFI_KINDS, with that kind's -DSTUB_FLAGS): a frames kind's
# hands its boot services to the frame queue (efi_smp.c), an initrd
# kind's decompresses the initrd; the plain efi.o has not a byte of
# either.  efi_kind kind: the kind without bcj (kinds name their features
# in a fixed order, bcj first).
efi_kind = $(patsubst bcj-%,%,$(patsubst bcj,plain,$(1)))
STUB_EFI_KINDS := $(sort $(foreach k,$(STUB_KINDS),$(call efi_kind,$(k))))
STUB_EFI_OBJS_32 =
STUB_EFI_OBJS_64 = $(B)/stub/64/efi$(call stub_suffix,$(call efi_kind,$(1))).o $(B)/stub/64/efi_entry.o
# Cold code is built for size: it runs once per boot, and its time is
# the firmware's and the serial port's, not ours.  The UEFI entry
# (efi.c), the boot story and its report (main.c), the memory plan
# (memory.c), KASLR (kaslr.c), COM1 (serial.c), the frame queue
# (frames.c: a few calls per frame, around the decoder's and the CRC's),
# waking the other CPUs (smp.c, efi_smp.c) and the initrd unpacker's
# walk (initrd_unpack.c).  -Oz (GCC 12) is -Os
# and fewer bytes per constant and call; switch statements as compares,
# not tables of PIC offsets.  What the decompress and verify phases run
# stays -O2: the decoders, the payload checksums (decode/crc32c.c,
# decode/xxh3.c), the mem* functions and stub/codec.c's stub_decode.
STUB_COLD_CFLAGS := -Oz -fno-jump-tables
STUB_COLD_OBJS := $(foreach w,$(BITS),$(addprefix $(B)/stub/$(w)/,$(foreach k,$(STUB_KINDS),main$(call stub_suffix,$(k)).o) \
	frames.o smp.o initrd_unpack.o memory.o kaslr.o initrd.o serial.o)) \
	$(foreach k,$(STUB_EFI_KINDS),$(B)/stub/64/efi$(call stub_suffix,$(k)).o) $(B)/stub/64/efi_smp.o
$(STUB_COLD_OBJS): STUB_CFLAGS += $(STUB_COLD_CFLAGS)
# XXH3's lanes are SSE2 vectors.  The 32-bit stub is all -msse2 already;
# the 64-bit one keeps to the general registers but here: long mode
# implies SSE2, and stub/head_64.asm enables it before any C runs (UEFI
# firmware runs with it enabled).
$(B)/stub/64/decode/xxh3.o: STUB_CFLAGS_64 := $(filter-out -mgeneral-regs-only,$(STUB_CFLAGS_64)) -msse2

STUB_BINS := $(B)/stub/setup.bin $(foreach c,$(CODECS),$(foreach w,$(BITS),$(foreach k,$(STUB_KINDS),\
	$(B)/stub/$(c)$(call stub_suffix,$(k))-$(w).bin)))
GEN_INC   := $(B)/gen/bzpack_format.inc

$(B)/stub/setup.bin: stub/setup.asm stub/selfcheck.inc $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f bin -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<

# C objects, once per word size: the boot side's own, and the shared
# decoders and CRC.  A decoder's functions each get a section of their
# own, so that the link (--gc-sections, linker/stub.ld) leaves out what a
# stub does not call: the <codec>_decode_stream() entries (decode/decode.h)
# are only the -initrd stubs'.
define stub_objs
$(B)/stub/$(1)/%.o: stub/%.c $(B)/stub/cflags stub/stub.mk
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STUB_CFLAGS) $$(STUB_CFLAGS_$(1)) -c -o $$@ $$<
$(B)/stub/$(1)/decode/%.o: decode/%.c $(B)/stub/cflags stub/stub.mk
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STUB_CFLAGS) $$(STUB_CFLAGS_$(1)) -ffunction-sections -c -o $$@ $$<
$(B)/stub/$(1)/codec-%.o: stub/codec.c $(B)/stub/cflags stub/stub.mk decode/codecs.def
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STUB_CFLAGS) $$(STUB_CFLAGS_$(1)) -DSTUB_CODEC=$$* -c -o $$@ $$<
endef
$(foreach w,$(BITS),$(eval $(call stub_objs,$(w))))
# main<suffix>.o bits kind: main.c for a kind other than plain.
define stub_main_obj
$(B)/stub/$(1)/main$(call stub_suffix,$(2)).o: stub/main.c $(B)/stub/cflags stub/stub.mk
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STUB_CFLAGS) $$(STUB_CFLAGS_$(1)) -DSTUB_FLAGS=$(call stub_kind_flags,$(2)) -c -o $$@ $$<
endef
$(foreach w,$(BITS),$(foreach k,$(filter-out plain,$(STUB_KINDS)),$(eval $(call stub_main_obj,$(w),$(k)))))
# efi<suffix>.o kind: efi.c for a kind of STUB_EFI_KINDS other than plain.
define stub_efi_obj
$(B)/stub/64/efi$(call stub_suffix,$(1)).o: stub/efi.c $(B)/stub/cflags stub/stub.mk
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STUB_CFLAGS) $$(STUB_CFLAGS_64) -DSTUB_FLAGS=$(call stub_kind_flags,$(1)) -c -o $$@ $$<
endef
$(foreach k,$(filter-out plain,$(STUB_EFI_KINDS)),$(eval $(call stub_efi_obj,$(k))))

$(B)/stub/32/head.o: stub/head_32.asm stub/head_common.inc stub/selfcheck.inc $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f elf32 -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<
$(B)/stub/64/head.o: stub/head_64.asm stub/head_common.inc stub/selfcheck.inc $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f elf64 -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<

# The other CPUs' trampoline, in the stub's own word size (WORD_BITS).
$(B)/stub/%/smp_trampoline.o: stub/smp_trampoline.asm $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f elf$* -DWORD_BITS=$* -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<

$(B)/stub/64/efi_entry.o: stub/efi_entry.asm stub/selfcheck.inc $(GEN_INC)
	@mkdir -p $(dir $@)
	$(NASM) -f elf64 -I$(B)/gen/ -Istub/ -MD $@.d -MP -o $@ $<

LD_EMULATION_32 := elf_i386
LD_EMULATION_64 := elf_x86_64

# stub_rule codec bits kind.  -pie: see linker/stub.ld.  The stub becomes
# one flat binary, so its ELF segments' permissions mean nothing (i386's
# .got.plt makes one writable): no warning about them.
define stub_rule
$(B)/stub/$(1)$(call stub_suffix,$(3))-$(2).elf: $(B)/stub/$(2)/head.o $(call STUB_KIND_OBJS,$(3),$(2)) $(call STUB_CODEC_OBJS,$(1),$(2),$(3)) $(call STUB_EFI_OBJS_$(2),$(3)) linker/stub.ld $(B)/gen/bzpack_format.ld
	$(LD) -m $(LD_EMULATION_$(2)) -nostdlib -pie --no-dynamic-linker --no-warn-rwx-segments \
		--build-id=none -z noexecstack --gc-sections -L$(B)/gen \
		-T linker/stub.ld -o $$@ $$(filter %.o,$$^)
endef
$(foreach c,$(CODECS),$(foreach w,$(BITS),$(foreach k,$(STUB_KINDS),$(eval $(call stub_rule,$(c),$(w),$(k))))))

# The flat binary runs up to _stub_end exactly: the packer puts the header there.
$(B)/stub/%.bin: $(B)/stub/%.elf
	$(OBJCOPY) -O binary --pad-to=0x$$(nm $< | awk '$$3 == "_stub_end" { print $$1 }') $< $@
