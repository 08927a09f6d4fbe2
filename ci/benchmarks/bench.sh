#!/bin/bash
# bench.sh - decompression timing for every codec x word size x payload.
#
#   bench.sh run        measure (icount + wall clock): table,
#                       build/bench/results.json, build/bench/codecs.svg;
#                       when the run is complete, README's timing table
#                       and docs/codecs.svg from the same results.json
#   bench.sh check      measure (icount only) into build/bench/check.json,
#                       then verify it against the baseline: the CI gate
#   bench.sh verify MEASURED.json [BASELINE.json]
#                       the gate alone, on recorded results: no build, no QEMU
#   bench.sh baseline   run, then ci/benchmarks/baseline.json AND README's table from
#                       that one results.json (refuses an incomplete run)
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
#                    README or baseline; through make: BENCH_CODECS)
#   BENCH_PAYLOADS   "testkern64 ...": only these payloads (the same: a
#                    partial check fails, naming the cells it did not run)
#   WALL_RUNS        wall-clock boots per cell, median taken (default 5)
#
# The measuring is `bzpack bench`'s (README.md, "bzpack bench"), once per
# payload; this script picks the payloads, keeps the records and runs the
# gate and the tables (ci/benchmarks/benchjson.py).  Two clocks.  Deterministic: QEMU
# -icount shift=0,sleep=off, where the guest's rdtsc counts instructions,
# so a cell's cycles are exact and repeatable: that is what CI gates on.
# Wall clock: plain TCG, from the stub's entry to the kernel's through
# QEMU's gdbstub, median of WALL_RUNS, for people.  Payloads: the test
# kernels, and Debian's kernels when ci/fixtures/fetch-debian.sh has cached them
# (`bzpack bench` also times Linux's own decompressor on those).
# Loaders: every image boots under QEMU's SeaBIOS (-kernel, the real-mode
# entry); every 64-bit image also under OVMF (ci/fixtures/ovmf.sh; the EFI entry,
# cells CODEC/64/PAYLOAD/ovmf, icount only: `bzpack bench --ovmf`).  No
# OVMF installed: those cells are skipped, counted and named, never passed.
#
# The gate fails closed: every baseline cell must be measured and within
# 2%, or be explained by name (a Debian kernel not cached, or a different
# Debian package than the baseline's, or no OVMF); a measured cell missing from the
# baseline, an unreadable baseline, a report line without a field: all
# fail.  All JSON, and the report line, are read by ci/benchmarks/benchjson.py.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-run}
B=${B:-build}
BZPACK=$B/bzpack
BB=$B/bench
. ci/pack-cache.sh              # PACK_CACHE_DIR: payloads shared with make test
. ci/fixtures/ovmf.sh                    # OVMF_CODE, OVMF_VARS, ovmf_missing
OVMF_ABSENT=$(ovmf_missing)     # why there are no OVMF cells, or nothing
BASELINE=${BENCH_BASELINE:-ci/benchmarks/baseline.json}
TOLERANCE=2                    # percent
WALL_RUNS=${WALL_RUNS:-5}
JSON="python3 ci/benchmarks/benchjson.py"
mkdir -p "$BB"

# The codecs to measure, one per line: the packer's own list, so that a
# codec added to the packer is benchmarked (and, until it is in the
# baseline, fails the gate).  Nothing listed is an error, not "no cells".
CODECS_FROM=packer
codec_list() {
	local out
	if [ -n "${CODECS:-}" ]; then
		printf '%s\n' $CODECS
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
	printf '%s\n' "$out"
}
[ -n "${CODECS:-}" ] && CODECS_FROM=CODECS

# Every payload bench.sh knows, present or not: "name bits external file".
# External payloads (Debian's) may be missing or change under us; the test
# kernels are built by `make all` and must always be there.
payloads() {
	echo "testkern32 32 0 $B/images/testkern32.elf"
	echo "testkern64 64 0 $B/images/testkern64.elf"
	echo "debian-i386 32 1 $B/debian/i386/vmlinuz"
	echo "debian-amd64 64 1 $B/debian/amd64/vmlinuz"
}

# What a payload's cycles depend on: the test kernel's name (it is built
# from this tree), or the Debian package the vmlinuz came from.
payload_id() {   # payload_id NAME FILE
	case $1 in
	debian-*) cat "$(dirname "$2")/kernel-package" 2>/dev/null ;;
	*) echo "$1" ;;
	esac
}

# One payload, every codec, through `bzpack bench`: it packs each image,
# boots it under icount for the report line and, with RUNS > 0, times
# RUNS more TCG boots from the stub's entry to the kernel's (gdbstub); it
# prints its table and writes $BB/NAME.json, which benchjson.py turns into
# this script's cell records (a cell it could not measure carries why).
bench_payload() {   # bench_payload NAME BITS ID FILE "CODECS" RUNS RECORDS
	local name=$1 bits=$2 id=$3 file=$4 codecs=$5 runs=$6 records=$7 json=$BB/$1.json status
	local loaders=bios ovmf=()
	if [ "$bits" = 64 ] && [ -z "$OVMF_ABSENT" ]; then
		loaders=bios,ovmf ovmf=(--ovmf "$OVMF_CODE" --ovmf-vars "$OVMF_VARS")
	fi
	rm -f "$json"
	"$BZPACK" bench --pack-cache "$PACK_CACHE_DIR" -c "$(echo $codecs | tr ' ' ,)" --runs "$runs" --qemu-timeout 300 \
		"${ovmf[@]}" --json "$json" "$file"
	status=$?
	[ $status -eq 0 ] || echo "bench: $name: bzpack bench exit $status" >&2
	$JSON bench-records "$json" "$name" "$bits" "$id" "bzpack bench exit $status" "$loaders" $codecs >> "$records"
}

# measure OUT WALL: every cell into the measured file OUT (see
# ci/benchmarks/benchjson.py); WALL=1 adds the wall clock.  Records go to a JSON-lines
# file first, one python call each, so nothing here ever quotes JSON.
# Icount only (WALL=0, the gate), BENCH_JOBS payloads (default 2) are
# measured at a time: an instruction count does not depend on what else
# the machine runs.  Each payload writes its own records and output,
# which are then put together in payload order.  With the wall clock,
# one at a time.
measure() {
	local out=$1 wall=$2 records=$1.records codecs codec name bits external file id runs=0 clock=""
	local jobs=${BENCH_JOBS:-2} n=0 part rc failed=0
	codecs=$(codec_list) || return 1
	[ -n "$OVMF_ABSENT" ] && echo "bench: no OVMF cells: $OVMF_ABSENT" >&2
	if [ "$wall" = 1 ]; then
		clock=tcg runs=$WALL_RUNS jobs=1
		echo "wall clock: TCG, median of $WALL_RUNS boots from the stub's entry to the kernel's (gdbstub)"
	fi
	[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_JOBS=$jobs is not a number" >&2; return 1; }
	rm -f "$records".*
	: > "$records"
	while read -r -u 3 name bits external file; do
		part=$records.$n
		n=$((n + 1))
		: > "$part"
		if [ -n "${BENCH_PAYLOADS:-}" ] && ! [[ " $BENCH_PAYLOADS " == *" $name "* ]]; then
			$JSON record payload name="$name" bits="$bits" external="$external" filtered="BENCH_PAYLOADS=$BENCH_PAYLOADS" >> "$part"
			echo 0 > "$part.rc"
			continue
		fi
		id=$(payload_id "$name" "$file")
		if [ ! -s "$file" ] || [ -z "$id" ]; then
			local why="$file not built (make all)"
			[ "$external" = 1 ] && why="$file not cached (ci/fixtures/fetch-debian.sh, which make test runs)"
			echo "bench: $name: $why" >&2
			$JSON record payload name="$name" bits="$bits" external="$external" absent="$why" >> "$part"
			echo 0 > "$part.rc"
			continue
		fi
		$JSON record payload name="$name" bits="$bits" external="$external" id="$id" file="$file" >> "$part"
		echo "bench: $name ($file): $(echo $codecs)" >&2
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
		{ bench_payload "$name" "$bits" "$id" "$file" "$codecs" "$runs" "$part" > "$part.out" 2>&1
		  echo $? > "$part.rc"; } &
	done 3< <(payloads)
	wait
	for ((k = 0; k < n; k++)); do
		part=$records.$k
		[ -e "$part.out" ] && cat "$part.out"
		cat "$part" >> "$records"
		read -r rc < "$part.rc" 2> /dev/null || rc=1
		[ "$rc" -eq 0 ] || failed=1
	done
	rm -f "$records".*
	[ "$failed" -eq 0 ] || return 1
	$JSON collect "$records" "$out" codecs="$(echo $codecs)" codecs_from="$CODECS_FROM" \
		uefi_code="$OVMF_CODE" uefi_absent="$OVMF_ABSENT" \
		wall_clock="$clock" wall_runs="$([ "$wall" = 1 ] && echo "$WALL_RUNS")" || return 1
	echo "wrote $out"
}

# README's table and docs/codecs.svg from a results file.
write_readme() {   # write_readme RESULTS
	$JSON readme "$1" README.md || return 1
	echo "wrote README.md's timing table from $1"
	if [ -s "$BB/codecs.svg" ] && [ "$BB/codecs.svg" -nt "$1" ]; then
		cp "$BB/codecs.svg" docs/codecs.svg && echo "wrote docs/codecs.svg"
	fi
}

# run: results.json, the table, the chart; README when the run is complete.
# Returns 1 if any cell failed.
run() {
	local r=$BB/results.json dat=$BB/codecs.dat
	measure "$r" 1 || return 1
	$JSON table "$r"
	$JSON dat "$r" > "$dat"
	if command -v gnuplot >/dev/null; then
		sed "s|@DAT@|$dat|g" ci/benchmarks/codecs.gnuplot | gnuplot > "$BB/codecs.svg.tmp" 2>"$BB/gnuplot.log" &&
			mv "$BB/codecs.svg.tmp" "$BB/codecs.svg" && echo "wrote $BB/codecs.svg"
	else
		echo "bench: gnuplot not installed: no chart" >&2
	fi
	# Only a run that covers everything may stand in the README: a partial
	# one would silently drop rows.
	local why status
	why=$($JSON complete "$r")
	status=$?
	if [ $status -eq 0 ]; then
		write_readme "$r" || return 1
		return 0
	fi
	echo "bench: README.md and docs/codecs.svg not updated, the run is incomplete:"
	echo "$why"
	echo "bench: ('bash ci/benchmarks/bench.sh readme' writes them from $r anyway)"
	# 3: a cell failed, which fails the run; 1: cells were left out, as asked.
	[ $status -ne 3 ]
}

case $mode in
run)
	run
	;;
check)
	measure "$BB/check.json" 0 || exit 1
	$JSON verify "$BB/check.json" "$BASELINE" "$TOLERANCE"
	;;
verify)
	[ $# -ge 2 ] || { echo "usage: bench.sh verify MEASURED.json [BASELINE.json]" >&2; exit 2; }
	$JSON verify "$2" "${3:-$BASELINE}" "$TOLERANCE"
	;;
baseline)
	# One measurement, two outputs: the baseline and README's table can
	# never disagree after this.
	run || exit 1
	if ! why=$($JSON complete "$BB/results.json"); then
		echo "bench: ci/benchmarks/baseline.json not written: the run is incomplete:" >&2
		echo "$why" >&2
		exit 1
	fi
	$JSON baseline "$BB/results.json" ci/benchmarks/baseline.json || exit 1
	echo "wrote ci/benchmarks/baseline.json"
	;;
readme)
	write_readme "${2:-$BB/results.json}"
	;;
readme-check)
	$JSON readme-check "${2:-README.md}" "${3:-$BASELINE}"
	;;
*)
	echo "usage: bench.sh run|check|verify|baseline|readme|readme-check" >&2
	exit 2
	;;
esac
