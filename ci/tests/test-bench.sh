# test-bench.sh - the timing gate fails closed, and README's table is the
# baseline's.  Sourced by ci/test.sh (bash, ci/lib.sh: B, T, pass, fail).
#
# 1. The seed's regression: stubs built -fno-builtin (constant-size memcpy
#    no longer inlined) make bench-check fail and name the lz4 cells.  This
#    is the one check that builds and boots (build/regress).
# 2. The gate itself (`bzpack bench --check`), on recorded results: a
#    saved file (the format --save writes, as the baseline is) equal to
#    ci/benchmarks/baseline.json, and each check breaks one thing in a copy
#    of it, or of the baseline, and runs `bench.sh verify` (`bzpack bench
#    --compare`): no QEMU, a second or so in all.
# 3. README's generated timing table agrees with ci/benchmarks/baseline.json.

tb_dir=$T/bench
mkdir -p "$tb_dir"

# --- 1. -fno-builtin
tb_log=$T/bench-regress.log
# Only the cells it must name: lz4 on the test kernels (a partial check
# fails anyway, for the cells it leaves out; what counts is that it names
# these two as worse).  The whole matrix, OVMF and Debian's kernels
# included, would double bench-check's minutes in CI for nothing more.
# $B/regress is shared with test-bench-cmd.sh: one make in it at a time.
mkdir -p "$B/regress"
# Only what the check runs is built there (the packer with its stubs and
# the two test kernels), not all of `make all`'s host tests again.
if ! flock "$B/regress.lock" make --no-print-directory B=$B/regress EXTRA_STUB_CFLAGS=-fno-builtin \
	$B/regress/bzpack $B/regress/images/testkern32.elf $B/regress/images/testkern64.elf > "$tb_log" 2>&1; then
	fail "bench-check catches -fno-builtin" "the -fno-builtin build failed: $(tail -n 3 "$tb_log" | tr '\n' ' ')"
elif env -u CODECS B=$B/regress CODECS=lz4 BENCH_PAYLOADS="testkern32 testkern64" \
	bash ci/benchmarks/bench.sh check >> "$tb_log" 2>&1; then
	fail "bench-check catches -fno-builtin" "it passed: $(tail -n 1 "$tb_log")"
else
	tb_missing=""
	for tb_cell in testkern32/lz4/32 testkern64/lz4/64; do
		grep -q "^bzpack: ci/benchmarks/baseline.json: $tb_cell: cycles [0-9]*, baseline" "$tb_log" || tb_missing="$tb_missing $tb_cell"
	done
	tb_worse=$(grep -E '^bzpack: .*: cycles [0-9]+, baseline' "$tb_log" | cut -d' ' -f3 | tr -d : | tr '\n' ' ')
	if [ -n "$tb_missing" ]; then
		fail "bench-check catches -fno-builtin" "did not name$tb_missing: $(grep -E '^(bzpack|bench)' "$tb_log" | tr '\n' '|' | cut -c1-400)"
	else
		pass "bench-check catches -fno-builtin (cycles worse: $tb_worse)"
	fi
fi

# --- 2. the gate on recorded results

# tb_edit FILE PYTHON: run the Python statements with FILE's JSON as d and
# write d back (as one line: the gate must not care about layout).
tb_edit() {
	python3 -c 'import json, re, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"))' "$1" "$2"
}

# tb_gate NAME WANT SAVED BASELINE REGEX...: bench.sh verify must exit
# WANT (0 pass, 1 fail) and print a line matching each REGEX (grep -E).
tb_gate() {
	local name=$1 want=$2 saved=$3 baseline=$4 out=$tb_dir/verify.out got re; shift 4
	B=$B bash ci/benchmarks/bench.sh verify "$saved" "$baseline" > "$out" 2>&1
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name" "verify exit $got, expected $want: $(grep -E '^(bzpack|skip|better)' "$out" | tr '\n' '|' | cut -c1-400)"
		return
	fi
	for re in "$@"; do
		if ! grep -Eq -- "$re" "$out"; then
			fail "$name" "no line matching '$re': $(grep -E '^(bzpack|skip|better|info)' "$out" | tr '\n' '|' | cut -c1-400)"
			return
		fi
	done
	pass "$name"
}

tb_base=$tb_dir/baseline.json tb_meas=$tb_dir/saved.json tb_b=ci/benchmarks/baseline.json
tb_fresh() {   # a saved file equal to the baseline, and a copy of the baseline
	cp "$tb_b" "$tb_meas" && cp "$tb_b" "$tb_base"
}
tb_count() {   # tb_count PYTHON-CONDITION-ON-k: baseline cells whose key k meets it
	python3 -c 'import json, sys; print(sum(1 for k in json.load(open(sys.argv[1]))["cells"] if eval(sys.argv[2])))' "$tb_b" "$1"
}
tb_cells=$(tb_count True)
tb_ovmf=$(tb_count 'k.endswith("/ovmf")')
tb_i386=$(tb_count 'k.startswith("debian-i386/")')
tb_ok="checked $tb_cells of $tb_cells baseline cells .*: ok \(0 failed, 0 not comparable, 0 OVMF cells not booted\)"
if [ "$tb_ovmf" -lt 2 ] || [ "$tb_i386" -lt 2 ]; then
	fail "bench gate: the baseline" "$tb_b has $tb_ovmf OVMF cells and $tb_i386 debian-i386 cells"
fi

tb_fresh
tb_gate "bench gate: results equal to the baseline pass" 0 "$tb_meas" "$tb_base" "$tb_ok"

tb_fresh
tb_edit "$tb_base" 'del d["cells"]["testkern64/lz4/64"]'
tb_gate "bench gate: a cell missing from the baseline fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: testkern64/lz4/64: measured but not in the baseline' 'FAILED \(1 failed'

tb_fresh
tb_edit "$tb_meas" 'del d["cells"]["testkern32/none/32"]'
tb_gate "bench gate: a baseline cell not measured fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: testkern32/none/32: in the baseline but not measured' 'FAILED \(1 failed'

tb_fresh
tb_edit "$tb_meas" 'd["cells"]["testkern64/newcodec/64"] = dict(d["cells"]["testkern64/lz4/64"])'
tb_gate "bench gate: an extra cell, not in the baseline, fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: testkern64/newcodec/64: measured but not in the baseline'

tb_fresh
tb_edit "$tb_meas" 'c = d["cells"]["testkern32/lz4/32"]; c["cycles"] = c["cycles"] * 103 // 100'
tb_gate "bench gate: 3% more cycles fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: testkern32/lz4/32: cycles [0-9]+, baseline [0-9]+ \(\+3\.00%' 'FAILED \(1 failed'

tb_fresh
tb_edit "$tb_meas" 'c = d["cells"]["testkern64/zstd/64"]; c["total"] = c["total"] * 103 // 100'
tb_gate "bench gate: a 3% greater total fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: testkern64/zstd/64: total [0-9]+, baseline [0-9]+ \(\+3\.00%'

tb_fresh
tb_edit "$tb_meas" 'c = d["cells"]["debian-amd64/xz/64"]; c["image_bytes"] = c["image_bytes"] * 103 // 100'
tb_gate "bench gate: a 3% bigger image fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: debian-amd64/xz/64: image bytes [0-9]+, baseline [0-9]+ \(\+3\.00%'

tb_fresh
tb_edit "$tb_meas" 'c = d["cells"]["testkern32/lz4/32"]; c["total"] = c["total"] * 97 // 100'
tb_gate "bench gate: a 3% smaller total passes and says so" 0 "$tb_meas" "$tb_base" \
	'^better +testkern32/lz4/32 total: [0-9]+, baseline [0-9]+ \(-3\.00%\)' "$tb_ok"

# Another build of a Linux kernel (Debian's next package): not
# comparable, named and counted, every other cell still checked.
tb_fresh
tb_edit "$tb_meas" 'for k, c in d["cells"].items():
    if k.startswith("debian-i386/"): c["kernel"] = "Linux 9.9.9-1-686 (a later build)"'
tb_gate "bench gate: another Linux build is not comparable, the rest checked" 0 "$tb_meas" "$tb_base" \
	'^skip +debian-i386/lz4/32: not comparable: the baseline is for Linux 6\..*, this is Linux 9\.9\.9-1-686' \
	"checked $((tb_cells - tb_i386)) of $tb_cells baseline cells .*: ok \(0 failed, $tb_i386 not comparable"

# The same Linux release built again (" #N" and the date differ: a
# kernel tree's CI, each commit) is the same kernel: compared, and 3 %
# more cycles there fails.
tb_fresh
tb_edit "$tb_meas" 'for k, c in d["cells"].items():
    if k.startswith("debian-i386/"):
        c["kernel"] = re.sub(r" #.*", " #99 Thu Jan  1 00:00:00 UTC 2099", c["kernel"])
        if k == "debian-i386/lz4/32": c["cycles"] = c["cycles"] * 103 // 100'
tb_gate "bench gate: the same Linux release built again is compared" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: debian-i386/lz4/32: cycles [0-9]+, baseline [0-9]+ \(\+3'

# A gate that could compare no cell has checked nothing: it fails.
tb_fresh
tb_edit "$tb_meas" 'd["cells"] = {k: c for k, c in d["cells"].items() if k.startswith("debian-i386/")}
for c in d["cells"].values(): c["kernel"] = "Linux 9.9.9-1-686 (a later build)"'
tb_edit "$tb_base" 'd["cells"] = {k: c for k, c in d["cells"].items() if k.startswith("debian-i386/")}'
tb_gate "bench gate: comparing no cell at all fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: no cell could be compared with the baseline'

# A test kernel is built here: it may not change identity.
tb_fresh
tb_edit "$tb_meas" 'd["cells"]["testkern64/lz4/64"]["kernel"] = "testkern99"'
tb_gate "bench gate: a kernel of ours that is another fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: testkern64/lz4/64: the baseline is for kernel testkern64, this is testkern99'

# OVMF cells (PAYLOAD/CODEC/64/ovmf, the EFI entry).
tb_fresh
tb_edit "$tb_meas" 'del d["cells"]["testkern64/lz4/64/ovmf"]'
tb_gate "bench gate: a missing OVMF cell fails (OVMF booted)" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: testkern64/lz4/64/ovmf: in the baseline but not measured' 'FAILED \(1 failed'

tb_fresh
tb_edit "$tb_meas" 'd["cells"] = {k: c for k, c in d["cells"].items() if not k.endswith("/ovmf")}'
tb_gate "bench gate: no OVMF booted is a counted skip, the rest checked" 0 "$tb_meas" "$tb_base" \
	'^skip +testkern64/lz4/64/ovmf: not booted: no --ovmf' "^skip: bench-check: $tb_ovmf OVMF cells: no --ovmf" \
	"checked $((tb_cells - tb_ovmf)) of $tb_cells baseline cells .*: ok \(0 failed, 0 not comparable, $tb_ovmf OVMF cells not booted\)"

tb_fresh
tb_edit "$tb_base" 'c = d["cells"]["testkern64/lz4/64/ovmf"]; c["cycles"] = c["cycles"] * 9 // 10'
tb_gate "bench gate: an OVMF cell 10% better in the baseline fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: testkern64/lz4/64/ovmf: cycles [0-9]+, baseline [0-9]+ \(\+11\.1[0-9]%'

# total under OVMF counts the firmware's boot services calls: shown, not gated.
tb_fresh
tb_edit "$tb_meas" 'c = d["cells"]["testkern64/lz4/64/ovmf"]; c["total"] = c["total"] * 2'
tb_gate "bench gate: an OVMF cell's total is shown, not gated" 0 "$tb_meas" "$tb_base" \
	'^info +testkern64/lz4/64/ovmf total: [0-9]+, baseline [0-9]+ \(\+100\.00%\): not gated'

# The baseline's layout does not matter; what it says does.
tb_fresh
python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$tb_b" > "$tb_base"
python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), indent=7, sort_keys=True))' "$tb_b" > "$tb_base.2"
tb_gate "bench gate: the baseline on one line passes" 0 "$tb_meas" "$tb_base" "$tb_ok"
tb_gate "bench gate: the baseline re-indented, keys sorted, passes" 0 "$tb_meas" "$tb_base.2" "$tb_ok"

tb_fresh
head -c -20 "$tb_b" > "$tb_base"
tb_gate "bench gate: an unparseable baseline fails" 1 "$tb_meas" "$tb_base" \
	"^bzpack: $tb_base: not a bzpack bench baseline: "
[ "$(wc -l < "$tb_dir/verify.out")" -eq 1 ] || fail "bench gate: an unparseable baseline fails in one line" "$(tr '\n' '|' < "$tb_dir/verify.out")"

tb_fresh
head -c -20 "$tb_b" > "$tb_meas"
tb_gate "bench gate: unparseable results fail" 1 "$tb_meas" "$tb_base" \
	"^bzpack: $tb_meas: not a bzpack bench baseline: "

tb_fresh
sed 's/^\( *"testkern64\/lz4\/64": .*[^,]\),\?$/\1,\n\1,/' "$tb_b" > "$tb_base"
tb_gate "bench gate: a baseline with a cell twice fails" 1 "$tb_meas" "$tb_base" \
	"^bzpack: .*: cell testkern64/lz4/64 given twice"

tb_fresh
tb_edit "$tb_base" 'd["cells"]["testkern32/none/32"]["cycles"] = str(d["cells"]["testkern32/none/32"]["cycles"])'
tb_gate "bench gate: a baseline number as a string fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: not a bzpack bench baseline: expected a positive integer'

tb_fresh
tb_edit "$tb_base" 'del d["cells"]["testkern32/none/32"]["total"]'
tb_gate "bench gate: a baseline cell without total fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: not a bzpack bench baseline: cell testkern32/none/32 lacks "total"'

tb_fresh
tb_edit "$tb_base" 'd["bzpack_bench_baseline"] = 1'
tb_gate "bench gate: a baseline of another format version fails" 1 "$tb_meas" "$tb_base" \
	'^bzpack: .*: baseline version 1, this bzpack reads 2'

# The codec list is the packer's: a packer whose --list-codecs fails, or
# lists nothing, stops the check before anything is measured.
tb_fake=$tb_dir/fake-build
mkdir -p "$tb_fake"
for tb_case in "fails:echo 'bzpack: unknown option' >&2; exit 2" "lists no codecs:exit 0" "prints a help text:echo 'usage: bzpack [-c CODEC]'"; do
	printf '#!/bin/sh\n%s\n' "${tb_case#*:}" > "$tb_fake/bzpack"
	chmod +x "$tb_fake/bzpack"
	if env -u CODECS B="$tb_fake" bash ci/benchmarks/bench.sh check > "$tb_dir/codecs.out" 2>&1; then
		fail "bench gate: stops when --list-codecs ${tb_case%%:*}" "the check passed"
	elif ! grep -q "^bench: '$tb_fake/bzpack --list-codecs' " "$tb_dir/codecs.out" || grep -q '^bench: [a-z0-9]*/' "$tb_dir/codecs.out"; then
		fail "bench gate: stops when --list-codecs ${tb_case%%:*}" "$(tr '\n' '|' < "$tb_dir/codecs.out" | cut -c1-300)"
	else
		pass "bench gate: stops when --list-codecs ${tb_case%%:*}"
	fi
done

# --- 3. README's table is the baseline's

tb_readme() {   # tb_readme NAME WANT README REGEX
	local out=$tb_dir/readme.out got
	bash ci/benchmarks/bench.sh readme-check "$3" "$tb_b" > "$out" 2>&1
	got=$?
	if [ "$got" -ne "$2" ]; then
		fail "$1" "readme-check exit $got, expected $2: $(tr '\n' '|' < "$out" | cut -c1-400)"
	elif ! grep -Eq "$4" "$out"; then
		fail "$1" "no line matching '$4': $(tr '\n' '|' < "$out" | cut -c1-400)"
	else
		pass "$1"
	fi
}

tb_ours=$(tb_count 'not k.endswith("/linux")')
tb_readme "README timing table matches ci/benchmarks/baseline.json" 0 README.md "^readme-check: ok: $tb_ours README rows"

# One row's cycles off by one thousand.
python3 - README.md "$tb_dir/README.cycles" <<'EOF'
import json, sys
cycles = json.load(open("ci/benchmarks/baseline.json"))["cells"]["testkern64/lz4/64"]["cycles"]
out = []
for line in open(sys.argv[1]).read().split("\n"):
    if line.startswith("| lz4 | 64 | testkern64 | bios |"):
        line = line.replace(" %s " % format(cycles, ","), " %s " % format(cycles + 1000, ","))
    out.append(line)
open(sys.argv[2], "w").write("\n".join(out))
EOF
tb_readme "README timing table: a row with other cycles fails" 1 "$tb_dir/README.cycles" \
	'^readme-check: testkern64/lz4/64: README icount cycles'

grep -v '^| none | 32 | testkern32 |' README.md > "$tb_dir/README.row"
tb_readme "README timing table: a baseline cell without a row fails" 1 "$tb_dir/README.row" \
	'^readme-check: testkern32/none/32: in ci/benchmarks/baseline.json, no README row'

# The renderer and the one README section rewriter: `bzpack bench --json`
# results made from the baseline, rendered into a copy of README.md, read
# back as the baseline's cells, OVMF rows included; and readme-table.sh
# --check tells that table from another.
python3 - "$tb_b" "$tb_dir/results.json" <<'EOF'
import json, sys
cells = {}
for k, c in json.load(open(sys.argv[1]))["cells"].items():
    parts = k.split("/")
    if parts[-1] == "linux":
        continue
    kernel, codec, bits = parts[0], parts[1], int(parts[2])
    cells[k] = {"kernel": kernel, "codec": codec, "bits": bits, "loader": parts[3] if len(parts) > 3 else "bios",
                "out_bytes": 2000, "cycles": c["cycles"], "total": c["total"],
                "report": "bzpack: codec=%s in=1000 out=2000 cycles=1 total=1 bits=%d" % (codec, bits),
                "wall": {"method": None}}
json.dump({"bzpack_bench": 1, "cells": cells}, open(sys.argv[2], "w"))
EOF
cp README.md "$tb_dir/README.ovmf"
python3 ci/benchmarks/benchjson.py readme-table "$tb_dir/results.json" debian-i386=linux-image-x > "$tb_dir/table.md"
if ! bash ci/readme-table.sh --readme "$tb_dir/README.ovmf" bench-table "$tb_dir/table.md" > "$tb_dir/readme.out" 2>&1; then
	fail "README timing table rendered" "$(tr '\n' '|' < "$tb_dir/readme.out")"
elif ! bash ci/benchmarks/bench.sh readme-check "$tb_dir/README.ovmf" "$tb_b" > "$tb_dir/readme.out" 2>&1 ||
	! grep -q "^readme-check: ok: $tb_ours README rows" "$tb_dir/readme.out"; then
	fail "README timing table rendered" "$(tr '\n' '|' < "$tb_dir/readme.out" | cut -c1-300)"
elif ! grep -q '^| lz4 | 64 | testkern64 | ovmf | 1,000 | 2,000 | 0.5000 | ' "$tb_dir/README.ovmf" ||
	! grep -q '`debian-i386` is linux-image-x' "$tb_dir/README.ovmf"; then
	fail "README timing table rendered" "no OVMF row or no payload note in $tb_dir/README.ovmf"
elif ! bash ci/readme-table.sh --readme "$tb_dir/README.ovmf" --check bench-table "$tb_dir/table.md" > /dev/null ||
	bash ci/readme-table.sh --readme "$tb_dir/README.ovmf" --check bench-table "$tb_dir/README.row" > /dev/null; then
	fail "README timing table rendered" "readme-table.sh --check did not tell its table from another"
else
	pass "README timing table rendered from bzpack bench --json (OVMF rows too) matches its baseline"
fi

# The README's table of what each codec's stub adds is this build's
# (ci/stub-sizes.sh): a decoder that grows shows up in review.
if stub_out=$(B=$B bash ci/stub-sizes.sh check 2>&1); then
	pass "README stub-size table matches this build ($($BZPACK --list-codecs | wc -l) codecs)"
else
	fail "README stub-size table matches this build" "$(echo "$stub_out" | tr '\n' '|' | cut -c1-300)"
fi
