#!/bin/bash
# bcj-table.sh - what --bcj trades, per codec: image bytes with and without
# the x86 filter, and the stub's guest instructions per output byte to
# decompress and to un-filter (QEMU -icount shift=0,sleep=off: rdtsc counts
# instructions, so the counts are exact and repeat).  Writes the README's
# markdown table to $B/test/bcj-table.md (make bench-bcj; make readme-bcj
# puts it into README.md).
#
#   KERNELS  the inputs, NAME=PATH, space-separated (default: testkern64,
#            and Debian's amd64 kernel when ci/fixtures/fetch-debian.sh has it in
#            $B/debian/amd64/vmlinuz)
#   CODECS   the codecs (default: every codec but none and xz, for testkern64;
#            DEBIAN_CODECS for the Debian kernel, default lz4: the
#            others take minutes each to pack (zstd -22: over ten) and boot)
#
# Exit status 0 with every row measured; 1 if any pack or boot failed
# (nothing written: no table with holes).
set -uo pipefail
B=${B:-build}
BZPACK=$B/bzpack
T=$B/test/bcj-table
mkdir -p "$T"
out=$B/test/bcj-table.md

# Not none (nothing to compress better) nor xz (its stream has the x86
# filter inside; --bcj leaves it alone).
all_codecs=$($BZPACK --list-codecs | grep -vx -e none -e xz) || { echo "bcj-table: $BZPACK --list-codecs failed" >&2; exit 1; }
[ -n "$all_codecs" ] || { echo "bcj-table: no codecs" >&2; exit 1; }
CODECS=${CODECS:-$all_codecs}
DEBIAN_CODECS=${DEBIAN_CODECS:-lz4}
if [ -z "${KERNELS:-}" ]; then
	KERNELS="testkern64=$B/images/testkern64.elf"
	[ -s "$B/debian/amd64/vmlinuz" ] && KERNELS+=" debian-amd64=$B/debian/amd64/vmlinuz"
fi

# field LOG KEY: the report line's value of KEY
field() { grep -a -m1 '^bzpack: codec=' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

rows=$T/rows.md
: > "$rows"
status=0
for spec in $KERNELS; do
	kname=${spec%%=*} kpath=${spec#*=}
	codecs=$CODECS
	[ "$kname" = debian-amd64 ] && codecs=$DEBIAN_CODECS
	for codec in $codecs; do
		declare -A size=() dec=() unf=() outb=()
		for variant in plain bcj; do
			img=$T/$kname-$codec-$variant.img log=$T/$kname-$codec-$variant.log
			flag=()
			[ $variant = bcj ] && flag=(--bcj)
			echo "bcj-table: $kname $codec $variant" >&2
			if ! nice $BZPACK -q -c "$codec" "${flag[@]}" --pack-cache "$B/pack-cache" -o "$img" "$kpath" 2> "$log.pack"; then
				echo "bcj-table: pack $kname $codec $variant failed: $(head -c 300 "$log.pack")" >&2
				status=1; continue 2
			fi
			bash ci/qemu-boot.sh -d -m 1G -t 900 -a "nokaslr console=ttyS0" -e '^bzpack: codec=' "$img" "$log"
			rc=$?
			if [ $rc -ne 0 ] && [ $rc -ne 33 ]; then
				echo "bcj-table: boot $kname $codec $variant: status $rc" >&2
				status=1; continue 2
			fi
			size[$variant]=$(stat -c %s "$img")
			dec[$variant]=$(field "$log" decompress)
			outb[$variant]=$(field "$log" out)
			unf[$variant]=$(field "$log" unfilter)
			if [ -z "${dec[$variant]}" ] || [ -z "${outb[$variant]}" ] ||
				{ [ $variant = bcj ] && [ -z "${unf[$variant]}" ]; }; then
				echo "bcj-table: $kname $codec $variant: no report line with the fields" >&2
				status=1; continue 2
			fi
		done
		awk -v k="$kname" -v c="$codec" -v sp="${size[plain]}" -v sb="${size[bcj]}" \
			-v dp="${dec[plain]}" -v db="${dec[bcj]}" -v ub="${unf[bcj]}" -v n="${outb[plain]}" 'BEGIN {
			printf "| %s | %s | %d | %d | %+.1f %% | %.2f | %.2f | %.2f | %+.1f %% |\n",
				k, c, sp, sb, 100 * (sb - sp) / sp, dp / n, db / n, ub / n, 100 * (db + ub - dp) / dp
		}' >> "$rows"
	done
done
[ $status -eq 0 ] || exit 1
{
	echo "| kernel | codec | image bytes | with --bcj | size | decompress instr/B | with --bcj | un-filter instr/B | decompress + un-filter |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
	cat "$rows"
} > "$out"
echo "bcj-table: wrote $out" >&2
