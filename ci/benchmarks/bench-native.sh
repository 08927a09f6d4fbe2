#!/bin/bash
# bench-native.sh - run $B/tools/bench_native (tools/bench/bench_native.c) on the
# inputs that exist: the test kernels, and the Debian vmlinux files when
# they are cached under $B/debian.  Extra inputs may follow as arguments.
# Run by `make bench-native`, which builds the program and the kernels.
#
#   BENCH_MIN_TIME  seconds per cell, at least (default 0.3)
#   BENCH_MIN_REPS  repetitions per cell, at least (default 15)
#   BENCH_ONLY      only these rows, by label, codec or reference name,
#                   e.g. "lz4,memcpy" (memcpy: the "none" codec's row);
#                   "seed" names the seed's experiment (default: all rows
#                   and the seed)
#
# The rows are every codec of the packer's table (decode/codecs.def) against
# its reference decoder when bench_native.c knows one, then the reference
# libraries of codecs to come.  Then the seed's experiment, ci/benchmarks/bench-seed.sh
# (lzo and lzo-rle on synthetic pages; it rewrites README's seed table).
#
# Table on stdout, progress on stderr, results in $B/bench/native.json
# (its "rows"; ci/benchmarks/nativejson.py keeps the "seed" section beside them);
# compressed inputs are kept in $B/bench/native-cache/.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
exe=$B/tools/bench_native

if [ ! -x "$exe" ]; then
	echo "bench-native: $exe is missing; run 'make bench-native'" >&2
	exit 1
fi

# Debian's vmlinuz, once fetched, gives its vmlinux to whoever asks.
for a in amd64 i386; do
	z=$B/debian/$a/vmlinuz
	if [ -s "$z" ] && [ ! -s "$B/debian/$a/vmlinux" ] && [ -x "$B/bzpack" ]; then
		"$B/bzpack" --extract -o "$B/debian/$a/vmlinux" "$z"
	fi
done

inputs=()
for f in "$B/images/testkern32.elf" "$B/images/testkern64.elf" \
	 "$B/debian/amd64/vmlinux" "$B/debian/i386/vmlinux"; do
	if [ -f "$f" ]; then
		inputs+=("$f")
	else
		echo "bench-native: no $f, skipped" >&2
	fi
done
for f in "$@"; do
	[ -f "$f" ] || { echo "bench-native: $f: no such file" >&2; exit 1; }
	inputs+=("$f")
done
if [ ${#inputs[@]} -eq 0 ]; then
	echo "bench-native: no inputs; 'make bench-native' builds the test kernels" >&2
	exit 1
fi

# BENCH_ONLY: "seed" is not a row; the rest goes to bench_native's -k.
rows=1 seed=1 only=""
if [ -n "${BENCH_ONLY:-}" ]; then
	seed=0
	IFS=, read -ra names <<< "$BENCH_ONLY"
	for n in "${names[@]}"; do
		if [ "$n" = seed ]; then seed=1; else only+=${only:+,}$n; fi
	done
	[ -n "$only" ] || rows=0
fi

if [ $rows = 1 ]; then
	# bench_native writes its rows alone; the merge keeps the seed's
	# section of native.json.
	args=(-o "$B/bench/native-rows.json" -c "$B/bench/native-cache"
	      -t "${BENCH_MIN_TIME:-0.3}" -n "${BENCH_MIN_REPS:-15}")
	[ -n "$only" ] && args+=(-k "$only")

	start=$SECONDS
	"$exe" "${args[@]}" "${inputs[@]}"
	python3 ci/benchmarks/nativejson.py merge "$B/bench/native.json" rows "$B/bench/native-rows.json"
	echo "bench-native: ${#inputs[@]} inputs in $((SECONDS - start)) s; results in $B/bench/native.json" >&2
	# The README's table only from a run of every row on the standard
	# inputs: a narrowed run would leave it half true.
	if [ -z "$only" ] && [ $# -eq 0 ]; then
		python3 ci/benchmarks/nativejson.py rows-table "$B/bench/native.json" |
			bash ci/readme-table.sh native-table - >&2
	fi
fi
if [ $seed = 1 ]; then
	B=$B bash ci/benchmarks/bench-seed.sh run
fi
