#!/bin/bash
# mkgrubiso.sh KERNEL INITRD CMDLINE OUT.iso - a BIOS GRUB rescue ISO whose
# only menu entry boots KERNEL with `linux` (the 32-bit boot protocol:
# GRUB fills boot_params itself) and INITRD, talking on the serial port.
set -euo pipefail
kernel=$1 initrd=$2 cmdline=$3 out=$4
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/boot/grub"
cp "$kernel" "$root/boot/kernel"
cp "$initrd" "$root/boot/initrd"
cat > "$root/boot/grub/grub.cfg" <<CFG
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
menuentry "bzpack" {
	linux /boot/kernel $cmdline
	initrd /boot/initrd
}
CFG
grub-mkrescue -o "$out.tmp" "$root" >/dev/null 2>&1 || { echo "mkgrubiso: grub-mkrescue failed" >&2; exit 1; }
mv "$out.tmp" "$out"
