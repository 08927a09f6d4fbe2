# test-uefi.sh - the EFI entry on every OVMF build Debian ships, with
# KASLR, and under enforcing Secure Boot.  Sourced by ci/test.sh (uses B,
# T, BZPACK, pass, fail, skip, check, boot, report_field from ci/lib.sh).
# Every boot is Debian's amd64 kernel, repacked (lz4), to the test
# initramfs marker (ci/fixtures/mkinitramfs.sh), which prints the kernel's _text
# and the setup_data types it was given.
#
#   the matrix: each axis at least once, not the product (an OVMF boot
#   takes ~35 s under TCG here): the five code builds (OVMF_CODE_4M.fd,
#   .secboot.fd, .ms.fd, .snakeoil.fd, and the 2 MiB OVMF_CODE.fd), pc
#   and q35 (the Secure Boot builds need q35's SMM), 256 MiB to 4 GiB
#   (4 GiB puts RAM above 4 GiB), -smp 4, -kernel and an ESP, a
#   virtio-rng device (EFI_RNG_PROTOCOL) or none;
#   every boot: the report line's kernel= is where kaslr= says, and the
#   kernel's _text is the virtual address it reports;
#   KASLR: the randomised boots give different _text values; nokaslr the
#   link address; with EFI_RNG_PROTOCOL the kernel gets a SETUP_RNG_SEED
#   (type 9) setup_data node, without it none;
#   Secure Boot (OVMF_CODE_4M.secboot.fd, a copy of
#   OVMF_VARS_4M.snakeoil.fd, \EFI\BOOT\BOOTX64.EFI on an ESP): unsigned,
#   the firmware refuses it before our stub runs; signed with the snakeoil
#   key (bzpack --sign-key) it boots and the kernel says "Secure boot enabled"; the
#   signed image with one payload byte changed is refused; an unsigned
#   image by -kernel never reaches our stub either.  Results go to
#   $T/efi-firmware.md for the README (make readme-efi).
UEFI_MARKER="^bzpack-initramfs: userspace reached"
# no_timer_check: Linux's IO-APIC timer check can fail under TCG on a busy
# machine and panic the kernel, a flake of the kernel's own.
UEFI_CMDLINE="console=ttyS0 panic=-1 no_timer_check"
OVMF_DIR=/usr/share/OVMF
deb=$B/debian/amd64

if [ ! -s "$deb/vmlinuz" ] || [ ! -s "$deb/busybox" ]; then
	skip "uefi" "no Debian amd64 kernel in $deb (ci/fixtures/fetch-debian.sh)"
	return 0 2>/dev/null || exit 0
fi
if [ ! -r "$OVMF_DIR/OVMF_CODE_4M.fd" ]; then
	skip "uefi" "no OVMF in $OVMF_DIR (Debian package ovmf)"
	return 0 2>/dev/null || exit 0
fi
initrd=$T/uefi-initrd.gz
[ "$initrd" -nt ci/fixtures/mkinitramfs.sh ] || bash ci/fixtures/mkinitramfs.sh "$deb/busybox" "$initrd"
img=$T/uefi-debian.img
if ! out=$(pack_cached "$img" "$deb/vmlinuz" -c lz4 --cmdline "$UEFI_CMDLINE initrd=\\initrd.img" 2>&1); then
	fail "uefi: pack Debian amd64" "$out"
	return 0 2>/dev/null || exit 0
fi
esp=$T/uefi-esp.img
if ! out=$(bash ci/fixtures/mkesp.sh "$esp" "$img" "$initrd=/initrd.img" 2>&1); then
	fail "uefi: make the ESP" "$out"
	return 0 2>/dev/null || exit 0
fi

# uefi_text LOG: the _text address the initramfs printed, no leading zeros
uefi_text() {
	sed -n 's/^bzpack-initramfs: 0*\([0-9a-f]*\) T _text.*/\1/p' "$1" | head -n 1
}
# uefi_why LOG: what is wrong with a boot that reached the marker (nothing
# if all is right): the report line names the EFI entry and where the
# kernel went, the kernel's _text agrees, and it found its firmware.
uefi_why() {
	local log=$1 kaslr kernel text
	kaslr=$(report_field "$log" kaslr) kernel=$(report_field "$log" kernel) text=$(uefi_text "$log")
	if [ "$(report_field "$log" entry)" != efi ]; then
		echo "no report line with entry=efi"
	elif [[ $kernel != 0x* ]]; then
		echo "kernel=$kernel, not an address"
	elif [[ $kaslr == phys:* ]] && [ "${kaslr%%,*}" != "phys:$kernel" ]; then
		echo "kaslr=$kaslr but kernel=$kernel"
	elif [[ $kaslr == phys:*,virt:0x* ]] && [ "$text" != "${kaslr##*,virt:0x}" ]; then
		echo "_text $text, but kaslr=$kaslr"
	elif [[ $kaslr == off* ]] && [ "$text" != ffffffff81000000 ]; then
		echo "kaslr=$kaslr, but _text $text is not the link address"
	elif ! grep -aq "^bzpack-initramfs: firmware efi=yes efi_runtime=yes acpi=yes" "$log"; then
		echo "firmware seen by the kernel: $(grep -a '^bzpack-initramfs: firmware' "$log")"
	fi
}

declare -A UEFI_ROW=()
UEFI_ROWS=()
# uefi_boot NAME CODE VARS MACHINE MEM SMP ROUTE RNG [APPEND]: boot, check,
# and record a row of the README's table.  ROUTE: kernel or esp; RNG: rng
# (a virtio-rng device) or -.  Sets UEFI_LOG.
uefi_boot() {
	local name=$1 code=$2 vars=$3 machine=$4 mem=$5 smp=$6 route=$7 rng=$8 append=${9:-}
	local args=(-U -M "$machine" -m "$mem" -P "$smp" -t 240 -e "$UEFI_MARKER") why image=$img
	UEFI_LOG=$T/uefi-$(echo "$name" | tr -c 'a-zA-Z0-9.\n' '-').log
	if [ "$route" = esp ]; then
		args+=(-H) image=$esp
	else
		args+=(-i "$initrd" -a "$UEFI_CMDLINE $append")
	fi
	[ "$rng" = rng ] && args+=(-R)
	local row="| \`$code\` | \`$vars\` | $machine | $mem | $smp | $([ "$route" = esp ] && echo 'ESP' || echo '`-kernel`')${UEFI_NOTE:-} | $([ "$rng" = rng ] && echo yes || echo no) | ${append:-}"
	UEFI_ROWS+=("$row")
	local t0=$SECONDS
	if ! OVMF_CODE=$OVMF_DIR/$code OVMF_VARS=$OVMF_DIR/$vars boot "uefi: $name" 0 "$image" "$UEFI_LOG" "${args[@]}"; then
		UEFI_ROW[$row]="**fails** | |"
		return 1
	fi
	why=$(uefi_why "$UEFI_LOG")
	UEFI_ROW[$row]="$([ -z "$why" ] && echo boots || echo '**fails**') ($((SECONDS - t0)) s) | \`$(report_field "$UEFI_LOG" kaslr)\` |"
	if [ -n "$why" ]; then
		fail "uefi: $name" "$why"
		return 1
	fi
	pass "uefi: $name: kernel=$(report_field "$UEFI_LOG" kernel) kaslr=$(report_field "$UEFI_LOG" kaslr), _text $(uefi_text "$UEFI_LOG") ($((SECONDS - t0)) s)"
}
# uefi_seed LOG WANT: the kernel was (yes) or was not (no) handed a
# SETUP_RNG_SEED node
uefi_seed() {
	local types
	types=$(sed -n 's/^bzpack-initramfs: setup_data types=//p' "$1")
	if ! grep -aq "^bzpack-initramfs: setup_data types=" "$1"; then
		fail "uefi: setup_data seen by the kernel" "the initramfs printed no setup_data line"
	elif [ "$2" = yes ]; then
		check "uefi: EFI_RNG_PROTOCOL's seed reached the kernel as SETUP_RNG_SEED (types: $types)" \
			grep -qw 0x9 <<<"$types"
	else
		check "uefi: no EFI_RNG_PROTOCOL, no SETUP_RNG_SEED (types: ${types:-none})" \
			bash -c '! grep -qw 0x9 <<<"$1"' _ "$types"
	fi
}

# ---- the matrix ------------------------------------------------------------
texts=()
if uefi_boot "4M plain, pc, 256M" OVMF_CODE_4M.fd OVMF_VARS_4M.fd pc 256M 1 kernel -; then
	texts+=("$(uefi_text "$UEFI_LOG")")
	uefi_seed "$UEFI_LOG" no
fi
if uefi_boot "4M plain, q35, 4G, smp 4, virtio-rng" OVMF_CODE_4M.fd OVMF_VARS_4M.fd q35 4G 4 kernel rng; then
	texts+=("$(uefi_text "$UEFI_LOG")")
	uefi_seed "$UEFI_LOG" yes
fi
uefi_boot "4M secboot (Secure Boot off), q35, 1G, ESP" OVMF_CODE_4M.secboot.fd OVMF_VARS_4M.fd q35 1G 1 esp - &&
	texts+=("$(uefi_text "$UEFI_LOG")")
if uefi_boot "4M ms, q35, 2G, nokaslr" OVMF_CODE_4M.ms.fd OVMF_VARS_4M.fd q35 2G 2 kernel - nokaslr; then
	check "uefi: nokaslr: kaslr=off(nokaslr)" test "$(report_field "$UEFI_LOG" kaslr)" = "off(nokaslr)"
fi
if [ -r "$OVMF_DIR/OVMF_CODE.fd" ]; then
	uefi_boot "2M plain, pc, 512M, smp 4" OVMF_CODE.fd OVMF_VARS.fd pc 512M 4 kernel - &&
		texts+=("$(uefi_text "$UEFI_LOG")")
else
	skip "uefi: 2M OVMF" "no $OVMF_DIR/OVMF_CODE.fd"
fi
distinct=$(printf '%s\n' "${texts[@]}" | sort -u | grep -c .)
if [ ${#texts[@]} -ge 2 ]; then
	check "uefi: KASLR: ${#texts[@]} randomised boots, $distinct distinct _text (${texts[*]})" \
		test "$distinct" -ge 2
else
	fail "uefi: KASLR" "fewer than two randomised boots reached the marker"
fi

# ---- Secure Boot enforced --------------------------------------------------
SB_CODE=OVMF_CODE_4M.snakeoil.fd SB_VARS=OVMF_VARS_4M.snakeoil.fd
sb_key=/usr/share/ovmf/PkKek-1-snakeoil.key sb_cert=/usr/share/ovmf/PkKek-1-snakeoil.pem
# sb_refused NAME ESP: the firmware refuses the image and our stub never runs
sb_refused() {
	local log=$T/uefi-sb-$1.log
	OVMF_CODE=$OVMF_DIR/$SB_CODE OVMF_VARS=$OVMF_DIR/$SB_VARS bash ci/qemu-boot.sh -U -H -N -M q35 -m 1G -t 120 \
		-e "Access Denied|^bzpack: |$UEFI_MARKER" "$2" "$log"
	local row="| \`$SB_CODE\` | \`$SB_VARS\` | q35 | 1G | 1 | ESP, $1, Secure Boot enforced | no | "
	UEFI_ROWS+=("$row")
	if grep -aq "failed to load Boot0001.*Access Denied" "$log"; then
		UEFI_ROW[$row]="refused (Access Denied) | |"
	else
		UEFI_ROW[$row]="**not refused** | |"
	fi
	if grep -aq "^bzpack: \|$UEFI_MARKER" "$log"; then
		fail "uefi: Secure Boot: $1 image refused by the firmware" "our stub ran: $(grep -a -m1 '^bzpack: ' "$log")"
	else
		check "uefi: Secure Boot: $1 image refused by the firmware (Access Denied), our stub never ran" \
			grep -aq "failed to load Boot0001.*Access Denied" "$log"
	fi
}
# The signed image is bzpack's own: the same pack as $img, signed by
# --sign-key/--sign-cert with the snakeoil key (its passphrase from
# BZPACK_SIGN_PASSPHRASE).
if [ ! -r "$sb_key" ] || [ ! -r "$OVMF_DIR/$SB_VARS" ]; then
	skip "uefi: Secure Boot" "no snakeoil key or variable store ($sb_key, $OVMF_DIR/$SB_VARS)"
elif ! BZPACK_SIGN_PASSPHRASE=snakeoil pack_cached "$T/uefi-signed.img" "$deb/vmlinuz" -c lz4 \
		--cmdline "$UEFI_CMDLINE initrd=\\initrd.img" --sign-key "$sb_key" --sign-cert "$sb_cert" \
		> "$T/uefi-sign.log" 2>&1; then
	fail "uefi: Secure Boot: bzpack --sign-key/--sign-cert with the snakeoil key" "$(tail -n 2 "$T/uefi-sign.log" | tr '\n' '|')"
else
	sb_refused unsigned "$esp"
	# One byte of the payload changed, after signing: the image hash no
	# longer matches (the byte lies inside .text, which the hash covers).
	cp "$T/uefi-signed.img" "$T/uefi-altered.img"
	printf '\x5a' | dd of="$T/uefi-altered.img" bs=1 seek=$(( $(stat -c %s "$img") / 2 )) conv=notrunc status=none
	if cmp -s "$T/uefi-signed.img" "$T/uefi-altered.img"; then
		fail "uefi: Secure Boot: altered image" "the byte written was already there"
	elif bash ci/fixtures/mkesp.sh "$T/uefi-esp-altered.img" "$T/uefi-altered.img" "$initrd=/initrd.img" > /dev/null 2>&1; then
		sb_refused altered "$T/uefi-esp-altered.img"
	else
		fail "uefi: Secure Boot: altered image" "mkesp failed"
	fi
	# Debian's Secure Boot build offers no -kernel route at all (its
	# Boot0001 "UEFI Non-Block Boot Device" is "Not Found", signed or not):
	# what matters is that an unsigned image never gets in that way.
	log=$T/uefi-sb-kernel.log
	OVMF_CODE=$OVMF_DIR/$SB_CODE OVMF_VARS=$OVMF_DIR/$SB_VARS bash ci/qemu-boot.sh -U -N -M q35 -m 1G -t 120 \
		-i "$initrd" -a "$UEFI_CMDLINE" -e "Boot0002|^bzpack: |$UEFI_MARKER" "$img" "$log"
	if grep -aq "^bzpack: \|$UEFI_MARKER" "$log"; then
		fail "uefi: Secure Boot: unsigned -kernel never reaches our stub" "$(grep -a -m1 '^bzpack: ' "$log")"
	else
		check "uefi: Secure Boot: unsigned -kernel never reaches our stub (the firmware moves on to Boot0002)" \
			grep -aq "loading Boot0002" "$log"
	fi
	if bash ci/fixtures/mkesp.sh "$T/uefi-esp-signed.img" "$T/uefi-signed.img" "$initrd=/initrd.img" > /dev/null 2>&1; then
		esp_saved=$esp esp=$T/uefi-esp-signed.img
		UEFI_NOTE=", signed (bzpack --sign-key, snakeoil key), Secure Boot enforced"
		if uefi_boot "Secure Boot enforced, signed, q35, 1G, ESP" $SB_CODE $SB_VARS q35 1G 1 esp -; then
			check "uefi: Secure Boot enforced: the kernel says Secure boot enabled" \
				grep -aq "secureboot: Secure boot enabled" "$UEFI_LOG"
		fi
		esp=$esp_saved UEFI_NOTE=""
	else
		fail "uefi: Secure Boot: signed ESP" "mkesp failed"
	fi
fi

{
	echo "| OVMF code | variables | machine | RAM | CPUs | route | EFI_RNG | command line | result | kaslr= |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for row in "${UEFI_ROWS[@]}"; do
		echo "$row | ${UEFI_ROW[$row]:-**not run** | |}"
	done
} > "$T/efi-firmware.md"
