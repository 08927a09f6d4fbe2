# test-relocs.sh - the kernel's relocation table (include/bzpack_relocs.h):
# kept from a Linux bzImage's payload, given with --relocs or derived from
# the relocation sections of an ELF linked with --emit-relocs, described by
# --info, checked by the packer, and checked (CRC32C, then every entry)
# before the stub applies any of it.  Relocated boots of Debian's kernels
# are in test-placement.sh (the test loader puts the image elsewhere).
#
# The damage tests use Debian's i386 kernel packed with codec none, so
# that the table lies at a known place in the payload:
#   unsealed   bit flips in the table: the payload CRC stops the boot
#   resealed   a flip with the payload and header CRCs recomputed: the
#              table's own CRC stops it
#   bad entry  an entry pointing outside the kernel with every CRC
#              recomputed: the stub's check of the whole table stops it,
#              before it writes anything
# Each must end in "bzpack: error: <that reason>" (qemu-boot.sh exit 100).
DEB=$B/debian
TK=$B/images

if [ ! -f "$B/gen/bzpack_format.sh" ] || [ ! -f "$TK/testkern32.elf" ]; then
	fail "relocs" "$B/gen/bzpack_format.sh or $TK/testkern32.elf not built: run make"
	return 0 2>/dev/null || exit 0
fi
. "$B/gen/bzpack_format.sh"

# A kernel without a table stays where it was linked, and --info says so.
img=$T/relocs-testkern64.img
if out=$($BZPACK -c lz4 -o "$img" "$TK/testkern64.elf" 2>&1); then
	info=$($BZPACK --info "$img" 2>&1)
	check "testkern64 (no table): --info says the kernel is fixed" \
		bash -c 'grep -q "^kernel: .*fixed: runs at its link address" <<<"$1" &&
			 grep -q "^relocations: *none" <<<"$1"' _ "$info"
else
	fail "pack testkern64" "$out"
fi

# --relocs: a table that does not fit the kernel is one clear line and
# exit 1; a bzImage brings its own table.
expect_refusal() {   # NAME WANT-MESSAGE BZPACK-ARGS...
	local name=$1 want=$2 out st
	shift 2
	out=$($BZPACK "$@" -o "$T/relocs-refused.img" 2>&1); st=$?
	if [ $st -ne 1 ]; then
		fail "$name" "exit status $st, expected 1: $out"
	elif [ "$(wc -l <<<"$out")" -ne 1 ] || ! grep -qF -- "$want" <<<"$out"; then
		fail "$name" "expected one line with '$want', got: $out"
	else
		pass "$name"
	fi
}
printf '\0\0\0\0\1\0\0\0' > "$T/relocs-outside.bin"
expect_refusal "--relocs with an entry outside the kernel is refused" \
	"$T/relocs-outside.bin: relocation table (8 bytes) does not fit this kernel: an entry points outside the kernel" \
	--relocs "$T/relocs-outside.bin" "$TK/testkern32.elf"
printf '\0\0\0\0' > "$T/relocs-open.bin"        # x86_64 has three lists: two are missing
expect_refusal "--relocs with an unterminated list is refused" \
	"does not fit this kernel: a list has no zero terminator" --relocs "$T/relocs-open.bin" "$TK/testkern64.elf"
printf '\0\0\0\0\0\0' > "$T/relocs-odd.bin"
expect_refusal "--relocs with a partial word is refused" \
	"does not fit this kernel: its size is not whole 32-bit words" --relocs "$T/relocs-odd.bin" "$TK/testkern32.elf"
printf '\0\0\0\0\0\0\0\0' > "$T/relocs-extra.bin"
expect_refusal "--relocs with words outside any list is refused" \
	"does not fit this kernel: words that belong to no list" --relocs "$T/relocs-extra.bin" "$TK/testkern32.elf"
expect_refusal "--relocs with a bzImage input is refused" "--relocs is for an ELF vmlinux" \
	--relocs "$T/relocs-odd.bin" "$img"

# An ELF linked with ld --emit-relocs brings its own table: the packer
# derives it from the .rel/.rela sections (tools/packer/relocs_elf.c).
# The reference is binutils' view of the same file: readelf's absolute
# places (testkern has no absolute symbols), laid out as vmlinux.relocs,
# given with --relocs to the same code linked without the sections; the
# two images must carry the same table (size and CRC32C).
LOADER=$TK/testloader.elf
n_er=0
# er_check NAME COMMAND...: check, counted toward the closing tally
er_check() {
	local name=$1; shift
	if "$@"; then pass "$name"; n_er=$((n_er + 1)); else fail "$name" "$*"; fi
}
# readelf_table ELF BITS: the table from readelf -r, on stdout
readelf_table() {
	readelf -rW "$1" | awk '{ print $3, $1 }' | python3 -c 'import struct, sys
bits = int(sys.argv[1])
r32, r64 = [], []
for line in sys.stdin:
    f = line.split()
    if len(f) != 2 or f[0] not in ("R_386_32", "R_X86_64_32", "R_X86_64_32S", "R_X86_64_64"):
        continue
    (r64 if f[0] == "R_X86_64_64" else r32).append(int(f[1], 16) & 0xffffffff)
if not r32 + r64:
    sys.exit("readelf found no absolute relocations")
words = ([0] + sorted(r64) + [0] if bits == 64 else []) + [0] + sorted(r32)
sys.stdout.buffer.write(struct.pack("<%dI" % len(words), *words))' "$2"
}
for bits in 32 64; do
	kr=$TK/testkern$bits-relocs.elf ref=$T/relocs-emit-ref$bits.bin
	name="emit-relocs: testkern$bits-relocs's table is readelf's"
	rm -f "$T/relocs-emit$bits.img"       # the boots below use this run's image
	if [ ! -f "$kr" ]; then
		fail "$name" "$kr not built: run make"
	elif ! out=$($BZPACK -c lz4 -o "$T/relocs-emit$bits.img" "$kr" 2>&1); then
		fail "$name" "packing without --relocs: $out"
	elif ! readelf_table "$kr" $bits > "$ref"; then
		fail "$name" "no reference table from readelf"
	elif ! out=$($BZPACK -c lz4 --relocs "$ref" -o "$T/relocs-emit-ref$bits.img" "$TK/testkern$bits.elf" 2>&1); then
		fail "$name" "packing the reference table: $out"
	else
		a=$($BZPACK --info "$T/relocs-emit$bits.img" | grep "^relocations:")
		b=$($BZPACK --info "$T/relocs-emit-ref$bits.img" | grep "^relocations:")
		er_check "$name ($a)" test -n "$a" -a "$a" = "$b"
	fi
done

img=$T/relocs-emit32.img
if [ ! -f "$img" ] || [ ! -f "$LOADER" ]; then
	fail "emit-relocs: boots" "$img or $LOADER missing"
else
	info=$($BZPACK --info "$img" 2>&1)
	er_check "emit-relocs: --info says the kernel is relocatable" \
		grep -q "^kernel: .*relocatable: runs at max(load address, 0x1000000) aligned to 0x1000" <<<"$info"

	# Moved by the test loader (32-bit entry, 0x2003000, nokaslr): the
	# kernel runs at the load address, and testkern's checks (its strings,
	# data and filler read through relocated absolute addresses) pass.
	name="emit-relocs: testkern32-relocs run moved to 0x2003000"
	log=$T/relocs-emit-moved.log
	if boot "$name" 33 "$LOADER" "$log" -m 1G -t 60 \
		-i "$img bzpack-test console=ttyS0 nokaslr testloader.entry=32 testloader.load=0x2003000"; then
		er_check "$name: kernel=0x2003000" test "$(report_field "$log" kernel)" = 0x2003000
		er_check "$name: testkern: OK" grep -q "^testkern: OK bits=32$" "$log"
	fi
	# QEMU -kernel without nokaslr: randomised, and still OK.
	name="emit-relocs: testkern32-relocs randomised by QEMU -kernel"
	log=$T/relocs-emit-kaslr.log
	if boot "$name" 33 "$img" "$log" -q qemu-system-i386 -m 512M -t 60 -a "console=ttyS0"; then
		er_check "$name: kaslr=$(report_field "$log" kaslr)" grep -q "^bzpack: codec=.* kaslr=phys:0x" "$log"
		er_check "$name: testkern: OK" grep -q "^testkern: OK bits=32$" "$log"
	fi
	# The control: the same kernel moved with an empty table (a lone
	# terminator) must fail, or the two boots above prove nothing.
	name="emit-relocs control: testkern32 moved with an empty table fails"
	printf '\0\0\0\0' > "$T/relocs-empty.bin"
	if ! out=$($BZPACK -c lz4 --relocs "$T/relocs-empty.bin" -o "$T/relocs-empty.img" "$TK/testkern32.elf" 2>&1); then
		fail "$name" "$out"
	elif boot "$name" 35 "$LOADER" "$T/relocs-empty.log" -m 1G -t 60 \
		-i "$T/relocs-empty.img bzpack-test console=ttyS0 nokaslr testloader.entry=32 testloader.load=0x2003000"; then
		er_check "$name" bash -c '! grep -q "^testkern: OK" "$1"' _ "$T/relocs-empty.log"
	fi
fi
check "emit-relocs: 8 of 8 checks ran and passed ($n_er)" test "$n_er" -eq 8

if [ ! -s "$DEB/i386/vmlinuz" ] || [ ! -s "$DEB/amd64/vmlinuz" ]; then
	skip "relocs: Debian kernels" "no Debian kernel in $DEB (ci/fixtures/fetch-debian.sh)"
	return 0 2>/dev/null || exit 0
fi

# Debian's kernels: the table after the ELF in the payload is kept, and
# the image asks loaders for the kernel's alignment.  (The same packing
# as test-placement.sh's, so the pack cache serves both.)
for spec in "amd64 64 0x200000" "i386 32 0x2000"; do
	set -- $spec
	arch=$1 bits=$2 align=$3
	img=$T/relocs-debian-$arch-lz4.img
	pack_debian "pack Debian $arch" "$img" "$arch" "$bits" || continue
	info=$($BZPACK --info "$img" 2>&1)
	check "Debian $arch image: the kernel is relocatable, aligned to $align" \
		grep -q "^kernel: .*relocatable: runs at max(load address, 0x1000000) aligned to $align" <<<"$info"
	check "Debian $arch image: pref_address is the kernel's 16 MiB" \
		grep -q "^load address: .*pref_address 0x1000000, relocatable" <<<"$info"
	check "Debian $arch image: relocatable, kernel_alignment $align" \
		grep -q "^load address: .*, relocatable (alignment $align)" <<<"$info"
	check "Debian $arch image: --info gives the table's size and CRC" \
		grep -Eq "^relocations: +[1-9][0-9]* bytes, CRC32C 0x[0-9a-f]{8}, virtual address 0x" <<<"$info"
done

# The same i386 kernel as an ELF vmlinux plus --relocs (the payload cut
# where the ELF file ends: its section table comes last) gives the same
# table as the bzImage.
payload=$T/relocs-i386.payload
if $BZPACK -x -o "$payload" "$DEB/i386/vmlinuz" 2>"$T/relocs-x.err"; then
	elf_end=$(python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(52)
shoff, = struct.unpack_from("<I", d, 0x20)
shentsize, shnum = struct.unpack_from("<HH", d, 0x2e)
print(shoff + shentsize * shnum)' "$payload")
	head -c "$elf_end" "$payload" > "$T/relocs-i386.vmlinux"
	tail -c +$((elf_end + 1)) "$payload" > "$T/relocs-i386.relocs"
	if out=$($BZPACK -c none --relocs "$T/relocs-i386.relocs" -o "$T/relocs-i386-elf.img" \
			"$T/relocs-i386.vmlinux" 2>&1); then
		a=$($BZPACK --info "$T/relocs-i386-elf.img" | grep "^relocations:")
		b=$($BZPACK --info "$T/relocs-debian-i386-lz4.img" | grep "^relocations:")
		check "Debian i386 as vmlinux + --relocs: the bzImage's table ($a)" test -n "$a" -a "$a" = "$b"
	else
		fail "Debian i386 as vmlinux + --relocs" "$out"
	fi
else
	fail "bzpack -x Debian i386" "$(cat "$T/relocs-x.err")"
fi

# The damage, on an image whose table is stored as is (codec none).
base=$T/relocs-i386-none.img
if ! out=$(pack_cached "$base" "$DEB/i386/vmlinuz" -c none 2>&1); then
	fail "pack Debian i386 with codec none" "$out"
	return 0 2>/dev/null || exit 0
fi
setup_sects=$(od -An -tu1 -j $SETUP_HDR_setup_sects -N1 "$base" | tr -d ' ')
payload_at=$(((setup_sects + 1) * SECTOR_SIZE + $(od -An -tu4 -j $SETUP_HDR_payload_offset -N4 "$base" | tr -d ' ')))
hdr_at=$((payload_at - BZPACK_HEADER_SIZE))
out_size=$(od -An -tu4 -j $((hdr_at + BZHDR_out_size)) -N4 "$base" | tr -d ' ')
relocs_size=$(od -An -tu4 -j $((hdr_at + BZHDR_relocs_size)) -N4 "$base" | tr -d ' ')
table_at=$((payload_at + out_size - relocs_size))

# damage IN OUT WHAT: copy IN to OUT with damage, the CRCs of the
# checks named in WHAT's tail recomputed.  WHAT: flip:OFFSET (xor 0x10 at
# that offset in the table), outside (the table's last entry to be
# checked, right after the first zero terminator, points below the kernel).
damage() {
	python3 - "$@" "$hdr_at" "$payload_at" "$table_at" "$relocs_size" "$out_size" \
		"$BZHDR_relocs_crc" "$BZHDR_relocs_xxh3" "$BZHDR_payload_crc" "$BZHDR_payload_xxh3" \
		"$BZHDR_header_crc" <<'EOF'
import struct, sys
sys.path.insert(0, "ci")
from checksums import crc32c as crc, xxh3
src, dst, what, reseal = sys.argv[1:5]
(hdr, payload, table, relocs_size, out_size, o_relocs, o_relocs_xxh3, o_payload, o_xxh3,
 o_header) = map(int, sys.argv[5:])
d = bytearray(open(src, "rb").read())
if what.startswith("flip:"):
    d[table + int(what[5:])] ^= 0x10
else:                                   # the first word is a terminator; the next one is the list's last entry
    struct.pack_into("<I", d, table + 4, 0x1000)
if reseal == "all":
    struct.pack_into("<I", d, hdr + o_relocs, crc(d[table:table + relocs_size]))
    struct.pack_into("<Q", d, hdr + o_relocs_xxh3, xxh3(d[table:table + relocs_size]))
if reseal in ("all", "payload"):
    struct.pack_into("<I", d, hdr + o_payload, crc(d[payload:payload + out_size]))
    struct.pack_into("<Q", d, hdr + o_xxh3, xxh3(d[payload:payload + out_size]))
    struct.pack_into("<I", d, hdr + o_header, crc(d[hdr:hdr + o_header]))
open(dst, "wb").write(d)
EOF
}

# boot_damaged NAME IMAGE WANT: QEMU -kernel, the stub must stop with WANT
boot_damaged() {
	local name=$1 img=$2 want=$3 log=$T/relocs-damaged.log
	boot "$name" 100 "$img" "$log" -q qemu-system-i386 -m 512M -t 60 -a "console=ttyS0" || return 1
	if grep -q "^bzpack: error: $want" "$log"; then
		pass "$name"
	else
		fail "$name" "no 'bzpack: error: $want'; serial: $(tr '\n' '|' < "$log" | cut -c1-300)"
		return 1
	fi
}

n=0
for off in 0 4 $((relocs_size / 2 + 1)) $((relocs_size - 1)); do
	img=$T/relocs-flip.img
	damage "$base" "$img" "flip:$off" none &&
		boot_damaged "table bit flip at +$off of $relocs_size: the payload CRC stops the boot" "$img" \
			"payload checksum mismatch" && n=$((n + 1))
done
img=$T/relocs-resealed.img
damage "$base" "$img" "flip:$((relocs_size / 3))" payload &&
	boot_damaged "table bit flip, payload CRC recomputed: the table's CRC stops the boot" "$img" \
		"relocation table checksum mismatch" && n=$((n + 1))
img=$T/relocs-outside.img
damage "$base" "$img" outside all &&
	boot_damaged "table entry outside the kernel, every CRC recomputed: the stub's check stops the boot" "$img" \
		"relocation table: an entry points outside the kernel" && n=$((n + 1))
check "relocation table damage: 6 of 6 damaged images stopped with bzpack: error ($n)" test "$n" -eq 6
