# test-repack.sh - a repack of Debian's kernels is faithful: every
# setup_header field of our image equals Debian's vmlinuz's, or differs
# for a reason in ci/tests/repack-why.txt (ci/lib.sh: B, T, pass, fail, skip).  The
# field list comes from build/gen/bzpack_format.sh (SETUP_HDR_*), so a
# field added to include/bzpack_format.h is compared too; one that differs
# without a reason fails.  Writes $B/test/repack-header.md, which
# `make readme-repack` puts in the README.  Needs no QEMU; a few seconds
# with the pack cache, about a minute without.
RP_DIR=$T/repack
RP_TABLE=$T/repack-header.md
mkdir -p "$RP_DIR"
rm -f "$RP_TABLE"

# xloadflags bits Debian's may have and ours not: HANDOVER_32, 5LEVEL, 5LEVEL_ENABLED
RP_XLF_DROPPED=$((0x04 | 0x20 | 0x40))

if ! command -v python3 > /dev/null; then
	skip "repack: Debian's setup_header" "no python3"
	return 0 2>/dev/null || exit 0
fi
[ -s "$B/debian/amd64/vmlinuz" ] && [ -s "$B/debian/i386/vmlinuz" ] ||
	bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian-repack.log" 2>&1
rp_archs=""
for arch in amd64 i386; do
	deb=$B/debian/$arch/vmlinuz
	if [ ! -s "$deb" ]; then
		skip "repack: Debian's $arch setup_header" "could not be fetched: $(tail -n 1 "$T/fetch-debian-repack.log" 2>/dev/null)"
	elif ! pack_cached "$RP_DIR/$arch.img" "$deb" -q -c lz4 2> "$RP_DIR/$arch.err"; then
		fail "repack: pack Debian's $arch vmlinuz" "$(head -c 300 "$RP_DIR/$arch.err")"
	else
		rp_archs="$rp_archs $arch"
	fi
done

if [ -n "$rp_archs" ]; then
	# shellcheck disable=SC2086
	if rp_out=$(python3 - "$B/gen/bzpack_format.sh" ci/tests/repack-why.txt "$RP_XLF_DROPPED" "$RP_TABLE" "$B" $rp_archs <<'PY' 2>&1
import re, struct, sys
consts, why_path, dropped, table, B, *archs = sys.argv[1:]
dropped = int(dropped)
offs, end = {}, None
for line in open(consts):
    m = re.match(r"SETUP_HDR_(\w+)=(\d+)$", line.strip())
    if m:
        offs[m.group(1)] = int(m.group(2))
    m = re.match(r"SETUP_HEADER_END=(\d+)$", line.strip())
    if m:
        end = int(m.group(1))
assert end and len(offs) > 30, "no setup_header fields in %s" % consts
fields = sorted(offs, key=offs.get)
size = {f: (offs[fields[i + 1]] if i + 1 < len(fields) else end) - offs[f] for i, f in enumerate(fields)}
why = dict(l.rstrip("\n").split(": ", 1) for l in open(why_path) if not l.startswith("#"))
def read(path):
    d = open(path, "rb").read()
    return {f: int.from_bytes(d[offs[f]:offs[f] + size[f]], "little") for f in fields}
vals = {a: (read("%s/debian/%s/vmlinuz" % (B, a)), read("%s/test/repack/%s.img" % (B, a))) for a in archs}
bad, differing = [], []
for f in fields:
    diff = [a for a in archs if vals[a][0][f] != vals[a][1][f]]
    if not diff:
        continue
    differing.append(f)
    if f not in why:
        bad.append("%s differs (%s) with no reason" % (f, ", ".join(
            "%s: Debian 0x%x, ours 0x%x" % (a, vals[a][0][f], vals[a][1][f]) for a in diff)))
    if f == "xloadflags":
        for a in diff:
            deb, ours = vals[a][0][f], vals[a][1][f]
            if (deb & ~ours) & ~dropped or (ours & ~deb):
                bad.append("xloadflags %s: Debian 0x%x, ours 0x%x: more than the listed bits differ" % (a, deb, ours))
equal = [f for f in fields if f not in differing]
with open(table, "w") as t:
    t.write("| field | %s | why it differs |\n" % " | ".join("Debian %s | ours %s" % (a, a) for a in archs))
    t.write("|---|%s---|\n" % ("---:|---:|" * len(archs)))
    for f in differing:
        cells = " | ".join("0x%x | 0x%x" % (vals[a][0][f], vals[a][1][f]) for a in archs)
        t.write("| `%s` | %s | %s |\n" % (f, cells, why.get(f, "**no reason**")))
    t.write("\nEqual in both (%d of %d fields, carried over or set alike): %s.\n" % (
        len(equal), len(fields), ", ".join("`%s`" % f for f in equal)))
for a in archs:
    deb, ours = vals[a]
    for f in ("root_flags", "vid_mode", "root_dev", "cmdline_size", "initrd_addr_max"):
        if deb[f] != ours[f]:
            bad.append("%s %s: Debian 0x%x, ours 0x%x (carried fields must match)" % (a, f, deb[f], ours[f]))
if bad:
    sys.exit("\n".join(bad))
print("%d fields, %d differ (each with its reason), %d equal; root_flags %s" % (
    len(fields), len(differing), len(equal), ", ".join("%s %d" % (a, vals[a][1]["root_flags"]) for a in archs)))
PY
	); then
		pass "repack: Debian's setup_header field by field ($rp_archs): $rp_out"
	else
		fail "repack: Debian's setup_header field by field ($rp_archs)" "$(tr '\n' '|' <<<"$rp_out" | cut -c1-800)"
	fi
fi

# A repack of our own image changes nothing.
if [ -s "$RP_DIR/amd64.img" ]; then
	name="repack: our image of Debian's amd64 kernel packs again to the same bytes"
	if ! pack_cached "$RP_DIR/again.img" "$RP_DIR/amd64.img" -q -c lz4 2> "$RP_DIR/again.err"; then
		fail "$name" "$(head -c 300 "$RP_DIR/again.err")"
	elif ! cmp -s "$RP_DIR/again.img" "$RP_DIR/amd64.img"; then
		fail "$name" "the images differ"
	else
		pass "$name"
	fi
	rm -f "$RP_DIR/again.img"
fi
