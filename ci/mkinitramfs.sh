#!/bin/bash
# mkinitramfs.sh BUSYBOX OUT [PAD_MIB] - a tiny initramfs whose /init
# prints what firmware the kernel found (a UEFI system table with runtime
# services, ACPI tables), then a marker line, and powers off.  PAD_MIB adds that much
# incompressible data, to make the initrd large (memory-tight tests).
set -euo pipefail
busybox=$1 out=$2 pad=${3:-0}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev"
cp "$busybox" "$root/bin/busybox"
cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
yes_no() { if "$@"; then echo yes; else echo no; fi; }
# efivars appears only when the kernel can call EFI runtime services.
echo "bzpack-initramfs: firmware efi=$(yes_no test -d /sys/firmware/efi)" \
	"efi_runtime=$(yes_no test -d /sys/firmware/efi/efivars)" \
	"acpi=$(yes_no test -e /sys/firmware/acpi/tables/DSDT)"
echo "bzpack-initramfs: userspace reached, kernel $(/bin/busybox uname -r) $(/bin/busybox uname -m)"
/bin/busybox poweroff -f
INIT
chmod 755 "$root/init"
if [ "$pad" -gt 0 ]; then
	head -c $((pad << 20)) /dev/urandom > "$root/padding"
fi
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
