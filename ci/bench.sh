#!/bin/bash
# bench.sh - decompression timing for every codec x word size x payload.
#
#   bench.sh run        table + build/bench/results.json + build/bench/codecs.svg
#   bench.sh check      icount cells against ci/baseline.json: fail on > 2% worse
#   bench.sh baseline   rewrite ci/baseline.json from this build
#
# Two clocks.  Deterministic: QEMU -icount shift=0,sleep=off, where the
# guest's rdtsc counts instructions, so a cell's cycles are exact and
# repeatable: that is what CI gates on.  Wall clock: plain TCG (KVM when
# /dev/kvm is usable), whole boot to the report line, median of 5, for
# people.  Payloads: the test kernels, and Debian's kernels when
# ci/fetch-debian.sh has cached them.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
B=${B:-build}
BZPACK=$B/bzpack
BB=$B/bench
BASELINE=ci/baseline.json
TOLERANCE=2                    # percent
WALL_RUNS=${WALL_RUNS:-5}
CODECS=${CODECS:-"none lz4"}
APPEND="console=ttyS0 bzpack-bench"
mkdir -p "$BB"

# payload name, bits, input file, identity (what the cycles depend on)
payloads() {
	echo "testkern32 32 $B/images/testkern32.elf testkern32"
	echo "testkern64 32 $B/images/testkern64.elf testkern64" | sed 's/ 32 / 64 /'
	for a in i386 amd64; do
		local f=$B/debian/$a/vmlinuz bits=32
		[ $a = amd64 ] && bits=64
		[ -s "$f" ] && echo "debian-$a $bits $f $(cat "$B/debian/$a/kernel-package")"
	done
}

# Pack and boot one cell under icount; prints "in out cycles move verify total".
icount_cell() {
	local codec=$1 name=$2 input=$3 img=$BB/$1-$2.img log=$BB/$1-$2.log
	$BZPACK -c "$codec" -o "$img" "$input" >/dev/null 2>"$log.pack" || { echo "pack failed: $(cat "$log.pack")" >&2; return 1; }
	local q=qemu-system-x86_64 status
	bash ci/qemu-boot.sh -q $q -d -m 512M -t 300 -a "$APPEND" -e '^bzpack: codec=' "$img" "$log"
	status=$?
	if ! grep -q '^bzpack: codec=' "$log"; then
		echo "$codec/$name: no report line (QEMU status $status): $(head -c 300 "$log")" >&2
		return 1
	fi
	local f
	for f in in out cycles move verify total; do
		grep -m1 '^bzpack: codec=' "$log" | tr ' ' '\n' | sed -n "s/^$f=//p"
	done | tr '\n' ' '
}

# KVM for the wall clock only where it really boots a test kernel:
# /dev/kvm may exist and still fail (nested virtualisation).
WALL_ACCEL=()
kvm_usable() {
	[ -w /dev/kvm ] || return 1
	$BZPACK -c none -o "$BB/kvm-probe.img" "$B/images/testkern64.elf" 2>/dev/null &&
		bash ci/qemu-boot.sh -K -t 30 "$BB/kvm-probe.img" "$BB/kvm-probe.log" >/dev/null 2>&1
	[ $? -eq 33 ]
}

# Median wall milliseconds of WALL_RUNS boots to the report line.
wall_cell() {
	local img=$1 log=$BB/wall.log accel=("${WALL_ACCEL[@]}") times=() i t0 t1
	for ((i = 0; i < WALL_RUNS; i++)); do
		t0=$(date +%s%N)
		bash ci/qemu-boot.sh "${accel[@]}" -m 512M -t 300 -a "$APPEND" -e '^bzpack: codec=' "$img" "$log" >/dev/null
		t1=$(date +%s%N)
		times+=($(( (t1 - t0) / 1000000 )))
	done
	printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (WALL_RUNS + 1) / 2 ))p"
}

baseline_value() {   # baseline_value KEY FIELD -> number or empty
	sed -n "s|^ *\"$1\": {\"payload\": \"\([^\"]*\)\", \"cycles\": \([0-9]*\), \"total\": \([0-9]*\)}.*|\1 \2 \3|p" "$BASELINE"
}

run_cells() {   # calls cell_done KEY codec bits name ident in out cycles move verify total img
	local codec name bits input ident r
	while read -r name bits input ident; do
		for codec in $CODECS; do
			r=$(icount_cell "$codec" "$name" "$input") || { echo "bench: $codec/$bits/$name failed" >&2; FAILED_CELLS=$((FAILED_CELLS + 1)); continue; }
			cell_done "$codec/$bits/$name" "$codec" "$bits" "$name" "$ident" $r "$BB/$codec-$name.img"
		done
	done < <(payloads)
}
FAILED_CELLS=0

case $mode in
run)
	json=$BB/results.json.tmp dat=$BB/codecs.dat
	clock=tcg
	if kvm_usable; then WALL_ACCEL=(-K); clock=kvm; fi
	echo "wall clock: $clock, median of $WALL_RUNS boots to the report line"
	: > "$dat"
	echo "[" > "$json"
	printf '%-6s %4s %-12s %10s %10s %7s %14s %8s %9s\n' codec bits payload compressed original ratio icount-cycles cyc/byte wall-ms
	first=1
	cell_done() {
		local key=$1 codec=$2 bits=$3 name=$4 ident=$5 in=$6 out=$7 cycles=$8 move=$9 verify=${10} total=${11} img=${12}
		local wall ratio cpb
		wall=$(wall_cell "$img")
		ratio=$(awk -v a="$in" -v b="$out" 'BEGIN { printf "%.4f", a / b }')
		cpb=$(awk -v c="$cycles" -v b="$out" 'BEGIN { printf "%.3f", c / b }')
		printf '%-6s %4s %-12s %10s %10s %7s %14s %8s %9s\n' "$codec" "$bits" "$name" "$in" "$out" "$ratio" "$cycles" "$cpb" "$wall"
		[ $first = 1 ] || echo "," >> "$json"
		first=0
		printf '  {"codec": "%s", "bits": %s, "payload": "%s", "payload_id": "%s", "compressed_bytes": %s, "bytes": %s, "ratio": %s, "icount_cycles": %s, "cycles_per_byte": %s, "move_cycles": %s, "verify_cycles": %s, "total_cycles": %s, "wall_ms": %s, "wall_clock": "%s", "image_bytes": %s}' \
			"$codec" "$bits" "$name" "$ident" "$in" "$out" "$ratio" "$cycles" "$cpb" "$move" "$verify" "$total" "$wall" "$clock" "$(stat -c %s "$img")" >> "$json"
		case $name in testkern*) echo "$codec-$bits $ratio $(awk -v c="$cycles" -v b="$out" 'BEGIN { printf "%.1f", 1000 * b / c }')" >> "$dat" ;; esac
	}
	run_cells
	printf '\n]\n' >> "$json"
	mv "$json" "$BB/results.json"
	echo "wrote $BB/results.json"
	if command -v gnuplot >/dev/null; then
		sed "s|@DAT@|$dat|g" ci/codecs.gnuplot | gnuplot > "$BB/codecs.svg.tmp" 2>"$BB/gnuplot.log" &&
			mv "$BB/codecs.svg.tmp" "$BB/codecs.svg" && echo "wrote $BB/codecs.svg"
	else
		echo "bench: gnuplot not installed: no chart" >&2
	fi
	;;
baseline)
	out=$BASELINE.tmp
	{
		echo "{"
		echo "  \"_what\": \"icount cycles (-icount shift=0,sleep=off: guest instructions) per codec/bits/payload: cycles = decompression, total = setup entry to hand-off\","
		echo "  \"cells\": {"
	} > "$out"
	sep=""
	cell_done() {
		printf '%s    "%s": {"payload": "%s", "cycles": %s, "total": %s}' "$sep" "$1" "$5" "$8" "${11}" >> "$out"
		sep=$',\n'
	}
	run_cells
	printf '\n  }\n}\n' >> "$out"
	mv "$out" "$BASELINE"
	echo "wrote $BASELINE"
	;;
check)
	worse=0 checked=0
	cell_done() {
		local key=$1 ident=$5 cycles=$8 total=${11} base
		base=$(baseline_value "$key")
		if [ -z "$base" ]; then
			echo "new     $key: cycles=$cycles total=$total (not in $BASELINE)"
			return
		fi
		set -- $base
		if [ "$1" != "$ident" ]; then
			echo "skip    $key: baseline is for $1, this payload is $ident"
			return
		fi
		checked=$((checked + 1))
		local metric want got verdict
		for metric in cycles total; do
			[ $metric = cycles ] && want=$2 got=$cycles || want=$3 got=$total
			verdict=$(awk -v g="$got" -v w="$want" -v t="$TOLERANCE" 'BEGIN {
				d = 100 * (g - w) / w
				printf "%s %+.2f%%", (d > t ? "WORSE" : (d < -t ? "better" : "ok")), d }')
			case $verdict in
			WORSE*) worse=$((worse + 1)); echo "WORSE   $key $metric: $got vs baseline $want (${verdict#WORSE })" ;;
			better*) echo "better  $key $metric: $got vs baseline $want (${verdict#better }): run 'make bench-baseline' to lock it in" ;;
			*) echo "ok      $key $metric: $got (${verdict#ok })" ;;
			esac
		done
	}
	run_cells
	if [ $worse -gt 0 ] || [ $FAILED_CELLS -gt 0 ]; then
		echo "bench-check: $worse regressions over ${TOLERANCE}%, $FAILED_CELLS failed cells ($checked cells checked)"
		exit 1
	fi
	echo "bench-check: $checked cells within ${TOLERANCE}% of $BASELINE"
	;;
*)
	echo "usage: bench.sh run|check|baseline" >&2
	exit 2
	;;
esac
[ $FAILED_CELLS -eq 0 ]
