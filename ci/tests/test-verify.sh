# test-verify.sh - the payload check on both of the stub's paths.  Sourced
# by ci/test.sh (uses B, T, BZPACK, pass, fail, check, boot from
# ci/lib.sh).
#
# The header carries two checksums of the payload (include/bzpack_format.h):
# payload_crc (CRC32C), which the stub checks with the crc32 instruction
# when CPUID says SSE4.2 (QEMU -cpu max), and payload_xxh3 (XXH3-64),
# which it checks otherwise (QEMU's default qemu64 CPU).  For lz4 images of
# both test kernels, on both CPUs:
#   - the image boots and the report line's check= names the path taken;
#   - a flipped payload byte (the first, one in the first 1 KiB block, the
#     middle, one in the last 64 bytes, which XXH3 takes as a stripe of
#     their own, and the last) stops the boot with the path's own
#     "payload checksum mismatch (...)";
#   - one checksum damaged and header_crc recomputed over it: the path that
#     reads that checksum refuses, the other boots.  So each path checks
#     the checksum it claims, and the other stays unread there.
# And --info (--json) shows both checksums, and names a damaged XXH3.

VER_DIR=$T/verify
VER_GEN=$B/gen/bzpack_format.sh
mkdir -p "$VER_DIR"
# shellcheck source=/dev/null
. "$VER_GEN"

# ver_edit IN OUT WHAT: copy IN to OUT, damaged: flip:N (byte N of the
# payload ^= 0x01; N may be "mid", "last" or "last-N"), or crc / xxh3 (that checksum's first
# byte ^= 0x01, then header_crc recomputed, so only the checksum is wrong).
ver_edit() {
	python3 - "$1" "$2" "$3" "$SETUP_HDR_setup_sects" "$SETUP_HDR_payload_offset" "$SETUP_HDR_payload_length" \
		"$BZPACK_HEADER_SIZE" "$BZHDR_payload_crc" "$BZHDR_payload_xxh3" "$BZHDR_header_crc" <<'EOF'
import struct, sys
sys.path.insert(0, "ci")
from checksums import crc32c
src, dst, what = sys.argv[1:4]
o_sects, o_poff, o_plen, hsize, o_crc, o_xxh, o_hcrc = map(int, sys.argv[4:])
d = bytearray(open(src, "rb").read())
payload = (d[o_sects] + 1) * 512 + struct.unpack_from("<I", d, o_poff)[0]
plen = struct.unpack_from("<I", d, o_plen)[0]
hdr = payload - hsize
if what.startswith("flip:"):
    at = what[5:]
    n = plen // 2 if at == "mid" else plen - 1 + int(at[4:] or 0) if at.startswith("last") else int(at)
    d[payload + n] ^= 0x01
else:
    d[hdr + (o_crc if what == "crc" else o_xxh)] ^= 0x01
    struct.pack_into("<I", d, hdr + o_hcrc, crc32c(d[hdr:hdr + o_hcrc]))
open(dst, "wb").write(d)
EOF
}

# ver_boot NAME IMAGE CPU WANT-STATUS WANT-LINE: boot (CPU "" = QEMU's
# default), expect the status and a serial line matching WANT-LINE
ver_boot() {
	local name=$1 img=$2 cpu=$3 status=$4 want=$5 log=$VER_DIR/boot.log
	boot "$name" "$status" "$img" "$log" -d -t 60 ${cpu:+-c "$cpu"} || return 1
	if tr -d '\r' < "$log" | grep -aEq "$want"; then
		pass "$name"
	else
		fail "$name" "no line matching '$want'; serial: $(tr '\r\n' '||' < "$log" | cut -c1-300)"
	fi
}

for ver_bits in 32 64; do
	ver_img=$VER_DIR/testkern$ver_bits-lz4.img
	if ! ver_out=$($BZPACK -c lz4 -o "$ver_img" "$B/images/testkern$ver_bits.elf" 2>&1); then
		fail "verify: pack testkern$ver_bits lz4" "$ver_out"
		continue
	fi
	for ver_cpu in "" max; do
		if [ -z "$ver_cpu" ]; then
			ver_check=xxh3 ver_name=XXH3 ver_mine=xxh3 ver_other=crc
		else
			ver_check=crc32c-hw ver_name=CRC32C ver_mine=crc ver_other=xxh3
		fi
		ver_tag="verify testkern$ver_bits -cpu ${ver_cpu:-default}"
		ver_boot "$ver_tag: boots, check=$ver_check" "$ver_img" "$ver_cpu" 33 \
			"^bzpack: codec=lz4 .* verify=[0-9]+ .* check=$ver_check( |$)"
		for ver_at in 0 700 mid last-40 last; do
			ver_edit "$ver_img" "$VER_DIR/bad.img" "flip:$ver_at" &&
				ver_boot "$ver_tag: payload byte $ver_at flipped: refused" "$VER_DIR/bad.img" "$ver_cpu" 100 \
					"^bzpack: error: payload checksum mismatch \\($ver_name\\)"
		done
		ver_edit "$ver_img" "$VER_DIR/bad.img" "$ver_mine" &&
			ver_boot "$ver_tag: its own checksum damaged (header resealed): refused" "$VER_DIR/bad.img" \
				"$ver_cpu" 100 "^bzpack: error: payload checksum mismatch \\($ver_name\\)"
		ver_edit "$ver_img" "$VER_DIR/bad.img" "$ver_other" &&
			ver_boot "$ver_tag: the other checksum damaged (header resealed): not read, boots" \
				"$VER_DIR/bad.img" "$ver_cpu" 33 "^testkern: OK"
	done
done

# --info: both checksums, and which one a damaged image fails.
ver_img=$VER_DIR/testkern64-lz4.img
if [ -s "$ver_img" ]; then
	ver_json=$($BZPACK --info --json "$ver_img" 2>&1)
	check "verify: --info --json shows payload_xxh3, checked ok" \
		python3 -c 'import json, sys; c = json.loads(sys.argv[1])["fields"]
sys.exit(not (c["payload_xxh3_check"] == "ok" and c["payload_crc_check"] == "ok" and c["payload_xxh3"] > 0))' "$ver_json"
	ver_edit "$ver_img" "$VER_DIR/bad.img" xxh3
	ver_out=$($BZPACK --info "$VER_DIR/bad.img" 2>&1)
	ver_st=$?
	check "verify: --info on a damaged payload_xxh3: exit 1, names it (exit $ver_st)" \
		eval '[ "$ver_st" = 1 ] && grep -q "checksum mismatch (XXH3)" <<< "$ver_out" && grep -q "XXH3 payload 0x[0-9a-f]* MISMATCH" <<< "$ver_out"'
else
	fail "verify: --info" "no testkern64 lz4 image to read"
fi
