# test-info.sh - bzpack --info and --info --json (ci/lib.sh: B, T, pass,
# fail, skip).  For our images, an ELF kernel and Debian's kernels: the
# JSON parses (python3's json, no key twice), its "lines" give back the
# text form line for line, and its typed fields agree with the setup
# header's bytes read here.  A damaged image: every field still there, each
# failed check listed, exit 1; every loadflags and xloadflags bit named.
# Needs no QEMU; a few seconds (Debian's kernels are decompressed).
INFO_DIR=$T/info
rm -rf "$INFO_DIR"
mkdir -p "$INFO_DIR"

# info_json_check NAME FILE TEXT JSON WANT_OK [FAILED_CHECK...]: python's verdict
info_json_check() {
	python3 - "$@" <<'PY'
import struct, sys
sys.path.insert(0, "ci/tests")
import strictjson
name, path, text_path, json_path, want_ok = sys.argv[1:6]
want_failed = sys.argv[6:]
try:
    d = strictjson.load(json_path)
except ValueError as e:
    sys.exit("does not parse: %s" % e)
assert d["bzpack_info"] == 1 and d["file"] == path, "header"
assert d["ok"] == (want_ok == "1"), "ok is %s" % d["ok"]
assert d["failed_checks"] == want_failed, "failed_checks %s" % d["failed_checks"]
# The text form again from the JSON lines: every line is in both.
text = []
for l in d["lines"]:
    first, *rest = l["text"].split("\n")
    text.append(("%-15s %s" % (l["label"] + ":", first)).rstrip() if l["label"] else first)
    text += [" " * 16 + r for r in rest]
got = [t.rstrip() for t in open(text_path).read().splitlines()]
assert got == text, "text and JSON lines differ:\n%s\n%s" % (got, text)
f = d["fields"]
assert f["file_size"] == len(open(path, "rb").read()), "file_size"
img = open(path, "rb").read()
if img[0x202:0x206] == b"HdrS":
    sects = img[0x1f1] or 4
    assert f["setup_sects"] == sects and f["setup_size"] == (sects + 1) * 512, "setup_sects"
    assert f["code32_start"] == struct.unpack_from("<I", img, 0x214)[0], "code32_start"
    assert f["loadflags"] == img[0x211], "loadflags"
    assert f["xloadflags"] == struct.unpack_from("<H", img, 0x236)[0], "xloadflags"
    assert f["init_size"] == struct.unpack_from("<I", img, 0x260)[0], "init_size"
    assert f["pref_address"] == struct.unpack_from("<Q", img, 0x258)[0], "pref_address"
    assert f["payload_length"] == struct.unpack_from("<I", img, 0x24c)[0], "payload_length"
    names = {0: "LOADED_HIGH", 1: "KASLR_FLAG", 5: "QUIET_FLAG", 6: "KEEP_SEGMENTS", 7: "CAN_USE_HEAP"}
    want = " ".join(names.get(b, "bit%d" % b) for b in range(8) if img[0x211] >> b & 1)
    assert f["loadflags_names"] == want, "loadflags_names %r, expected %r" % (f["loadflags_names"], want)
    x = f["xloadflags"]
    assert len(f["xloadflags_names"].split()) == bin(x).count("1"), "xloadflags_names"
    assert all(n.startswith("XLF_") for n in f["xloadflags_names"].split() if x < 256), "an xloadflags bit unnamed"
print(len(d["lines"]), "lines,", len(f), "fields")
PY
}

# info_case NAME FILE WANT_STATUS [FAILED_CHECK...]
info_case() {
	local name=$1 file=$2 want=$3 status jstatus why
	shift 3
	"$BZPACK" --info "$file" > "$INFO_DIR/text" 2> "$INFO_DIR/err"
	status=$?
	"$BZPACK" --info --json "$file" > "$INFO_DIR/json" 2> "$INFO_DIR/jerr"
	jstatus=$?
	if [ $status -ne "$want" ] || [ $jstatus -ne "$want" ]; then
		fail "$name" "exit $status (text), $jstatus (json), expected $want: $(head -c 300 "$INFO_DIR/err" | tr '\n' '|')"
	elif ! cmp -s "$INFO_DIR/err" "$INFO_DIR/jerr"; then
		fail "$name" "stderr differs between text and JSON"
	elif [ "$want" -ne 0 ] && { [ "$(wc -l < "$INFO_DIR/err")" -ne 1 ] ||
		[ "$(cat "$INFO_DIR/err")" != "bzpack: $file: $1" ]; }; then
		fail "$name" "stderr is not one line naming the first failed check: $(head -c 300 "$INFO_DIR/err" | tr '\n' '|')"
	elif ! why=$(info_json_check "$name" "$file" "$INFO_DIR/text" "$INFO_DIR/json" "$([ "$want" -eq 0 ] && echo 1 || echo 0)" "$@" 2>&1); then
		fail "$name" "$(tail -n 5 <<<"$why" | tr '\n' '|' | cut -c1-600)"
	else
		pass "$name ($why)"
	fi
}

if ! command -v python3 > /dev/null; then
	skip "--info --json" "no python3 to parse it"
	return 0 2>/dev/null || exit 0
fi
for bits in 64 32; do
	img=$INFO_DIR/ours$bits.img
	if ! "$BZPACK" -q -o "$img" "$B/images/testkern$bits-relocs.elf" 2> "$INFO_DIR/err"; then
		fail "--info: pack testkern$bits-relocs" "$(head -c 300 "$INFO_DIR/err")"
		continue
	fi
	info_case "--info --json: our $bits-bit image" "$img" 0
done
info_case "--info --json: an ELF kernel" "$B/images/testkern64.elf" 0
for arch in amd64 i386; do
	deb=$B/debian/$arch/vmlinuz
	[ -s "$deb" ] || bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian-info.log" 2>&1
	if [ -s "$deb" ]; then
		info_case "--info --json: Debian's $arch vmlinuz" "$deb" 0
	else
		skip "--info --json: Debian's $arch vmlinuz" "could not be fetched: $(tail -n 1 "$T/fetch-debian-info.log")"
	fi
done

# Damaged: the fields still there, every failed check, exit 1.
img=$INFO_DIR/ours64.img
if [ -s "$img" ]; then
	# shellcheck source=/dev/null
	. "$B/gen/bzpack_format.sh"
	so=$(( ($(od -An -tu1 -j $((SETUP_HDR_setup_sects)) -N1 "$img") + 1) * 512 ))
	po=$(od -An -tu4 -j $((SETUP_HDR_payload_offset)) -N4 "$img" | tr -d ' ')
	hdr=$((so + po - BZPACK_HEADER_SIZE))
	flip() { # flip FILE OFFSET: invert one byte
		local b
		b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
		printf "$(printf '\\%03o' $((b ^ 0xff)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
	}
	cp "$img" "$INFO_DIR/payload.img"; flip "$INFO_DIR/payload.img" $((so + po + 200))
	info_case "--info --json: payload damaged: both checksums listed" "$INFO_DIR/payload.img" 1 \
		"bzpack payload: checksum mismatch" "bzpack payload: checksum mismatch (XXH3)"
	cp "$img" "$INFO_DIR/two.img"
	flip "$INFO_DIR/two.img" $((hdr + BZHDR_out_size + 1))
	flip "$INFO_DIR/two.img" $((SETUP_HDR_init_size + 1))
	info_case "--info --json: bzpack header and setup header damaged: both listed" "$INFO_DIR/two.img" 1 \
		"bzpack header: checksum mismatch" "setup header fields changed since packing (CRC32C)"
	# Every flag bit set: loadflags is the loader's (no CRC), xloadflags ours.
	cp "$img" "$INFO_DIR/flags.img"
	printf '\377' | dd of="$INFO_DIR/flags.img" bs=1 seek=$((0x211)) conv=notrunc status=none
	printf '\377' | dd of="$INFO_DIR/flags.img" bs=1 seek=$((0x236)) conv=notrunc status=none
	info_case "--info --json: every loadflags and xloadflags bit named" "$INFO_DIR/flags.img" 1 \
		"setup header fields changed since packing (CRC32C)"
	if ! grep -q "^loadflags: *0xff (LOADED_HIGH KASLR_FLAG bit2 bit3 bit4 QUIET_FLAG KEEP_SEGMENTS CAN_USE_HEAP), xloadflags 0xff (XLF_KERNEL_64 XLF_CAN_BE_LOADED_ABOVE_4G XLF_EFI_HANDOVER_32 XLF_EFI_HANDOVER_64 XLF_EFI_KEXEC XLF_5LEVEL XLF_5LEVEL_ENABLED XLF_MEM_ENCRYPTION)$" "$INFO_DIR/text"; then
		fail "--info: flag names" "$(grep '^loadflags' "$INFO_DIR/text")"
	else
		pass "--info: flag names ($(grep -c XLF_ "$INFO_DIR/text") line)"
	fi
fi
