#!/bin/bash
# bench-seed.sh - the seed's experiment: $B/tools/bench_seed
# (tools/bench/bench_seed.c) times lzo and lzo-rle decoding of synthetic
# 4 KiB pages with 0..99 % zeros.  Run by `make bench-seed` and, after its
# rows, by `make bench-native`.
#
#   bench-seed.sh [run]   measure; the "seed" section of $B/bench/native.json,
#                         $B/bench/seed.svg; then README's seed table and
#                         docs/seed.svg from that same section
#   bench-seed.sh readme  README's table and docs/seed.svg from the recorded
#                         section, no measuring
#
#   BENCH_MIN_TIME    seconds per decoder and fraction, at least (default 0.3)
#   BENCH_MIN_REPS    whole-corpus decodes per decoder, at least (default 5)
#   BENCH_SEED_PAGES  pages per fraction instead of the default 1024: a
#                     person's quick look, which writes the JSON and
#                     $B/bench/seed.svg but not README.md or docs/
set -euo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-run}
B=${B:-build}
BB=$B/bench
exe=$B/tools/bench_seed
native=$BB/native.json
JSON="python3 ci/benchmarks/nativejson.py"
mkdir -p "$BB"

# $BB/seed.svg from the recorded section.
chart() {
	$JSON seed-dat "$native" > "$BB/seed.dat"
	if ! command -v gnuplot >/dev/null; then
		echo "bench-seed: gnuplot not installed: no chart" >&2
		return 1
	fi
	sed "s|@DAT@|$BB/seed.dat|g" ci/benchmarks/seed.gnuplot | gnuplot > "$BB/seed.svg.tmp" 2>"$BB/seed-gnuplot.log" ||
		{ echo "bench-seed: gnuplot failed: $(head -c 300 "$BB/seed-gnuplot.log")" >&2; return 1; }
	mv "$BB/seed.svg.tmp" "$BB/seed.svg"
	echo "bench-seed: wrote $BB/seed.svg" >&2
}

# README's table, and docs/seed.svg only when the chart is of the same
# numbers: both come from $native.
publish() {
	$JSON seed-table "$native" | bash ci/readme-table.sh seed-table - >&2 || return 1
	if chart; then
		cp "$BB/seed.svg" docs/seed.svg
		echo "bench-seed: wrote docs/seed.svg" >&2
	else
		echo "bench-seed: docs/seed.svg not updated" >&2
		return 1
	fi
}

case $mode in
run)
	if [ ! -x "$exe" ]; then
		echo "bench-seed: $exe is missing; run 'make bench-seed'" >&2
		exit 1
	fi
	args=(-o "$BB/seed.json" -t "${BENCH_MIN_TIME:-0.3}" -n "${BENCH_MIN_REPS:-5}")
	[ -n "${BENCH_SEED_PAGES:-}" ] && args+=(-p "$BENCH_SEED_PAGES")
	start=$SECONDS
	"$exe" "${args[@]}"
	$JSON merge "$native" seed "$BB/seed.json"
	echo "bench-seed: $((SECONDS - start)) s; results in the \"seed\" section of $native" >&2
	if [ -n "${BENCH_SEED_PAGES:-}" ]; then
		chart || true
		echo "bench-seed: README.md and docs/seed.svg not updated (BENCH_SEED_PAGES=$BENCH_SEED_PAGES;" \
			"'bash ci/benchmarks/bench-seed.sh readme' writes them anyway)" >&2
		exit 0
	fi
	publish
	;;
readme)
	publish
	;;
*)
	echo "usage: bench-seed.sh [run|readme]" >&2
	exit 2
	;;
esac
