# test-efi.sh - every 64-bit bzpack image is also an EFI application,
# booted by OVMF directly and through GRUB and systemd-boot.  Sourced by
# ci/test.sh (uses B, T, BZPACK, pass, fail, skip, boot from ci/lib.sh).
#
#   - the PE header: file(1) still says bzImage, bzpack --info shows it,
#     objdump -x reads it without a warning, sbverify --list accepts it;
#     32-bit images have none;
#   - under Debian's OVMF (ci/fixtures/ovmf.sh; pflash code + a fresh copy of the
#     variables per boot, -nodefaults, serial to a log):
#       testkern64 by direct kernel boot (-kernel/-append), checking
#       efi_info and E820 from inside;
#       the same from an ESP made with mtools, as \EFI\BOOT\BOOTX64.EFI,
#       with the command line embedded by --cmdline;
#       a damaged payload or embedded command line: "bzpack: error:" and
#       the firmware's next boot option, never the kernel;
#       signed with a throwaway key (sbsign): still boots;
#       Debian's amd64 kernel to the initramfs marker, with EFI runtime
#       services and ACPI, by direct boot, from an ESP with
#       initrd=\initrd.img, and through GRUB EFI (linux: the 32-bit entry;
#       linuxefi: the EFI handover entry).
# OVMF boots are slow under TCG (~15-35 s each), so there are few.  The
# routes x images results go to $T/efi-loaders.md for the README
# (make readme-efi).
. ci/fixtures/ovmf.sh
EFI_CMDLINE="bzpack-test console=ttyS0 marker=42"
EFI_MARKER="^bzpack-initramfs: userspace reached"
# no_timer_check: Linux's IO-APIC timer check can fail under TCG on a busy
# machine and panic the kernel, a flake of the kernel's own.
EFI_DEB_CMDLINE="console=ttyS0 panic=-1 no_timer_check"

# efi_testkern_ok LOG: why testkern64 under UEFI is not right (nothing if
# it is): our report line, then the test kernel's verdict with
# a UEFI memory map behind it.
efi_testkern_ok() {
	local log=$1
	if ! grep -aEq "^bzpack: codec=lz4 in=[0-9]+ out=[0-9]+ cycles=[0-9]+ " "$log"; then
		echo "no report line"
	elif ! grep -aq "^testkern: efi=EL64 systab=0x[0-9a-f]* memmap=0x[0-9a-f]* descriptors=[1-9]" "$log"; then
		echo "efi_info not filled: $(grep -a '^testkern: efi' "$log")"
	elif ! grep -aq "^testkern: e820 entries=[1-9]" "$log"; then
		echo "no E820 map"
	elif ! grep -aq "^testkern: OK bits=64$" "$log"; then
		echo "no 'testkern: OK bits=64': $(grep -a '^testkern: FAIL' "$log" | tr '\n' '|')"
	fi
}

# ---- the PE header ---------------------------------------------------------
img64=$T/efi-testkern64.img
img32=$T/efi-testkern32.img
if ! out=$($BZPACK --cmdline "$EFI_CMDLINE" -o "$img64" $B/images/testkern64.elf 2>&1) ||
	! out=$($BZPACK -o "$img32" $B/images/testkern32.elf 2>&1); then
	fail "efi: pack the test kernels" "$out"
	return 0 2>/dev/null || exit 0
fi
check "efi: file(1) still sees a bzImage" grep -q "Linux kernel x86 boot executable bzImage" <(file "$img64")
info=$($BZPACK --info "$img64")
check "efi: --info shows the PE header (x86-64, PE32+, EFI application)" \
	grep -q "^PE header: .*x86-64 (0x8664), PE32+, subsystem 10" <<<"$info"
check "efi: --info shows .text and no base relocations" \
	bash -c '! grep -q "\.reloc" <<<"$1" && grep -q "\.text *RVA" <<<"$1" && grep -q "^PE relocations: none" <<<"$1"' _ "$info"
check "efi: --info shows the embedded command line" grep -qF "EFI cmdline:    \"$EFI_CMDLINE\"" <<<"$info"
check "efi: 32-bit images have no PE header" grep -q "^PE header: *none" <($BZPACK --info "$img32")
name="efi: bzpack refuses --cmdline for a 32-bit image"
if $BZPACK --cmdline x -o "$T/efi-refused.img" $B/images/testkern32.elf 2> "$T/efi-refused.err"; then
	fail "$name" "exit status 0"
else
	check "$name" grep -q "^bzpack: .*--cmdline is for the EFI entry" "$T/efi-refused.err"
fi
if command -v objdump > /dev/null; then
	objdump -x "$img64" > "$T/efi-objdump.out" 2> "$T/efi-objdump.err"
	status=$?
	name="efi: objdump -x reads the PE without warnings"
	if [ $status -ne 0 ] || [ -s "$T/efi-objdump.err" ]; then
		fail "$name" "status $status: $(head -c 300 "$T/efi-objdump.err")"
	else
		check "$name" grep -q "file format pei-x86-64" "$T/efi-objdump.out"
	fi
else
	skip "efi: objdump -x" "no objdump (binutils)"
fi
if command -v sbverify > /dev/null; then
	check "efi: sbverify --list accepts the PE" bash -c 'sbverify --list "$1" > "$2" 2>&1' _ "$img64" "$T/efi-sbverify.out"
else
	skip "efi: sbverify --list" "no sbverify (sbsigntool)"
fi

# ---- OVMF ------------------------------------------------------------------
if why=$(ovmf_missing); then
	skip "efi: OVMF boots" "$why"
	return 0 2>/dev/null || exit 0
fi

# The README's table of UEFI routes x images, from these boots:
# efi_result ROUTE IMAGE NAME WHY passes (WHY empty) or fails the check
# and fills the cell.  Written to $T/efi-loaders.md (make readme-efi).
declare -A EFI_CELL=()
efi_result() {
	if [ -z "$4" ]; then
		pass "$3"
		EFI_CELL["$1|$2"]="boots"
	else
		fail "$3" "$4"
		EFI_CELL["$1|$2"]="**fails**"
	fi
}
# efi_boot ROUTE IMAGE-NAME NAME WANT-STATUS IMAGE LOG qemu-boot-options...:
# boot; a wrong exit status fails the check (boot says why) and the cell.
efi_boot() {
	local route=$1 what=$2
	shift 2
	boot "$@" && return 0
	EFI_CELL["$route|$what"]="**fails**"
	return 1
}

ROUTE_DIRECT="OVMF \`-kernel\` (PE entry)"
ROUTE_ESP="OVMF default boot, \`\\EFI\\BOOT\\BOOTX64.EFI\` (PE entry)"
ROUTE_GRUB_LINUX="GRUB 2.06 EFI \`linux\` (32-bit entry)"
ROUTE_GRUB_HANDOVER="GRUB 2.06 EFI \`linuxefi\` (EFI handover entry)"
TK="testkern64"
DEB="Debian amd64"

log=$T/efi-direct.log
name="efi: OVMF direct boot of testkern64 (-kernel, -append)"
if efi_boot "$ROUTE_DIRECT" "$TK" "$name" 33 "$img64" "$log" -U -t 90 -a "$EFI_CMDLINE"; then
	why=$(efi_testkern_ok "$log")
	if [ -z "$why" ] && ! grep -aqxF "testkern: cmdline=$EFI_CMDLINE" "$log"; then
		why="command line (load options) did not arrive"
	fi
	efi_result "$ROUTE_DIRECT" "$TK" "$name ($(grep -a -m1 -o 'cycles=[0-9]*' "$log"))" "$why"
fi

esp=$T/efi-esp-testkern.img
log=$T/efi-esp.log
name="efi: OVMF default boot of \\EFI\\BOOT\\BOOTX64.EFI with the embedded command line"
if ! out=$(bash ci/fixtures/mkesp.sh "$esp" "$img64" 2>&1); then
	efi_result "$ROUTE_ESP" "$TK" "$name" "mkesp: $out"
elif efi_boot "$ROUTE_ESP" "$TK" "$name" 33 "$esp" "$log" -U -H -t 90; then
	why=$(efi_testkern_ok "$log")
	if [ -z "$why" ] && ! grep -aqxF "testkern: cmdline=$EFI_CMDLINE" "$log"; then
		why="the embedded command line did not arrive"
	fi
	efi_result "$ROUTE_ESP" "$TK" "$name" "$why"
fi

# A damaged payload, a damaged embedded command line: the stub says why
# and gives control back; the firmware then tries its next boot option
# (its shell here, Boot0002 after the -kernel or disk entry).
img=$T/efi-damaged.img
cp "$img64" "$img"
log=$T/efi-damaged.log
name="efi: damaged payload under OVMF: bzpack: error:, back to the firmware"
if ! efi_at=$(payload_middle "$img"); then
	fail "$name" "bzpack --info gave no real-mode size or payload offset"
elif ! printf '\xff\x00\x55' | dd of="$img" bs=1 seek="$efi_at" conv=notrunc status=none; then
	fail "$name" "could not damage the copy"
elif boot "$name" 0 "$img" "$log" -U -N -t 90 -e "BdsDxe: (loading|starting) Boot0002"; then
	if grep -aq "^testkern:" "$log"; then
		fail "$name" "the kernel ran"
	else
		check "$name" grep -aq "^bzpack: error: payload checksum mismatch" "$log"
	fi
fi
img=$T/efi-damaged-cmdline.img
cp "$img64" "$img"
offset=$(grep -abo "marker=42" "$img" | head -n 1 | cut -d: -f1)
printf 'X' | dd of="$img" bs=1 seek="${offset:-0}" conv=notrunc status=none
esp=$T/efi-esp-damaged.img
log=$T/efi-damaged-cmdline.log
name="efi: damaged embedded command line: bzpack: error:, back to the firmware"
if [ -z "$offset" ]; then
	fail "$name" "the command line is not in the image"
elif ! out=$(bash ci/fixtures/mkesp.sh "$esp" "$img" 2>&1); then
	fail "$name" "mkesp: $out"
elif boot "$name" 0 "$esp" "$log" -U -H -N -t 90 -e "BdsDxe: (loading|starting) Boot0002"; then
	if grep -aq "^testkern:" "$log"; then
		fail "$name" "the kernel ran"
	else
		check "$name" grep -aq "^bzpack: error: the embedded default command line is damaged" "$log"
	fi
fi

# Signed with a throwaway key: the signature goes after the sections
# (the certificate table), so what the firmware loads is unchanged.
name="efi: signed with sbsign (throwaway key), still boots under OVMF"
if ! command -v sbsign > /dev/null || ! command -v openssl > /dev/null; then
	skip "$name" "no sbsign (sbsigntool) or openssl"
elif ! openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=bzpack test/" \
		-keyout "$T/efi-key.pem" -out "$T/efi-cert.pem" > "$T/efi-sign.log" 2>&1 ||
	! sbsign --key "$T/efi-key.pem" --cert "$T/efi-cert.pem" --output "$T/efi-signed.img" "$img64" \
		>> "$T/efi-sign.log" 2>&1; then
	fail "$name" "$(tail -n 2 "$T/efi-sign.log" | tr '\n' '|')"
else
	check "efi: sbverify lists the signature" grep -q "bzpack test" <(sbverify --list "$T/efi-signed.img" 2>&1)
	log=$T/efi-signed.log
	if boot "$name" 33 "$T/efi-signed.img" "$log" -U -t 90 -a "$EFI_CMDLINE"; then
		why=$(efi_testkern_ok "$log")
		if [ -n "$why" ]; then fail "$name" "$why"; else pass "$name"; fi
	fi
fi

# ---- Debian's amd64 kernel ---------------------------------------------------
efi_write_table() {
	local route
	{
		# The README's loader table; ci/tests/test-loaders.sh adds its rows.
		echo "| loader (entry) | firmware | Secure Boot | $TK | $DEB, bzpack image | $DEB, Debian's vmlinuz |"
		echo "|---|---|---|---|---|---|"
		for route in "$ROUTE_DIRECT" "$ROUTE_ESP" "$ROUTE_GRUB_LINUX" "$ROUTE_GRUB_HANDOVER"; do
			echo "| $route | OVMF | off | ${EFI_CELL[$route|$TK]:-not tested} | ${EFI_CELL[$route|$DEB]:-not tested} | not tested |"
		done
	} > "$T/efi-loaders.md"
}

if ! bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian-efi.log" 2>&1; then
	fail "efi: fetch Debian kernels" "$(tail -n 3 "$T/fetch-debian-efi.log" | tr '\n' ' ')"
	efi_write_table
	return 0 2>/dev/null || exit 0
fi
deb=$B/debian/amd64
initrd=$T/initrd-efi-amd64.gz
# The init prints what firmware the kernel found (ci/fixtures/mkinitramfs.sh).
[ "$initrd" -nt ci/fixtures/mkinitramfs.sh ] || bash ci/fixtures/mkinitramfs.sh "$deb/busybox" "$initrd"
img=$T/efi-debian-amd64.img
if ! out=$(pack_cached "$img" "$deb/vmlinuz" --cmdline "$EFI_DEB_CMDLINE initrd=\\initrd.img" 2>&1); then
	fail "efi: pack Debian amd64" "$out"
	efi_write_table
	return 0 2>/dev/null || exit 0
fi

# efi_debian_why LOG: why the kernel did not find EFI runtime services
# and ACPI (nothing if it did).
efi_debian_why() {
	grep -aq "^bzpack-initramfs: firmware efi=yes efi_runtime=yes acpi=yes" "$1" ||
		echo "firmware seen by the kernel: $(grep -a '^bzpack-initramfs: firmware' "$1")"
}

log=$T/efi-debian-direct.log
name="efi: Debian amd64, OVMF direct boot (-kernel, -initrd via LoadFile2) reaches the marker"
efi_boot "$ROUTE_DIRECT" "$DEB" "$name" 0 "$img" "$log" -U -m 1G -t 180 -i "$initrd" \
		-a "$EFI_DEB_CMDLINE" -e "$EFI_MARKER" &&
	efi_result "$ROUTE_DIRECT" "$DEB" "$name" "$(efi_debian_why "$log")"

esp=$T/efi-esp-debian.img
log=$T/efi-debian-esp.log
name="efi: Debian amd64 as \\EFI\\BOOT\\BOOTX64.EFI, initrd=\\initrd.img, reaches the marker"
if ! out=$(bash ci/fixtures/mkesp.sh "$esp" "$img" "$initrd=/initrd.img" 2>&1); then
	efi_result "$ROUTE_ESP" "$DEB" "$name" "mkesp: $out"
elif efi_boot "$ROUTE_ESP" "$DEB" "$name" 0 "$esp" "$log" -U -H -m 1G -t 180 -e "$EFI_MARKER"; then
	efi_result "$ROUTE_ESP" "$DEB" "$name" "$(efi_debian_why "$log")"
fi

for route in "$ROUTE_GRUB_LINUX" "$ROUTE_GRUB_HANDOVER"; do
	how=linux
	[ "$route" = "$ROUTE_GRUB_HANDOVER" ] && how=linuxefi
	esp=$T/efi-grub-$how.img
	log=$T/efi-debian-grub-$how.log
	name="efi: Debian amd64 through GRUB EFI ($how) reaches the marker"
	if ! command -v grub-mkstandalone > /dev/null || [ ! -d /usr/lib/grub/x86_64-efi ]; then
		skip "$name" "no GRUB for x86_64-efi (grub-efi-amd64-bin)"
		continue
	fi
	if ! out=$(bash ci/fixtures/mkgrubefi.sh $([ $how = linuxefi ] && echo -e) "$img" "$initrd" \
			"$EFI_DEB_CMDLINE" "$esp" 2>&1); then
		efi_result "$route" "$DEB" "$name" "$out"
	elif efi_boot "$route" "$DEB" "$name" 0 "$esp" "$log" -U -H -m 1G -t 240 -e "$EFI_MARKER"; then
		efi_result "$route" "$DEB" "$name" "$(efi_debian_why "$log")"
	fi
done
efi_write_table
