#!/bin/bash
# mkcorpus.sh - malformed inputs for the packer, each with the message it
# must give.  Run from the top of the tree after `make`:
#
#   bash ci/mkcorpus.sh            -> $B/test/corpus/ (B defaults to build)
#
# Writes the inputs and $B/test/corpus/cases.txt, one case a line:
#
#   NAME|STATUS|ARGS|CULPRIT|FRAGMENT
#
#   STATUS    the exit status bzpack must give: 1 bad input, 2 bad usage
#   ARGS      bzpack's arguments, split at spaces (no paths with spaces);
#             ci/test-malformed.sh adds "-o OUT" in front unless ARGS
#             has its own -o
#   CULPRIT   the file the one stderr line must name ("bzpack: CULPRIT:
#             reason"); "usage" for a usage error: "bzpack: reason", then
#             "Try 'bzpack --help' for more information."
#   FRAGMENT  a fixed string the message must contain
#
# Most cases patch one field of a small base kernel cut from the test
# kernels (mini32/mini64: the first page of code, a short data segment and
# a bss segment, all as in testkern*.elf but without the 3 MiB filler), so
# the corpus stays small and the cases that get as far as compression are
# quick.  The bases themselves must pack: ci/test-malformed.sh checks that
# first.  Written with printf, dd and od only: no python on CI.
set -eu
cd "$(dirname "$0")/.."

B=${B:-build}
C=$B/test/corpus
K32=$B/images/testkern32.elf
K64=$B/images/testkern64.elf
GEN=$B/gen/bzpack_format.sh     # every setup_header and bzpack_header offset
for f in "$K32" "$K64" "$B/images/testkern32-relocs.elf" "$B/bzpack" "$GEN"; do
	[ -e "$f" ] || { echo "mkcorpus: $f is missing: run make first" >&2; exit 1; }
done
# shellcheck source=/dev/null
. "$GEN"
rm -rf "$C"
mkdir -p "$C"
CASES=$C/cases.txt
: > "$CASES"

# ---- bytes --------------------------------------------------------------

# le VALUE BYTES: VALUE as BYTES little-endian bytes, on stdout
le() {
	local v=$1 n=$2 i s="" h
	for ((i = 0; i < n; i++)); do
		printf -v h '\\x%02x' $(((v >> (8 * i)) & 255))
		s+=$h
	done
	printf "$s"
}
# poke FILE OFFSET BYTES VALUE: overwrite in place
poke() { le "$4" "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# flip FILE OFFSET MASK: xor one byte in place
flip() { poke "$1" "$2" 1 $(($(peek "$1" "$2" 1) ^ $3)); }
# peek FILE OFFSET BYTES: unsigned little-endian value, in decimal
peek() { od -An -tu"$3" -j "$2" -N "$3" "$1" | tr -d ' \n'; }
# crc32c FILE OFFSET LENGTH: the CRC-32C (Castagnoli, reflected polynomial
# 0x82f63b78, as decode/crc32c.c) of those bytes, in decimal; a bit at a
# time, for the few bytes of a header
crc32c() {
	local c=$((0xffffffff)) b k
	for b in $(od -An -tu1 -v -j "$2" -N "$3" "$1"); do
		c=$((c ^ b))
		for ((k = 0; k < 8; k++)); do
			c=$(((c >> 1) ^ (0x82f63b78 & -(c & 1))))
		done
	done
	echo $((c ^ 0xffffffff))
}
# noise SEED COUNT: deterministic pseudo-random bytes (an LCG: the same
# bytes on every machine and every bash)
noise() {
	local x=$1 i s="" h
	for ((i = 0; i < $2; i++)); do
		x=$(((x * 1103515245 + 12345) & 0x7fffffff))
		printf -v h '\\x%02x' $(((x >> 16) & 255))
		s+=$h
	done
	printf "$s"
}

# ---- ELF fields -----------------------------------------------------------

# class FILE: 32 or 64, from e_ident[EI_CLASS]
class() { [ "$(peek "$1" 4 1)" = 1 ] && echo 32 || echo 64; }

# eh FILE FIELD [VALUE]: read or write an ELF header field
eh() {
	local f=$1 field=$2 off n
	if [ "$(class "$f")" = 64 ]; then
		case $field in
		type) off=16 n=2 ;; machine) off=18 n=2 ;; entry) off=24 n=8 ;;
		phoff) off=32 n=8 ;; shoff) off=40 n=8 ;; phentsize) off=54 n=2 ;;
		phnum) off=56 n=2 ;; shnum) off=60 n=2 ;;
		esac
	else
		case $field in
		type) off=16 n=2 ;; machine) off=18 n=2 ;; entry) off=24 n=4 ;;
		phoff) off=28 n=4 ;; shoff) off=32 n=4 ;; phentsize) off=42 n=2 ;;
		phnum) off=44 n=2 ;; shnum) off=48 n=2 ;;
		esac
	fi
	if [ $# -eq 3 ]; then poke "$f" "$off" "$n" "$3"; else peek "$f" "$off" "$n"; fi
}

# ph FILE INDEX FIELD [VALUE]: read or write a program header field
# (vaddr follows paddr: the test kernels keep them equal)
ph() {
	local f=$1 i=$2 field=$3 base off n
	if [ "$(class "$f")" = 64 ]; then
		base=$(($(eh "$f" phoff) + i * 56))
		case $field in
		type) off=0 n=4 ;; offset) off=8 n=8 ;; paddr) off=24 n=8 ;;
		filesz) off=32 n=8 ;; memsz) off=40 n=8 ;;
		esac
		[ "$field" = paddr ] && [ $# -eq 4 ] && poke "$f" $((base + 16)) 8 "$4"
	else
		base=$(($(eh "$f" phoff) + i * 32))
		case $field in
		type) off=0 n=4 ;; offset) off=4 n=4 ;; paddr) off=12 n=4 ;;
		filesz) off=16 n=4 ;; memsz) off=20 n=4 ;;
		esac
		[ "$field" = paddr ] && [ $# -eq 4 ] && poke "$f" $((base + 8)) 4 "$4"
	fi
	if [ $# -eq 4 ]; then poke "$f" $((base + off)) "$n" "$4"; else peek "$f" $((base + off)) "$n"; fi
}

PT_NULL=0 PT_LOAD=1 PT_NOTE=4

# ---- the bases ------------------------------------------------------------

# mini BITS: $C/base-miniBITS.elf, the test kernel cut to three pages.
# Segment 0 (code, 0x1000000, entry) cut to 0x800 bytes, so that
# 0x1000800-0x1000fff is a gap whatever the code's size; segment 1 the first
# 0x800 bytes of the data, put at 0x1001000 (the data's first page follows
# the code's pages in the file, wherever the linker put it); segment 2 a
# bss of 0x1000 bytes at 0x1002000 with 4 file bytes.
mini() {
	local bits=$1 src out=$C/base-mini$1.elf
	src=$B/images/testkern$bits.elf
	[ "$(eh "$src" phnum)" = 3 ] && [ "$(ph "$src" 0 type)" = $PT_LOAD ] &&
		[ "$(ph "$src" 0 paddr)" = $((0x1000000)) ] && [ "$(ph "$src" 0 offset)" = $((0x1000)) ] &&
		[ "$(eh "$src" entry)" = $((0x1000000)) ] ||
		{ echo "mkcorpus: $src is not laid out as expected" >&2; exit 1; }
	{ head -c $((0x2000)) "$src"; tail -c +$(($(ph "$src" 1 offset) + 1)) "$src" | head -c $((0x1000)); } > "$out"
	eh "$out" shoff 0
	eh "$out" shnum 0
	ph "$out" 0 filesz $((0x800)); ph "$out" 0 memsz $((0x800))
	ph "$out" 1 offset $((0x2000)); ph "$out" 1 paddr $((0x1001000))
	ph "$out" 1 filesz $((0x800)); ph "$out" 1 memsz $((0x800))
	ph "$out" 2 offset $((0x2800)); ph "$out" 2 paddr $((0x1002000))
	ph "$out" 2 filesz 4; ph "$out" 2 memsz $((0x1000))
}
mini 32
mini 64
M32=$C/base-mini32.elf
M64=$C/base-mini64.elf

# ---- cases ----------------------------------------------------------------

# add NAME STATUS ARGS CULPRIT FRAGMENT
add() { printf '%s|%s|%s|%s|%s\n' "$1" "$2" "$3" "$4" "$5" >> "$CASES"; }
# bad NAME FILE FRAGMENT [OPTIONS]: bad input FILE, exit 1, FILE named
bad() { add "$1" 1 "${4:+$4 }$2" "$2" "$3"; }
# variant NAME BASE: a copy of BASE to patch, its path on stdout
variant() { local f=$C/$1.elf; cp "$2" "$f"; echo "$f"; }

# -- files that cannot be read
f=$C/empty; : > "$f"
bad "empty file" "$f" "empty file"
f=$C/a-directory; mkdir "$f"
bad "a directory" "$f" "is a directory"
bad "no such file" "$C/does-not-exist" "cannot open: No such file or directory"
f=$C/dangling-symlink; ln -s does-not-exist-either "$f"
bad "dangling symlink" "$f" "cannot open: No such file or directory"
# (not /dev/null: the test's standard input is /dev/null, which would then be
# read as standard input by another name)
bad "character device" /dev/zero "not a regular file (give - to read standard input)"
f=$C/fifo; mkfifo "$f"
bad "named pipe (no writer)" "$f" "not a regular file"
# Root reads any file whatever its mode: only an ordinary user can test it.
if [ "$(id -u)" -ne 0 ]; then
	f=$C/unreadable; echo x > "$f"; chmod 000 "$f"
	bad "unreadable file" "$f" "cannot open: Permission denied"
fi

# -- not ELF at all
f=$C/text; printf 'this is not a kernel\n' > "$f"
bad "text file" "$f" "not an ELF file or a bzImage"
f=$C/random; noise 12345 4096 > "$f"
bad "random bytes" "$f" "not an ELF file or a bzImage"
f=$C/elf-magic-only; printf '\177EL' > "$f"
bad "three bytes of ELF magic" "$f" "not an ELF file or a bzImage"

# -- ELF header
f=$C/elf64-ident-only; head -c 16 "$K64" > "$f"
bad "ELF64 e_ident only (16 bytes)" "$f" "truncated ELF64 header (16 bytes)"
f=$C/elf64-header-cut; head -c 40 "$K64" > "$f"
bad "ELF64 header cut at 40 bytes" "$f" "truncated ELF64 header (40 bytes)"
f=$C/elf32-header-cut; head -c 40 "$K32" > "$f"
bad "ELF32 header cut at 40 bytes" "$f" "truncated ELF32 header (40 bytes)"
f=$(variant elf64-big-endian "$M64"); poke "$f" 5 1 2
bad "ELF64 big-endian" "$f" "ELF file is not little-endian"
f=$(variant elf32-big-endian "$M32"); poke "$f" 5 1 2
bad "ELF32 big-endian" "$f" "ELF file is not little-endian"
f=$(variant elf-data-none "$M64"); poke "$f" 5 1 0
bad "EI_DATA 0" "$f" "ELF file is not little-endian"
f=$(variant elf-class-none "$M64"); poke "$f" 4 1 0
bad "EI_CLASS 0" "$f" "unknown ELF class 0"
f=$(variant elf-class-3 "$M64"); poke "$f" 4 1 3
bad "EI_CLASS 3" "$f" "unknown ELF class 3"
bad "-b 32 on an ELF64" "$M64" "ELF64 file, but a 32-bit kernel was asked for" "-b 32"
bad "-b 64 on an ELF32" "$M32" "ELF32 file, but a 64-bit kernel was asked for" "-b 64"
f=$(variant elf64-aarch64 "$M64"); eh "$f" machine 183
bad "ELF64 for AArch64" "$f" "ELF64 file is not for x86-64 (e_machine 183)"
f=$(variant elf64-i386 "$M64"); eh "$f" machine 3
bad "ELF64 with e_machine EM_386" "$f" "ELF64 file is not for x86-64 (e_machine 3)"
f=$(variant elf32-x86-64 "$M32"); eh "$f" machine 62
bad "ELF32 with e_machine EM_X86_64" "$f" "ELF32 file is not for i386 (e_machine 62)"
f=$(variant elf32-arm "$M32"); eh "$f" machine 40
bad "ELF32 for ARM" "$f" "ELF32 file is not for i386 (e_machine 40)"
f=$(variant elf64-dyn "$M64"); eh "$f" type 3
bad "ELF64 ET_DYN" "$f" "ELF file is not an executable (e_type 3)"
f=$(variant elf32-dyn "$M32"); eh "$f" type 3
bad "ELF32 ET_DYN" "$f" "ELF file is not an executable (e_type 3)"
f=$(variant elf64-rel "$M64"); eh "$f" type 1
bad "ELF64 ET_REL" "$f" "ELF file is not an executable (e_type 1)"
f=$(variant elf64-core "$M64"); eh "$f" type 4
bad "ELF64 ET_CORE" "$f" "ELF file is not an executable (e_type 4)"

# -- program headers
f=$(variant phentsize "$M64"); eh "$f" phentsize 32
bad "ELF64 e_phentsize 32" "$f" "bad program header size 32"
f=$(variant phnum-0 "$M64"); eh "$f" phnum 0
bad "no program headers" "$f" "ELF file has no program headers"
f=$(variant phoff-past-end "$M64"); eh "$f" phoff $(($(stat -c %s "$f") - 20))
bad "program headers past the end of the file" "$f" "program headers lie beyond the end of the file"
f=$(variant phoff-huge "$M64"); eh "$f" phoff -8
bad "e_phoff 2^64 - 8" "$f" "program headers lie beyond the end of the file"
f=$(variant phnum-65535 "$M32"); eh "$f" phnum 65535
bad "ELF32 e_phnum 65535" "$f" "program headers lie beyond the end of the file"
f=$(variant no-load "$M64"); for i in 0 1 2; do ph "$f" $i type $PT_NOTE; done
bad "no PT_LOAD segment" "$f" "ELF file has no PT_LOAD segment"
f=$(variant all-memsz-0 "$M32"); for i in 0 1 2; do ph "$f" $i filesz 0; ph "$f" $i memsz 0; done
bad "every PT_LOAD empty" "$f" "ELF file has no PT_LOAD segment"
# 65 PT_LOAD headers appended at the end of the file
f=$(variant many-loads "$M64")
n=$(stat -c %s "$f")
for ((i = 0; i < 65; i++)); do
	le $PT_LOAD 4; le 5 4; le $((0x1000)) 8; le $((0x1000000 + i * 0x1000)) 8
	le $((0x1000000 + i * 0x1000)) 8; le 16 8; le 16 8; le $((0x1000)) 8
done >> "$f"
eh "$f" phoff "$n"; eh "$f" phnum 65
bad "65 PT_LOAD segments" "$f" "more than 64 PT_LOAD segments"

# -- segments
f=$(variant filesz-past-end "$M64"); ph "$f" 1 filesz $((0x100000)); ph "$f" 1 memsz $((0x100000))
bad "segment file bytes past the end of the file" "$f" "segment at 0x1001000 runs past the end of the file"
f=$(variant offset-huge "$M32"); ph "$f" 1 offset $((0xfffff000))
bad "ELF32 p_offset 0xfffff000" "$f" "segment at 0x1001000 runs past the end of the file"
f=$(variant offset-wraps "$M64"); ph "$f" 1 offset -256
bad "ELF64 p_offset + p_filesz wraps" "$f" "segment at 0x1001000 runs past the end of the file"
f=$C/truncated-kernel.elf; head -c $((1 << 20)) "$K64" > "$f"
bad "test kernel cut at 1 MiB" "$f" "$(printf 'segment at 0x%x runs past the end of the file (truncated?)' "$(ph "$K64" 1 paddr)")"
f=$(variant filesz-gt-memsz "$M64"); ph "$f" 1 memsz $((0x7ff))
bad "filesz > memsz" "$f" "segment at 0x1001000 has filesz > memsz"
f=$(variant memsz-0-filesz "$M32"); ph "$f" 1 memsz 0
bad "PT_LOAD with file bytes and memsz 0" "$f" "segment at 0x1001000 has filesz > memsz"
f=$(variant overlap "$M64"); ph "$f" 1 paddr $((0x1000400))
bad "overlapping segments" "$f" "segments at 0x1000000 and 0x1000400 overlap"
f=$(variant same-paddr "$M32"); ph "$f" 2 paddr $((0x1001000))
bad "two segments at one address" "$f" "segments at 0x1001000 and 0x1001000 overlap"
f=$(variant below-1m "$M64"); ph "$f" 0 paddr $((0x80000)); eh "$f" entry $((0x80000))
bad "segment below 1 MiB" "$f" "segment loads at 0x80000, below 1 MiB"
f=$(variant at-zero "$M32"); ph "$f" 2 paddr 0
bad "segment at address 0" "$f" "segment loads at 0x0, below 1 MiB"
# (A kernel at 0x100000, over the image QEMU loads there, is no longer
# bad: the stub copies itself away and decompresses in place; ci/test-boot.sh
# boots testkern64-low, linked there.)
f=$(variant elf32-above-4g "$M32"); ph "$f" 2 paddr $((0xffff0000)); ph "$f" 2 memsz $((0x20000))
bad "ELF32 segment reaching above 4 GiB" "$f" "32-bit segment at 0xffff0000 reaches above 4 GiB"
f=$(variant elf64-above-4g "$M64"); ph "$f" 2 paddr $((0x100000000))
bad "ELF64 segment at 4 GiB" "$f" "64-bit segment at 0x100000000 reaches above 4 GiB"
f=$(variant elf64-paddr-wraps "$M64"); ph "$f" 2 paddr -4096; ph "$f" 2 memsz $((0x2000))
bad "ELF64 p_paddr + p_memsz wraps" "$f" "64-bit segment at 0xfffffffffffff000 reaches above 4 GiB"
# One segment just below 4 GiB: the kernel fits, its scratch does not.
f=$(variant scratch-above-4g "$M32"); ph "$f" 1 type $PT_NULL; ph "$f" 2 type $PT_NULL
ph "$f" 0 paddr $((0xfffff000)); eh "$f" entry $((0xfffff000))
bad "kernel ending just below 4 GiB" "$f" "above 4 GiB"
f=$(variant absurd-memsz "$M64"); ph "$f" 2 memsz $((0x80000000))
bad "absurd memsz" "$f" "has an absurd memsz of 2147483648 bytes"
f=$(variant absurd-span "$M32"); ph "$f" 2 paddr $((0x60000000))
bad "segments 1.5 GiB apart" "$f" "bytes: not a kernel"

# -- entry point
f=$(variant entry-past-end "$M64"); eh "$f" entry $((0x2000000))
bad "entry above the kernel" "$f" "entry point 0x2000000 lies outside the loaded segments"
f=$(variant entry-zero "$M32"); eh "$f" entry 0
bad "entry 0" "$f" "entry point 0x0 lies outside the loaded segments"
f=$(variant entry-in-bss "$M64"); eh "$f" entry $((0x1002800))
bad "entry in the bss" "$f" "entry point 0x1002800 lies outside the loaded segments"
f=$(variant entry-in-gap "$M64"); eh "$f" entry $((0x1000c00))
bad "entry in the gap between two segments" "$f" "entry point 0x1000c00 is not in any segment's file bytes"
f=$(variant entry-in-mid-bss "$M32"); ph "$f" 1 memsz $((0x1000)); eh "$f" entry $((0x1001900))
bad "entry in a middle segment's bss" "$f" "entry point 0x1001900 is not in any segment's file bytes"

# -- relocation sections (ld --emit-relocs): the table derived from them
# first_rel FILE: file offset of the first SHT_REL section's entries
first_rel() {
	local f=$1 i base
	for ((i = 0; i < $(eh "$f" shnum); i++)); do
		base=$(($(eh "$f" shoff) + i * 40))
		[ "$(peek "$f" $((base + 4)) 4)" = 9 ] && { peek "$f" $((base + 16)) 4; return; }
	done
	echo "mkcorpus: $f has no SHT_REL section" >&2
	exit 1
}
R32=$B/images/testkern32-relocs.elf
f=$(variant reloc-type-16 "$R32"); rel=$(first_rel "$f")
poke "$f" $((rel + 4)) 1 20       # r_info's type: R_386_16, real-mode code only
bad "--emit-relocs: unsupported relocation type" "$f" \
	"relocation type 20 at 0x$(printf %x "$(peek "$f" "$rel" 4)") (in .text) is not supported: use --relocs"
f=$(variant reloc-no-symbol "$R32"); rel=$(first_rel "$f")
poke "$f" $((rel + 5)) 3 $((0xffffff))   # r_info's symbol index
bad "--emit-relocs: symbol beyond the symbol table" "$f" "relocation names symbol 16777215, beyond its symbol table"
f=$(variant reloc-shnum-0 "$R32"); eh "$f" shnum 0   # the count would be in section 0
bad "--emit-relocs: extended section numbering" "$f" "extended section numbering is not supported: use --relocs"

# -- bzImages: Linux-style headers around broken payloads
# bzimage FILE PAYLOAD-FILE [VERSION]: a minimal Linux bzImage, payload at
# offset 0x100 of the protected-mode part (setup_sects 4, protocol 2.15)
bzimage() {
	local f=$1 p=$2 version=${3:-$((0x020f))} plen prot
	plen=$(stat -c %s "$p")
	prot=$(((0x100 + plen + 15) / 16 * 16))
	head -c $((5 * SECTOR_SIZE + prot)) /dev/zero > "$f"
	poke "$f" "$SETUP_HDR_setup_sects" 1 4
	poke "$f" "$SETUP_HDR_syssize" 4 $((prot / 16))
	poke "$f" "$SETUP_HDR_boot_flag" 2 "$SETUP_BOOT_FLAG"
	# jmp short to the end of the header, counted from the byte after it
	poke "$f" "$SETUP_HDR_jump" 2 $((0xeb | (SETUP_HEADER_END - SETUP_HDR_header) << 8))
	poke "$f" "$SETUP_HDR_header" 4 "$SETUP_HDRS_MAGIC"
	poke "$f" "$SETUP_HDR_version" 2 "$version"
	poke "$f" "$SETUP_HDR_loadflags" 1 1        # LOADED_HIGH
	poke "$f" "$SETUP_HDR_code32_start" 4 "$BZPACK_LOAD_ADDR"
	poke "$f" "$SETUP_HDR_payload_offset" 4 $((0x100))
	poke "$f" "$SETUP_HDR_payload_length" 4 "$plen"
	dd if="$p" of="$f" bs=64K oflag=seek_bytes seek=$((5 * SECTOR_SIZE + 0x100)) conv=notrunc status=none
}
pl=$C/payload.tmp
{ noise 777 2044; le 4096 4; } > "$pl"
f=$C/bzimage-garbage; bzimage "$f" "$pl"
bad "bzImage, garbage payload" "$f" "bzImage payload: unknown compression"
{ printf '\037\213\010\000'; noise 778 2040; le 4096 4; } > "$pl"
f=$C/bzimage-gzip-garbage; bzimage "$f" "$pl"
bad "bzImage, gzip magic then garbage" "$f" "bzImage payload: gzip data"
f=$C/bzimage-xz-huge; { printf '\3757zXZ\000'; noise 780 2038; le $((0xffffffff)) 4; } > "$pl"
bzimage "$f" "$pl"
bad "bzImage, size trailer 4 GiB" "$f" "bzImage payload: implausible decompressed size"
printf 'just some text, compressed\n' | gzip -n -c > "$pl"; le 27 4 >> "$pl"
f=$C/bzimage-gzip-text; bzimage "$f" "$pl"
bad "bzImage, gzip of text" "$f" "is not an ELF vmlinux"
f=$(variant vmlinux-aarch64 "$M64"); eh "$f" machine 183
{ gzip -n -c "$f"; le "$(stat -c %s "$f")" 4; } > "$pl"
f=$C/bzimage-vmlinux-aarch64; bzimage "$f" "$pl"
bad "bzImage, vmlinux for AArch64" "$f" "vmlinux in the bzImage: ELF64 file is not for x86-64"
{ gzip -n -c "$M64"; le "$(stat -c %s "$M64")" 4; } > "$pl"
f=$C/bzimage-protocol-204; bzimage "$f" "$pl" $((0x0204))
bad "bzImage, boot protocol 2.04" "$f" "boot protocol 2.04 has no payload fields"
f=$C/bzimage-payload-past-end; bzimage "$f" "$pl"; poke "$f" "$SETUP_HDR_payload_length" 4 $((0x100000))
bad "bzImage, payload past the end" "$f" "run past the end of the file"
f=$C/bzimage-payload-empty; bzimage "$f" "$pl"; poke "$f" "$SETUP_HDR_payload_length" 4 0
bad "bzImage, payload_length 0" "$f" "payload_length is 0"
f=$C/bzimage-setup-only; bzimage "$f" "$pl"; truncate -s $((5 * SECTOR_SIZE)) "$f"
bad "bzImage, real-mode part only" "$f" "truncated bzImage"
rm -f "$pl"

# -- bzImages: our own, damaged
ours=$C/ours-64.bzimage
"$B/bzpack" -c none -o "$ours" "$M64"
so=$((($(peek "$ours" "$SETUP_HDR_setup_sects" 1) + 1) * SECTOR_SIZE))
po=$(peek "$ours" "$SETUP_HDR_payload_offset" 4)
hdr=$((so + po - BZPACK_HEADER_SIZE))
f=$C/ours-header-flip; cp "$ours" "$f"; flip "$f" $((hdr + BZHDR_out_size)) $((0x40))
bad "bzpack image, bzpack_header damaged" "$f" "bzpack header: checksum mismatch"
bad "bzpack image, bzpack_header damaged: --info" "$f" "bzpack header: checksum mismatch" --info
# setup_crc and header_crc: the last 8 bytes, once outside the header CRC
f=$C/ours-setup-crc-flip; cp "$ours" "$f"; flip "$f" $((hdr + BZHDR_setup_crc + 1)) $((0x10))
bad "bzpack image, bzpack_header.setup_crc damaged" "$f" "bzpack header: checksum mismatch"
f=$C/ours-header-crc-flip; cp "$ours" "$f"; flip "$f" $((hdr + BZHDR_header_crc + 3)) $((0x80))
bad "bzpack image, bzpack_header.header_crc damaged" "$f" "bzpack header: checksum mismatch"
# setup_header fields only the packer writes
f=$C/ours-init-size-flip; cp "$ours" "$f"; flip "$f" $((SETUP_HDR_init_size + 1)) $((0x02))
bad "bzpack image, setup_header.init_size changed" "$f" "setup header fields changed since packing (CRC32C)"
bad "bzpack image, setup_header.init_size changed: --info" "$f" \
	"setup header fields changed since packing (CRC32C)" --info
f=$C/ours-pref-address-flip; cp "$ours" "$f"; flip "$f" $((SETUP_HDR_pref_address + 5)) $((0x01))
bad "bzpack image, setup_header.pref_address changed: --extract" "$f" \
	"setup header fields changed since packing (CRC32C)" --extract
# A format 1 header as bzpack 0.1 wrote it: header_crc at 0x48 over the 72
# bytes before it, then 4 zero bytes.
f=$C/ours-format-1; cp "$ours" "$f"
poke "$f" $((hdr + BZHDR_version)) 2 1
poke "$f" $((hdr + BZHDR_header_size)) 4 80
poke "$f" $((hdr + 0x48)) 4 "$(crc32c "$f" "$hdr" $((0x48)))"
poke "$f" $((hdr + 0x4c)) 4 0
bad "bzpack image in format 1" "$f" "bzpack header: format 1 (80 bytes), but this bzpack reads format $BZPACK_FORMAT_VERSION"
bad "bzpack image in format 1: --info" "$f" "bzpack header: format 1 (80 bytes), but this bzpack reads format $BZPACK_FORMAT_VERSION" \
	--info
f=$C/ours-payload-flip; cp "$ours" "$f"; flip "$f" $((so + po + 100)) $((0x08))
bad "bzpack image, payload damaged" "$f" "bzpack payload: checksum mismatch"
bad "bzpack image, payload damaged: --info" "$f" "bzpack payload: checksum mismatch" --info
f=$C/ours-truncated; head -c $((so + po + 100)) "$ours" > "$f"
bad "bzpack image, truncated" "$f" "run past the end of the file"
bad "bzpack image of a 64-bit kernel, -b 32" "$ours" "bzpack image of a 64-bit kernel, but a 32-bit kernel was asked for" "-b 32"

# -- bad usage: exit 2, one line saying what, then "Try 'bzpack --help'"
add "unknown codec" 2 "-c no-such-codec $M64" usage "unknown codec 'no-such-codec'"
add "--bits 16" 2 "-b 16 $M64" usage "--bits takes 32 or 64, not '16'"
add "level not a number" 2 "-l fast $M64" usage "bad level 'fast'"
add "no input" 2 "" usage "no INPUT given"
add "two inputs" 2 "$M64 $M32" usage "one INPUT only, but 2 given"
add "unknown option" 2 "--frobnicate $M64" usage "unknown option '--frobnicate'"
add "unknown short option" 2 "-Z $M64" usage "unknown option '-Z'"
add "option without its argument" 2 "$M64 --codec" usage "option '--codec' needs an argument"
add "-c auto with a level" 2 "-c auto -l 3 $M64" usage "--codec auto takes no --level"
add "--storage-mbps without -c auto" 2 "--storage-mbps 100 $M64" usage "go with --codec auto"
add "--storage-mbps 0" 2 "-c auto --storage-mbps 0 $M64" usage "--storage-mbps takes a positive number, not '0'"
add "--cpu-scale not a number" 2 "-c auto --cpu-scale -1 $M64" usage "--cpu-scale takes a positive number, not '-1'"
add "lz4 level 99" 2 "-l 99 $M64" usage "lz4 level must be 1..12, not 99"
add "--info with --extract" 2 "--info --extract $M64" usage "--info and --extract do not go together"
add "--json without --info" 2 "--json $M64" usage "--json goes with --info"

# -- the output cannot be written: the message names the output
d=$C/output-is-a-directory; mkdir "$d"
add "output into a missing directory" 1 "-o $C/no-such-dir/out.img $M64" "$C/no-such-dir/out.img" \
	"cannot create a temporary file beside it: No such file or directory"
add "output is a directory" 1 "-o $d $M64" "$d" "is a directory"

echo "mkcorpus: $(wc -l < "$CASES") cases in $C"
