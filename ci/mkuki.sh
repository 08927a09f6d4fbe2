#!/bin/bash
# mkuki.sh KERNEL INITRD CMDLINE OUT.efi - a unified kernel image: systemd's
# EFI stub (linuxx64.efi.stub, Debian's systemd-boot-efi) with KERNEL as
# its .linux section, INITRD as .initrd, CMDLINE as .cmdline and an
# os-release as .osrel, added with objcopy as systemd-stub(7) describes.
# Each section's address follows the one before it (the stub's own
# sections first), page aligned: the stub warns about, and may be
# corrupted by, overlapping sections.
set -euo pipefail
stub=${UKI_STUB:-/usr/lib/systemd/boot/efi/linuxx64.efi.stub}
kernel=$1 initrd=$2 cmdline=$3 out=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

printf '%s' "$cmdline" > "$dir/cmdline"
# systemd-boot lists a Type #2 entry by its .osrel's PRETTY_NAME.
cat > "$dir/osrel" <<OSREL
NAME="bzpack test"
ID=bzpack
VERSION_ID=1
PRETTY_NAME="bzpack test UKI"
OSREL

# The end of the stub's highest section (objdump -h: index, name, size,
# VMA, ...; the numbers in hexadecimal).
end=0
while read -r _ _ size vma _; do
	[ $((0x$vma + 0x$size)) -gt $end ] && end=$((0x$vma + 0x$size))
done < <(objdump -h "$stub" | grep -E '^ *[0-9]+ ')
[ $end -gt 0 ] || { echo "mkuki: no sections in $stub" >&2; exit 1; }

args=()
for spec in ".osrel=$dir/osrel" ".cmdline=$dir/cmdline" ".linux=$kernel" ".initrd=$initrd"; do
	section=${spec%%=*} file=${spec#*=}
	vma=$(( (end + 0xfff) & ~0xfff ))
	args+=(--add-section "$spec" --change-section-vma "$section=$(printf '0x%x' $vma)")
	end=$((vma + $(stat -L -c %s "$file")))
done
objcopy "${args[@]}" "$stub" "$out.tmp"
mv "$out.tmp" "$out"
