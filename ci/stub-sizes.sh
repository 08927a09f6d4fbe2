#!/bin/bash
# stub-sizes.sh - what bzpack adds around a payload, per codec and word
# size, measured on this build: the protected-mode stub (entry, boot
# story, its one decoder), the real-mode setup, our header, and the
# decoder's workspace (memory, not file bytes).  The README's table comes
# from here, never typed:
#
#   stub-sizes.sh table    the markdown table on stdout
#   stub-sizes.sh readme   rewrite it in README.md between its markers
#   stub-sizes.sh check    exit 1 (saying why) if README.md's table is not
#                          this build's
set -uo pipefail
cd "$(dirname "$0")/.."
B=${B:-build}
BEGIN='<!-- stub-table:begin -->' END='<!-- stub-table:end -->'

# shellcheck source=/dev/null
. "$B/gen/bzpack_format.sh" || { echo "stub-sizes: $B/gen/bzpack_format.sh missing: run make" >&2; exit 1; }

table() {
	local codecs setup c ws s32 s64
	codecs=$("$B/bzpack" --list-codecs) && [ -n "$codecs" ] ||
		{ echo "stub-sizes: $B/bzpack --list-codecs gave no codecs" >&2; return 1; }
	setup=$(stat -c %s "$B/stub/setup.bin") || return 1
	echo "| codec | stub, 32-bit | stub, 64-bit | + setup and header | decoder workspace |"
	echo "|---|---|---|---|---|"
	for c in $codecs; do
		# the file stem is the C identifier: lzo-rle -> lzo_rle
		s32=$(stat -c %s "$B/stub/${c//-/_}-32.bin") || return 1
		s64=$(stat -c %s "$B/stub/${c//-/_}-64.bin") || return 1
		ws=$("$B/bzpack" --help | awk -v c="$c" '$1 == c { print $(NF - 1) }')
		[ -n "$ws" ] || { echo "stub-sizes: no workspace for $c in bzpack --help" >&2; return 1; }
		printf '| %s | %s | %s | %s | %s |\n' "$c" "$(commas "$s32")" "$(commas "$s64")" \
			"$(commas $((setup + BZPACK_HEADER_SIZE)))" "$(commas "$ws")"
	done
	echo
	echo "Bytes, from \`make\` on this tree (\`ci/stub-sizes.sh\`); the setup is the"
	echo "real-mode part before its version string, rounded to sectors in the file."
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
	grep -qx -- "$BEGIN" README.md && grep -qx -- "$END" README.md ||
		{ echo "stub-sizes: README.md has no $BEGIN ... $END markers" >&2; exit 1; }
	new=$(awk -v b="$BEGIN" -v e="$END" -v t="$t" '
		$0 == b { print; print t; skip = 1; next }
		$0 == e { skip = 0 }
		!skip { print }' README.md)
	if [ "$1" = check ]; then
		if [ "$new" = "$(cat README.md)" ]; then exit 0; fi
		echo "README.md's stub table is not this build's (run: bash ci/stub-sizes.sh readme):"
		diff <(cat README.md) <(echo "$new") | grep '^[<>] |' | head -n 6
		exit 1
	fi
	printf '%s\n' "$new" > README.md.tmp && mv README.md.tmp README.md
	echo "stub-sizes: README.md table rewritten"
	;;
*) echo "usage: stub-sizes.sh table|readme|check" >&2; exit 2 ;;
esac
