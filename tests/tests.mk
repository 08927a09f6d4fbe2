# Host unit tests (included by the top Makefile after tools/tools.mk; uses
# B, CC, HOST_CFLAGS, CODECS and BZPACK_LIBS from there).
#
# Every test is built in four variants, each its own binary in $(B)/tests/:
#   test_X            -O2, as the packer is built
#   test_X_asan       the same with ASan + UBSan
#   test_X_m32        -m32: the stub's 32-bit decoder is this same C, and
#                     only here is size_t 32 bits wide on the host
#   test_X_m32_asan   -m32 with ASan + UBSan
# for X in
#   reference the differential test: every line of decode/references.def
#             against our decoder of its codec (tests/test_reference.c);
#             -m32 with the references that have an i386 library
#   lz4       decode/lz4_decode.c's hand-made blocks (tests/test_lz4.c)
#   crc32     decode/crc32.h: tables and PCLMULQDQ folding against zlib's
#             crc32() (-m32: libdeflate's), the combiner, the constants
#   crc32c    the check value, SSE4.2 path against the tables
#   xxh64     decode/xxh64.h: published values, then against libxxhash
#             (native and ASan: no i386 libxxhash in ci/deps.sh)
#   xxh3      decode/xxh3.c against libxxhash's XXH3_64bits; -m32 (built
#             -msse2, as the 32-bit stub is) against a digest of its values
#   lzo       decode/lzo_decode.c and lzo_rle_decode.c against liblzo2, and
#             our LZO-RLE compressor (tests/test_lzo.c)
#   gzip      decode/gzip_decode.c against libdeflate and zlib
#             (tests/test_gzip.c); gzip32 with a 32-bit bit buffer
#   bzip2     decode/bzip2_decode.c against libbz2 (tests/test_bzip2.c)
#   xz        decode/lzma_decode.c and xz_decode.c against liblzma
#             (tests/test_xz.c)
#   bcj       decode/bcj_x86.h against liblzma's x86 filter (tests/test_bcj.c)
#   zstd      decode/zstd_*.c against libzstd (tests/test_zstd.c)
#   stream    gzip_, bzip2_, lzma_ and zstd_decode_stream (decode/decode.h):
#             caps exact, larger and short, trailing bytes, truncations and
#             damage, against zlib, libdeflate, libbz2, liblzma, libzstd
#             (tests/test_stream.c)
#   tool_files  the xz/lzma, gzip, bzip2 and zstd decoders against what
#             the xz, gzip, bzip2 and zstd tools make of the test kernels,
#             with no library: the -m32 coverage of the codecs whose
#             libraries have no installable i386 build (tests/tool_files.c)
# and, native and ASan only,
#   codecs    every codec of the packer's table (tools/compress/codecs.c):
#             round trips at its min, default and max level, wrong sizes,
#             truncations, bit flips, and the in-place margin
#             (tools/compress/inplace.c) found and minimal (tests/test_codecs.c).  Not -m32: the
#             compressors link the packer's libraries, and Debian's i386
#             builds of them are not always installable beside the amd64
#             ones (Multi-Arch: same wants equal versions, and security
#             updates reach the two architectures at different times).
#
# ci/tests/test-host.sh runs what `make host-tests-list` prints (what is built
# here) and fails on a missing binary.  The -m32 variants need gcc-multilib and
# liblz4-dev:i386 (ci/deps.sh).
#
# test_lz4 and test_codecs take extra input files (the test kernels) as
# arguments; a file that cannot be read fails the run:
#   $(B)/tests/test_lz4 $(B)/images/testkern32.elf $(B)/images/testkern64.elf
# A test prints "ok CASE", "FAIL CASE: why" or "skip: CASE: why" per case
# and exits 0 (nothing failed), 77 (nothing could be tested) or 1.

# -fno-sanitize-recover: make a UBSan report fail the run instead of
# printing and carrying on.
TEST_SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# ---- variants ---------------------------------------------------------------

TEST_VARIANTS        := native asan m32 m32_asan
TEST_FLAGS_native    :=
TEST_FLAGS_asan      := $(TEST_SAN_FLAGS)
# -m32: tools/reference/reference.c keeps only the references with an
# i386 library (decode/references.def).
TEST_FLAGS_m32       := -m32 -DREFERENCE_I386
TEST_FLAGS_m32_asan  := -m32 -DREFERENCE_I386 $(TEST_SAN_FLAGS)
# Binary name suffix: none for the plain build.
test_suffix = $(if $(filter native,$(1)),,_$(1))

# Objects of each variant in their own tree: the same source compiles to a
# different object per variant.
define TEST_OBJ_RULE
$(B)/tests/obj/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	$$(CC) $$(HOST_CFLAGS) $$(TEST_FLAGS_$(1)) -c -o $$@ $$<
endef
$(foreach v,$(TEST_VARIANTS),$(eval $(call TEST_OBJ_RULE,$(v))))

# ---- tests ------------------------------------------------------------------
# TEST_SRCS_X: its sources; TEST_LIBS_X: its libraries; TEST_VARIANTS_X:
# the variants it is built in.  TESTLIB: the scaffolding the decoder tests
# share (case counting, guarded buffers, the PRNG, file reading) and the
# inputs they generate from it (tests/testlib.h, tests/testgen.h).

TESTLIB := tests/testlib.c tests/testgen.c

# ---- decode/references.def ---------------------------------------------------
# Its fields, by sed: REFERENCE(ident, "name", "libs", i386, "tool", ...).
# REF_NAMES: every reference's name (its glue is tools/reference/NAME.c);
# REF_I386_NAMES those whose library has an i386 build; REF_LIBS and
# REF_I386_LIBS what they link; REF_TOOL_CODECS the codecs a Debian tool
# writes (tests/tool_files.c).
REF_FIELDS      = sed -n 's/^REFERENCE(\([a-z0-9_]*\), "\([^"]*\)", "\([^"]*\)", \([01]\), "\([^"]*\)".*/$(1)/p' decode/references.def
REF_NAMES       := $(sort $(shell $(call REF_FIELDS,\2)))
REF_I386_NAMES  := $(sort $(shell $(call REF_FIELDS,\4 \2) | sed -n 's/^1 //p'))
REF_LIBS        := $(sort $(shell $(call REF_FIELDS,\3)))
REF_I386_LIBS   := $(sort $(shell $(call REF_FIELDS,\4 \3) | sed -n 's/^1 //p'))
REF_TOOL_CODECS := $(sort $(shell $(call REF_FIELDS,\5 \1) | sed -n 's/^[^-][^ ]* //p'))
# The glue: the table, one file per library, and what LZO-RLE's reference
# is made of (our parser, tools/reference/lzo_ref.h).
REF_SRCS        = tools/reference/reference.c $(foreach n,$(1),tools/reference/$(n).c) \
	$(if $(filter lzo-rle,$(1)),tools/compress/compress_lzo_rle_opt.c)

# The differential test: every reference against our decoder of its codec
# (tests/test_reference.c), -m32 with the references that have an i386
# build.  A line added to decode/references.def is in it with no edit here.
TEST_SRCS_reference          := tests/test_reference.c $(call REF_SRCS,$(REF_NAMES)) \
	$(foreach c,$(CODECS),$(call CODEC_SRCS,$(c))) $(TESTLIB)
TEST_LIBS_reference          := $(REF_LIBS)
TEST_SRCS_reference_m32      := tests/test_reference.c $(call REF_SRCS,$(REF_I386_NAMES)) \
	$(foreach c,$(CODECS),$(call CODEC_SRCS,$(c))) $(TESTLIB)
TEST_LIBS_reference_m32      := $(REF_I386_LIBS)
TEST_SRCS_reference_m32_asan := $(TEST_SRCS_reference_m32)
TEST_LIBS_reference_m32_asan := $(TEST_LIBS_reference_m32)
TEST_VARIANTS_reference      := $(TEST_VARIANTS)

TEST_SRCS_lz4     := tests/test_lz4.c decode/lz4_decode.c $(TESTLIB)
TEST_LIBS_lz4     := -llz4
TEST_VARIANTS_lz4 := $(TEST_VARIANTS)

TEST_SRCS_crc32c     := tests/test_crc32c.c decode/crc32c.c
TEST_LIBS_crc32c     :=
TEST_VARIANTS_crc32c := $(TEST_VARIANTS)

# crc32: decode/crc32.h against zlib's crc32(); -m32 against libdeflate's
# (no installable i386 zlib, ci/deps.sh).
TEST_SRCS_crc32          := tests/test_crc32.c
TEST_LIBS_crc32          := -lz
TEST_LIBS_crc32_m32      := -ldeflate
TEST_LIBS_crc32_m32_asan := -ldeflate
TEST_VARIANTS_crc32      := $(TEST_VARIANTS)

TEST_SRCS_xxh64     := tests/test_xxh64.c
TEST_LIBS_xxh64     := -lxxhash
TEST_VARIANTS_xxh64 := native asan

TEST_SRCS_xxh3          := tests/test_xxh3.c decode/xxh3.c
TEST_LIBS_xxh3          := -lxxhash
TEST_LIBS_xxh3_m32      :=
TEST_LIBS_xxh3_m32_asan :=
TEST_VARIANTS_xxh3      := $(TEST_VARIANTS)
# The 32-bit stub's XXH3 is its SSE2 loop (STUB_CFLAGS_32 has -msse2).
$(B)/tests/obj/m32/decode/xxh3.o $(B)/tests/obj/m32_asan/decode/xxh3.o: HOST_CFLAGS += -msse2

# The packer's codec table with every codec's compressor glue and decoder:
# a codec added to decode/codecs.def is in this test with no edit here.
TEST_SRCS_codecs     := tests/test_codecs.c $(CODEC_TABLE_SRCS) tools/compress/inplace.c tools/compress/frames.c \
	$(foreach c,$(CODECS),$(call CODEC_SRCS,$(c))) $(TESTLIB)
TEST_LIBS_codecs     := $(BZPACK_LIBS)
TEST_VARIANTS_codecs := native asan

# lzo and lzo-rle: one decoder core, both entry points, and our LZO-RLE
# compressor, against liblzo2 and a byte-wise reference decoder.
TEST_SRCS_lzo     := tests/test_lzo.c decode/lzo_decode.c decode/lzo_rle_decode.c tools/compress/compress_lzo_rle_opt.c \
	$(TESTLIB)
TEST_LIBS_lzo     := -llzo2
TEST_VARIANTS_lzo := $(TEST_VARIANTS)

# bzip2: decode/bzip2_decode.c against libbz2.  Not -m32: libbz2-dev:i386
# is not installable beside the amd64 one (ci/deps.sh).
TEST_SRCS_bzip2     := tests/test_bzip2.c decode/bzip2_decode.c $(TESTLIB)
TEST_LIBS_bzip2     := -lbz2
TEST_VARIANTS_bzip2 := native asan

# gzip: decode/gzip_decode.c, and the same without its fast loop
# (tests/gzip_decode_safe.c), against libdeflate and zlib.  Not -m32: zlib
# has no installable i386 build here (ci/deps.sh); gzip32 instead runs the
# decoder with the 32-bit bit buffer of the -m32 stub, under ASan.
TEST_SRCS_gzip       := tests/test_gzip.c decode/gzip_decode.c tests/gzip_decode_safe.c $(TESTLIB)
TEST_LIBS_gzip       := -ldeflate -lz
TEST_VARIANTS_gzip   := native asan
TEST_SRCS_gzip32     := tests/test_gzip.c tests/gzip_decode32.c tests/gzip_decode32_safe.c $(TESTLIB)
TEST_LIBS_gzip32     := -ldeflate -lz
TEST_VARIANTS_gzip32 := asan

# lzma and xz: decode/lzma_decode.c and xz_decode.c (one LZMA core,
# decode/lzma_core.h) against liblzma.  liblzma has no installable i386
# build here (ci/deps.sh): tool_files below is their -m32 test.
TEST_SRCS_xz           := tests/test_xz.c decode/lzma_decode.c decode/xz_decode.c $(TESTLIB)
TEST_LIBS_xz           := -llzma
TEST_VARIANTS_xz       := native asan

# bcj: decode/bcj_x86.h, both directions, in one run and in steps,
# against liblzma's x86 filter (tests/test_bcj.c).
TEST_SRCS_bcj     := tests/test_bcj.c $(TESTLIB)
TEST_LIBS_bcj     := -llzma
TEST_VARIANTS_bcj := native asan

# zstd: decode/zstd_*.c against libzstd.  Not -m32: libzstd has no
# installable i386 build here (ci/deps.sh).
TEST_SRCS_zstd     := tests/test_zstd.c $(call CODEC_SRCS,zstd) $(TESTLIB)
TEST_LIBS_zstd     := -lzstd
TEST_VARIANTS_zstd := native asan

# stream: the stream entry points of gzip, bzip2, lzma and zstd against
# the libraries that made the streams (tests/test_stream.c).  Not -m32:
# none of zlib, libbz2, liblzma, libzstd has an installable i386 build
# here (ci/deps.sh).
TEST_SRCS_stream     := tests/test_stream.c $(call CODEC_SRCS,gzip) $(call CODEC_SRCS,bzip2) \
	$(call CODEC_SRCS,lzma) $(call CODEC_SRCS,zstd) $(TESTLIB)
TEST_LIBS_stream     := -ldeflate -lz -lbz2 -llzma -lzstd
TEST_VARIANTS_stream := native asan

# Every decoder with a Debian command-line compressor, against that tool's
# output (the tools run at test time; a missing one is a skip).  It links
# no compression library, so it is built in every variant, -m32 included:
# the only -m32 test of gzip, bzip2, lzma, xz and zstd.  (lzo is not in it:
# lzop writes a container, not a bare lzo1x stream; see the source.)
TEST_SRCS_tool_files     := tests/tool_files.c $(foreach c,$(REF_TOOL_CODECS),$(call CODEC_SRCS,$(c)))
TEST_LIBS_tool_files     :=
TEST_VARIANTS_tool_files := $(TEST_VARIANTS)

HOST_TEST_NAMES := reference lz4 crc32 crc32c xxh64 xxh3 codecs lzo gzip gzip32 bzip2 xz bcj zstd stream tool_files

# TEST_BIN_RULE NAME VARIANT.  TEST_SRCS_NAME_VARIANT and
# TEST_LIBS_NAME_VARIANT, where set, stand in for that variant.
test_srcs = $(or $(TEST_SRCS_$(1)_$(2)),$(TEST_SRCS_$(1)))
test_libs = $(if $(filter undefined,$(origin TEST_LIBS_$(1)_$(2))),$(TEST_LIBS_$(1)),$(TEST_LIBS_$(1)_$(2)))
define TEST_BIN_RULE
$(B)/tests/test_$(1)$(call test_suffix,$(2)): $(patsubst %.c,$(B)/tests/obj/$(2)/%.o,$(call test_srcs,$(1),$(2)))
	$$(CC) $$(TEST_FLAGS_$(2)) -o $$@ $$(filter %.o,$$^) $(call test_libs,$(1),$(2))
HOST_TESTS += $(B)/tests/test_$(1)$(call test_suffix,$(2))
endef
$(foreach t,$(HOST_TEST_NAMES),$(foreach v,$(TEST_VARIANTS_$(t)),$(eval $(call TEST_BIN_RULE,$(t),$(v)))))

# A boot sector that checks each A20 method of the stub's stub/a20.inc on
# its own (ci/tests/test-a20.sh boots it as a floppy).
$(B)/tests/a20_boot.bin: tests/a20_boot.asm stub/a20.inc
	@mkdir -p $(dir $@)
	$(NASM) -f bin -Istub/ -MD $@.d -MP -o $@ $<
all: $(B)/tests/a20_boot.bin

# Every host test binary, built and not run (`make host-tests`).
host-tests: $(HOST_TESTS)

# What ci/tests/test-host.sh checks its own list against, one name a line.
host-tests-list:
	@printf '%s\n' $(notdir $(HOST_TESTS))

# Build and run every host test the way CI does (ci/tests/test-host.sh).
check-host: $(HOST_TESTS) $(TESTKERNELS)
	@B=$(B) bash -c '. ci/lib.sh && . ci/tests/test-host.sh && \
		echo "$$PASSED passed, $$FAILED failed, $$SKIPPED skipped" && [ $$FAILED -eq 0 ]'

.PHONY: host-tests host-tests-list check-host
