# test-kaslr.sh - KASLR (stub/kaslr.c): a kernel with a relocation table
# runs at a random physical address and, on x86_64, a random virtual
# offset; the report line says where (kaslr=phys:0x...,virt:0x...) and the
# kernel agrees: its _text in /proc/kallsyms (printed by the test
# initramfs) is the virtual address the stub reported.  Two boots of the
# same image must differ (a collision is a 1-in-several-hundred chance at
# worst: amd64 has ~470 virtual and thousands of physical slots at 1 GiB).
# Debian's own vmlinuz, booted the same way, is the reference.
DEB=$B/debian
MARKER="^bzpack-initramfs: userspace reached"

# the _text address the test initramfs printed, without leading zeros
kallsyms_text() {
	sed -n 's/^bzpack-initramfs: 0*\([0-9a-f]*\) T _text.*/\1/p' "$1" | head -n 1
}

if [ ! -s "$DEB/amd64/vmlinuz" ] || [ ! -s "$DEB/i386/vmlinuz" ]; then
	skip "kaslr" "no Debian kernel in $DEB (ci/fixtures/fetch-debian.sh)"
	return 0 2>/dev/null || exit 0
fi

# kaslr_boot ARCH QEMU IMAGE LOG APPEND: QEMU -kernel to the marker
kaslr_boot() {
	local arch=$1 qemu=$2 img=$3 log=$4 append=$5 initrd=$T/kaslr-initrd-$1.gz
	[ -s "$initrd" ] || bash ci/fixtures/mkinitramfs.sh "$DEB/$arch/busybox" "$initrd"
	boot "$arch: $(basename "$log" .log)" 0 "$img" "$log" -q "$qemu" -m 1G -t 180 -i "$initrd" \
		-a "console=ttyS0 panic=-1 no_timer_check $append" -e "$MARKER"
}

for spec in "amd64 qemu-system-x86_64 64" "i386 qemu-system-i386 32"; do
	set -- $spec
	arch=$1 qemu=$2 bits=$3
	img=$T/kaslr-debian-$arch-lz4.img
	pack_debian "kaslr: pack Debian $arch" "$img" "$arch" "$bits" || continue
	fields=() texts=()
	for run in 1 2; do
		log=$T/kaslr-$arch-$run.log
		kaslr_boot "$arch" "$qemu" "$img" "$log" "" || continue
		field=$(report_field "$log" kaslr) text=$(kallsyms_text "$log")
		virt=${field##*,virt:0x}
		if [[ $field != phys:0x*,virt:0x* ]]; then
			fail "Debian $arch boot $run: randomised" "kaslr=$field"
		elif [ "$text" != "$virt" ]; then
			fail "Debian $arch boot $run: _text is where the stub put it" "_text $text, kaslr=$field"
		else
			pass "Debian $arch boot $run: kaslr=$field, _text $text"
			fields+=("$field") texts+=("$text")
		fi
	done
	if [ ${#fields[@]} -eq 2 ]; then
		check "Debian $arch: two boots, two kaslr= fields (${fields[*]})" test "${fields[0]}" != "${fields[1]}"
		check "Debian $arch: two boots, two _text (${texts[*]})" test "${texts[0]}" != "${texts[1]}"
	fi
done

# nokaslr: the kernel where the image puts it, its link-time _text; mem=
# (whose ranges the stub does not parse) turns it off too.
img=$T/kaslr-debian-amd64-lz4.img
log=$T/kaslr-amd64-nokaslr.log
if kaslr_boot amd64 qemu-system-x86_64 "$img" "$log" nokaslr; then
	check "Debian amd64 nokaslr: kaslr=off(nokaslr)" test "$(report_field "$log" kaslr)" = "off(nokaslr)"
	check "Debian amd64 nokaslr: _text ffffffff81000000" test "$(kallsyms_text "$log")" = ffffffff81000000
fi
log=$T/kaslr-amd64-mem.log
if kaslr_boot amd64 qemu-system-x86_64 "$img" "$log" mem=900M; then
	check "Debian amd64 mem=900M: kaslr=off(mem-or-memmap)" \
		test "$(report_field "$log" kaslr)" = "off(mem-or-memmap)"
fi

# A kernel without a relocation table never moves.
timg=$T/kaslr-testkern64.img
log=$T/kaslr-testkern64.log
if ! out=$($BZPACK -c lz4 -o "$timg" "$B/images/testkern64.elf" 2>&1); then
	fail "kaslr: pack testkern64" "$out"
elif boot "testkern64: kaslr" 33 "$timg" "$log" -t 30; then
	check "testkern64 (no relocation table): kaslr=off(no-relocations)" \
		test "$(report_field "$log" kaslr)" = "off(no-relocations)"
fi

# The reference: Debian's own vmlinuz, booted the same way, randomises too.
texts=()
for run in 1 2; do
	log=$T/kaslr-debian-own-$run.log
	kaslr_boot amd64 qemu-system-x86_64 "$DEB/amd64/vmlinuz" "$log" "" && texts+=("$(kallsyms_text "$log")")
done
if [ ${#texts[@]} -eq 2 ]; then
	check "reference: Debian's own amd64 vmlinuz, two boots, two _text (${texts[*]})" \
		test -n "${texts[0]}" -a "${texts[0]}" != "${texts[1]}"
fi
