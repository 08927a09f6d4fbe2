# test-loaders.sh - the boot loaders distributions ship, each booting
# Debian's amd64 kernel repacked by bzpack (lz4) to the initramfs marker
# (ci/mkinitramfs.sh), and where it costs little Debian's own vmlinuz too:
#   - systemd-boot (Debian's systemd-boot-efi) under OVMF with a Type #1
#     entry (loader/entries/*.conf: linux, initrd, options);
#   - a unified kernel image (ci/mkuki.sh: systemd-stub with our image as
#     .linux, plus .osrel, .cmdline, .initrd) through systemd-boot (Type
#     #2, \EFI\Linux\*.efi) and as \EFI\BOOT\BOOTX64.EFI;
#   - iPXE: ipxe.lkrn under SeaBIOS and ipxe.efi under OVMF, fetching the
#     image and the initrd over QEMU's built-in TFTP with an iPXE script;
#   - syslinux from a whole-disk FAT image under SeaBIOS;
#   - kexec_file_load (`kexec -s`) from Debian's kernel.
# Each route puts its own word (bzpack.loader=...) on the command line,
# and a boot passes only when the kernel's "Command line:" carries it: the
# loader under test, not some fallback, started the kernel.  The results
# are rows of the README's loader table ($T/loaders.md, after
# test-efi.sh's $T/efi-loaders.md; make readme-efi).
# Sourced by ci/test.sh (uses B, T, BZPACK, pass, fail, skip, boot).
. ci/ovmf.sh
LD_DEB=$B/debian/amd64
LD_MARKER="^bzpack-initramfs: userspace reached"
LD_CMDLINE="console=ttyS0 panic=-1"
# no_timer_check: under TCG on a busy machine Linux's IO-APIC timer check
# can fail and panic the first kernel (as in test-kexec.sh).
LD_KEXEC_CMDLINE="console=ttyS0 panic=-1 no_timer_check"
SDBOOT=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
UKI_STUB=/usr/lib/systemd/boot/efi/linuxx64.efi.stub
IPXE_DIR=/usr/lib/ipxe
# QEMU's user network with its TFTP server; the NIC without an option ROM
# (the loaders under test bring their own e1000 driver: iPXE's).
ld_net() {
	echo "-netdev user,id=n0,tftp=$1,bootfile=boot.ipxe -device e1000,netdev=n0,romfile="
}

# ---- the table -------------------------------------------------------------
# ld_row KEY LOADER FIRMWARE: a row of the table, in this order.  Columns
# as in test-efi.sh's table: loader (entry), firmware, Secure Boot,
# testkern64, Debian amd64 (bzpack image), Debian amd64 (Debian's vmlinuz).
declare -A LD_CELL=() LD_TEXT=()
LD_ROWS=()
ld_row() {
	LD_ROWS+=("$1")
	LD_TEXT[$1]="| $2 | $3 | off |"
}
ld_write_table() {
	local key
	for key in "${LD_ROWS[@]}"; do
		echo "${LD_TEXT[$key]} not tested | ${LD_CELL[$key|bzpack]:-not tested} | ${LD_CELL[$key|debian]:-not tested} |"
	done > "$T/loaders.md"
}
# ld_result KEY WHICH NAME WHY: WHICH is bzpack or debian; WHY empty
# passes the check, else fails it with that reason.
ld_result() {
	if [ -z "$4" ]; then
		pass "$3"
		LD_CELL["$1|$2"]="boots"
	else
		fail "$3" "$4"
		LD_CELL["$1|$2"]="**fails**"
	fi
}
ld_skip() {
	skip "$3" "$4"
	LD_CELL["$1|$2"]="skipped: $4"
}
# ld_why WHICH LOADER-WORD LOG: why the boot in LOG is not the one wanted
# (nothing if it is): the marker, the route's word on the kernel's command
# line, and for our image the report line.
ld_why() {
	local which=$1 word=$2 log=$3
	if ! grep -aq "$LD_MARKER" "$log"; then
		echo "no initramfs marker; serial: $(tr -d '\r' < "$log" | tail -n 3 | tr '\n' '|' | cut -c1-300)"
	elif ! grep -a "Command line:" "$log" | grep -aqw "bzpack.loader=$word"; then
		echo "the kernel's command line lacks bzpack.loader=$word: $(grep -a -m1 'Command line:' "$log")"
	elif [ "$which" = bzpack ] && ! grep -aEq $'^\r?bzpack: codec=lz4 ' "$log"; then
		echo "no report line from our stub"
	elif [ "$which" = debian ] && grep -aEq $'^\r?bzpack: codec=' "$log"; then
		echo "our stub ran, not Debian's vmlinuz"
	fi
}
# ld_boot KEY WHICH NAME IMAGE LOG qemu-boot-options...: boot to the
# marker and judge it; the word is the key's first part.
ld_boot() {
	local key=$1 which=$2 name=$3 image=$4 log=$5
	shift 5
	if boot "$name" 0 "$image" "$log" -e "$LD_MARKER" "$@"; then
		ld_result "$key" "$which" "$name" "$(ld_why "$which" "${key%%-*}" "$log")"
	else
		LD_CELL["$key|$which"]="**fails**"
	fi
}

ld_row sdboot "systemd-boot $(dpkg-query -W -f='${Version}' systemd-boot-efi 2>/dev/null | cut -d- -f1), Type #1 entry (\`linux\`, \`initrd\`, \`options\`)" "OVMF"
ld_row uki-sdboot "systemd-boot, Type #2 UKI (\`\\EFI\\Linux\\*.efi\`, systemd-stub)" "OVMF"
ld_row uki-direct "UKI as \`\\EFI\\BOOT\\BOOTX64.EFI\` (systemd-stub)" "OVMF"
ld_row ipxe-bios "iPXE \`ipxe.lkrn\`, TFTP (\`kernel\`, \`initrd\`, \`boot\`)" "SeaBIOS"
ld_row ipxe-efi "iPXE \`ipxe.efi\`, TFTP (\`kernel\`, \`initrd\`, \`boot\`)" "OVMF"
ld_row syslinux "syslinux $(dpkg-query -W -f='${Version}' syslinux 2>/dev/null | sed 's/^[0-9]*://; s/[~+].*//'), whole-disk FAT (\`LINUX\`, \`INITRD\`)" "SeaBIOS"
ld_row kexec "\`kexec -s\` (kexec_file_load) from Debian's kernel" "SeaBIOS"

# ---- the kernels -----------------------------------------------------------
if [ ! -s "$LD_DEB/vmlinuz" ] || [ ! -s "$LD_DEB/busybox" ]; then
	if ! bash ci/fetch-debian.sh > "$T/fetch-debian.log" 2>&1; then
		fail "loaders: fetch Debian kernels" "$(tail -n 3 "$T/fetch-debian.log" | tr '\n' ' ')"
		ld_write_table
		return 0 2>/dev/null || exit 0
	fi
fi
ld_img=$T/loaders-debian-lz4.img
ld_deb=$LD_DEB/vmlinuz
ld_initrd=$T/initrd-amd64.gz
[ -s "$ld_initrd" ] || bash ci/mkinitramfs.sh "$LD_DEB/busybox" "$ld_initrd"
if ! out=$(pack_cached "$ld_img" "$ld_deb" -c lz4 -b 64 2>&1); then
	fail "loaders: pack Debian amd64 with lz4" "$out"
	ld_write_table
	return 0 2>/dev/null || exit 0
fi
# The image's PE MajorImageVersion decides how systemd-stub starts it.
ld_major=$(objdump -p "$ld_img" 2>/dev/null | sed -n 's/^MajorImageVersion[[:space:]]*//p')

# ---- systemd-boot and systemd-stub (UEFI) ----------------------------------
# ld_esp_sdboot OUT KERNEL WHICH: an ESP whose BOOTX64.EFI is systemd-boot,
# with a Type #1 entry for KERNEL and the initrd, or (WHICH = uki) with
# the UKI KERNEL as its only Type #2 entry.  No menu: timeout 0.
ld_esp_sdboot() {
	local out=$1 kernel=$2 which=$3 dir
	dir=$(mktemp -d)
	printf 'timeout 0\nconsole-mode keep\n' > "$dir/loader.conf"
	if [ "$which" = uki ]; then
		bash ci/mkesp.sh "$out" "$SDBOOT" "$dir/loader.conf=/loader/loader.conf" \
			"$kernel=/EFI/Linux/bzpack-uki.efi"
	else
		printf 'title bzpack\nlinux /bzpack/linux\ninitrd /bzpack/initrd\noptions %s\n' \
			"$LD_CMDLINE bzpack.loader=sdboot" > "$dir/bzpack.conf"
		bash ci/mkesp.sh "$out" "$SDBOOT" "$dir/loader.conf=/loader/loader.conf" \
			"$dir/bzpack.conf=/loader/entries/bzpack.conf" \
			"$kernel=/bzpack/linux" "$ld_initrd=/bzpack/initrd"
	fi
	local status=$?
	rm -rf "$dir"
	return $status
}

ld_uefi_missing() {
	ovmf_missing && return 0
	[ -r "$SDBOOT" ] && [ -r "$UKI_STUB" ] && return 1
	echo "no systemd-boot at $SDBOOT (Debian package systemd-boot-efi)"
}

if why=$(ld_uefi_missing); then
	ld_skip sdboot bzpack "loaders: systemd-boot Type #1" "$why"
	ld_skip uki-sdboot bzpack "loaders: UKI through systemd-boot" "$why"
	ld_skip uki-direct bzpack "loaders: UKI as BOOTX64.EFI" "$why"
else
	esp=$T/loaders-sdboot.img
	name="loaders: systemd-boot Type #1 entry boots Debian amd64 (bzpack lz4) to the marker"
	if ! out=$(ld_esp_sdboot "$esp" "$ld_img" entry 2>&1); then
		ld_result sdboot bzpack "$name" "mkesp: $out"
	else
		ld_boot sdboot bzpack "$name" "$esp" "$T/loaders-sdboot.log" -U -H -m 512M -t 240
	fi

	# systemd-stub 252 (Debian 12) starts the inner kernel as a PE
	# (LoadImage, initrd through LoadFile2) when its MajorImageVersion is
	# at least 1, and through the EFI handover protocol otherwise.
	how="EFI handover: MajorImageVersion ${ld_major:-?}"
	[ "${ld_major:-0}" -ge 1 ] 2>/dev/null && how="PE entry: MajorImageVersion $ld_major"
	LD_TEXT[uki-sdboot]="| systemd-boot, Type #2 UKI (\`\\EFI\\Linux\\*.efi\`; systemd-stub: $how) | OVMF | off |"
	LD_TEXT[uki-direct]="| UKI as \`\\EFI\\BOOT\\BOOTX64.EFI\` (systemd-stub: $how) | OVMF | off |"
	uki=$T/loaders-uki.efi
	if ! out=$(bash ci/mkuki.sh "$ld_img" "$ld_initrd" "$LD_CMDLINE bzpack.loader=uki" "$uki" 2>&1); then
		ld_result uki-sdboot bzpack "loaders: make a UKI" "mkuki: $out"
	else
		esp=$T/loaders-uki-sdboot.img
		name="loaders: UKI through systemd-boot (Type #2) boots Debian amd64 (bzpack lz4, $how) to the marker"
		if ! out=$(ld_esp_sdboot "$esp" "$uki" uki 2>&1); then
			ld_result uki-sdboot bzpack "$name" "mkesp: $out"
		else
			ld_boot uki-sdboot bzpack "$name" "$esp" "$T/loaders-uki-sdboot.log" -U -H -m 512M -t 240
		fi
		esp=$T/loaders-uki-direct.img
		name="loaders: UKI as \\EFI\\BOOT\\BOOTX64.EFI boots Debian amd64 (bzpack lz4, $how) to the marker"
		if ! out=$(bash ci/mkesp.sh "$esp" "$uki" 2>&1); then
			ld_result uki-direct bzpack "$name" "mkesp: $out"
		else
			ld_boot uki-direct bzpack "$name" "$esp" "$T/loaders-uki-direct.log" -U -H -m 512M -t 240
		fi
	fi
fi
ld_write_table
