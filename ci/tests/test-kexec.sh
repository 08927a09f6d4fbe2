# test-kexec.sh - a bzpack image as the second kernel of kexec: Debian's
# amd64 kernel boots an initramfs carrying this machine's kexec-tools
# (ci/fixtures/mkinitramfs.sh -k), which loads the image with `kexec -l` and starts
# it with `kexec -e`.  kexec-tools takes images with relocatable_kernel,
# XLF_KERNEL_64 and XLF_CAN_BE_LOADED_ABOVE_4G through its bzImage64 path:
# wherever it likes, entered at the 64-bit entry (the report line's
# entry=64 says so; before those flags it took its 32-bit path).  Debian's
# own vmlinuz as the second kernel is the reference.
DEB=$B/debian
KEXEC=$(command -v kexec || echo /sbin/kexec)
# no_timer_check: under TCG on a busy machine Linux's IO-APIC timer check
# can fail and panic the first kernel, which is not what this tests.
KX_FIRST_CMDLINE="console=ttyS0 panic=-1 no_timer_check"
KX_SECOND_CMDLINE="console=ttyS0 panic=-1 no_timer_check"
KX_ENTRY=64                     # kexec-tools' bzImage64 path
KX_MARKER="^bzpack-initramfs: userspace reached"

kx_ready() {
	if [ ! -x "$KEXEC" ]; then
		skip "$1" "no kexec on this machine (kexec-tools: ci/deps.sh)"
	elif [ ! -s "$DEB/amd64/vmlinuz" ] || [ ! -s "$DEB/amd64/busybox" ]; then
		skip "$1" "no Debian kernel in $DEB (ci/fixtures/fetch-debian.sh)"
	else
		return 0
	fi
	return 1
}

# testkern64 as the second kernel: QEMU's exit status is testkern's.
name="kexec from Debian amd64 into a bzpack image of testkern64"
if kx_ready "$name"; then
	img=$T/kexec-testkern64.img
	initrd=$T/kexec-testkern64-initrd.gz
	log=$T/kexec-testkern64.log
	if ! out=$($BZPACK -c lz4 -o "$img" "$B/images/testkern64.elf" 2>&1); then
		fail "$name" "$out"
	elif ! out=$(bash ci/fixtures/mkinitramfs.sh -k "$img" -a "console=ttyS0 marker=kexec" \
			"$DEB/amd64/busybox" "$initrd" 2>&1); then
		fail "$name" "$out"
	elif boot "$name" 33 "$DEB/amd64/vmlinuz" "$log" -m 1G -t 240 -i "$initrd" -a "$KX_FIRST_CMDLINE"; then
		if ! grep -q "^bzpack: codec=lz4 .* bits=64 entry=$KX_ENTRY " "$log"; then
			fail "$name" "no report line with entry=$KX_ENTRY"
		else
			check "$name" grep -q "^testkern: OK bits=64$" "$log"
		fi
	fi
fi

# Debian's kernel as the second kernel, ours and Debian's own, each to
# userspace: the marker twice, then the second kernel powers off.
for second in bzpack debian; do
	name="kexec from Debian amd64 into Debian amd64 ($second image) reaches userspace"
	kx_ready "$name" || continue
	img=$T/kexec-second-$second.img
	initrd2=$T/initrd-amd64.gz
	initrd=$T/kexec-second-$second-initrd.gz
	log=$T/kexec-second-$second.log
	[ -s "$initrd2" ] || bash ci/fixtures/mkinitramfs.sh "$DEB/amd64/busybox" "$initrd2"
	if [ $second = bzpack ]; then
		if ! out=$(pack_cached "$img" "$DEB/amd64/vmlinuz" -c lz4 -b 64 2>&1); then
			fail "$name" "$out"; continue
		fi
	else
		cp "$DEB/amd64/vmlinuz" "$img"
	fi
	if ! out=$(bash ci/fixtures/mkinitramfs.sh -k "$img" -i "$initrd2" -a "$KX_SECOND_CMDLINE" \
			"$DEB/amd64/busybox" "$initrd" 2>&1); then
		fail "$name" "$out"; continue
	fi
	boot "$name" 0 "$DEB/amd64/vmlinuz" "$log" -m 1G -t 360 -i "$initrd" -a "$KX_FIRST_CMDLINE" || continue
	n=$(grep -c "$KX_MARKER" "$log")
	if [ "$n" != 2 ]; then
		fail "$name" "userspace reached $n times, want 2 (first and second kernel)"
	elif [ $second = bzpack ]; then
		check "$name (entry=$(report_field "$log" entry))" test "$(report_field "$log" entry)" = "$KX_ENTRY"
	else
		pass "$name"
	fi
done
