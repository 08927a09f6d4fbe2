#!/bin/bash
# bench.sh - decompression timing for every codec x word size x payload,
# all of it measured and gated by `bzpack bench` (README.md, "bzpack
# bench"); this script picks the payloads and renders the tables.
#
#   bench.sh run        measure (icount + wall clock): the table,
#                       build/bench/results.json, build/bench/codecs.svg;
#                       when the run is complete, README's timing table
#                       and docs/codecs.svg from the same results.json
#   bench.sh check      `bzpack bench --check` against the baseline,
#                       icount only: the CI gate
#   bench.sh verify SAVED.json [BASELINE.json]
#                       the gate alone on cells `bzpack bench --save`
#                       wrote (`bzpack bench --compare`): no QEMU
#   bench.sh baseline   run, with --save: ci/benchmarks/baseline.json AND
#                       README's table from that one measurement (refuses
#                       an incomplete run)
#   bench.sh readme [RESULTS.json]
#                       README's table and docs/codecs.svg from recorded
#                       results, whatever they cover (default: results.json)
#   bench.sh readme-check [README] [BASELINE.json]
#                       README's table agrees with the baseline
#
# Environment:
#   B                build directory (default build)
#   BENCH_BASELINE   the baseline check/verify/readme-check read (default
#                    ci/benchmarks/baseline.json; baseline mode always writes that one)
#   CODECS           "none lz4": use these codecs instead of asking the
#                    packer (a person's shortcut: such a run writes no
#                    README or baseline, and as a check it fails, naming
#                    the cells it left out; through make: BENCH_CODECS)
#   BENCH_PAYLOADS   "testkern64 ...": only these payloads (the same)
#   WALL_RUNS        wall-clock boots per cell, median taken (default 5)
#
# Payloads: the test kernels, and Debian's kernels when
# ci/fixtures/fetch-debian.sh has cached them; each is given to `bzpack
# bench` under its payload name (a link in build/bench/in/), which is
# what its cells are keyed by: PAYLOAD/CODEC/BITS[/ovmf|/linux].  Two
# clocks.  Deterministic: QEMU -icount shift=0,sleep=off, where the
# guest's rdtsc counts instructions, so a cell's cycles are exact and
# repeatable: that is what CI gates on.  Wall clock: plain TCG, from the
# stub's entry to the kernel's through QEMU's gdbstub, median of
# WALL_RUNS, for people.  Every 64-bit image also boots under OVMF
# (ci/fixtures/ovmf.sh; the EFI entry, icount only, `bzpack bench
# --ovmf`); no OVMF installed: the gate counts and names those cells as
# not booted, never passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-run}
B=${B:-build}
BZPACK=$B/bzpack
BB=$B/bench
. ci/pack-cache.sh              # PACK_CACHE_DIR: payloads shared with make test
. ci/fixtures/ovmf.sh           # OVMF_CODE, OVMF_VARS, ovmf_missing
OVMF_ABSENT=$(ovmf_missing)     # why there are no OVMF cells, or nothing
BASELINE=${BENCH_BASELINE:-ci/benchmarks/baseline.json}
TOLERANCE=2                    # percent
WALL_RUNS=${WALL_RUNS:-5}
RENDER="python3 ci/benchmarks/benchjson.py"
mkdir -p "$BB"

# The codecs to measure, comma-separated: the packer's own list, so that
# a codec added to the packer is benchmarked (and, until it is in the
# baseline, fails the gate).  Nothing listed is an error, not "no cells".
codec_list() {
	local out
	if [ -n "${CODECS:-}" ]; then
		echo $CODECS | tr ' ' ,
		return 0
	fi
	if ! out=$("$BZPACK" --list-codecs 2>&1); then
		echo "bench: '$BZPACK --list-codecs' failed: ${out%%$'\n'*}" >&2
		return 1
	fi
	if [ -z "$out" ]; then
		echo "bench: '$BZPACK --list-codecs' listed no codecs" >&2
		return 1
	fi
	# One plain name a line; anything else (a help text, a banner) means we
	# are not talking to the option we think we are.
	if printf '%s\n' "$out" | grep -qvx '[a-z0-9][a-z0-9_-]*'; then
		echo "bench: '$BZPACK --list-codecs' printed something that is not a codec name: $(printf '%s' "$out" | grep -vx '[a-z0-9][a-z0-9_-]*' | head -n 1)" >&2
		return 1
	fi
	printf '%s\n' "$out" | paste -sd,
}

# Every payload bench.sh knows, present or not: "name external file".
# External payloads (Debian's) may be missing; the test kernels are built
# by `make all` and must always be there.
payloads() {
	echo "testkern32 0 $B/images/testkern32.elf"
	echo "testkern64 0 $B/images/testkern64.elf"
	echo "debian-i386 1 $B/debian/i386/vmlinuz"
	echo "debian-amd64 1 $B/debian/amd64/vmlinuz"
}

# INPUTS: the payloads to measure, as links named after them; COMPLETE=0
# when one is left out (BENCH_PAYLOADS, or a Debian kernel not cached),
# said on stderr.  A test kernel that is not built is an error.
pick_inputs() {
	local name external file
	INPUTS=() COMPLETE=1
	mkdir -p "$BB/in"
	while read -r name external file; do
		if [ -n "${BENCH_PAYLOADS:-}" ] && ! [[ " $BENCH_PAYLOADS " == *" $name "* ]]; then
			echo "bench: $name: left out by BENCH_PAYLOADS=$BENCH_PAYLOADS" >&2
			COMPLETE=0
			continue
		fi
		if [ ! -s "$file" ]; then
			if [ "$external" = 0 ]; then
				echo "bench: $name: $file not built (make all)" >&2
				return 1
			fi
			echo "bench: $name: $file not cached (ci/fixtures/fetch-debian.sh, which make test runs)" >&2
			COMPLETE=0
			continue
		fi
		ln -sfn "$(realpath "$file")" "$BB/in/$name"
		INPUTS+=("$BB/in/$name")
	done < <(payloads)
}

# bench RUNS ARGS...: `bzpack bench` on the picked payloads with every
# codec, RUNS wall-clock boots per cell, OVMF when installed.
bench() {
	local runs=$1 codecs ovmf=()
	shift
	codecs=$(codec_list) || return 1
	pick_inputs || return 1
	[ -n "${CODECS:-}" ] && COMPLETE=0
	if [ -z "$OVMF_ABSENT" ]; then
		ovmf=(--ovmf "$OVMF_CODE" --ovmf-vars "$OVMF_VARS")
	else
		echo "bench: no OVMF cells: $OVMF_ABSENT" >&2
		COMPLETE=0
	fi
	echo "bench: $(basename -a "${INPUTS[@]}" | paste -sd' '): $codecs" >&2
	"$BZPACK" bench --pack-cache "$PACK_CACHE_DIR" -c "$codecs" --runs "$runs" --qemu-timeout 300 \
		"${ovmf[@]}" "$@" "${INPUTS[@]}"
}

# Which Debian package each cached Debian payload is, for the table's note.
payload_ids() {
	local name external file
	while read -r name external file; do
		[ "$external" = 1 ] && [ -s "$(dirname "$file")/kernel-package" ] &&
			echo "$name=$(cat "$(dirname "$file")/kernel-package")"
	done < <(payloads)
}

# README's table and docs/codecs.svg from a results file.
write_readme() {   # write_readme RESULTS
	$RENDER readme-table "$1" $(payload_ids) | bash ci/readme-table.sh bench-table - || return 1
	if [ -s "$BB/codecs.svg" ] && [ "$BB/codecs.svg" -nt "$1" ]; then
		cp "$BB/codecs.svg" docs/codecs.svg && echo "wrote docs/codecs.svg"
	fi
}

# run [ARGS...]: results.json, the table, the chart; README when the run
# is complete.  Returns 1 if any cell failed.
run() {
	local r=$BB/results.json dat=$BB/codecs.dat status
	rm -f "$r"
	echo "wall clock: TCG, median of $WALL_RUNS boots from the stub's entry to the kernel's (gdbstub)"
	bench "$WALL_RUNS" --json "$r" "$@"
	status=$?
	[ -s "$r" ] || return 1
	$RENDER table "$r"
	$RENDER dat "$r" > "$dat"
	if command -v gnuplot >/dev/null; then
		sed "s|@DAT@|$dat|g" ci/benchmarks/codecs.gnuplot | gnuplot > "$BB/codecs.svg.tmp" 2>"$BB/gnuplot.log" &&
			mv "$BB/codecs.svg.tmp" "$BB/codecs.svg" && echo "wrote $BB/codecs.svg"
	else
		echo "bench: gnuplot not installed: no chart" >&2
	fi
	[ "$status" -eq 0 ] || return 1
	# Only a run that covers everything may stand in the README: a partial
	# one would silently drop rows.
	if [ "$COMPLETE" = 1 ]; then
		write_readme "$r"
	else
		echo "bench: README.md and docs/codecs.svg not updated, the run is incomplete (see above);"
		echo "bench: 'bash ci/benchmarks/bench.sh readme' writes them from $r anyway"
	fi
}

# check: the gate, in two `bzpack bench` runs at once (one QEMU keeps
# one core busy; the CI machine has 2).  The codecs are dealt to the two
# by what their cells cost in the baseline (the costliest first, to the
# lighter half; a codec the baseline lacks counts as the costliest),
# each run saves its cells, and one --compare gates them
# all: the same cells against the same baseline as a single run, failing
# closed on any cell neither run measured.
check() {
	local codecs half status=0 i pid=()
	codecs=$(codec_list) || return 1
	mapfile -t half < <(python3 - "$codecs" "$BASELINE" <<'PY'
import json, sys
codecs = sys.argv[1].split(",")
try:
    cells = json.load(open(sys.argv[2]))["cells"]
except Exception:
    cells = {}
# Seconds a codec's cells take here: about 3 a boot, and 12 per 10^9
# guest instructions under icount (fitted on this machine's runs).
def cost(codec):
    mine = [c for k, c in cells.items() if k.split("/")[1:2] == [codec]]
    return sum(3 + 12e-9 * c.get("total", 0) for c in mine) if mine else float("inf")
halves, load = [[], []], [0, 0]
for c in sorted(codecs, key=cost, reverse=True):
    i = load.index(min(load))
    halves[i].append(c)
    load[i] += min(cost(c), 1e12)
print(",".join(halves[0]))
print(",".join(halves[1]))
PY
)
	rm -f "$BB"/check-[01].json "$BB"/check-[01].log "$BB"/check-all.json
	for i in 0 1; do
		[ -n "${half[$i]:-}" ] || continue
		CODECS="${half[$i]//,/ }" bench 0 --save "$BB/check-$i.json" > "$BB/check-$i.log" 2>&1 &
		pid[$i]=$!
	done
	for i in "${!pid[@]}"; do
		wait "${pid[$i]}" || status=1
	done
	for i in "${!pid[@]}"; do
		cat "$BB/check-$i.log"
	done
	# The saves merged: the first one's header (format and version, as
	# --save wrote them) with every run's cells.
	python3 - "$BB/check-all.json" "$BB"/check-[01].json <<'PY' || status=1
import json, sys
merged = None
for path in sys.argv[2:]:
    d = json.load(open(path))
    if merged is None:
        merged = d
    else:
        merged["cells"].update(d["cells"])
json.dump(merged, open(sys.argv[1], "w"), indent=1)
PY
	# No merged file (a run that saved nothing): --compare fails, naming it.
	"$BZPACK" bench --tolerance "$TOLERANCE" --check "$BASELINE" --compare "$BB/check-all.json" || status=1
	return $status
}

case $mode in
run)
	run
	;;
check)
	check
	;;
verify)
	[ $# -ge 2 ] || { echo "usage: bench.sh verify SAVED.json [BASELINE.json]" >&2; exit 2; }
	"$BZPACK" bench --tolerance "$TOLERANCE" --check "${3:-$BASELINE}" --compare "$2"
	;;
baseline)
	# One measurement, two outputs: the baseline and README's table can
	# never disagree after this.  --save writes only when every cell was
	# measured; the run must also have left nothing out.
	rm -f "$BB/baseline.json"
	run --save "$BB/baseline.json" || exit 1
	if [ "$COMPLETE" != 1 ] || [ ! -s "$BB/baseline.json" ]; then
		echo "bench: ci/benchmarks/baseline.json not written: the run is incomplete (see above)" >&2
		exit 1
	fi
	mv "$BB/baseline.json" ci/benchmarks/baseline.json && echo "wrote ci/benchmarks/baseline.json"
	;;
readme)
	write_readme "${2:-$BB/results.json}"
	;;
readme-check)
	$RENDER readme-check "${2:-README.md}" "${3:-$BASELINE}"
	;;
*)
	echo "usage: bench.sh run|check|verify|baseline|readme|readme-check" >&2
	exit 2
	;;
esac
