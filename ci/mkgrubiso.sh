#!/bin/bash
# mkgrubiso.sh KERNEL INITRD CMDLINE OUT.iso - a BIOS GRUB rescue ISO whose
# only menu entry boots KERNEL with `linux` (the 32-bit boot protocol:
# GRUB fills boot_params itself) and INITRD, talking on the serial port.
# An empty INITRD: no `initrd` line (an image that embeds its own).
set -euo pipefail
kernel=$1 initrd=$2 cmdline=$3 out=$4
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/boot/grub"
cp "$kernel" "$root/boot/kernel"
initrd_line=""
if [ -n "$initrd" ]; then
	cp "$initrd" "$root/boot/initrd"
	initrd_line="initrd /boot/initrd"
fi
cat > "$root/boot/grub/grub.cfg" <<CFG
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
menuentry "bzpack" {
	linux /boot/kernel $cmdline
	$initrd_line
}
CFG
grub-mkrescue -o "$out.tmp" "$root" >/dev/null 2>&1 || { echo "mkgrubiso: grub-mkrescue failed" >&2; exit 1; }
mv "$out.tmp" "$out"
