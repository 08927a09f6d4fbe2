# test-initrd.sh - one file with its own initrd: --initrd, --osrel, --uname
# and --cmdline as UKI sections (objdump -h, --info, --extract --initrd,
# inside the Secure Boot signature), and the stub handing the embedded
# initrd to the kernel on every path, with no initrd from the loader:
# QEMU -kernel (SeaBIOS, i386 and amd64), GRUB BIOS and EFI without an
# `initrd` line, OVMF direct, kexec -l without --initrd, and systemd-boot,
# which lists the image (it has .osrel) in \EFI\Linux\ as its own entry
# and boots it with no loader configuration.  With an initrd from the
# loader as well, the kernel sees both: the initramfs's /init lists /tags,
# one from each (ci/fixtures/mkinitramfs.sh).  A damaged embedded initrd is
# "bzpack: error:", at pack time's --info and at boot.
DEB=$B/debian
IR_MARKER="^bzpack-initramfs: userspace reached"
IR_CMDLINE="console=ttyS0 panic=-1 no_timer_check"
IR_SDBOOT=/usr/lib/systemd/boot/efi/systemd-bootx64.efi
# shellcheck source=ci/fixtures/ovmf.sh
. ci/fixtures/ovmf.sh

# ---- the packer: sections, --info, --extract ------------------------------
ir_a=$T/initrd-part-a.bin ir_b=$T/initrd-part-b.bin ir_osrel=$T/initrd-os-release
head -c 10001 /dev/urandom > "$ir_a"
printf 'second' > "$ir_b"
printf 'NAME="bzpack test"\nPRETTY_NAME="bzpack test system"\nID=bzpacktest\nVERSION_ID=1\n' > "$ir_osrel"
ir_img=$T/initrd-testkern64.img
if ! out=$($BZPACK -c lz4 -o "$ir_img" --initrd "$ir_a" --initrd "$ir_b" --osrel "$ir_osrel" \
		--uname 6.1.0-bzpack-test --cmdline "$IR_CMDLINE" "$B/images/testkern64.elf" 2>&1); then
	fail "initrd: pack testkern64 with --initrd x2, --osrel, --uname, --cmdline" "$out"
else
	pass "initrd: pack testkern64 with --initrd x2, --osrel, --uname, --cmdline"
	check "initrd: objdump -h lists .initrd, .osrel, .uname and .cmdline" \
		bash -c 'h=$(objdump -h "$1") && for s in initrd osrel uname cmdline; do
			grep -q " \.$s " <<<"$h" || exit 1; done' _ "$ir_img"
	check "initrd: the PE layout is one strict loaders take (pe-check.py)" \
		grep -qx "layout=ok" <(python3 ci/tests/pe-check.py "$ir_img")
	objcopy -O binary --only-section=.osrel "$ir_img" "$T/initrd-osrel.out" 2> /dev/null
	check "initrd: objcopy reads .osrel back (NUL-padded to its sector)" \
		cmp -s "$ir_osrel" <(head -c "$(stat -c %s "$ir_osrel")" "$T/initrd-osrel.out")
	# The files concatenated from 4-byte boundaries: 10001 bytes, 3 zeros,
	# 6 bytes.
	{ cat "$ir_a"; printf '\0\0\0'; cat "$ir_b"; } > "$T/initrd-want.bin"
	if out=$($BZPACK --extract --initrd -o "$T/initrd-got.bin" "$ir_img" 2>&1); then
		check "initrd: --extract --initrd gives the files back, concatenated at 4-byte boundaries" \
			cmp "$T/initrd-want.bin" "$T/initrd-got.bin"
	else
		fail "initrd: --extract --initrd" "$out"
	fi
	info=$($BZPACK --info "$ir_img" 2>&1)
	check "initrd: --info lists the embedded pieces, their CRCs ok, PRETTY_NAME and uname shown" \
		bash -c 'grep -q "^\.initrd: *10010 bytes at .* ok$" <<<"$1" &&
			 grep -q "^\.osrel: .* ok: \"bzpack test system\"$" <<<"$1" &&
			 grep -q "^\.uname: *17 bytes .* ok: \"6.1.0-bzpack-test\"$" <<<"$1" &&
			 grep -q "^\.cmdline: *${#2} bytes .* ok$" <<<"$1"' _ "$info" "$IR_CMDLINE"
	json=$($BZPACK --info --json "$ir_img" 2>&1)
	check "initrd: --info --json has initrd_size, initrd_crc_check, uname_text" \
		python3 -c 'import json, sys; f = json.loads(sys.argv[1])["fields"]
assert f["initrd_size"] == 10010 and f["initrd_crc_check"] == "ok" and f["uname_text"] == "6.1.0-bzpack-test", f' "$json"
	note=$($BZPACK -o "$T/initrd-repacked.img" "$ir_img" 2>&1 > /dev/null)
	check "initrd: repacking the image says what does not carry over" \
		grep -q "what it embeds (.initrd .osrel .uname .cmdline) does not carry over" <<<"$note"
	no=$($BZPACK --extract --initrd -o "$T/initrd-none.bin" "$B/images/testkern64.elf" 2>&1)
	check "initrd: --extract --initrd of a file without one: one line, exit 1, nothing written" \
		bash -c '[ $2 -eq 1 ] && [ ! -e "$3" ] && [ $(wc -l <<<"$1") -eq 1 ] && grep -q "^bzpack: " <<<"$1"' \
		_ "$no" $? "$T/initrd-none.bin"

	# A byte of the embedded initrd changed: --info fails its check, and
	# the stub refuses to boot with it.
	ir_bad=$T/initrd-damaged.img
	cp "$ir_img" "$ir_bad"
	off=$((0x$(objdump -h "$ir_img" | awk '$2 == ".initrd" { print $6 }')))
	printf '\xa5' | dd of="$ir_bad" bs=1 seek=$((off + 5000)) conv=notrunc status=none
	$BZPACK --info "$ir_bad" > "$T/initrd-damaged.info" 2>&1
	status=$?
	check "initrd: --info of a damaged embedded initrd: exit 1, checksum mismatch" \
		bash -c '[ $1 -eq 1 ] && grep -q "bzpack .initrd: checksum mismatch" "$2"' _ $status "$T/initrd-damaged.info"
	log=$T/initrd-damaged.log
	if boot "initrd: a damaged embedded initrd stops the stub" 100 "$ir_bad" "$log" -t 60; then
		check "initrd: a damaged embedded initrd stops the stub: bzpack: error: ... initrd checksum" \
			grep -q "^bzpack: error: embedded initrd checksum mismatch (CRC32C)$" "$log"
	fi
	log=$T/initrd-damaged-efi.log
	if why=$(ovmf_missing); then
		skip "initrd: a damaged embedded initrd under UEFI" "$why"
	elif boot "initrd: a damaged embedded initrd under UEFI" 0 "$ir_bad" "$log" -U -N -t 120 \
			-e "^bzpack: error: embedded initrd"; then
		check "initrd: a damaged embedded initrd under UEFI: bzpack: error:" \
			grep -aq "^bzpack: error: embedded initrd checksum mismatch (CRC32C)" "$log"
	fi
	log=$T/initrd-testkern64.log
	if boot "initrd: testkern64 with an embedded initrd boots" 33 "$ir_img" "$log" -t 60; then
		check "initrd: testkern64's report line: initrd=embedded:ADDR+10010" \
			grep -Eq "^bzpack: codec=lz4 .* initrd=embedded:0x[0-9a-f]+\+10010$" "$log"
	fi
fi
no=$($BZPACK -o "$T/initrd-32.img" --osrel "$ir_osrel" "$B/images/testkern32.elf" 2>&1)
check "initrd: --osrel for a 32-bit image (no PE): one line, exit 1" \
	bash -c '[ $2 -eq 1 ] && [ ! -e "$3" ] && grep -q "^bzpack: .*osrel.*32-bit" <<<"$1"' _ "$no" $? "$T/initrd-32.img"

# Signed: the sections are inside the Authenticode hash.
IR_KEY=/usr/share/ovmf/PkKek-1-snakeoil.key IR_CERT=/usr/share/ovmf/PkKek-1-snakeoil.pem
if [ ! -r "$IR_KEY" ] || ! command -v sbverify > /dev/null; then
	skip "initrd: signed with sections" "no $IR_KEY or sbverify"
else
	openssl rsa -in "$IR_KEY" -passin pass:snakeoil -out "$T/initrd-key.pem" 2> /dev/null
	ir_signed=$T/initrd-signed.img
	if ! out=$($BZPACK -c lz4 --sign-key "$T/initrd-key.pem" --sign-cert "$IR_CERT" -o "$ir_signed" \
			--initrd "$ir_a" --osrel "$ir_osrel" "$B/images/testkern64.elf" 2>&1); then
		fail "initrd: sign an image with embedded sections" "$out"
	else
		check "initrd: sbverify accepts the signed image with .initrd and .osrel" \
			bash -c 'sbverify --cert "$1" "$2" 2>&1 | grep -q "^Signature verification OK"' _ "$IR_CERT" "$ir_signed"
		cp "$ir_signed" "$T/initrd-signed-bad.img"
		off=$((0x$(objdump -h "$ir_signed" | awk '$2 == ".osrel" { print $6 }')))
		printf 'X' | dd of="$T/initrd-signed-bad.img" bs=1 seek="$off" conv=notrunc status=none
		check "initrd: sbverify refuses it with one .osrel byte changed (inside the hash)" \
			bash -c '! sbverify --cert "$1" "$2" > /dev/null 2>&1' _ "$IR_CERT" "$T/initrd-signed-bad.img"
	fi
fi

# ---- Debian's kernels, each with the marker initramfs embedded -----------
if ! bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian.log" 2>&1; then
	fail "initrd: fetch Debian kernels" "$(tail -n 3 "$T/fetch-debian.log" | tr '\n' ' ')"
	return 0 2>/dev/null || exit 0
fi
# The loader's extra archive: one tag, uncompressed newc.
ir_extra=$(realpath -m "$T/initrd-extra.cpio")
(d=$(mktemp -d) && mkdir "$d/tags" && : > "$d/tags/loader" &&
	cd "$d" && find tags | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible > "$ir_extra"; rm -rf "$d")

# ir_boot NAME LOG TAGS IMAGE [qemu-boot.sh options]: the marker, /tags
# listing TAGS, and the report line's initrd= field from where the stub
# says (the EFI entry's report comes from the same code).
CR=$'\r'
ir_boot() {
	local name=$1 log=$2 tags=$3 image=$4
	shift 4
	if boot "$name" 0 "$image" "$log" -e "$IR_MARKER" "$@"; then
		check "$name: the kernel sees /tags: $tags" grep -aEq "^bzpack-initramfs: tags=$tags $CR?\$" "$log"
		check "$name: report line $(grep -a -m1 -o 'initrd=[^ ]*' "$log" | tr -d '\r')" \
			grep -aEq "^$CR?bzpack: codec=.* initrd=embedded(\\+loader)?:0x[0-9a-f]+\\+[0-9]+$CR?\$" "$log"
	fi
}

for spec in "amd64 qemu-system-x86_64 64" "i386 qemu-system-i386 32"; do
	set -- $spec
	arch=$1 qemu=$2 bits=$3
	initrd=$T/initrd-$arch.gz
	[ -s "$initrd" ] || bash ci/fixtures/mkinitramfs.sh "$DEB/$arch/busybox" "$initrd"
	img=$T/initrd-debian-$arch.img
	args=(-c lz4 -b "$bits" --initrd "$initrd")
	[ "$bits" = 64 ] && args+=(--osrel "$ir_osrel" --uname "$(cat "$DEB/$arch/kernel-package")" --cmdline "$IR_CMDLINE")
	if ! out=$(pack_cached "$img" "$DEB/$arch/vmlinuz" "${args[@]}" 2>&1); then
		fail "initrd: pack Debian $arch with its initramfs embedded" "$out"
		continue
	fi
	ir_boot "initrd: Debian $arch via QEMU -kernel, no -initrd" "$T/initrd-$arch-kernel.log" "initramfs" \
		"$img" -q $qemu -m 512M -t 120 -a "$IR_CMDLINE"
	[ "$arch" = amd64 ] || continue
	ir_boot "initrd: Debian amd64 via QEMU -kernel with -initrd too: both" "$T/initrd-amd64-both.log" \
		"initramfs loader" "$img" -m 512M -t 120 -a "$IR_CMDLINE" -i "$ir_extra"

	iso=$T/initrd-grub-bios.iso
	name="initrd: Debian amd64 via GRUB BIOS, no initrd line"
	if out=$(bash ci/fixtures/mkgrubiso.sh "$img" "" "$IR_CMDLINE" "$iso" 2>&1); then
		ir_boot "$name" "$T/initrd-grub-bios.log" "initramfs" "$iso" -C -m 512M -t 180
	else
		fail "$name" "$out"
	fi
	# nokaslr: GRUB puts the image at pref_address, where the kernel goes,
	# so the embedded initrd lies in the kernel's way and must move first.
	iso=$T/initrd-grub-bios-nokaslr.iso
	name="initrd: Debian amd64 via GRUB BIOS at pref_address, nokaslr: the initrd moves out of the kernel's way"
	if out=$(bash ci/fixtures/mkgrubiso.sh "$img" "" "$IR_CMDLINE nokaslr" "$iso" 2>&1); then
		ir_boot "$name" "$T/initrd-grub-bios-nokaslr.log" "initramfs" "$iso" -C -m 512M -t 180
		log=$T/initrd-grub-bios-nokaslr.log
		# (GRUB's screen codes make the log binary to grep: -a)
		field=$(grep -a -m1 -o ' initrd=[^ ]*' "$log" | cut -d= -f2 | tr -d '\r')
		out_size=$(grep -a -m1 -o ' out=[0-9]*' "$log" | cut -d= -f2)
		at=$(sed -n 's/^embedded:\(0x[0-9a-f]*\)+.*/\1/p' <<<"$field") size=${field##*+}
		check "$name: it went clear of the kernel at 16 MiB ($field, kernel out=$out_size)" \
			test -n "$at" -a $((at + ${size:-0})) -le $((0x1000000)) -o $((${at:-0})) -ge $((0x1000000 + ${out_size:-0}))
	else
		fail "$name" "$out"
	fi
	if why=$(ovmf_missing); then
		skip "initrd: Debian amd64 under OVMF" "$why"
		continue
	fi
	ir_boot "initrd: Debian amd64 via OVMF -kernel, no -initrd" "$T/initrd-ovmf.log" "initramfs" \
		"$img" -U -m 512M -t 180 -a "$IR_CMDLINE"
	ir_boot "initrd: Debian amd64 via OVMF -kernel with -initrd too (LoadFile2): both" \
		"$T/initrd-ovmf-both.log" "initramfs loader" "$img" -U -m 512M -t 180 -a "$IR_CMDLINE" -i "$ir_extra"
	esp=$T/initrd-grub-efi.img
	name="initrd: Debian amd64 via GRUB EFI, no initrd line"
	if out=$(bash ci/fixtures/mkgrubefi.sh "$img" "" "$IR_CMDLINE" "$esp" 2>&1); then
		ir_boot "$name" "$T/initrd-grub-efi.log" "initramfs" "$esp" -U -H -m 512M -t 240
	else
		fail "$name" "$out"
	fi
	esp=$T/initrd-grub-efi-handover.img
	name="initrd: Debian amd64 via GRUB EFI linuxefi (EFI handover), no initrdefi line"
	if out=$(bash ci/fixtures/mkgrubefi.sh -e "$img" "" "$IR_CMDLINE" "$esp" 2>&1); then
		ir_boot "$name" "$T/initrd-grub-efi-handover.log" "initramfs" "$esp" -U -H -m 512M -t 240
	else
		fail "$name" "$out"
	fi
	# systemd-boot with nothing but the image in \EFI\Linux\: no
	# loader.conf, no entries; it boots what it lists, its default entry.
	esp=$T/initrd-sdboot.img
	name="initrd: systemd-boot lists the image (.osrel) in \\EFI\\Linux\\ and boots it as default"
	if [ ! -r "$IR_SDBOOT" ]; then
		skip "$name" "no $IR_SDBOOT (systemd-boot-efi)"
	elif out=$(bash ci/fixtures/mkesp.sh "$esp" "$IR_SDBOOT" "$img=/EFI/Linux/bzpack-initrd.efi" 2>&1); then
		# The ESP holds no other entry: a boot is systemd-boot's Type #2
		# entry for the image.
		ir_boot "$name" "$T/initrd-sdboot.log" "initramfs" "$esp" -U -H -m 512M -t 240
	else
		fail "$name" "$out"
	fi
done

# kexec -l with no --initrd: Debian amd64 loads our image, which brings
# its own initramfs, and the second kernel reaches the marker too.
name="initrd: kexec -l without --initrd into the image: the second kernel reaches userspace"
img=$T/initrd-debian-amd64.img
if ! command -v kexec > /dev/null && [ ! -x /sbin/kexec ]; then
	skip "$name" "no kexec on this machine (kexec-tools)"
elif [ -s "$img" ]; then
	first=$T/initrd-kexec-first.gz
	log=$T/initrd-kexec.log
	if ! out=$(bash ci/fixtures/mkinitramfs.sh -k "$img" -a "$IR_CMDLINE" "$DEB/amd64/busybox" "$first" 2>&1); then
		fail "$name" "$out"
	elif boot "$name" 0 "$DEB/amd64/vmlinuz" "$log" -m 1G -t 360 -i "$first" -a "$IR_CMDLINE"; then
		n=$(grep -c "$IR_MARKER" "$log")
		if [ "$n" != 2 ]; then
			fail "$name" "userspace reached $n times, want 2 (first and second kernel)"
		else
			check "$name (entry=64, $(report_field "$log" initrd))" \
				grep -Eq "^bzpack: codec=lz4 .* entry=64 .* initrd=embedded:0x[0-9a-f]+\+[0-9]+$" "$log"
		fi
	fi
else
	fail "$name" "no image: packing Debian amd64 failed above"
fi
