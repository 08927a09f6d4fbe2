# test-entry64.sh - the boot protocol's 64-bit entry (XLF_KERNEL_64 at
# code32_start + 0x200), which neither QEMU -kernel nor GRUB's BIOS path
# uses: images/testloader.c, a multiboot loader, enters there in long mode
# with page tables mapping only [load address, + init_size), boot_params
# and the command line, as boot.rst promises.  Anything the stub touched
# outside them before building its own tables would fault and stop QEMU.
LOADER=$B/images/testloader.elf
CMDLINE="bzpack-test console=ttyS0 marker=64"

# xloadflags byte of an image file (the setup header is at the start).
xloadflags() {
	od -An -tu2 -j "$SETUP_HDR_xloadflags" -N2 "$1" | tr -d ' '
}

if [ ! -f "$LOADER" ] || [ ! -f "$B/gen/bzpack_format.sh" ]; then
	fail "64-bit entry" "$LOADER or $B/gen/bzpack_format.sh not built: run make"
	return 0 2>/dev/null || exit 0
fi
. "$B/gen/bzpack_format.sh"

for bits in 32 64; do
	img=$T/entry64-testkern$bits.img
	if ! out=$($BZPACK -c lz4 -o "$img" "$B/images/testkern$bits.elf" 2>&1); then
		fail "pack testkern$bits for the 64-bit entry" "$out"; continue
	fi
	want=0
	[ $bits = 64 ] && want=$XLF_KERNEL_64
	check "testkern$bits image: xloadflags $(xloadflags "$img"), want $want" \
		test "$(xloadflags "$img")" = "$want"
done

# Through the 64-bit entry, with every codec (the entry is shared, the
# stubs are not).
for codec in $(codecs); do
	img=$T/entry64-$codec.img
	log=$T/entry64-$codec.log
	name="testkern64 $codec through the 64-bit entry"
	if ! out=$($BZPACK -c "$codec" -o "$img" "$B/images/testkern64.elf" 2>&1); then
		fail "$name" "$out"; continue
	fi
	boot "$name" 33 "$LOADER" "$log" -m 512M -i "$img $CMDLINE" || continue
	if ! grep -q "^testloader: 64-bit entry at 0x100200," "$log"; then
		fail "$name" "the loader did not say it entered at 0x100200"
	elif ! grep -q "^bzpack: codec=$codec .* bits=64$" "$log"; then
		fail "$name" "no report line"
	elif ! grep -qxF "testkern: cmdline=$CMDLINE" "$log"; then
		fail "$name" "command line did not arrive"
	else
		check "$name" grep -q "^testkern: OK bits=64$" "$log"
	fi
done

# The loader refuses an image without the 64-bit entry...
log=$T/entry64-no-xlf.log
boot "testkern32 image refused by a 64-bit-entry loader" 37 "$LOADER" "$log" -m 512M \
	-i "$T/entry64-testkern32.img $CMDLINE" &&
	check "testkern32 image refused by a 64-bit-entry loader" \
		grep -q "^testloader: error: image has no 64-bit entry" "$log"

# ...and a fixed image entered away from its load address stops with a
# message instead of running code linked elsewhere.
log=$T/entry64-moved.log
name="fixed image entered away from 0x100000 stops with bzpack: error"
boot "$name" 100 "$LOADER" "$log" -m 512M -t 30 \
	-i "$T/entry64-lz4.img $CMDLINE testloader.load=0x2000000" &&
	check "$name" grep -q "^bzpack: error: 64-bit entry away from 0x100000" "$log"

# Debian's amd64 kernel, repacked, through the 64-bit entry to userspace.
DEB=$B/debian
name="Debian amd64 through the 64-bit entry reaches userspace"
if [ ! -s "$DEB/amd64/vmlinuz" ] || [ ! -s "$DEB/amd64/busybox" ]; then
	skip "$name" "no Debian kernel in $DEB (ci/fetch-debian.sh)"
else
	img=$T/entry64-debian-amd64-lz4.img
	initrd=$T/initrd-amd64.gz
	log=$T/entry64-debian-amd64.log
	[ -s "$initrd" ] || bash ci/mkinitramfs.sh "$DEB/amd64/busybox" "$initrd"
	if ! out=$(pack_cached "$img" "$DEB/amd64/vmlinuz" -c lz4 -b 64 2>&1); then
		fail "$name" "$out"
	elif boot "$name" 0 "$LOADER" "$log" -m 512M -t 120 -e "^bzpack-initramfs: userspace reached" \
		-i "$img console=ttyS0 earlyprintk=ttyS0 panic=-1,$initrd"; then
		check "$name" grep -q "^testloader: 64-bit entry at 0x100200," "$log"
	fi
fi
