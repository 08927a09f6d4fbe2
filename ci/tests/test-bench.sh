# test-bench.sh - the timing gate fails closed, and README's table is the
# baseline's.  Sourced by ci/test.sh (bash, ci/lib.sh: B, T, pass, fail).
#
# 1. The seed's regression: stubs built -fno-builtin (constant-size memcpy
#    no longer inlined) make bench-check fail and name the lz4 cells.  This
#    is the one check that builds and boots (build/regress).
# 2. The gate itself, on recorded results: ci/benchmarks/benchjson.py from-baseline
#    makes a measured file equal to ci/benchmarks/baseline.json, and each check breaks
#    one thing in a copy of it, or of the baseline, and runs
#    `bench.sh verify`: no build, no QEMU, a second or so in all.  The same
#    for OVMF cells, made from the testkern64 ones.
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
if BENCH_PAYLOADS="testkern32 testkern64" flock "$B/regress.lock" make --no-print-directory B=$B/regress EXTRA_STUB_CFLAGS=-fno-builtin \
	BENCH_CODECS=lz4 bench-check > "$tb_log" 2>&1; then
	fail "bench-check catches -fno-builtin" "it passed: $(tail -n 1 "$tb_log")"
else
	tb_missing=""
	for tb_cell in lz4/32/testkern32 lz4/64/testkern64; do
		grep -q "^WORSE   $tb_cell cycles" "$tb_log" || tb_missing="$tb_missing $tb_cell"
	done
	if [ -n "$tb_missing" ]; then
		fail "bench-check catches -fno-builtin" "did not name$tb_missing: $(grep -E '^(WORSE|FAIL|bench)' "$tb_log" | tr '\n' '|' | cut -c1-400)"
	else
		pass "bench-check catches -fno-builtin ($(grep -c '^WORSE' "$tb_log") worse: $(grep '^WORSE' "$tb_log" | awk '{print $2}' | sort -u | tr '\n' ' '))"
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

# tb_gate NAME WANT MEASURED BASELINE REGEX...: bench.sh verify must exit
# WANT (0 pass, 1 fail) and print a line matching each REGEX (grep -E).
tb_gate() {
	local name=$1 want=$2 measured=$3 baseline=$4 out=$tb_dir/verify.out got re; shift 4
	bash ci/benchmarks/bench.sh verify "$measured" "$baseline" > "$out" 2>&1
	got=$?
	if [ "$got" -ne "$want" ]; then
		fail "$name" "verify exit $got, expected $want: $(grep -E '^(FAIL|WORSE|skip|bench)' "$out" | tr '\n' '|' | cut -c1-400)"
		return
	fi
	for re in "$@"; do
		if ! grep -Eq "$re" "$out"; then
			fail "$name" "no line matching '$re': $(grep -E '^(FAIL|WORSE|skip|bench)' "$out" | tr '\n' '|' | cut -c1-400)"
			return
		fi
	done
	pass "$name"
}

tb_base=$tb_dir/baseline.json tb_meas=$tb_dir/measured.json
tb_fresh() {   # a measured file equal to the baseline, and a copy of the baseline
	python3 ci/benchmarks/benchjson.py from-baseline ci/benchmarks/baseline.json > "$tb_meas" &&
		cp ci/benchmarks/baseline.json "$tb_base"
}
tb_cells=$(python3 -c 'import json; print(len(json.load(open("ci/benchmarks/baseline.json"))["cells"]))')
# cells of a payload, whatever the loader (debian-amd64 has BIOS and OVMF cells)
tb_cells_of() { python3 -c 'import json, sys; print(sum(1 for k in json.load(open("ci/benchmarks/baseline.json"))["cells"] if k.split("/")[2] == sys.argv[1]))' "$1"; }
# cells per payload: one per codec
tb_per_payload=$(python3 -c 'import json; print(sum(1 for k in json.load(open("ci/benchmarks/baseline.json"))["cells"] if k.endswith("/debian-i386")))')

tb_fresh
tb_gate "bench gate: results equal to the baseline pass" 0 "$tb_meas" "$tb_base" \
	"^bench-check: ok: $tb_cells cells checked, 0 not comparable, 0 failed"

tb_fresh
tb_edit "$tb_base" 'del d["cells"]["lz4/64/testkern64"]'
tb_gate "bench gate: a cell missing from the baseline fails" 1 "$tb_meas" "$tb_base" \
	'^FAIL +lz4/64/testkern64: measured but not in .*same commit' '^bench-check: FAIL: .* 1 failed'

tb_fresh
tb_edit "$tb_meas" 'del d["cells"]["none/32/testkern32"]'
tb_gate "bench gate: a baseline cell not measured fails" 1 "$tb_meas" "$tb_base" \
	'^FAIL +none/32/testkern32: in the baseline but not measured' '^bench-check: FAIL: .* 1 failed'

tb_fresh
tb_edit "$tb_meas" 'c = d["cells"]["lz4/64/testkern64"]; c["report"] = re.sub(r" cycles=[0-9]+", "", c["report"])'
tb_gate "bench gate: a report line without cycles= fails" 1 "$tb_meas" "$tb_base" \
	'^FAIL +lz4/64/testkern64: report line has no cycles= field' '^bench-check: FAIL: .* 1 failed'

# A missing field fails: a positional reader would take the next one's value.
tb_fresh
tb_edit "$tb_meas" 'c = d["cells"]["lz4/32/testkern32"]; c["report"] = re.sub(r" move=[0-9]+", "", c["report"])'
tb_gate "bench gate: a report line without move= fails" 1 "$tb_meas" "$tb_base" \
	'^FAIL +lz4/32/testkern32: report line has no move= field'

tb_fresh
tb_edit "$tb_meas" 'c = d["cells"]["none/64/testkern64"]; c["report"] = re.sub(r" total=[0-9]+", " total=1.2e7", c["report"])'
tb_gate "bench gate: a non-numeric report field fails" 1 "$tb_meas" "$tb_base" \
	'^FAIL +none/64/testkern64: report line: total=1.2e7 is not a number'

tb_fresh
tb_edit "$tb_meas" 'd["cells"]["newcodec/64/testkern64"] = dict(d["cells"]["lz4/64/testkern64"], codec="newcodec", report=d["cells"]["lz4/64/testkern64"]["report"].replace("codec=lz4", "codec=newcodec"))'
tb_gate "bench gate: a new cell not in the baseline fails" 1 "$tb_meas" "$tb_base" \
	'^FAIL +newcodec/64/testkern64: measured but not in'

tb_fresh
tb_edit "$tb_meas" 'c = d["cells"]["lz4/32/testkern32"]; c["report"] = re.sub(r" cycles=([0-9]+)", lambda m: " cycles=%d" % (int(m.group(1)) * 103 // 100), c["report"])'
tb_gate "bench gate: 3% more cycles fails" 1 "$tb_meas" "$tb_base" \
	'^WORSE +lz4/32/testkern32 cycles: .*\(\+3\.00%\)' '^bench-check: FAIL: .* 1 failed \(1 worse'

tb_fresh
tb_edit "$tb_meas" 'c = d["cells"]["lz4/32/testkern32"]; c["report"] = re.sub(r" total=([0-9]+)", lambda m: " total=%d" % (int(m.group(1)) * 97 // 100), c["report"])'
tb_gate "bench gate: 3% fewer cycles passes and says so" 0 "$tb_meas" "$tb_base" \
	'^better +lz4/32/testkern32 total: .*make bench-baseline'

# A Debian kernel that is a different package, or not cached: those cells
# are named as not comparable, and every other cell is still checked.
tb_fresh
tb_edit "$tb_meas" 'd["payloads"]["debian-i386"]["id"] = "linux-image-9.9.9-686"
for c in d["cells"].values():
    if c["payload"] == "debian-i386": c["payload_id"] = "linux-image-9.9.9-686"'
tb_gate "bench gate: another Debian package is not comparable, the rest checked" 0 "$tb_meas" "$tb_base" \
	'^skip +none/32/debian-i386: not comparable: .*linux-image-9\.9\.9-686' \
	'^skip +lz4/32/debian-i386: not comparable' \
	"^bench-check: ok: $((tb_cells - tb_per_payload)) cells checked, $tb_per_payload not comparable, 0 failed"

tb_fresh
tb_edit "$tb_meas" 'd["payloads"]["debian-amd64"] = {"bits": 64, "external": True, "absent": "build/debian/amd64/vmlinuz not cached"}
d["cells"] = {k: c for k, c in d["cells"].items() if c["payload"] != "debian-amd64"}'
tb_amd64=$(tb_cells_of debian-amd64)
tb_gate "bench gate: an uncached Debian kernel is not comparable, the rest checked" 0 "$tb_meas" "$tb_base" \
	'^skip +lz4/64/debian-amd64: not comparable: .*not cached' \
	"^bench-check: ok: $((tb_cells - tb_amd64)) cells checked, $tb_amd64 not comparable, 0 failed"

# A test kernel is built here: it may not go missing or change identity.
tb_fresh
tb_edit "$tb_meas" 'd["payloads"]["testkern64"] = {"bits": 64, "external": False, "absent": "not built"}
d["cells"] = {k: c for k, c in d["cells"].items() if c["payload"] != "testkern64"}'
tb_gate "bench gate: a test kernel not measured fails" 1 "$tb_meas" "$tb_base" \
	'^FAIL +none/64/testkern64: not measured' '^FAIL +lz4/64/testkern64: not measured'

# OVMF cells (CODEC/64/PAYLOAD/ovmf, the EFI entry): made here from the
# testkern64 cells where ci/benchmarks/baseline.json has none, so that these checks
# run whatever baseline is recorded.  tb_all: every cell then; tb_ovmf:
# the OVMF ones.
tb_fresh_ovmf() {
	tb_fresh && tb_edit "$tb_base" 'for k in [k for k in d["cells"] if re.fullmatch(r"[a-z0-9-]+/64/testkern64", k)]:
    d["cells"].setdefault(k + "/ovmf", dict(d["cells"][k]))' &&
		python3 ci/benchmarks/benchjson.py from-baseline "$tb_base" > "$tb_meas"
}
tb_fresh_ovmf
tb_ovmf=$(python3 -c 'import json, sys; print(sum(1 for k in json.load(open(sys.argv[1]))["cells"] if k.endswith("/ovmf")))' "$tb_base")
tb_all=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["cells"]))' "$tb_base")
if [ "$tb_ovmf" -lt 2 ]; then
	fail "bench gate: OVMF cells" "only $tb_ovmf testkern64 OVMF cells made from ci/benchmarks/baseline.json"
else
	tb_gate "bench gate: OVMF cells equal to the baseline pass, counted" 0 "$tb_meas" "$tb_base" \
		"^ok +lz4/64/testkern64/ovmf cycles: " "^bench-check: ok: $tb_all cells checked, 0 not comparable, 0 failed"

	tb_fresh_ovmf
	tb_edit "$tb_meas" 'del d["cells"]["lz4/64/testkern64/ovmf"]'
	tb_gate "bench gate: a missing OVMF cell fails (OVMF installed)" 1 "$tb_meas" "$tb_base" \
		'^FAIL +lz4/64/testkern64/ovmf: in the baseline but not measured' '^bench-check: FAIL: .* 1 failed'

	tb_fresh_ovmf
	tb_edit "$tb_meas" 'd["uefi"] = {"absent": "no OVMF at /nowhere (Debian package ovmf)"}
d["cells"] = {k: c for k, c in d["cells"].items() if not k.endswith("/ovmf")}'
	tb_gate "bench gate: no OVMF installed is a counted skip, the rest checked" 0 "$tb_meas" "$tb_base" \
		'^skip +lz4/64/testkern64/ovmf: not measured: no OVMF at /nowhere' \
		"^skip: bench-check: $tb_ovmf OVMF cells: no OVMF at /nowhere" \
		"^bench-check: ok: $((tb_all - tb_ovmf)) cells checked, 0 not comparable, 0 failed .*, $tb_ovmf OVMF cells skipped"

	# The OVMF cell's report line is rdtsc under -icount shift=4: 16 a
	# guest instruction.  The gate divides by the cell's own shift.
	tb_fresh_ovmf
	tb_edit "$tb_meas" 'c = d["cells"]["lz4/64/testkern64/ovmf"]; c["icount_shift"] = 4
c["report"] = re.sub(r" (cycles|move|verify|decompress|total)=([0-9]+)", lambda m: " %s=%d" % (m.group(1), int(m.group(2)) * 16), c["report"])'
	tb_gate "bench gate: an OVMF cell's cycles are rdtsc divided by 2^icount_shift" 0 "$tb_meas" "$tb_base" \
		"^ok +lz4/64/testkern64/ovmf cycles: [0-9]+ \(\+0\.00%\)"

	tb_fresh_ovmf
	tb_edit "$tb_base" 'c = d["cells"]["lz4/64/testkern64/ovmf"]; c["cycles"] = c["cycles"] * 9 // 10'
	tb_gate "bench gate: an OVMF cell 10% better in the baseline fails" 1 "$tb_meas" "$tb_base" \
		'^WORSE +lz4/64/testkern64/ovmf cycles: .*\(\+11\.1[0-9]%\)' '^bench-check: FAIL: .* 1 failed \(1 worse'

	# total under OVMF counts the firmware's boot services calls: recorded, not gated.
	tb_fresh_ovmf
	tb_edit "$tb_meas" 'c = d["cells"]["lz4/64/testkern64/ovmf"]; c["report"] = re.sub(r" total=([0-9]+)", lambda m: " total=%d" % (int(m.group(1)) * 2), c["report"])'
	tb_gate "bench gate: an OVMF cell's total is shown, not gated" 0 "$tb_meas" "$tb_base" \
		'^info +lz4/64/testkern64/ovmf total: [0-9]+ vs baseline [0-9]+ \(not gated'

	tb_fresh_ovmf
	tb_edit "$tb_meas" 'c = d["cells"]["none/64/testkern64/ovmf"]; c["report"] = c["report"].replace(" entry=efi", " entry=16")'
	tb_gate "bench gate: an OVMF cell not booted through the EFI entry fails" 1 "$tb_meas" "$tb_base" \
		'^FAIL +none/64/testkern64/ovmf: report line: entry=16, but this is an OVMF cell'
fi

tb_fresh
python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' ci/benchmarks/baseline.json > "$tb_base"
python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), indent=7, sort_keys=True))' ci/benchmarks/baseline.json > "$tb_base.2"
tb_gate "bench gate: the baseline on one line passes" 0 "$tb_meas" "$tb_base" "^bench-check: ok: $tb_cells cells checked"
tb_gate "bench gate: the baseline re-indented, keys sorted, passes" 0 "$tb_meas" "$tb_base.2" "^bench-check: ok: $tb_cells cells checked"

tb_fresh
head -c -20 ci/benchmarks/baseline.json > "$tb_base"
tb_gate "bench gate: an unparseable baseline fails" 1 "$tb_meas" "$tb_base" \
	"^bench-check: FAIL: baseline .* is not valid JSON"
[ "$(wc -l < "$tb_dir/verify.out")" -eq 1 ] || fail "bench gate: an unparseable baseline fails in one line" "$(tr '\n' '|' < "$tb_dir/verify.out")"

tb_fresh
sed 's/^\( *"lz4\/64\/testkern64": .*[^,]\),\?$/\1,\n\1,/' ci/benchmarks/baseline.json > "$tb_base"
tb_gate "bench gate: a baseline with a cell twice fails" 1 "$tb_meas" "$tb_base" \
	"^bench-check: FAIL: baseline .*lz4/64/testkern64' appears twice"

tb_fresh
tb_edit "$tb_base" 'd["cells"]["none/32/testkern32"]["cycles"] = "3153958"'
tb_gate "bench gate: a baseline number as a string fails" 1 "$tb_meas" "$tb_base" \
	'^bench-check: FAIL: baseline .*none/32/testkern32: "cycles" is "3153958", not a positive integer'

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
	bash ci/benchmarks/bench.sh readme-check "$3" ci/benchmarks/baseline.json > "$out" 2>&1
	got=$?
	if [ "$got" -ne "$2" ]; then
		fail "$1" "readme-check exit $got, expected $2: $(tr '\n' '|' < "$out" | cut -c1-400)"
	elif ! grep -Eq "$4" "$out"; then
		fail "$1" "no line matching '$4': $(tr '\n' '|' < "$out" | cut -c1-400)"
	else
		pass "$1"
	fi
}

tb_readme "README timing table matches ci/benchmarks/baseline.json" 0 README.md "^readme-check: ok: $tb_cells README rows"

# One row's cycles off by one thousand.
python3 - README.md "$tb_dir/README.cycles" <<'EOF'
import json, sys
cycles = json.load(open("ci/benchmarks/baseline.json"))["cells"]["lz4/64/testkern64"]["cycles"]
out = []
for line in open(sys.argv[1]).read().split("\n"):
    if line.startswith("| lz4 | 64 | testkern64 |"):
        line = line.replace(" %s " % format(cycles, ","), " %s " % format(cycles + 1000, ","))
    out.append(line)
open(sys.argv[2], "w").write("\n".join(out))
EOF
tb_readme "README timing table: a row with other cycles fails" 1 "$tb_dir/README.cycles" \
	'^readme-check: lz4/64/testkern64: README icount cycles'

grep -v '^| none | 32 | testkern32 |' README.md > "$tb_dir/README.row"
tb_readme "README timing table: a baseline cell without a row fails" 1 "$tb_dir/README.row" \
	'^readme-check: none/32/testkern32: in ci/benchmarks/baseline.json, no README row'

# A table with OVMF rows (its loader column) reads back as those cells.
tb_fresh_ovmf
cp README.md "$tb_dir/README.ovmf"
if ! python3 ci/benchmarks/benchjson.py readme "$tb_meas" "$tb_dir/README.ovmf" > "$tb_dir/readme.out" 2>&1; then
	fail "README timing table with OVMF rows" "benchjson readme: $(tr '\n' '|' < "$tb_dir/readme.out")"
elif bash ci/benchmarks/bench.sh readme-check "$tb_dir/README.ovmf" "$tb_base" > "$tb_dir/readme.out" 2>&1 &&
	grep -q "^readme-check: ok: $tb_all README rows" "$tb_dir/readme.out" &&
	grep -q '^| lz4 | 64 | testkern64 | ovmf | ' "$tb_dir/README.ovmf"; then
	pass "README timing table with OVMF rows (loader column) matches its baseline"
else
	fail "README timing table with OVMF rows" "$(tr '\n' '|' < "$tb_dir/readme.out" | cut -c1-300)"
fi

# The README's table of what each codec's stub adds is this build's
# (ci/stub-sizes.sh): a decoder that grows shows up in review.
if stub_out=$(B=$B bash ci/stub-sizes.sh check 2>&1); then
	pass "README stub-size table matches this build ($($BZPACK --list-codecs | wc -l) codecs)"
else
	fail "README stub-size table matches this build" "$(echo "$stub_out" | tr '\n' '|' | cut -c1-300)"
fi
