# test-bcj.sh - bzpack --bcj: the x86 filter before every codec, the -bcj
# stubs' un-filter after decoding, and the header flag that says so.
#   - every codec x word size, packed with --bcj (xz: the plain image,
#     its stream having the filter inside): --info (text and JSON)
#     names the filter, --extract gives the same kernel as a plain pack,
#     and the image boots under QEMU -kernel (SeaBIOS) with the report
#     line's unfilter= field; 64-bit ones under OVMF too;
#   - the plain images carry none of it: no unfilter= field, and a
#     --bcj stub is larger than the plain one of its codec;
#   - a damaged filtered payload stops the stub; a header whose flag does
#     not match its stub (flag set under a plain stub, cleared under a
#     -bcj one, a flag nobody knows), its CRC made good again, is refused
#     by the stub and by --info.
# shellcheck source=/dev/null
. "$B/gen/bzpack_format.sh"
# shellcheck source=ci/fixtures/ovmf.sh
. ci/fixtures/ovmf.sh

BCJ_CMDLINE="bzpack-test console=ttyS0"

# bcj_set_flags IMAGE FLAGS: rewrite bzpack_header.flags and its
# header_crc (CRC32C of the bytes before it), as a packer would have.
bcj_set_flags() {
	python3 - "$1" "$2" "$BZPACK_HEADER_SIZE" "$BZHDR_flags" "$BZHDR_header_crc" <<'EOF'
import struct, sys
path, flags, hsize, at_flags, at_crc = sys.argv[1], *map(int, sys.argv[2:])
d = bytearray(open(path, 'rb').read())
setup = (d[0x1f1] + 1) * 512
hdr = setup + struct.unpack_from('<I', d, 0x248)[0] - hsize
struct.pack_into('<I', d, hdr + at_flags, flags)
c = 0xffffffff
for b in d[hdr:hdr + at_crc]:
    c ^= b
    for _ in range(8):
        c = (c >> 1) ^ (0x82f63b78 & -(c & 1))
struct.pack_into('<I', d, hdr + at_crc, c ^ 0xffffffff)
open(path, 'wb').write(d)
EOF
}

ovmf_why=$(ovmf_missing)
for bits in 32 64; do
	for codec in $(codecs); do
		img=$T/bcj-$bits-$codec.img plain=$T/bcj-$bits-$codec-plain.img
		name="bcj: pack testkern$bits $codec --bcj"
		rm -f "$img" "$plain"
		if ! out=$($BZPACK --bcj -c "$codec" -o "$img" "$B/images/testkern$bits.elf" 2>&1) ||
			! out=$($BZPACK -c "$codec" -o "$plain" "$B/images/testkern$bits.elf" 2>&1); then
			fail "$name" "$out"; continue
		fi
		pass "$name"
		# xz's stream has the x86 filter inside: --bcj leaves it alone.
		if [ "$codec" = xz ]; then
			check "bcj: -c xz --bcj is the plain xz image" cmp -s "$img" "$plain"
			continue
		fi
		$BZPACK --info "$img" > "$T/bcj-info.out" 2>&1
		check "bcj: --info of testkern$bits $codec --bcj says filter x86" \
			grep -Eq "^filter: +x86 \(flags 0x1" "$T/bcj-info.out"
		$BZPACK --info --json "$img" > "$T/bcj-info.json" 2>&1
		check "bcj: --info --json of testkern$bits $codec --bcj has filter x86, flags 1" \
			python3 -c 'import json, sys
txt = json.dumps(json.load(open(sys.argv[1])))
sys.exit(0 if "\"filter\": \"x86\"" in txt and "\"flags\": 1" in txt else 1)' "$T/bcj-info.json"
		$BZPACK --info "$plain" > "$T/bcj-info-plain.out" 2>&1
		check "bcj: --info of testkern$bits $codec (plain) says filter none" \
			grep -Eq "^filter: +none \(flags 0x0\)" "$T/bcj-info-plain.out"
		if $BZPACK -x -o "$T/bcj-x.bin" "$img" 2>"$T/bcj-x.err" &&
			$BZPACK -x -o "$T/bcj-x-plain.bin" "$plain" 2>>"$T/bcj-x.err"; then
			check "bcj: --extract of testkern$bits $codec --bcj gives the plain pack's kernel" \
				cmp -s "$T/bcj-x.bin" "$T/bcj-x-plain.bin"
		else
			fail "bcj: --extract of testkern$bits $codec --bcj" "$(head -c 300 "$T/bcj-x.err")"
		fi
		s_bcj=$(stat -c %s "$B/stub/${codec//-/_}-bcj-$bits.bin") s_plain=$(stat -c %s "$B/stub/${codec//-/_}-$bits.bin")
		check "bcj: the $codec $bits-bit stub has no filter, the -bcj one has ($s_plain < $s_bcj bytes)" \
			test "$s_plain" -lt "$s_bcj"

		log=$T/bcj-$bits-$codec.log
		name="bcj: boot testkern$bits $codec --bcj (-kernel)"
		if boot "$name" 33 "$img" "$log" -d -a "$BCJ_CMDLINE" &&
			testkern_booted "$name" "$log" "^bzpack: codec=$codec in=[0-9]+ .* unfilter=[0-9]+$" $bits; then
			pass "$name (unfilter=$(report_field "$log" unfilter))"
		fi
		if [ "$codec" = lz4 ]; then
			log=$T/bcj-$bits-$codec-plain.log
			name="bcj: plain testkern$bits $codec reports no unfilter="
			if boot "$name" 33 "$plain" "$log" -d -a "$BCJ_CMDLINE"; then
				if grep -q "^bzpack: codec=$codec " "$log" && ! grep -q " unfilter=" "$log"; then
					pass "$name"
				else
					fail "$name" "$(grep -m1 '^bzpack: codec=' "$log")"
				fi
			fi
		fi
		[ "$bits" = 64 ] || continue
		name="bcj: OVMF direct boot of testkern64 $codec --bcj"
		if [ -n "$ovmf_why" ]; then
			skip "$name" "$ovmf_why"
			continue
		fi
		log=$T/bcj-efi-$codec.log
		if boot "$name" 33 "$img" "$log" -U -t 120 -a "$BCJ_CMDLINE"; then
			if grep -aq "^bzpack: codec=$codec .* entry=efi .* unfilter=[0-9]*" "$log" &&
				grep -aq "^testkern: OK bits=64" "$log"; then
				pass "$name"
			else
				fail "$name" "no report line with entry=efi and unfilter=, or no testkern OK"
			fi
		fi
	done
done

# Damage: each must stop the stub with bzpack: error, never reach the kernel.
# bcj_refused NAME IMAGE REASON-REGEX
bcj_refused() {
	local log=$T/bcj-refused.log
	boot "$1" 100 "$2" "$log" -d -t 30 || return
	if grep -q "^testkern:" "$log"; then
		fail "$1" "the kernel ran"
	elif ! grep -Eq "^bzpack: error: $3" "$log"; then
		fail "$1" "$(grep -m1 '^bzpack: error:' "$log")"
	else
		pass "$1 ($(grep -m1 '^bzpack: error:' "$log"))"
	fi
}
base=$T/bcj-64-zstd.img
if [ -f "$base" ]; then
	img=$T/bcj-damaged.img
	cp "$base" "$img"
	offset=$(($(stat -c %s "$img") - 4096))
	printf '\xff\x00\x55' | dd of="$img" bs=1 seek=$offset conv=notrunc status=none
	bcj_refused "bcj: a damaged filtered payload is refused" "$img" "payload checksum mismatch"

	cp "$base" "$img"; bcj_set_flags "$img" 0
	bcj_refused "bcj: a -bcj stub refuses a payload without the flag" "$img" "payload flags do not match this stub"
	# 0x10: no flag of the format (BZPACK_FLAGS_KNOWN).
	cp "$base" "$img"; bcj_set_flags "$img" 17
	bcj_refused "bcj: a -bcj stub refuses a flag it does not know" "$img" "payload flags do not match this stub"
	check "bcj: --info refuses a flag it does not know" \
		bash -c '! "$1" --info "$2" > "$3" 2>&1 && grep -q "unknown flags 0x11" "$3"' _ "$BZPACK" "$img" "$T/bcj-info-bad.out"
	cp "$T/bcj-64-zstd-plain.img" "$img"; bcj_set_flags "$img" 1
	bcj_refused "bcj: a plain stub refuses the x86 flag" "$img" "payload flags do not match this stub"
else
	fail "bcj: damaged images" "no $base to damage (its pack failed above)"
fi

# --codec auto weighs every codec with and without the filter.
out=$($BZPACK -c auto -o "$T/bcj-auto.img" "$B/images/testkern64.elf" 2>&1)
n_plain=$(grep -Ec '^  [a-z0-9_-]+ +[0-9]+ ' <<< "$out")
n_x86=$(grep -Ec '^  [a-z0-9_-]+\+x86 +[0-9]+ ' <<< "$out")
n_codecs=$(($(codecs | wc -l) - 1))
check "bcj: --codec auto tries $n_codecs codecs, and all but xz with the filter too ($n_plain + $n_x86 rows)" \
	test "$n_plain" -eq "$n_codecs" -a "$n_x86" -eq $((n_codecs - 1))
