#!/bin/bash
# verify-table.sh [OUT] - what the stub's payload check costs, measured:
# lz4 images of the test kernels and of Debian's amd64 and i386 kernels,
# each booted under `ci/qemu-boot.sh -d` (-icount: the report line's
# fields count instructions) on QEMU's default CPU (qemu64: SSE2, no
# SSE4.2, so check=xxh3) and with -cpu max (SSE4.2: check=crc32c-hw),
# until the stub's report line.  Writes the markdown table to OUT
# (default $B/test/verify.md); `make readme-verify` puts it into the
# README between its verify-table markers.  Exit 1 when a boot gives no
# report line or the check= it should have.
set -uo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
OUT=${1:-$B/test/verify.md}
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$(dirname "$OUT")"

# name, kernel file: the Debian ones only where ci/fetch has them.
KERNELS="testkern32 $B/images/testkern32.elf
testkern64 $B/images/testkern64.elf
Debian i386 $B/debian/i386/vmlinuz
Debian amd64 $B/debian/amd64/vmlinuz"

field() { # field LOG NAME: NAME= of the report line
	tr -d '\r' < "$1" | sed -n "s/^bzpack: codec=.* $2=\\([^ ]*\\).*/\\1/p" | head -n1
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

{
	echo "| kernel | bits | payload bytes | CPU | check | verify= | per payload byte | total= per kernel byte |"
	echo "|---|---|---|---|---|---|---|---|"
} > "$TMP/table"
status=0
while read -r line; do
	kernel=${line##* } name=${line% *}
	if [ ! -s "$kernel" ]; then
		echo "verify-table: $kernel missing: its rows are left out" >&2
		continue
	fi
	img=$TMP/k.img
	if ! out=$("$B/bzpack" -c lz4 -o "$img" "$kernel" 2>&1); then
		echo "verify-table: pack $kernel: $out" >&2
		status=1
		continue
	fi
	for cpu in "" max; do
		want=xxh3 cpuname="default (qemu64)"
		[ -n "$cpu" ] && want=crc32c-hw cpuname="max"
		log=$TMP/boot.log
		bash ci/qemu-boot.sh -d -t 180 -m 512M ${cpu:+-c "$cpu"} -a "console=ttyS0 nokaslr" \
			-e '^bzpack: codec=' "$img" "$log" > /dev/null
		in=$(field "$log" in) out=$(field "$log" out) verify=$(field "$log" verify)
		total=$(field "$log" total) bits=$(field "$log" bits) check=$(field "$log" check)
		if [ -z "$verify" ] || [ "$check" != "$want" ]; then
			echo "verify-table: $name, -cpu ${cpu:-default}: no report line with check=$want" \
				"($(tr '\r\n' '||' < "$log" | cut -c1-200))" >&2
			status=1
			continue
		fi
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$bits" "$in" "$cpuname" "$check" \
			"$verify" "$(ratio "$verify" "$in")" "$(ratio "$total" "$out")" >> "$TMP/table"
	done
done <<< "$KERNELS"
{
	cat "$TMP/table"
	echo
	echo "Instructions, from \`ci/verify-table.sh\` on this tree: lz4 images booted under"
	echo "\`-icount\` with \`nokaslr\` up to the report line."
} > "$OUT"
echo "verify-table: $OUT"
exit $status
