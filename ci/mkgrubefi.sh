#!/bin/bash
# mkgrubefi.sh [-e] KERNEL INITRD CMDLINE OUT.img - an ESP (ci/mkesp.sh)
# whose BOOTX64.EFI is a standalone GRUB for x86_64-efi (grub-efi-amd64-bin)
# that boots KERNEL and INITRD, talking on the serial port.  An empty
# INITRD: no initrd line (an image that embeds its own).
#   default  `linux` and `initrd`: Debian's GRUB 2.06 without Secure Boot
#            uses the boot protocol's 32-bit entry (it fills efi_info)
#   -e       `linuxefi` and `initrdefi`: the EFI handover protocol, which
#            Debian's `linux` switches to under Secure Boot
set -euo pipefail
linux=linux initrd_cmd=initrd
if [ "${1:-}" = -e ]; then
	linux=linuxefi initrd_cmd=initrdefi
	shift
fi
kernel=$1 initrd=$2 cmdline=$3 out=$4
initrd_line="" initrd_file=()
if [ -n "$initrd" ]; then
	initrd_line="$initrd_cmd /boot/initrd"
	initrd_file=("$initrd=/boot/initrd")
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

cat > "$dir/grub.cfg" <<CFG
serial --unit=0 --speed=115200
terminal_input serial
terminal_output serial
set timeout=0
search --no-floppy --file --set=root /boot/kernel
menuentry "bzpack" {
	$linux /boot/kernel $cmdline
	$initrd_line
}
CFG
grub-mkstandalone -O x86_64-efi -o "$dir/grubx64.efi" \
	--modules="fat part_msdos search search_fs_file linux linuxefi serial terminal normal" \
	"boot/grub/grub.cfg=$dir/grub.cfg" >/dev/null 2>&1 ||
	{ echo "mkgrubefi: grub-mkstandalone failed" >&2; exit 1; }
bash "$(dirname "$0")/mkesp.sh" "$out" "$dir/grubx64.efi" "$kernel=/boot/kernel" "${initrd_file[@]}"
