# test-placement.sh - where loaders put an image and how they enter it.
# QEMU -kernel and GRUB's BIOS path load the protected-mode part at 1 MiB
# and start the real-mode setup; images/testloader.c, a multiboot loader,
# does what 64-bit and relocating loaders do: it enters at the boot
# protocol's 64-bit entry (XLF_KERNEL_64, code32_start + 0x200) in long
# mode with page tables mapping only what boot.rst promises ([load address,
# + init_size), boot_params, the command line: anything else the stub
# touched before building its own tables would fault and stop QEMU), or at
# the 32-bit entry, and at 1 MiB or anywhere else (testloader.load=),
# above 4 GiB too (QEMU -m 6G puts 3 GiB of RAM at 4-7 GiB).
LOADER=$B/images/testloader.elf
CMDLINE="bzpack-test console=ttyS0 marker=64"
ELSEWHERE=0x2000000               # above testkern's 16-19 MiB, 4 KiB aligned
ABOVE_4G=0x13fe00000              # 5 GiB - 2 MiB: the image spans a GiB boundary
PREF=0x1000000                    # testkern's link address: pref_address

# setup_header field of an image file, little-endian: setup_field FILE OFFSET BYTES
setup_field() {
	od -An -tu"$3" -j "$2" -N"$3" "$1" | tr -d ' '
}

if [ ! -f "$LOADER" ] || [ ! -f "$B/gen/bzpack_format.sh" ]; then
	fail "placement" "$LOADER or $B/gen/bzpack_format.sh not built: run make"
	return 0 2>/dev/null || exit 0
fi
. "$B/gen/bzpack_format.sh"

# The header: both word sizes relocatable to 4 KiB; only 64-bit images
# have the 64-bit entry and the EFI handover, and may be loaded above 4 GiB.
for bits in 32 64; do
	img=$T/place-testkern$bits.img
	if ! out=$($BZPACK -c lz4 -o "$img" "$B/images/testkern$bits.elf" 2>&1); then
		fail "pack testkern$bits for the placement tests" "$out"; continue
	fi
	want=0
	[ $bits = 64 ] && want=$((XLF_KERNEL_64 | XLF_CAN_BE_LOADED_ABOVE_4G | XLF_EFI_HANDOVER_64))
	got=$(setup_field "$img" "$SETUP_HDR_xloadflags" 2)
	check "testkern$bits image: xloadflags $got, want $want" test "$got" = "$want"
	got=$(setup_field "$img" "$SETUP_HDR_relocatable_kernel" 1)/$(setup_field "$img" "$SETUP_HDR_kernel_alignment" 4)
	check "testkern$bits image: relocatable_kernel/kernel_alignment $got" \
		test "$got" = "1/$BZPACK_LOAD_ALIGN"
done

# boot_loader NAME IMAGE LOADER-ARGS LOADER-LINE BITS CODEC [MEM]: boot
# IMAGE through the test loader and expect testkern's OK; the loader's own
# line must name the entry, and the report line's entry= must agree.
boot_loader() {
	local name=$1 img=$2 args=$3 entry_line=$4 bits=$5 codec=$6 mem=${7:-1G}
	local log=$T/place-$(tr -c 'a-z0-9\n' - <<<"$name" | head -c 60).log
	local entry=${entry_line%%-bit*}
	boot "$name" 33 "$LOADER" "$log" -m "$mem" -i "$img $CMDLINE $args" || return
	if ! grep -q "^testloader: $entry_line" "$log"; then
		fail "$name" "the loader did not say '$entry_line'"
	elif ! grep -q "^bzpack: codec=$codec .* bits=$bits entry=$entry " "$log"; then
		fail "$name" "no report line with bits=$bits entry=$entry"
	elif ! grep -qxF "testkern: cmdline=$CMDLINE" "$log"; then
		fail "$name" "command line did not arrive"
	else
		check "$name" grep -q "^testkern: OK bits=$bits$" "$log"
	fi
}

# Every codec (the heads are shared, the position-independent C differs
# per stub): the 64-bit entry at 1 MiB, elsewhere and above 4 GiB, the
# 32-bit entry elsewhere for both word sizes.
for codec in $(codecs); do
	for bits in 32 64; do
		img=$T/place-$codec-$bits.img
		if ! out=$($BZPACK -c "$codec" -o "$img" "$B/images/testkern$bits.elf" 2>&1); then
			fail "pack testkern$bits $codec" "$out"; continue
		fi
		boot_loader "testkern$bits $codec: 32-bit entry at $ELSEWHERE" "$img" \
			"testloader.entry=32 testloader.load=$ELSEWHERE" "32-bit entry at $ELSEWHERE," $bits $codec
		# At pref_address, the kernel's own address, as GRUB and kexec
		# put it: the stub runs on from a copy of itself and decompresses
		# in place, at the margin the packer simulated for this payload.
		boot_loader "testkern$bits $codec: 32-bit entry at pref_address $PREF (in place)" "$img" \
			"testloader.entry=32 testloader.load=$PREF" "32-bit entry at $PREF," $bits $codec
		[ $bits = 64 ] || continue
		boot_loader "testkern64 $codec: 64-bit entry at pref_address $PREF (in place)" "$img" \
			"testloader.load=$PREF" "64-bit entry at $(printf 0x%x $((PREF + 0x200)))," 64 $codec
		boot_loader "testkern64 $codec: 64-bit entry at 1 MiB" "$img" "" \
			"64-bit entry at 0x100200," 64 $codec
		boot_loader "testkern64 $codec: 64-bit entry at $ELSEWHERE" "$img" \
			"testloader.load=$ELSEWHERE" "64-bit entry at $(printf 0x%x $((ELSEWHERE + 0x200)))," 64 $codec
		boot_loader "testkern64 $codec: 64-bit entry at $ABOVE_4G" "$img" \
			"testloader.load=$ABOVE_4G" "64-bit entry at $(printf 0x%x $((ABOVE_4G + 0x200)))," 64 $codec 6G
	done
done

# The loader refuses an image without the 64-bit entry...
log=$T/place-no-xlf.log
name="testkern32 image refused by a 64-bit-entry loader"
boot "$name" 37 "$LOADER" "$log" -m 1G -i "$T/place-testkern32.img $CMDLINE" &&
	check "$name" grep -q "^testloader: error: image has no 64-bit entry" "$log"

# ...and an image put just above where its kernel goes (testkern has no
# relocation table, so it runs at its link address): the stub copies
# itself out of the way too, and the payload goes in place.
log=$T/place-overlap.log
name="image loaded over its kernel's range (0x1001000) boots from the stub's copy"
boot "$name" 33 "$LOADER" "$log" -m 1G -t 30 \
	-i "$T/place-testkern64.img $CMDLINE testloader.load=0x1001000" &&
	check "$name" grep -q "^testkern: OK bits=64$" "$log"

# The image too high to fit below its own scratch: a header whose plan
# cannot hold stops with a message, never a fault.
log=$T/place-scratch.log
name="image loaded over its own scratch stops with bzpack: error"
scratch_at=$(( PREF + $(od -An -tu4 -j $(( $(setup_field "$T/place-testkern64.img" "$SETUP_HDR_setup_sects" 1) * 512 + 512 + \
	$(setup_field "$T/place-testkern64.img" "$SETUP_HDR_payload_offset" 4) - BZPACK_HEADER_SIZE + BZHDR_scratch_offset )) -N4 \
	"$T/place-testkern64.img" | tr -d ' ') - 0x1000 ))
boot "$name" 100 "$LOADER" "$log" -m 1G -t 30 \
	-i "$T/place-testkern64.img $CMDLINE testloader.entry=32 testloader.load=$(printf 0x%x $scratch_at)" &&
	check "$name" grep -q "^bzpack: error: bad bzpack header\|^bzpack: error: scratch memory overlaps" "$log"

# Debian's kernels, repacked, to userspace: amd64 through the 64-bit entry
# at 1 MiB, 96 MiB and 5 GiB, i386 through the 32-bit entry at 96 MiB.
# They carry their relocation tables, so the kernel moves with the image:
# with nokaslr (test-kaslr.sh has the random placements) it runs at the
# run base, the boot protocol's runtime start: max(load address, its link
# address 16 MiB) aligned up to its alignment (the report line's kernel=).
# At 16 MiB itself (pref_address, where GRUB and kexec put it) the image
# lies where the kernel goes, and the stub decompresses in place.
DEB=$B/debian
MARKER="^bzpack-initramfs: userspace reached"
for spec in "amd64 64 64 1G" "amd64 64 64 1G 0x6000000" "amd64 64 64 6G 0x140000000" \
	    "amd64 64 64 1G 0x1000000" "amd64 64 32 1G 0x1000000" \
	    "i386 32 32 1G 0x6000000" "i386 32 32 1G 0x1000000"; do
	set -- $spec
	arch=$1 bits=$2 entry=$3 mem=$4 at=${5:-}
	align=0x2000                                    # their min_alignment
	[ $arch = amd64 ] && align=0x200000
	base=${at:-0x100000}
	[ $((base)) -lt $((0x1000000)) ] && base=0x1000000
	kernel=$(printf 0x%x $(((base + align - 1) & -align)))
	name="Debian $arch through the $entry-bit entry at ${at:-1 MiB} reaches userspace"
	if [ ! -s "$DEB/$arch/vmlinuz" ] || [ ! -s "$DEB/$arch/busybox" ]; then
		skip "$name" "no Debian kernel in $DEB (ci/fixtures/fetch-debian.sh)"; continue
	fi
	img=$T/place-debian-$arch-lz4.img
	initrd=$T/initrd-$arch.gz
	log=$T/place-debian-$arch-$entry-${at:-default}.log
	args="console=ttyS0 earlyprintk=ttyS0 panic=-1 no_timer_check nokaslr"
	[ -n "$at" ] && args="$args testloader.load=$at"
	[ "$entry" = 32 ] && args="$args testloader.entry=32"
	[ -s "$initrd" ] || bash ci/fixtures/mkinitramfs.sh "$DEB/$arch/busybox" "$initrd"
	if ! out=$(pack_cached "$img" "$DEB/$arch/vmlinuz" -c lz4 -b "$bits" 2>&1); then
		fail "$name" "$out"
	elif boot "$name" 0 "$LOADER" "$log" -m "$mem" -t 120 -e "$MARKER" -i "$img $args,$initrd"; then
		check "$name" grep -q "^testloader: $entry-bit entry at $(printf 0x%x $((${at:-0x100000} + (entry == 64 ? 0x200 : 0))))," "$log"
		check "$name: entry=$entry" test "$(report_field "$log" entry)" = "$entry"
		check "$name: kernel=$kernel" test "$(report_field "$log" kernel)" = "$kernel"
	fi
done
