# test-frames.sh - framed payloads (bzpack --frames, bzpack_format.h "the
# frame table"):
#   - every codec x 32/64-bit, packed in 3 frames: --info lists 3 frames,
#     the image boots under QEMU -kernel (one CPU), the report line says
#     frames=3 cpus=1(one-cpu), the kernel runs; --extract gives back the very ELF the
#     one-stream image does;
#   - one frame (--frames 1, and auto on a kernel below FRAMES_AUTO_BYTES)
#     is the default image, byte for byte;
#   - in place (testkern64-low, linked where the image loads): the frames
#     decode one after the other behind the moved payload, on the boot
#     CPU alone (cpus=1(in-place)), and boot;
#   - a -bcj image keeps unfilter= last, after frames= and cpus=;
#   - a damaged frame, and a frame table naming an overlapping range (its
#     checksum and header_crc made right again, so that only the tiling
#     check can catch it), stop with "bzpack: error:" and no kernel runs;
#   - --frames out of range, or with --info, is a usage error (exit 2).
FR_DIR=$T/frames
mkdir -p "$FR_DIR"
# shellcheck source=/dev/null
. "$B/gen/bzpack_format.sh"
FR_CMDLINE="console=ttyS0 frames-test"

# fr_report LOG: the report line's frames= and cpus=, as "N M"
fr_report() {
	echo "$(report_field "$1" frames) $(report_field "$1" cpus)"
}

# fr_no_kernel NAME LOG WANT: the log has a "bzpack: error:" line matching
# WANT and no line of the kernel's
fr_no_kernel() {
	if grep -aq "^testkern:" "$2"; then
		fail "$1" "the kernel ran"
	elif grep -aEq "^bzpack: error: $3" "$2"; then
		pass "$1 ($(grep -am1 '^bzpack: error:' "$2"))"
	else
		fail "$1" "no 'bzpack: error: $3'; serial: $(tr '\r\n' '||' < "$2" | cut -c1-300)"
	fi
}

for fr_bits in 32 64; do
	for fr_codec in $(codecs); do
		fr_img=$FR_DIR/testkern$fr_bits-$fr_codec-3.img
		fr_name="frames: testkern$fr_bits $fr_codec in 3 frames"
		if ! fr_out=$($BZPACK -c "$fr_codec" --frames 3 -o "$fr_img" "$B/images/testkern$fr_bits.elf" 2>&1); then
			fail "$fr_name: pack" "$fr_out"
			continue
		fi
		check "$fr_name: --info lists 3 frames" grep -q "^frames: *3, " <($BZPACK --info "$fr_img")
		fr_log=$FR_DIR/testkern$fr_bits-$fr_codec-3.log
		if boot "$fr_name: boots" 33 "$fr_img" "$fr_log" -t 120 -a "$FR_CMDLINE"; then
			fr_got=$(fr_report "$fr_log")
			if [ "$fr_got" != "3 1(one-cpu)" ]; then
				fail "$fr_name: boots" "report line says frames/cpus '$fr_got', not '3 1(one-cpu)'"
			else
				check "$fr_name: boots, frames=3 cpus=1(one-cpu), kernel runs" grep -q "^testkern: OK bits=$fr_bits$" "$fr_log"
			fi
		fi
		# The host's decode of the frames gives the kernel the one-stream image does.
		if [ "$fr_codec" = lz4 ] || [ "$fr_codec" = xz ]; then
			$BZPACK -c "$fr_codec" -o "$FR_DIR/one.img" "$B/images/testkern$fr_bits.elf" 2>/dev/null
			$BZPACK -x -o "$FR_DIR/one.elf" "$FR_DIR/one.img" 2>/dev/null
			$BZPACK -x -o "$FR_DIR/framed.elf" "$fr_img" 2>/dev/null
			check "$fr_name: --extract gives what one stream's does" cmp -s "$FR_DIR/one.elf" "$FR_DIR/framed.elf"
		fi
	done
done

# One frame is no frame table at all: the default image, byte for byte.
$BZPACK -c zstd -o "$FR_DIR/default.img" "$B/images/testkern64.elf"
for fr_n in 1 auto; do
	$BZPACK -c zstd --frames $fr_n -o "$FR_DIR/one-$fr_n.img" "$B/images/testkern64.elf"
	check "frames: --frames $fr_n on testkern64 is the default image" cmp -s "$FR_DIR/default.img" "$FR_DIR/one-$fr_n.img"
done
check "frames: packing in frames is reproducible" \
	cmp -s "$FR_DIR/testkern64-zstd-3.img" <($BZPACK -c zstd --frames 3 -o - "$B/images/testkern64.elf")

# In place: the payload moves behind the output's end and the frames are
# decoded there one after the other, in the order the packer simulated.
for fr_codec in lz4 gzip zstd; do
	fr_img=$FR_DIR/low-$fr_codec.img fr_log=$FR_DIR/low-$fr_codec.log
	fr_name="frames: testkern64-low $fr_codec in 3 frames, in place"
	$BZPACK -v -c $fr_codec --frames 3 -o "$fr_img" "$B/images/testkern64-low.elf" > "$fr_log.layout" ||
		{ fail "$fr_name" "pack failed"; continue; }
	check "$fr_name: -v says in place is serial" grep -q "in place: one after the other" "$fr_log.layout"
	boot "$fr_name: boots" 33 "$fr_img" "$fr_log" -t 120 -a "$FR_CMDLINE" || continue
	fr_move=$(report_field "$fr_log" move)
	if [ "${fr_move:-0}" -lt 1000 ]; then
		fail "$fr_name" "move=$fr_move: the payload was not moved"
	elif [ "$(fr_report "$fr_log")" != "3 1(in-place)" ]; then
		fail "$fr_name" "report line says frames/cpus '$(fr_report "$fr_log")'"
	else
		check "$fr_name: boots (move=$fr_move)" grep -q "^testkern: OK bits=64$" "$fr_log"
	fi
done

# -bcj: unfilter= stays the report line's last field.
fr_img=$FR_DIR/bcj.img fr_log=$FR_DIR/bcj.log
if $BZPACK -c lz4 --bcj --frames 2 -o "$fr_img" "$B/images/testkern64.elf" &&
	boot "frames: -bcj in 2 frames boots" 33 "$fr_img" "$fr_log" -t 120; then
	check "frames: -bcj in 2 frames: frames=2 cpus=1(one-cpu) before unfilter=, kernel runs" \
		grep -Eq "^bzpack: codec=lz4 .* frames=2 cpus=1\(one-cpu\) initrd=none unfilter=[0-9]+$" "$fr_log"
fi

# fr_edit IN OUT WHAT: copy IN to OUT, a 3-frame image, damaged:
#   flip       one byte in the middle of frame 1's input
#   overlap    frame 1 starts 16 bytes early, inside frame 0's input (its
#              size 16 more), and frame 0 ends there too; the table's
#              CRC32C (payload_crc) and header_crc recomputed, so that only
#              the tiling check can catch it (boot with -cpu max: the stub
#              then reads the CRC32C, not the XXH3 left stale)
fr_edit() {
	python3 - "$1" "$2" "$3" "$SETUP_HDR_setup_sects" "$SETUP_HDR_payload_offset" \
		"$BZPACK_HEADER_SIZE" "$BZHDR_payload_crc" "$BZHDR_header_crc" <<'EOF'
import struct, sys
sys.path.insert(0, "ci")
from checksums import crc32c
src, dst, what = sys.argv[1:4]
o_sects, o_poff, hsize, o_crc, o_hcrc = map(int, sys.argv[4:])
d = bytearray(open(src, "rb").read())
payload = (d[o_sects] + 1) * 512 + struct.unpack_from("<I", d, o_poff)[0]
hdr = payload - hsize
magic, count = struct.unpack_from("<II", d, payload)
assert magic == 0x534d5246 and count == 3, "not a 3-frame table"
def entry(i):                           # struct bzpack_frame: in_offset, in_size, ...
    return payload + 8 + 32 * i
in1, size1 = struct.unpack_from("<II", d, entry(1))
if what == "flip":
    d[payload + in1 + size1 // 2] ^= 0xff
else:
    struct.pack_into("<II", d, entry(1), in1 - 16, size1 + 16)
    struct.pack_into("<I", d, hdr + o_crc, crc32c(d[payload:payload + 8 + 32 * count]))
    struct.pack_into("<I", d, hdr + o_hcrc, crc32c(d[hdr:hdr + o_hcrc]))
open(dst, "wb").write(d)
EOF
}

for fr_bits in 32 64; do
	fr_src=$FR_DIR/testkern$fr_bits-lz4-3.img
	[ -s "$fr_src" ] || { fail "frames: damaged images ($fr_bits-bit)" "no 3-frame lz4 image"; continue; }
	for fr_what in flip overlap; do
		fr_img=$FR_DIR/$fr_what-$fr_bits.img fr_log=$FR_DIR/$fr_what-$fr_bits.log
		fr_name="frames: $fr_bits-bit, frame table $fr_what"
		[ $fr_what = flip ] && fr_name="frames: $fr_bits-bit, a damaged frame"
		if ! fr_out=$(fr_edit "$fr_src" "$fr_img" $fr_what 2>&1); then
			fail "$fr_name" "could not craft the image: $fr_out"
			continue
		fi
		if [ $fr_what = flip ]; then
			boot "$fr_name" 100 "$fr_img" "$fr_log" -t 60 || continue
			fr_no_kernel "$fr_name stops" "$fr_log" "frame checksum mismatch \(XXH3\)"
			fr_st=0; $BZPACK --info "$fr_img" > "$fr_log.info" 2>&1 || fr_st=$?
			check "$fr_name: --info exits 1 and names frame 1 (exit $fr_st)" \
				test $fr_st = 1 -a -n "$(grep 'frame 1: checksum mismatch' "$fr_log.info")"
		else
			boot "$fr_name" 100 "$fr_img" "$fr_log" -t 60 -c max || continue
			fr_no_kernel "$fr_name stops" "$fr_log" "frame table: frames overlap"
		fi
	done
done

# Usage: a count out of range, or --frames where nothing is packed.
for fr_args in "--frames 0 -o -" "--frames 65 -o -" "--frames x -o -" "--frames 2 --info" "--frames 2 -c auto -o -"; do
	fr_st=0
	# shellcheck disable=SC2086
	$BZPACK $fr_args "$B/images/testkern64.elf" > /dev/null 2>&1 || fr_st=$?
	check "frames: bzpack $fr_args is a usage error (exit $fr_st)" test $fr_st = 2
done
