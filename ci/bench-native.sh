#!/bin/bash
# bench-native.sh - run $B/tools/bench_native (tools/bench/bench_native.c) on the
# inputs that exist: the test kernels, and the Debian vmlinux files when
# they are cached under $B/debian.  Extra inputs may follow as arguments.
# Run by `make bench-native`, which builds the program and the kernels.
#
#   BENCH_MIN_TIME  seconds per cell, at least (default 0.3)
#   BENCH_MIN_REPS  repetitions per cell, at least (default 5)
#   BENCH_ONLY      only these rows, by label, codec or reference name,
#                   e.g. "lz4,memcpy" (memcpy: the "none" codec's row;
#                   default: all)
#
# The rows are every codec of the packer's table (decode/codecs.def) against
# its reference decoder when bench_native.c knows one, then the reference
# libraries of codecs to come.
#
# Table on stdout, progress on stderr, results in $B/bench/native.json;
# compressed inputs are kept in $B/bench/native-cache/.
set -euo pipefail
cd "$(dirname "$0")/.."
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

args=(-o "$B/bench/native.json" -c "$B/bench/native-cache"
      -t "${BENCH_MIN_TIME:-0.3}" -n "${BENCH_MIN_REPS:-5}")
[ -n "${BENCH_ONLY:-}" ] && args+=(-k "$BENCH_ONLY")

start=$SECONDS
"$exe" "${args[@]}" "${inputs[@]}"
echo "bench-native: ${#inputs[@]} inputs in $((SECONDS - start)) s; results in $B/bench/native.json" >&2
