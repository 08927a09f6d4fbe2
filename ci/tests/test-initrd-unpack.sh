# test-initrd-unpack.sh - --initrd-decompress: the stub decompresses the
# initrd before the kernel runs (stub/initrd_unpack.c).  Debian's amd64
# kernel boots the marker initramfs (ci/fixtures/mkinitramfs.sh -T: /init
# prints a checksum of the unpacked tree) compressed with gzip, xz, zstd,
# and zstd from a pipe (frames without their content size), from the
# loader and embedded, an early cpio in front of a compressed one, and
# five pieces (cpio, gzip, zstd, gzip, xz) one after the other, with the
# stub decompressing (always): each tree must be the one the kernel
# unpacks itself (--initrd-decompress off; one archive, so one tree, for
# every format), and the report line must say unpacked=FORMATS:IN->OUT.
# The formats this stub has no decoder for (bzip2, lzma, lzo, lz4, "old
# gzip"), a damaged piece and auto in tight memory (160M, a 40 MiB
# initrd) hand the original initrd over, with the reason on the report
# line; the kernel still boots where it can.  The i386 test kernel takes
# the 32-bit stub through the same code, testkern64 the -bcj-initrd stub
# and its UEFI entry (a gzip piece: its room allocated, then trimmed), and
# Debian's kernel boots under OVMF with the stub decompressing (the same
# tree) and with auto in tight memory.
DEB=$B/debian
IU_MARKER="^bzpack-initramfs: userspace reached"
IU_CMDLINE="console=ttyS0 panic=-1 no_timer_check"
CR=$'\r'
# shellcheck source=ci/fixtures/ovmf.sh
. ci/fixtures/ovmf.sh

if ! bash ci/fixtures/fetch-debian.sh > "$T/iu-fetch-debian.log" 2>&1; then
	fail "initrd-unpack: fetch Debian kernels" "$(tail -n 3 "$T/iu-fetch-debian.log" | tr '\n' ' ')"
	return 0 2> /dev/null || exit 0
fi

# iu_field LOG: the report line's initrd= and unpacked= fields.
iu_field() {
	grep -a -m1 '^bzpack: codec=' "$1" | tr -d '\r' | grep -o ' initrd=[^ ]*\( unpacked=.*\)\?$'
}
# iu_tree LOG: the tree checksum /init printed.
iu_tree() {
	grep -a -m1 -o 'bzpack-initramfs: tree=[0-9a-f]*' "$1" | cut -d= -f2
}
# iu_boot NAME IMAGE LOG [qemu-boot.sh options]: boots to the marker.
iu_boot() {
	local name=$1 image=$2 log=$3
	shift 3
	boot "$name" 0 "$image" "$log" -e "$IU_MARKER" -t 240 -a "$IU_CMDLINE" "$@"
}

ir=$T/iu-ir
for z in gzip xz zstd none; do
	[ -s "$ir.$z" ] || bash ci/fixtures/mkinitramfs.sh -z "$z" -T "$DEB/amd64/busybox" "$ir.$z"
done
# The other formats from the same archive, as Debian's tools write them
# (lz4 -l: the legacy frame, the one Linux takes).
bzip2 -9 -c "$ir.none" > "$ir.bzip2"
xz --format=lzma -9 -c "$ir.none" > "$ir.lzma"
lzop -9 -c "$ir.none" > "$ir.lzo"
lz4 -l -9 -q -c "$ir.none" > "$ir.lz4"
zstd -q -19 -c < "$ir.none" > "$ir.zstd-pipe"
# An early cpio (as microcode is) in front of the compressed archive.
early=$T/iu-early.cpio
(d=$(mktemp -d) && mkdir -p "$d/kernel/x86/microcode" "$d/tags" && : > "$d/tags/early" &&
	head -c 5000 /dev/zero | tr '\0' 'u' > "$d/kernel/x86/microcode/GenuineIntel.bin" &&
	cd "$d" && find kernel tags | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible > "$(realpath -m "$OLDPWD/$early")"
	rm -rf "$d")
cat "$early" "$ir.zstd" > "$ir.early-zstd"
# Several compressed pieces: the same archive four times over (each
# unpacks over the last: the same files), xz last, as it must be.
cat "$early" "$ir.gzip" "$ir.zstd-pipe" "$ir.gzip" "$ir.xz" > "$ir.pieces"

off=$T/iu-debian-off.img always=$T/iu-debian-always.img auto=$T/iu-debian-auto.img
if ! out=$(pack_cached "$off" "$DEB/amd64/vmlinuz" -c lz4 2>&1) ||
   ! out=$(pack_cached "$always" "$DEB/amd64/vmlinuz" -c lz4 --initrd-decompress=always 2>&1) ||
   ! out=$(pack_cached "$auto" "$DEB/amd64/vmlinuz" -c lz4 --initrd-decompress=auto 2>&1); then
	fail "initrd-unpack: pack Debian amd64 (off, always, auto)" "$out"
	return 0 2> /dev/null || exit 0
fi
check "initrd-unpack: --initrd-decompress takes auto, always or off: a bad value says so, exit 2, nothing written" \
	bash -c 'out=$("$1" --initrd-decompress=maybe -o "$2" "$3" 2>&1); [ $? -eq 2 ] && [ ! -e "$2" ] &&
		head -n 1 <<<"$out" | grep -q "^bzpack: --initrd-decompress takes auto, always or off, not .maybe.$"' \
	_ "$BZPACK" "$T/iu-bad.img" "$B/images/testkern64.elf"

# The loader's initrd: the kernel unpacks the gzip archive and the
# pieces itself once, and the stub unpacks every format of the same
# archive: the same tree each time.
iu_boot "initrd-unpack: Debian amd64, loader's gzip initrd, kernel decompresses" "$off" "$T/iu-gzip-off.log" \
	-m 512M -i "$ir.gzip"
iu_boot "initrd-unpack: Debian amd64, loader's five pieces, kernel decompresses" "$off" "$T/iu-pieces-off.log" \
	-m 512M -i "$ir.pieces"
# iu_same NAME LOG REFERENCE_LOG: the two boots' trees.
iu_same() {
	local want got
	want=$(iu_tree "$3") got=$(iu_tree "$2")
	check "$1: the same tree as the kernel's own unpacking (${want:-none} = ${got:-none})" test -n "$want" -a "$want" = "$got"
}
for z in gzip xz zstd zstd-pipe early-zstd pieces; do
	case $z in
	zstd-pipe) fmt=zstd ref=gzip ;;
	early-zstd) fmt=zstd ref=pieces ;;
	pieces) fmt='gzip\+xz\+zstd' ref=pieces ;;
	*) fmt=$z ref=gzip ;;
	esac
	name="initrd-unpack: Debian amd64, loader's $z initrd, stub decompresses"
	iu_boot "$name" "$always" "$T/iu-$z-always.log" -m 512M -i "$ir.$z" || continue
	iu_same "$name" "$T/iu-$z-always.log" "$T/iu-$ref-off.log"
	size=$(stat -c %s "$ir.$z")
	check "$name: report line $(iu_field "$T/iu-$z-always.log")" \
		grep -aEq "^bzpack: codec=.* initrd=loader:0x[0-9a-f]+\\+[0-9]+ unpacked=$fmt:$size->[0-9]+,cycles=[0-9]+$CR?\$" \
		"$T/iu-$z-always.log"
done
check "initrd-unpack: the early cpio reached the kernel with the unpacked archive (/tags: early initramfs)" \
	grep -aEq "^bzpack-initramfs: tags=early initramfs $CR?\$" "$T/iu-early-zstd-always.log"
# The early cpio counts to its TRAILER!!! record (cpio pads the file
# with zeros to 512 bytes; the walk skips them), each archive in full.
pieces_out=$(grep -a -m1 -o ' unpacked=[a-z+]*:[0-9]*->[0-9]*' "$T/iu-pieces-always.log" | sed 's/.*->//')
four=$((4 * $(stat -c %s "$ir.none")))
check "initrd-unpack: five pieces: the stub hands over the early cpio and the archive four times (${pieces_out:-none} = $four + at most $(stat -c %s "$early"))" \
	test -n "$pieces_out" -a "${pieces_out:-0}" -gt "$four" -a "${pieces_out:-0}" -le "$((four + $(stat -c %s "$early")))"

# Embedded (xz): the same tree as the kernel's own unpacking of it.
emb=$T/iu-debian-embedded.img
if ! out=$(pack_cached "$emb" "$DEB/amd64/vmlinuz" -c lz4 --initrd-decompress=always --initrd "$ir.xz" 2>&1); then
	fail "initrd-unpack: pack Debian amd64 with an embedded xz initrd" "$out"
elif iu_boot "initrd-unpack: Debian amd64, embedded xz initrd, stub decompresses" "$emb" "$T/iu-emb.log" -m 512M; then
	want=$(iu_tree "$T/iu-gzip-off.log") got=$(iu_tree "$T/iu-emb.log")
	check "initrd-unpack: embedded xz: the same tree as the kernel's unpacking (${want:-none} = ${got:-none})" \
		test -n "$want" -a "$want" = "$got"
	check "initrd-unpack: embedded xz: report line $(iu_field "$T/iu-emb.log")" \
		grep -aEq "^bzpack: codec=.* initrd=embedded:0x[0-9a-f]+\\+[0-9]+ unpacked=xz:$(stat -c %s "$ir.xz")->" "$T/iu-emb.log"
fi

# auto with room: 512M for a 2 MiB initrd.
if iu_boot "initrd-unpack: auto in 512M" "$auto" "$T/iu-auto.log" -m 512M -i "$ir.gzip"; then
	check "initrd-unpack: auto in 512M unpacks: $(iu_field "$T/iu-auto.log")" \
		grep -aEq " unpacked=gzip:[0-9]+->[0-9]+,cycles=" "$T/iu-auto.log"
fi

# What the stub hands over unchanged, and says why: bzip2 (the kernel
# then unpacks it itself: the same tree), the other formats it has no
# decoder for, "old gzip" (Linux's table names it, no decoder takes it),
# and a damaged piece of each format it decodes.
if iu_boot "initrd-unpack: a bzip2 initrd" "$always" "$T/iu-bzip2.log" -m 512M -i "$ir.bzip2"; then
	check "initrd-unpack: a bzip2 initrd goes to the kernel as it is: $(iu_field "$T/iu-bzip2.log")" \
		grep -aEq " initrd=loader:0x[0-9a-f]+\\+$(stat -c %s "$ir.bzip2") unpacked=no\\(bzip2: no decoder for it in this image\\)$CR?\$" \
		"$T/iu-bzip2.log"
	iu_same "initrd-unpack: the kernel unpacks the bzip2 initrd itself" "$T/iu-bzip2.log" "$T/iu-gzip-off.log"
fi
old_gzip=$T/iu-old-gzip
{ printf '\x1f\x9e'; tail -c +3 "$ir.gzip"; } > "$old_gzip"
for z in lzma lzo lz4 old-gzip gzip xz zstd zstd-pipe; do
	bad=$T/iu-damaged.$z
	case $z in
	lzma | lzo | lz4)
		cp "$ir.$z" "$bad"
		want="$z: no decoder for it in this image" what="an $z initrd" ;;
	old-gzip)
		cp "$old_gzip" "$bad"
		want="gzip: no decoder for it in this image" what="an old-gzip initrd" ;;
	*)
		cp "$ir.$z" "$bad"
		printf '\x5a' | dd of="$bad" bs=1 seek=$(($(stat -c %s "$bad") / 2)) conv=notrunc status=none
		want="${z%-pipe}: [^)]+" what="a damaged $z piece" ;;
	esac
	size=$(stat -c %s "$bad")
	log=$T/iu-unchanged-$z.log
	# The kernel gets the original and may not get far: stop at the
	# report line.
	bash ci/qemu-boot.sh -m 512M -t 240 -a "$IU_CMDLINE" -i "$bad" -e "^bzpack: codec=" "$always" "$log"
	check "initrd-unpack: $what: the original handed over, the reason said: $(iu_field "$log")" \
		grep -aEq " initrd=loader:0x[0-9a-f]+\\+$size unpacked=no\\($want\\)$CR?\$" "$log"
done

# Tight memory: 160M, a 40 MiB initrd (incompressible, gzip): auto keeps
# it as it is and the kernel boots.
tight=$T/iu-tight.gz
[ -s "$tight" ] || bash ci/fixtures/mkinitramfs.sh "$DEB/amd64/busybox" "$tight" 40
if iu_boot "initrd-unpack: auto, 160M, a 40 MiB initrd" "$auto" "$T/iu-tight.log" -m 160M -i "$tight"; then
	check "initrd-unpack: auto, 160M, a 40 MiB initrd: not unpacked: $(iu_field "$T/iu-tight.log")" \
		grep -aEq " unpacked=no\\(gzip: auto: RAM below init_size \\+ initrd \\+ 4 x unpacked\\)$CR?\$" "$T/iu-tight.log"
fi

# The 32-bit stub: the i386 test kernel with a loader's gzip initrd.
tk=$T/iu-testkern32.img
if ! out=$($BZPACK -c lz4 --initrd-decompress=always -o "$tk" "$B/images/testkern32.elf" 2>&1); then
	fail "initrd-unpack: pack testkern32 with --initrd-decompress=always" "$out"
elif boot "initrd-unpack: testkern32 with a loader's gzip initrd" 33 "$tk" "$T/iu-testkern32.log" \
		-q qemu-system-i386 -m 256M -t 120 -i "$ir.gzip"; then
	check "initrd-unpack: testkern32: report line $(iu_field "$T/iu-testkern32.log")" \
		grep -aEq " initrd=loader:0x[0-9a-f]+\\+$(stat -c %s "$ir.none") unpacked=gzip:$(stat -c %s "$ir.gzip")->$(stat -c %s "$ir.none"),cycles=" \
		"$T/iu-testkern32.log"
fi

# The -bcj-initrd stub (testkern64, xz initrd): both fields, unpacked=
# before unfilter=; and its UEFI entry (OVMF's LoadFile2 initrd, gzip).
tk=$T/iu-testkern64-bcj.img
if ! out=$($BZPACK -q -c zstd --bcj --initrd-decompress=always -o "$tk" "$B/images/testkern64.elf" 2>&1); then
	fail "initrd-unpack: pack testkern64 with --bcj --initrd-decompress=always" "$out"
else
	if boot "initrd-unpack: testkern64 --bcj with a loader's xz initrd" 33 "$tk" "$T/iu-testkern64-bcj.log" \
			-m 256M -t 120 -i "$ir.xz"; then
		check "initrd-unpack: testkern64 --bcj: report line $(iu_field "$T/iu-testkern64-bcj.log")" \
			grep -aEq " initrd=loader:0x[0-9a-f]+\\+$(stat -c %s "$ir.none") unpacked=xz:$(stat -c %s "$ir.xz")->$(stat -c %s "$ir.none"),cycles=[0-9]+ unfilter=[0-9]+$CR?\$" \
			"$T/iu-testkern64-bcj.log"
	fi
	if why=$(ovmf_missing); then
		skip "initrd-unpack: testkern64 --bcj under UEFI" "$why"
	elif boot "initrd-unpack: testkern64 --bcj under UEFI" 33 "$tk" "$T/iu-testkern64-efi.log" -U -m 256M -t 180 \
			-i "$ir.gzip"; then
		check "initrd-unpack: testkern64 --bcj under UEFI: report line $(iu_field "$T/iu-testkern64-efi.log")" \
			grep -aEq " entry=efi .* initrd=loader:0x[0-9a-f]+\\+$(stat -c %s "$ir.none") unpacked=gzip:$(stat -c %s "$ir.gzip")->$(stat -c %s "$ir.none"),cycles=[0-9]+ unfilter=[0-9]+$CR?\$" \
			"$T/iu-testkern64-efi.log"
	fi
fi

# Debian amd64 under OVMF, the loader's zstd initrd: the same tree as the
# kernel's own unpacking; and auto in tight memory there too (its RAM
# counted from the memory map): 256M, as OVMF under 160M has no room to
# load a 40 MiB initrd at all.  A gzip piece's size is known only once
# decoded, so the room is what the rule allows, or less when the firmware
# has not that much free once the kernel has its memory: either reason.
if why=$(ovmf_missing); then
	skip "initrd-unpack: Debian amd64 under UEFI" "$why"
else
	if iu_boot "initrd-unpack: Debian amd64 under UEFI, loader's zstd initrd, stub decompresses" "$always" \
			"$T/iu-efi-zstd.log" -U -m 512M -i "$ir.zstd"; then
		want=$(iu_tree "$T/iu-gzip-off.log") got=$(iu_tree "$T/iu-efi-zstd.log")
		check "initrd-unpack: under UEFI: the same tree as the kernel's unpacking (${want:-none} = ${got:-none})" \
			test -n "$want" -a "$want" = "$got"
		check "initrd-unpack: under UEFI: report line $(iu_field "$T/iu-efi-zstd.log")" \
			grep -aEq "^bzpack: codec=.* entry=efi .* initrd=loader:0x[0-9a-f]+\\+[0-9]+ unpacked=zstd:$(stat -c %s "$ir.zstd")->[0-9]+,cycles=[0-9]+$CR?\$" \
			"$T/iu-efi-zstd.log"
	fi
	if iu_boot "initrd-unpack: auto under UEFI, 256M, a 40 MiB initrd" "$auto" "$T/iu-efi-tight.log" -U -m 256M \
			-i "$tight"; then
		check "initrd-unpack: auto under UEFI, 256M, a 40 MiB initrd: not unpacked: $(iu_field "$T/iu-efi-tight.log")" \
			grep -aEq " entry=efi .* unpacked=no\\(gzip: (auto: RAM below init_size \\+ initrd \\+ 4 x unpacked|no free RAM for the decompressed initrd)\\)$CR?\$" \
			"$T/iu-efi-tight.log"
	fi
fi
