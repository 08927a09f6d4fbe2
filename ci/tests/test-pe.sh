# test-pe.sh - the PE side of a 64-bit image, without booting: the header
# fields today's loaders read, .sbat, Authenticode signing, and the
# loader-rule checks of bzpack --info.  Sourced by ci/test.sh (uses B, T,
# BZPACK, pass, fail, skip, check from ci/lib.sh).
#
#   - objdump -p and an independent reader (ci/tests/pe-check.py): MajorImageVersion
#     1, NX_COMPAT, an empty base-relocation directory and no .reloc,
#     sections aligned, raw sizes within virtual sizes, SizeOfImage exact;
#   - .sbat: bzpack's line, --sbat FILE's, kept by a repack, and a Linux
#     bzImage's own lines kept (Debian's kernel with a .sbat added);
#   - --sign-key/--sign-cert with the snakeoil key of Debian's ovmf:
#     sbverify --cert accepts it and refuses another certificate, the same
#     inputs give the same bytes, an encrypted key takes
#     BZPACK_SIGN_PASSPHRASE, --info verifies sbsign's signature and
#     Debian's, and finds a changed byte; enforcing Secure Boot (OVMF
#     secboot with the snakeoil db) starts the signed image and refuses it
#     with a payload byte changed (two short boots);
#   - repacking a signed kernel without --sign-* says so in one line;
#   - --info's loader rules: met for a 64-bit image, not met (and why) for
#     a 32-bit one (kexec_file_load) and for Debian's (no .sbat).
# About a minute: two Secure Boot boots to the firmware's verdict, and
# repacking Debian's kernel once.

PE_KEY=/usr/share/ovmf/PkKek-1-snakeoil.key
PE_CERT=/usr/share/ovmf/PkKek-1-snakeoil.pem
PE_DEBIAN=$B/debian/amd64/vmlinuz

pe_img64=$T/pe-testkern64.img
pe_img32=$T/pe-testkern32.img
if ! out=$($BZPACK -o "$pe_img64" $B/images/testkern64.elf 2>&1) ||
	! out=$($BZPACK -o "$pe_img32" $B/images/testkern32.elf 2>&1); then
	fail "pe: pack the test kernels" "$out"
	return 0 2>/dev/null || exit 0
fi

# ---- the header ------------------------------------------------------------
if objdump -p "$pe_img64" > "$T/pe-objdump.out" 2> "$T/pe-objdump.err" && [ ! -s "$T/pe-objdump.err" ]; then
	check "pe: objdump -p: MajorImageVersion 1" grep -qP "^MajorImageVersion\t1$" "$T/pe-objdump.out"
	check "pe: objdump -p: DllCharacteristics 0x100 NX_COMPAT" \
		bash -c 'grep -qP "^DllCharacteristics\t00000100$" "$1" && grep -qP "^\t+NX_COMPAT$" "$1"' _ "$T/pe-objdump.out"
	check "pe: objdump -p: empty base relocation directory" \
		grep -q "^Entry 5 0000000000000000 00000000 Base Relocation Directory" "$T/pe-objdump.out"
	check "pe: objdump -p: no RELOCS_STRIPPED (the image loads anywhere)" \
		bash -c '! grep -q "relocations stripped" "$1"' _ "$T/pe-objdump.out"
else
	fail "pe: objdump -p reads the PE without warnings" "$(head -c 300 "$T/pe-objdump.err")"
fi
check "pe: objdump -h: .sbat and .text, no .reloc" \
	bash -c 'h=$(objdump -h "$1") && grep -q " \.sbat " <<<"$h" && grep -q " \.text " <<<"$h" && ! grep -q "\.reloc" <<<"$h"' _ "$pe_img64"
if pe=$(python3 ci/tests/pe-check.py "$pe_img64" 2>&1); then
	check "pe: layout as a strict loader checks it (pe-check.py: aligned, raw <= virtual, SizeOfImage exact)" \
		grep -qx "layout=ok" <<<"$pe"
	check "pe: pe-check.py agrees: version 1, NX_COMPAT, no relocations" \
		bash -c 'grep -qx major_image_version=1 <<<"$1" && grep -qx dll_characteristics=0x100 <<<"$1" &&
			 grep -qx reloc_dir=0,0 <<<"$1"' _ "$pe"
else
	fail "pe: pe-check.py reads the image" "$pe"
fi
pe_info=$($BZPACK --info "$pe_img64")
check "pe: --info prints MajorImageVersion, NX_COMPAT, relocations and the layout verdict" \
	bash -c 'grep -q "^PE version: *MajorImageVersion 1\.0" <<<"$1" && grep -q "^PE flags: .*(NX_COMPAT)" <<<"$1" &&
		 grep -q "^PE relocations: none" <<<"$1" && grep -q "^PE layout: .*: ok" <<<"$1"' _ "$pe_info"

# A header that breaks the layout: --info says so (raw size above the
# virtual size of .text, as systemd-stub refuses).
cp "$pe_img64" "$T/pe-badlayout.img"
python3 - "$T/pe-badlayout.img" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
pe = struct.unpack_from("<I", d, 0x3c)[0]
table = pe + 24 + struct.unpack_from("<H", d, pe + 20)[0]
struct.pack_into("<I", d, table + 40 + 8, struct.unpack_from("<I", d, table + 40 + 8)[0] - 0x200)  # .text VirtualSize
open(sys.argv[1], "wb").write(d)
EOF
pe_bad=$($BZPACK --info "$T/pe-badlayout.img" 2>&1)
check "pe: --info and the systemd-stub rule catch a raw size above the virtual size" \
	bash -c 'grep -q "^PE layout: .*BAD: section \.text: raw size" <<<"$1" &&
		 grep -q "systemd-stub.*NOT MET: section \.text: raw size" <<<"$1"' _ "$pe_bad"

# ---- .sbat -----------------------------------------------------------------
objcopy -O binary --only-section=.sbat "$pe_img64" "$T/pe-sbat.bin" 2>/dev/null
check "pe: .sbat starts with the SBAT version line, then bzpack's" \
	bash -c 'tr -d "\0" < "$1" | head -2 | grep -c -e "^sbat,1,SBAT Version,sbat,1," -e "^bzpack,[0-9]*,bzpack," | grep -qx 2' _ "$T/pe-sbat.bin"
printf 'extra,3,Extra Vendor,extra,1.2,https://example.org/extra\n' > "$T/pe-extra.sbat"
if $BZPACK --sbat "$T/pe-extra.sbat" -o "$T/pe-sbat.img" $B/images/testkern64.elf 2> "$T/pe-sbat.err" &&
	$BZPACK -o "$T/pe-sbat-again.img" "$T/pe-sbat.img" 2>> "$T/pe-sbat.err"; then
	check "pe: --sbat adds its line, and --info prints it" \
		grep -q "^ *extra,3,Extra Vendor,extra,1.2,https://example.org/extra$" <($BZPACK --info "$T/pe-sbat.img")
	check "pe: repacking a bzpack image keeps its SBAT lines, bzpack's once" \
		bash -c 'i=$($1 --info "$2") && grep -q "^ *extra,3," <<<"$i" && [ "$(grep -c "bzpack,[0-9]*,bzpack," <<<"$i")" = 1 ]' \
		_ "$BZPACK" "$T/pe-sbat-again.img"
else
	fail "pe: --sbat FILE" "$(cat "$T/pe-sbat.err")"
fi
printf 'broken,1,only three\n' > "$T/pe-broken.sbat"
name="pe: a malformed --sbat line is an error naming the file and the line"
if $BZPACK --sbat "$T/pe-broken.sbat" -o "$T/pe-broken.img" $B/images/testkern64.elf 2> "$T/pe-broken.err"; then
	fail "$name" "exit status 0"
else
	check "$name" grep -q "^bzpack: .*pe-broken.sbat: SBAT line 1 has fewer than six fields" "$T/pe-broken.err"
fi
name="pe: --sbat on a 32-bit image is refused"
if $BZPACK --sbat "$T/pe-extra.sbat" -o "$T/pe-refused.img" $B/images/testkern32.elf 2> "$T/pe-refused.err"; then
	fail "$name" "exit status 0"
else
	check "$name" grep -q "^bzpack: .*--sbat is for the PE of a 64-bit image" "$T/pe-refused.err"
fi

# ---- signing ---------------------------------------------------------------
# pe_sb_verdict IMAGE LOG: boot IMAGE as \EFI\BOOT\BOOTX64.EFI under Debian's
# enforcing Secure Boot OVMF (secboot code, snakeoil variables: db holds
# the snakeoil certificate) until the firmware refuses it or our stub
# speaks; prints "refused", "started" or "neither".
pe_sb_verdict() {
	local image=$1 log=$2 qemu_pid i
	bash ci/fixtures/mkesp.sh "$log.esp" "$image" || { echo "no ESP"; return; }
	cp "$PE_SB_VARS" "$log.vars"
	: > "$log"
	qemu-system-x86_64 -nodefaults -display none -no-reboot -m 256M -serial "file:$log" \
		-machine q35,smm=on -global driver=cfi.pflash01,property=secure,value=on \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$PE_SB_CODE" \
		-drive "if=pflash,format=raw,unit=1,file=$log.vars" -drive "format=raw,file=$log.esp" \
		< /dev/null 2> "$log.stderr" &
	qemu_pid=$!
	for ((i = 0; i < 240; i++)); do
		grep -aq -e "Access Denied" -e "^bzpack: " "$log" && break
		kill -0 "$qemu_pid" 2> /dev/null || break
		sleep 0.5
	done
	kill "$qemu_pid" 2> /dev/null
	wait "$qemu_pid" 2> /dev/null
	if grep -aq "^bzpack: " "$log"; then
		echo started
	elif grep -aq "failed to load Boot0001.*Access Denied" "$log"; then
		echo refused
	else
		echo neither
	fi
}

# pe_secure_boot SIGNED-IMAGE: the firmware takes bzpack's signature (our
# stub starts: whatever it says next is the EFI stub's business) and
# refuses the image with one payload byte changed.
PE_SB_CODE=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
PE_SB_VARS=/usr/share/OVMF/OVMF_VARS_4M.snakeoil.fd
pe_secure_boot() {
	if [ ! -r "$PE_SB_CODE" ] || [ ! -r "$PE_SB_VARS" ]; then
		skip "pe: enforcing Secure Boot takes bzpack's signature" "no $PE_SB_CODE or $PE_SB_VARS (Debian's ovmf)"
		return
	fi
	local v
	v=$(pe_sb_verdict "$1" "$T/pe-sb-signed.log")
	check "pe: enforcing Secure Boot (OVMF secboot, snakeoil db) starts the bzpack-signed image ($v)" test "$v" = started
	cp "$1" "$T/pe-sb-altered.img"
	printf '\x5a' | dd of="$T/pe-sb-altered.img" bs=1 seek=$(($(stat -c %s "$pe_img64") - 4096)) conv=notrunc status=none
	v=$(pe_sb_verdict "$T/pe-sb-altered.img" "$T/pe-sb-altered.log")
	check "pe: enforcing Secure Boot refuses it with one payload byte changed ($v)" test "$v" = refused
}

if [ ! -r "$PE_KEY" ] || [ ! -r "$PE_CERT" ]; then
	skip "pe: signing" "no $PE_KEY (Debian's ovmf)"
elif ! command -v sbverify > /dev/null || ! command -v sbsign > /dev/null; then
	skip "pe: signing" "no sbverify/sbsign (sbsigntool)"
else
	pe_plain=$T/pe-snakeoil.key
	openssl rsa -in "$PE_KEY" -passin pass:snakeoil -out "$pe_plain" 2> /dev/null
	pe_signed=$T/pe-signed.img
	if ! out=$($BZPACK --sign-key "$pe_plain" --sign-cert "$PE_CERT" -o "$pe_signed" $B/images/testkern64.elf 2>&1) ||
		! out=$($BZPACK --sign-key "$pe_plain" --sign-cert "$PE_CERT" -o "$T/pe-signed2.img" $B/images/testkern64.elf 2>&1); then
		fail "pe: bzpack --sign-key --sign-cert" "$out"
	else
		check "pe: sbverify --cert accepts bzpack's signature" \
			bash -c 'sbverify --cert "$1" "$2" 2>&1 | grep -q "^Signature verification OK"' _ "$PE_CERT" "$pe_signed"
		openssl req -x509 -newkey rsa:2048 -nodes -subj "/CN=not the signer" -days 1 \
			-keyout "$T/pe-other.key" -out "$T/pe-other.pem" 2> /dev/null
		check "pe: sbverify --cert refuses it with another certificate" \
			bash -c '! sbverify --cert "$1" "$2" > /dev/null 2>&1' _ "$T/pe-other.pem" "$pe_signed"
		check "pe: the same inputs sign to the same bytes" cmp -s "$pe_signed" "$T/pe-signed2.img"
		check "pe: --info lists the signature: subject, issuer, digest, hash and signature hold" \
			grep -q '^signatures: *1: subject "C=US, ST=Colorado, L=Fort Collins, O=SnakeOil", issuer "C=US,.*", digest SHA256, image hash matches, signature valid' \
			<($BZPACK --info "$pe_signed")
		check "pe: --info says the loader rules see a signed image" \
			grep -q "kexec_file_load.*: met (.*signed: accepted under KEXEC_SIG" <($BZPACK --info "$pe_signed")
		name="pe: an encrypted --sign-key takes \$BZPACK_SIGN_PASSPHRASE, same bytes"
		if BZPACK_SIGN_PASSPHRASE=snakeoil $BZPACK --sign-key "$PE_KEY" --sign-cert "$PE_CERT" \
			-o "$T/pe-signed-enc.img" $B/images/testkern64.elf 2> "$T/pe-enc.err"; then
			check "$name" cmp -s "$pe_signed" "$T/pe-signed-enc.img"
		else
			fail "$name" "$(cat "$T/pe-enc.err")"
		fi
		name="pe: an encrypted key without the passphrase: one line naming the variable, exit 1"
		env -u BZPACK_SIGN_PASSPHRASE $BZPACK --sign-key "$PE_KEY" --sign-cert "$PE_CERT" \
			-o "$T/pe-nopass.img" $B/images/testkern64.elf 2> "$T/pe-nopass.err"
		status=$?
		if [ $status -ne 1 ] || [ -e "$T/pe-nopass.img" ]; then
			fail "$name" "exit status $status, output written: $([ -e "$T/pe-nopass.img" ] && echo yes || echo no)"
		else
			check "$name" grep -qx "bzpack: $PE_KEY: the key is encrypted: put its passphrase in \$BZPACK_SIGN_PASSPHRASE" "$T/pe-nopass.err"
		fi
		name="pe: a certificate that is not the key's is refused"
		if $BZPACK --sign-key "$pe_plain" --sign-cert "$T/pe-other.pem" -o "$T/pe-mismatch.img" \
			$B/images/testkern64.elf 2> "$T/pe-mismatch.err"; then
			fail "$name" "exit status 0"
		else
			check "$name" grep -q "the certificate is not the --sign-key's" "$T/pe-mismatch.err"
		fi
		name="pe: --sign-key without --sign-cert is a usage error (exit 2)"
		$BZPACK --sign-key "$pe_plain" -o "$T/pe-usage.img" $B/images/testkern64.elf 2> /dev/null
		check "$name" test $? -eq 2

		# sbsign's signature on our unsigned image: our --info verifies it.
		if sbsign --key "$pe_plain" --cert "$PE_CERT" --output "$T/pe-sbsigned.img" "$pe_img64" > /dev/null 2>&1; then
			check "pe: --info verifies sbsign's signature" \
				grep -q '^signatures: *1: .*O=SnakeOil", digest SHA256, image hash matches, signature valid' \
				<($BZPACK --info "$T/pe-sbsigned.img")
		else
			fail "pe: sbsign the unsigned image" "sbsign failed"
		fi
		# One byte changed where no CRC of ours looks (the .sbat section's
		# padding; a payload byte makes --info refuse the image outright):
		# the hash no longer matches, for us and for sbverify.
		cp "$pe_signed" "$T/pe-altered.img"
		pe_sbat_end=$(python3 ci/tests/pe-check.py "$pe_signed" | sed -n 's/^sections=\.sbat:[^:]*:[^:]*:\([^:]*\):\([^ ]*\) .*/\1+\2/p')
		printf '\x5a' | dd of="$T/pe-altered.img" bs=1 seek=$((${pe_sbat_end:-0} - 1)) conv=notrunc status=none
		check "pe: --info finds a changed byte (image hash DOES NOT MATCH), and so does sbverify" \
			bash -c 'grep -q "image hash DOES NOT MATCH" <($1 --info "$2") && ! sbverify --cert "$3" "$2" > /dev/null 2>&1' \
			_ "$BZPACK" "$T/pe-altered.img" "$PE_CERT"

		# Repacking a signed image: one line says the signature is gone.
		name="pe: repacking a signed image unsigned says so in one line, naming --sign-key"
		if $BZPACK -o "$T/pe-resigned.img" "$pe_signed" 2> "$T/pe-lost.err"; then
			check "$name" bash -c '[ "$(grep -c "signature does not carry over.*unsigned (sign it with --sign-key KEY --sign-cert CERT)" "$1")" = 1 ] &&
				sbverify --list "$2" 2>&1 | grep -q "No signature table present"' _ "$T/pe-lost.err" "$T/pe-resigned.img"
		else
			fail "$name" "$(cat "$T/pe-lost.err")"
		fi
		name="pe: repacking it with --sign-* says nothing of a lost signature, and verifies"
		if $BZPACK --sign-key "$pe_plain" --sign-cert "$PE_CERT" -o "$T/pe-resigned.img" "$pe_signed" 2> "$T/pe-kept.err"; then
			check "$name" bash -c '! grep -q "does not carry over" "$1" && sbverify --cert "$2" "$3" > /dev/null 2>&1' \
				_ "$T/pe-kept.err" "$PE_CERT" "$T/pe-resigned.img"
		else
			fail "$name" "$(cat "$T/pe-kept.err")"
		fi
		pe_secure_boot "$pe_signed"
		name="pe: --sign-key on a 32-bit image is refused"
		if $BZPACK --sign-key "$pe_plain" --sign-cert "$PE_CERT" -o "$T/pe-refused.img" $B/images/testkern32.elf 2> "$T/pe-refused.err"; then
			fail "$name" "exit status 0"
		else
			check "$name" grep -q -- "--sign-key is for the PE of a 64-bit image" "$T/pe-refused.err"
		fi
	fi
fi

# ---- loader rules ----------------------------------------------------------
pe_rules=$(grep -A3 "^loader rules:" <<<"$pe_info")
check "pe: --info: the 64-bit image meets systemd-stub's, GRUB 2.12's, kexec_file_load's and shim's rules" \
	bash -c '[ "$(grep -c ": met" <<<"$1")" = 4 ] && grep -q "systemd-stub" <<<"$1" && grep -q "GRUB 2.12" <<<"$1" &&
		 grep -q "kexec_file_load" <<<"$1" && grep -q "shim" <<<"$1"' _ "$pe_rules"
check "pe: --info: a 32-bit image fails kexec_file_load's probe (XLF_KERNEL_64) and the PE rules, saying why" \
	bash -c 'i=$($1 --info "$2") && grep -q "kexec_file_load.*NOT MET: XLF_KERNEL_64 is not set" <<<"$i" &&
		 grep -q "systemd-stub.*NOT MET: no PE header" <<<"$i" && grep -q "shim.*NOT MET" <<<"$i"' _ "$BZPACK" "$pe_img32"

# ---- Debian's signed kernel --------------------------------------------------
if [ ! -s "$PE_DEBIAN" ]; then
	skip "pe: Debian's signed vmlinuz" "no $PE_DEBIAN (ci/fixtures/fetch-debian.sh)"
	return 0 2>/dev/null || exit 0
fi
pe_deb_info=$($BZPACK --info "$PE_DEBIAN" 2>&1)
check "pe: --info verifies Debian's signature (Debian Secure Boot Signer, hash matches)" \
	grep -q '^signatures: *1: subject "CN=Debian Secure Boot Signer.*", issuer "CN=Debian Secure Boot CA", digest SHA256, image hash matches, signature valid' <<<"$pe_deb_info"
check "pe: --info: Debian's kernel (6.1, no .sbat) does not meet shim's SBAT rule, and says why" \
	grep -q "shim.*NOT MET: no .sbat section" <<<"$pe_deb_info"
# Debian's kernel with a .sbat section added (as CONFIG_EFI_SBAT_FILE
# makes it), signed again: repacked, it keeps its lines, and the lost
# signature is said.
printf 'sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\nlinux,1,The Linux Developers,linux,6.1,https://linux.org\nlinux.debian,1,Debian,linux,6.1,https://tracker.debian.org/pkg/linux\n' > "$T/pe-linux.sbat"
if [ -r "$PE_KEY" ] && command -v sbsign > /dev/null &&
	python3 ci/tests/pe-check.py add-sbat "$PE_DEBIAN" "$T/pe-linux.sbat" "$T/pe-linux-sbat.unsigned" &&
	sbsign --key "$T/pe-snakeoil.key" --cert "$PE_CERT" --output "$T/pe-linux-sbat.img" "$T/pe-linux-sbat.unsigned" > /dev/null 2>&1; then
	name="pe: repacking a signed Linux bzImage with .sbat keeps its lines and says its signature is gone"
	if $BZPACK -c none -o "$T/pe-linux-repacked.img" "$T/pe-linux-sbat.img" 2> "$T/pe-linux.err"; then
		check "$name" bash -c 'i=$($1 --info "$2") && grep -q "^ *linux,1,The Linux Developers," <<<"$i" &&
			grep -q "^ *linux.debian,1,Debian," <<<"$i" && grep -q "^SBAT: *sbat,1," <<<"$i" && grep -q "^ *bzpack,[0-9]*,bzpack," <<<"$i" &&
			[ "$(grep -c "does not carry over" "$3")" = 1 ]' _ "$BZPACK" "$T/pe-linux-repacked.img" "$T/pe-linux.err"
	else
		fail "$name" "$(tail -n 2 "$T/pe-linux.err")"
	fi
else
	skip "pe: repacking a Linux bzImage with .sbat" "could not make one (pe-check.py add-sbat, sbsign)"
fi
