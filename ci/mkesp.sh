#!/bin/bash
# mkesp.sh OUT BOOTX64.EFI [SRC=\PATH ...] - a FAT disk image (no partition
# table: UEFI firmware reads a whole-disk FAT as removable media) made
# with mtools, holding BOOTX64.EFI as \EFI\BOOT\BOOTX64.EFI, where the
# firmware's default boot looks, and each SRC file at its \PATH.
set -euo pipefail
out=$1 boot=$2
shift 2

bytes=$(stat -c %s "$boot")
for spec in "$@"; do
	bytes=$((bytes + $(stat -c %s "${spec%%=*}")))
done
mib=$((bytes / 1048576 + 16))          # room for FAT16's tables and slack

rm -f "$out.tmp"
dd if=/dev/zero of="$out.tmp" bs=1M count=$mib status=none
mformat -i "$out.tmp" -v BZPACK ::
mmd -i "$out.tmp" ::/EFI ::/EFI/BOOT
mcopy -i "$out.tmp" "$boot" ::/EFI/BOOT/BOOTX64.EFI
for spec in "$@"; do
	dest=${spec#*=}
	dest=${dest//\\//}
	dir=$(dirname "$dest")
	[ "$dir" = / ] || mmd -D s -i "$out.tmp" "::$dir" 2>/dev/null || true
	mcopy -i "$out.tmp" "${spec%%=*}" "::$dest"
done
mv "$out.tmp" "$out"
