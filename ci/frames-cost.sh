#!/bin/bash
# frames-cost.sh KERNEL [CODEC...] - what --frames costs and saves on one
# kernel: for each codec (default: every one but none) and 1, 2, 4 and 8
# frames, the payload's size (the frame table included) against one
# frame, and the pack's wall and CPU
# seconds (the frames compress on every host core).  With ICOUNT=1 each
# image also boots under QEMU -icount (rdtsc counts instructions) until
# its report line, for the serial decode totals (decompress=, verify=).
# Prints one line per codec and frame count.
set -u
kernel=$1; shift
BZPACK=${BZPACK:-build/bzpack}
codecs=${*:-$($BZPACK --list-codecs | grep -vx none)}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

printf '%-8s %6s %10s %9s %8s %8s %14s %12s\n' codec frames payload cost wall_s cpu_s decompress verify
for c in $codecs; do
	one=
	for n in 1 2 4 8; do
		img=$dir/$c-$n.img
		t0=$(date +%s.%N)
		cpu=$( { /usr/bin/time -f '%U %S' $BZPACK -q -c "$c" --frames $n -o "$img" "$kernel" 2>&1 >/dev/null; } | tail -1)
		t1=$(date +%s.%N)
		[ -s "$img" ] || { echo "$c $n: pack failed: $cpu"; continue; }
		size=$($BZPACK --info "$img" | sed -n 's/^compressed: *\([0-9]*\) bytes.*/\1/p')
		[ $n = 1 ] && one=$size
		dec=- ver=-
		if [ "${ICOUNT:-0}" = 1 ]; then
			log=$dir/$c-$n.log
			bash ci/qemu-boot.sh -d -t 1800 -m 1G -e '^bzpack: codec=' "$img" "$log" >/dev/null 2>&1
			dec=$(grep -m1 '^bzpack: codec=' "$log" | tr ' ' '\n' | sed -n 's/^decompress=//p')
			ver=$(grep -m1 '^bzpack: codec=' "$log" | tr ' ' '\n' | sed -n 's/^verify=//p')
		fi
		printf '%-8s %6s %10s %+8.2f%% %8.1f %8.1f %14s %12s\n' "$c" "$n" "$size" \
			"$(echo "100 * ($size - $one) / $one" | bc -l)" "$(echo "$t1 - $t0" | bc -l)" \
			"$(echo "$cpu" | awk '{ print $1 + $2 }')" "${dec:--}" "${ver:--}"
		rm -f "$img"
	done
done
