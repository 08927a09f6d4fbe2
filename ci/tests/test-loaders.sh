# test-loaders.sh - the boot loaders distributions ship, each booting
# Debian's amd64 kernel repacked by bzpack (lz4) to the initramfs marker
# (ci/fixtures/mkinitramfs.sh), and Debian's own vmlinuz as the reference where it
# costs little (the BIOS routes, and the UKI as BOOTX64.EFI, where
# systemd-stub starts it as a PE: the path our image takes once its
# MajorImageVersion is 1):
#   - systemd-boot (Debian's systemd-boot-efi) under OVMF with a Type #1
#     entry (loader/entries/*.conf: linux, initrd, options);
#   - a unified kernel image (ci/fixtures/mkuki.sh: systemd-stub with our image as
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
. ci/fixtures/ovmf.sh
LD_DEB=$B/debian/amd64
LD_MARKER="^bzpack-initramfs: userspace reached"
# no_timer_check: under TCG on a busy machine Linux's IO-APIC timer check
# can fail and panic the kernel ("IO-APIC + timer doesn't work!"), a
# kernel's own flake that says nothing of the loader under test.
LD_CMDLINE="console=ttyS0 panic=-1 no_timer_check"
LD_KEXEC_CMDLINE=$LD_CMDLINE
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
	local key=$1 which=$2 name=$3 image=$4 log=$5 start=$SECONDS
	shift 5
	if boot "$name" 0 "$image" "$log" -e "$LD_MARKER" "$@"; then
		ld_result "$key" "$which" "$name ($((SECONDS - start)) s)" "$(ld_why "$which" "${key%%-*}" "$log")"
	else
		LD_CELL["$key|$which"]="**fails**"
	fi
}

LD_SYSTEMD=$(dpkg-query -W -f='${Version}' systemd-boot-efi 2>/dev/null | cut -d- -f1)
ld_row sdboot "systemd-boot $LD_SYSTEMD, Type #1 entry (\`linux\`, \`initrd\`, \`options\`)" "OVMF"
ld_row uki-sdboot "systemd-boot, Type #2 UKI (\`\\EFI\\Linux\\*.efi\`, systemd-stub)" "OVMF"
ld_row uki-direct "UKI as \`\\EFI\\BOOT\\BOOTX64.EFI\` (systemd-stub)" "OVMF"
ld_row ipxe-bios "iPXE \`ipxe.lkrn\`, TFTP (\`kernel\`, \`initrd\`, \`boot\`)" "SeaBIOS"
ld_row ipxe-efi "iPXE \`ipxe.efi\`, TFTP (\`kernel\`, \`initrd\`, \`boot\`)" "OVMF"
ld_row syslinux "syslinux $(dpkg-query -W -f='${Version}' syslinux 2>/dev/null | sed 's/^[0-9]*://; s/[~+].*//'), whole-disk FAT (\`LINUX\`, \`INITRD\`)" "SeaBIOS"
ld_row kexec "\`kexec -s\` (kexec_file_load) from Debian's kernel" "SeaBIOS"

# ---- the kernels -----------------------------------------------------------
if [ ! -s "$LD_DEB/vmlinuz" ] || [ ! -s "$LD_DEB/busybox" ]; then
	if ! bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian-loaders.log" 2>&1; then
		fail "loaders: fetch Debian kernels" "$(tail -n 3 "$T/fetch-debian-loaders.log" | tr '\n' ' ')"
		ld_write_table
		return 0 2>/dev/null || exit 0
	fi
fi
ld_img=$T/loaders-debian-lz4.img
ld_deb=$LD_DEB/vmlinuz
ld_initrd=$T/initrd-amd64.gz
[ -s "$ld_initrd" ] || bash ci/fixtures/mkinitramfs.sh "$LD_DEB/busybox" "$ld_initrd"
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
		bash ci/fixtures/mkesp.sh "$out" "$SDBOOT" "$dir/loader.conf=/loader/loader.conf" \
			"$kernel=/EFI/Linux/bzpack-uki.efi"
	else
		printf 'title bzpack\nlinux /bzpack/linux\ninitrd /bzpack/initrd\noptions %s\n' \
			"$LD_CMDLINE bzpack.loader=sdboot" > "$dir/bzpack.conf"
		bash ci/fixtures/mkesp.sh "$out" "$SDBOOT" "$dir/loader.conf=/loader/loader.conf" \
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
	LD_TEXT[uki-sdboot]="| systemd-boot, Type #2 UKI (\`\\EFI\\Linux\\*.efi\`; systemd-stub $LD_SYSTEMD: $how) | OVMF | off |"
	LD_TEXT[uki-direct]="| UKI as \`\\EFI\\BOOT\\BOOTX64.EFI\` (systemd-stub $LD_SYSTEMD: $how) | OVMF | off |"
	uki=$T/loaders-uki.efi
	if ! out=$(bash ci/fixtures/mkuki.sh "$ld_img" "$ld_initrd" "$LD_CMDLINE bzpack.loader=uki" "$uki" 2>&1); then
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
		if ! out=$(bash ci/fixtures/mkesp.sh "$esp" "$uki" 2>&1); then
			ld_result uki-direct bzpack "$name" "mkesp: $out"
		else
			ld_boot uki-direct bzpack "$name" "$esp" "$T/loaders-uki-direct.log" -U -H -m 512M -t 240
		fi
	fi
	# The reference: Debian's vmlinuz (MajorImageVersion 1) in the same
	# UKI, which systemd-stub starts with LoadImage as a PE.
	uki=$T/loaders-uki-debian.efi
	esp=$T/loaders-uki-direct-debian.img
	name="loaders: UKI as \\EFI\\BOOT\\BOOTX64.EFI boots Debian's own vmlinuz to the marker"
	if ! out=$(bash ci/fixtures/mkuki.sh "$ld_deb" "$ld_initrd" "$LD_CMDLINE bzpack.loader=uki" "$uki" 2>&1) ||
		! out=$(bash ci/fixtures/mkesp.sh "$esp" "$uki" 2>&1); then
		ld_result uki-direct debian "$name" "$out"
	else
		ld_boot uki-direct debian "$name" "$esp" "$T/loaders-uki-direct-debian.log" -U -H -m 512M -t 240
	fi
fi

# ---- iPXE (SeaBIOS and OVMF) ---------------------------------------------------
# ld_tftp DIR KERNEL WORDS: a TFTP root with KERNEL, the initrd and an iPXE
# script (boot.ipxe, which QEMU's DHCP names as the boot file) that boots
# them.  Under UEFI iPXE (Debian's 1.0.0+git-2019) starts the kernel as an
# EFI application and offers what it downloaded as a file system on its
# device: the kernel finds the initrd from initrd= on its command line.
ld_tftp() {
	local dir=$1 kernel=$2 words=$3
	rm -rf "$dir" && mkdir -p "$dir" &&
		cp "$kernel" "$dir/kernel" && cp "$ld_initrd" "$dir/initrd" &&
		printf '#!ipxe\nkernel kernel %s\ninitrd initrd\nboot\n' "$words" > "$dir/boot.ipxe"
}
# ld_ipxe KEY WHICH NAME KERNEL: boot KERNEL through iPXE, the BIOS build
# (-kernel ipxe.lkrn) or the UEFI one (ipxe.efi as BOOTX64.EFI).
ld_ipxe() {
	local key=$1 which=$2 name=$3 kernel=$4 dir=$T/loaders-$1-$2-tftp out
	local words="$LD_CMDLINE bzpack.loader=ipxe"
	[ "$key" = ipxe-efi ] && words="$words initrd=initrd"
	if ! out=$(ld_tftp "$dir" "$kernel" "$words" 2>&1); then
		ld_result "$key" "$which" "$name" "TFTP root: $out"
		return
	fi
	local net
	read -ra net <<<"$(ld_net "$dir")"
	local x=() a
	for a in "${net[@]}"; do x+=(-x "$a"); done
	if [ "$key" = ipxe-bios ]; then
		ld_boot "$key" "$which" "$name" "$IPXE_DIR/ipxe.lkrn" "$T/loaders-$key-$which.log" \
			-m 512M -t 180 "${x[@]}"
	elif ! out=$(bash ci/fixtures/mkesp.sh "$T/loaders-ipxe-esp.img" "$IPXE_DIR/ipxe.efi" 2>&1); then
		ld_result "$key" "$which" "$name" "mkesp: $out"
	else
		ld_boot "$key" "$which" "$name" "$T/loaders-ipxe-esp.img" "$T/loaders-$key-$which.log" \
			-U -H -m 512M -t 240 "${x[@]}"
	fi
}

if [ ! -r "$IPXE_DIR/ipxe.lkrn" ] || [ ! -r "$IPXE_DIR/ipxe.efi" ]; then
	for key in ipxe-bios ipxe-efi; do
		ld_skip "$key" bzpack "loaders: $key" "no iPXE in $IPXE_DIR (Debian package ipxe)"
	done
else
	ld_ipxe ipxe-bios bzpack "loaders: iPXE ipxe.lkrn (SeaBIOS, TFTP) boots Debian amd64 (bzpack lz4) to the marker" "$ld_img"
	ld_ipxe ipxe-bios debian "loaders: iPXE ipxe.lkrn (SeaBIOS, TFTP) boots Debian's own vmlinuz to the marker" "$ld_deb"
	if why=$(ovmf_missing); then
		ld_skip ipxe-efi bzpack "loaders: iPXE ipxe.efi" "$why"
	else
		ld_ipxe ipxe-efi bzpack "loaders: iPXE ipxe.efi (OVMF, TFTP) boots Debian amd64 (bzpack lz4) to the marker" "$ld_img"
	fi
fi

# ---- syslinux (SeaBIOS) ---------------------------------------------------------
# ld_syslinux_disk OUT KERNEL: a whole-disk FAT (no partition table: SeaBIOS
# boots its first sector, syslinux's) with syslinux installed, the kernel,
# the initrd and a syslinux.cfg that boots them at once on the serial port.
ld_syslinux_disk() {
	local out=$1 kernel=$2 cfg
	local mib=$(( ($(stat -c %s "$kernel") + $(stat -c %s "$ld_initrd")) / 1048576 + 8 ))
	cfg=$(mktemp)
	printf 'SERIAL 0 115200\nDEFAULT bzpack\nPROMPT 0\nTIMEOUT 0\nLABEL bzpack\n  LINUX /kernel\n  INITRD /initrd\n  APPEND %s\n' \
		"$LD_CMDLINE bzpack.loader=syslinux" > "$cfg"
	rm -f "$out.tmp"
	dd if=/dev/zero of="$out.tmp" bs=1M count=$mib status=none &&
		mkfs.vfat -n BZPACK "$out.tmp" > /dev/null &&
		syslinux --install "$out.tmp" &&
		mcopy -i "$out.tmp" "$cfg" ::/syslinux.cfg &&
		mcopy -i "$out.tmp" "$kernel" ::/kernel &&
		mcopy -i "$out.tmp" "$ld_initrd" ::/initrd &&
		mv "$out.tmp" "$out"
	local status=$?
	rm -f "$cfg"
	return $status
}

if ! command -v syslinux > /dev/null || ! command -v mkfs.vfat > /dev/null; then
	for which in bzpack debian; do
		ld_skip syslinux $which "loaders: syslinux ($which)" "no syslinux or mkfs.vfat (Debian packages syslinux, dosfstools)"
	done
else
	for which in bzpack debian; do
		kernel=$ld_img what="Debian amd64 (bzpack lz4)"
		[ $which = debian ] && kernel=$ld_deb what="Debian's own vmlinuz"
		disk=$T/loaders-syslinux-$which.img
		name="loaders: syslinux from a FAT disk (SeaBIOS) boots $what to the marker"
		if ! out=$(ld_syslinux_disk "$disk" "$kernel" 2>&1); then
			ld_result syslinux $which "$name" "disk: $out"
		else
			ld_boot syslinux $which "$name" "$disk" "$T/loaders-syslinux-$which.log" -H -m 512M -t 120
		fi
	done
fi

# ---- kexec_file_load (SeaBIOS) ------------------------------------------------
# One chain of three kernels, to boot the first only once: Debian's kernel
# loads our image with `kexec -s` (the running kernel's bzImage64 probe
# checks the setup header, places the image and enters its 64-bit
# entry), and our kernel, from the initramfs it was given, loads Debian's
# own vmlinuz the same way.  The marker three times: all three kernels
# reached userspace; our report line between the first and second.
name="loaders: kexec -s (kexec_file_load) from Debian amd64 into Debian amd64 (bzpack lz4) reaches the marker"
name_deb="loaders: kexec -s from Debian amd64 (bzpack lz4) into Debian's own vmlinuz reaches the marker"
if [ ! -x "$(command -v kexec || echo /sbin/kexec)" ]; then
	ld_skip kexec bzpack "$name" "no kexec on this machine (kexec-tools: ci/deps.sh)"
	ld_skip kexec debian "$name_deb" "no kexec on this machine (kexec-tools: ci/deps.sh)"
elif ! out=$(bash ci/fixtures/mkinitramfs.sh -s -k "$ld_deb" -i "$ld_initrd" -a "$LD_KEXEC_CMDLINE bzpack.loader=kexec" \
		"$LD_DEB/busybox" "$T/loaders-kexec-third.gz" 2>&1) ||
	! out=$(bash ci/fixtures/mkinitramfs.sh -s -k "$ld_img" -i "$T/loaders-kexec-third.gz" \
		-a "$LD_KEXEC_CMDLINE bzpack.loader=kexec" "$LD_DEB/busybox" "$T/loaders-kexec-first.gz" 2>&1); then
	ld_result kexec bzpack "$name" "mkinitramfs: $out"
else
	log=$T/loaders-kexec.log
	start=$SECONDS
	# The chain ends when the third kernel powers off (status 0), or at
	# "kexec failed" with the kernel's messages after it.
	bash ci/qemu-boot.sh -m 1G -t 420 -i "$T/loaders-kexec-first.gz" -a "$LD_KEXEC_CMDLINE" \
		-e "^bzpack-initramfs: dmesg:" "$ld_deb" "$log"
	status=$?
	sleep 0.5    # the rest of the kernel's messages after "kexec failed"
	took="$((SECONDS - start)) s for the chain"
	markers=$(grep -ac "$LD_MARKER" "$log")
	ours=$(sed -n '/^bzpack-initramfs: kexec -e/,$p' "$log" | grep -a -m1 '^bzpack: codec=lz4 ')
	why=""
	if [ $status -ne 0 ]; then
		why="QEMU exit status $status"
	elif [ "$markers" -lt 2 ] || [ -z "$ours" ]; then
		why="our image did not reach the marker"
	elif ! grep -aq "bzpack.loader=kexec" <(sed -n '/^bzpack: codec=lz4 /,$p' "$log" | grep -a -m1 "Command line:"); then
		why="our kernel's command line lacks bzpack.loader=kexec"
	elif ! grep -q " entry=64 " <<<"$ours"; then
		why="not the 64-bit entry: $ours"
	fi
	[ -n "$why" ] && grep -aq "kexec failed" "$log" &&
		why="$why; $(grep -a -m6 'kexec failed\|dmesg:' "$log" | tr '\n' '|')"
	ld_result kexec bzpack "$name ($took)" "$why"
	if [ -n "$why" ]; then
		ld_skip kexec debian "$name_deb" "our kernel did not get that far"
	elif [ "$markers" -ne 3 ]; then
		ld_result kexec debian "$name_deb" "marker reached $markers times, want 3; $(grep -a 'kexec failed\|dmesg:' "$log" | tr '\n' '|')"
	else
		ld_result kexec debian "$name_deb" ""
	fi
fi
ld_write_table
