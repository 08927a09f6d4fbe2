#!/bin/bash
# stub-sizes.sh - what bzpack adds around a payload, per codec and word
# size, measured on this build: the protected-mode stub (entry, boot
# story, its one decoder); the whole image minus its payload, as
# `bzpack --info` counts it (overhead: the real-mode setup in whole
# sectors, the PE headers and sections of a 64-bit image, the stub, our
# header), from a pack of the test kernel without its filler (the
# overhead does not depend on the payload); and the decoder's workspace
# (memory, not file bytes).  Then the size targets, each with whether it
# holds.  The README's table comes from here, never typed:
#
#   stub-sizes.sh table    the markdown table on stdout
#   stub-sizes.sh readme   rewrite it in README.md between its markers
#   stub-sizes.sh check    exit 1 (saying why) if README.md's table is not
#                          this build's
set -uo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}

# shellcheck source=/dev/null
. "$B/gen/bzpack_format.sh" || { echo "stub-sizes: $B/gen/bzpack_format.sh missing: run make" >&2; exit 1; }
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

# The targets for image minus payload: codec, bits, bytes.
TARGETS="lz4 64 12288
lz4 32 10240
xz 64 16384
zstd 64 24576"

# overhead CODEC BITS: image minus payload from `bzpack --info` of a pack
# of the test kernel without its 3 MiB of filler (.rodata), at the
# codec's lowest level (the overhead is the same at every level).
overhead() {
	local img=$TMP/$1-$2.img lv
	[ -s "$TMP/tiny$2.elf" ] ||
		objcopy -R .rodata "$B/images/testkern$2.elf" "$TMP/tiny$2.elf" 2>/dev/null || return 1
	lv=$("$B/bzpack" --help | awk -v c="$1" '$1 == c { split($2, l, "."); print l[1] }')
	"$B/bzpack" -c "$1" -l "$lv" -o "$img" "$TMP/tiny$2.elf" 2>/dev/null &&
		"$B/bzpack" --info "$img" | awk '$1 == "overhead:" { print $2 }'
}

table() {
	local codecs c ws s32 s64 o32 o64 bits want got
	codecs=$("$B/bzpack" --list-codecs) && [ -n "$codecs" ] ||
		{ echo "stub-sizes: $B/bzpack --list-codecs gave no codecs" >&2; return 1; }
	echo "| codec | stub, 32-bit | stub, 64-bit | image minus payload, 32-bit | image minus payload, 64-bit | decoder workspace |"
	echo "|---|---|---|---|---|---|"
	declare -A over=()
	for c in $codecs; do
		# the file stem is the C identifier: lzo-rle -> lzo_rle
		s32=$(stat -c %s "$B/stub/${c//-/_}-32.bin") || return 1
		s64=$(stat -c %s "$B/stub/${c//-/_}-64.bin") || return 1
		o32=$(overhead "$c" 32) && [ -n "$o32" ] || { echo "stub-sizes: no 32-bit $c overhead from bzpack --info" >&2; return 1; }
		o64=$(overhead "$c" 64) && [ -n "$o64" ] || { echo "stub-sizes: no 64-bit $c overhead from bzpack --info" >&2; return 1; }
		over[$c-32]=$o32 over[$c-64]=$o64
		ws=$("$B/bzpack" --help | awk -v c="$c" '$1 == c { print $(NF - 1) }')
		[ -n "$ws" ] || { echo "stub-sizes: no workspace for $c in bzpack --help" >&2; return 1; }
		printf '| %s | %s | %s | %s | %s | %s |\n' "$c" "$(commas "$s32")" "$(commas "$s64")" \
			"$(commas "$o32")" "$(commas "$o64")" "$(commas "$ws")"
	done
	echo
	echo "Bytes, from \`make\` on this tree (\`ci/stub-sizes.sh\`).  Image minus payload is"
	echo "\`bzpack --info\`'s overhead: the real-mode setup and its version string in"
	echo "whole sectors (a 64-bit image's with its PE headers and sections), the"
	echo "stub and the $BZPACK_HEADER_SIZE-byte bzpack header.  Targets for it:"
	echo
	while read -r c bits want; do
		got=${over[$c-$bits]:-}
		[ -n "$got" ] || { echo "stub-sizes: target for $c $bits-bit, which has no row" >&2; return 1; }
		if [ "$got" -le "$want" ]; then
			printf -- '- %s %s-bit: at most %s KiB: %s bytes, holds\n' "$c" "$bits" $((want / 1024)) "$(commas "$got")"
		else
			printf -- '- %s %s-bit: at most %s KiB: %s bytes, **not met** (%s over)\n' "$c" "$bits" \
				$((want / 1024)) "$(commas "$got")" "$(commas $((got - want)))"
		fi
	done <<< "$TARGETS"
	echo
	prologues
}

# The self-check prologues (stub/selfcheck.inc): per entry, the bytes
# from the entry to the end of its prologue, over every stub.
prologues() {
	local rows entry lo hi
	rows=$(python3 ci/selfcheck-map.py prologues "$B/stub/setup.bin" "$B"/stub/*-[36][24].elf) &&
		[ -n "$rows" ] || { echo "stub-sizes: ci/selfcheck-map.py prologues failed" >&2; return 1; }
	echo "| entry | self-check prologue, bytes |"
	echo "|---|---|"
	while read -r entry lo hi; do
		case $entry in
		setup) entry="real-mode setup (QEMU -kernel, GRUB linux16)" ;;
		startup_32) entry="32-bit, \`startup_32\`" ;;
		startup_64) entry="64-bit, \`startup_64\`" ;;
		efi_pe_entry) entry="PE entry (UEFI)" ;;
		efi_handover_entry) entry="EFI handover" ;;
		esac
		[ "$lo" = "$hi" ] && echo "| $entry | $lo |" || echo "| $entry | $lo-$hi |"
	done <<< "$rows"
}

commas() { echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }

case ${1:-table} in
table) table ;;
readme | check)
	t=$(table) || exit 1
	check=()
	[ "$1" = check ] && check=(--check)
	printf '%s\n' "$t" | bash ci/readme-table.sh "${check[@]}" stub-table - ||
		{ [ "$1" = check ] && echo "(run: bash ci/stub-sizes.sh readme)"; exit 1; }
	;;
*) echo "usage: stub-sizes.sh table|readme|check" >&2; exit 2 ;;
esac
