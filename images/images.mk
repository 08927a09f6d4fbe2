# images.mk - the test payload kernels the boot tests pack and boot, and
# the filler they carry.  Included by the top Makefile.
#
#   $(B)/tools/mkfiller       host tool: deterministic kernel-like filler
#   $(B)/images/filler.bin    FILLER_SIZE bytes of it
#   $(B)/images/filler.h      FILLER_SIZE, FILLER_CRC32C for testkern.c
#   $(B)/images/testkern32.elf  ELF32, entered in 32-bit protected mode
#   $(B)/images/testkern64.elf  ELF64, entered in long mode
#   $(B)/images/testkern{32,64}-relocs.elf  the same, linked with --emit-relocs
#
# Both kernels come from images/testkern.c + decode/crc32c.c (C) and
# images/entry_{32,64}.asm + images/filler.asm (NASM), objects in
# $(B)/images/{32,64}/, linked by linker/testkern.ld.

FILLER_SIZE := 3145728

TESTKERNELS := $(B)/images/testkern32.elf $(B)/images/testkern64.elf $(B)/images/testkern64-low.elf

# The 64-bit kernel again, at 1 MiB: right where 16-bit loaders put the
# compressed image, so the stub has to copy itself out of the way and
# decompress in place.
TESTKERN_LOW_BASE := 0x100000

# Freestanding, position-dependent.  No loop-to-memset/memcpy rewriting:
# there is no C library to call.
TESTKERN_CFLAGS := -std=c11 -O2 $(WARN) -ffreestanding -fno-pic -fno-pie \
	-fno-stack-protector -fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns \
	-mgeneral-regs-only -fcf-protection=none $(INCLUDES) -Istub -I$(B)/images -MMD -MP
TESTKERN_CFLAGS_32 := -m32 -march=i686
TESTKERN_CFLAGS_64 := -m64 -mno-red-zone
TESTKERN_LDEMU_32  := elf_i386
TESTKERN_LDEMU_64  := elf_x86_64
TESTKERN_LDFLAGS   := -nostdlib -static -z max-page-size=4096 -z noexecstack \
	--build-id=none --orphan-handling=error -T linker/testkern.ld

$(B)/tools/mkfiller: tools/gen/mkfiller.c decode/crc32c.c decode/crc32c.h
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) -o $@ tools/gen/mkfiller.c decode/crc32c.c $(HOST_LDLIBS)

# One run writes both; images.mk is a prerequisite for FILLER_SIZE.
$(B)/images/filler.bin $(B)/images/filler.h &: $(B)/tools/mkfiller images/images.mk
	@mkdir -p $(@D)
	$(B)/tools/mkfiller $(FILLER_SIZE) $(B)/images/filler.bin $(B)/images/filler.h

# $(1) = 32 or 64
define TESTKERN_RULES
$(B)/images/$(1)/testkern.o: images/testkern.c $(B)/images/filler.h
	@mkdir -p $$(@D)
	$$(CC) $$(TESTKERN_CFLAGS) $$(TESTKERN_CFLAGS_$(1)) -c -o $$@ $$<

$(B)/images/$(1)/crc32c.o: decode/crc32c.c
	@mkdir -p $$(@D)
	$$(CC) $$(TESTKERN_CFLAGS) $$(TESTKERN_CFLAGS_$(1)) -c -o $$@ $$<

$(B)/images/$(1)/entry.o: images/entry_$(1).asm images/entry.inc $(B)/gen/bzpack_format.inc
	@mkdir -p $$(@D)
	$$(NASM) -f elf$(1) -I$(B)/gen/ -Iimages/ -MD $$(@:.o=.d) -MP -o $$@ $$<

$(B)/images/$(1)/filler.o: images/filler.asm $(B)/images/filler.bin
	@mkdir -p $$(@D)
	$$(NASM) -f elf$(1) -I$(B)/images/ -MD $$(@:.o=.d) -MP -o $$@ $$<

$(B)/images/testkern$(1).elf: $(B)/images/$(1)/entry.o $(B)/images/$(1)/testkern.o \
		$(B)/images/$(1)/crc32c.o $(B)/images/$(1)/filler.o linker/testkern.ld
	$$(LD) -m $$(TESTKERN_LDEMU_$(1)) $$(TESTKERN_LDFLAGS) -o $$@ $$(filter %.o,$$^)
endef

$(foreach bits,32 64,$(eval $(call TESTKERN_RULES,$(bits))))

# Both again with ld --emit-relocs: the packer derives the relocation
# table from the .rel/.rela sections ld keeps (ci/tests/test-relocs.sh).
# Position-dependent code, so it has absolute fields to move: i386 runs
# moved with its table; testkern64's table is only compared with
# readelf's (an x86_64 table moves virtual addresses, and testkern64 runs
# identity-mapped, so it is never booted).
define TESTKERN_RELOCS_RULE
TESTKERNELS += $(B)/images/testkern$(1)-relocs.elf
$(B)/images/testkern$(1)-relocs.elf: $(B)/images/$(1)/entry.o $(B)/images/$(1)/testkern.o \
		$(B)/images/$(1)/crc32c.o $(B)/images/$(1)/filler.o linker/testkern.ld
	$$(LD) -m $$(TESTKERN_LDEMU_$(1)) $$(TESTKERN_LDFLAGS) --emit-relocs -o $$@ $$(filter %.o,$$^)
endef
$(foreach bits,32 64,$(eval $(call TESTKERN_RELOCS_RULE,$(bits))))

$(B)/images/testkern64-low.elf: $(B)/images/64/entry.o $(B)/images/64/testkern.o \
		$(B)/images/64/crc32c.o $(B)/images/64/filler.o linker/testkern.ld
	$(LD) -m $(TESTKERN_LDEMU_64) --defsym=TESTKERN_BASE=$(TESTKERN_LOW_BASE) $(TESTKERN_LDFLAGS) \
		-o $@ $(filter %.o,$^)

# The test loader: a multiboot ELF32 that enters an image at the boot
# protocol's 64-bit entry (images/testloader.c; ci/tests/test-placement.sh,
# test-relocs.sh and test-selfcheck.sh boot with it).
TESTLOADER := $(B)/images/testloader.elf
TESTKERNELS += $(TESTLOADER)

$(B)/images/loader/testloader.o: images/testloader.c
	@mkdir -p $(@D)
	$(CC) $(TESTKERN_CFLAGS) $(TESTKERN_CFLAGS_32) -c -o $@ $<
$(B)/images/loader/entry.o: images/testloader_entry.asm
	@mkdir -p $(@D)
	$(NASM) -f elf32 -MD $(@:.o=.d) -MP -o $@ $<
$(TESTLOADER): $(B)/images/loader/entry.o $(B)/images/loader/testloader.o linker/testloader.ld
	$(LD) -m elf_i386 -nostdlib -static -z noexecstack --build-id=none -T linker/testloader.ld \
		-o $@ $(filter %.o,$^)
