#!/bin/bash
# mkinitramfs.sh [-k IMAGE [-i INITRD] [-a APPEND] [-s]] BUSYBOX OUT [PAD_MIB]
# A tiny initramfs whose /init prints what firmware the kernel found (a
# UEFI system table with runtime services, ACPI tables) and the kernel's
# _text line of /proc/kallsyms, then a marker line, and powers off.
# PAD_MIB adds that much incompressible data, to make the initrd large
# (memory-tight tests).  With -k, /init then loads IMAGE (with INITRD and
# the command line APPEND) with this machine's kexec (kexec-tools, and the
# libraries it links, as ldd lists them) and boots it with `kexec -e`
# instead of powering off: a second kernel started the way kexec-tools
# starts it.  The first kernel must be amd64, like this machine's kexec.
# /init also lists /tags: this archive holds /tags/initramfs, and another
# archive handed over with it (ci/test-initrd.sh) adds its own tag, so a
# boot shows which initrds reached the kernel.
# -s loads with kexec_file_load (`kexec -s`: the running kernel parses the
# image itself) instead of kexec_load; when that fails, /init prints the
# kernel's last messages, which say why.
set -euo pipefail
kimage="" kinitrd="" kappend="" kfile=""
while getopts "k:i:a:s" opt; do
	case $opt in
	k) kimage=$OPTARG ;;
	i) kinitrd=$OPTARG ;;
	a) kappend=$OPTARG ;;
	s) kfile=-s ;;
	*) echo "usage: mkinitramfs.sh [-k IMAGE [-i INITRD] [-a APPEND] [-s]] BUSYBOX OUT [PAD_MIB]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
busybox=$1 out=$2 pad=${3:-0}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tags"
: > "$root/tags/initramfs"
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
# Where the kernel's text is, for the KASLR tests (before the marker, at
# which the tests stop QEMU).
echo "bzpack-initramfs: $(/bin/busybox grep -m1 ' _text$' /proc/kallsyms)"
# The setup_data types the loader handed over (9: an RNG seed).
echo "bzpack-initramfs: setup_data types=$(/bin/busybox cat /sys/kernel/boot_params/setup_data/*/type 2>/dev/null | /bin/busybox tr '\n' ' ')"
echo "bzpack-initramfs: tags=$(/bin/busybox ls /tags | /bin/busybox tr '\n' ' ')"
echo "bzpack-initramfs: userspace reached, kernel $(/bin/busybox uname -r) $(/bin/busybox uname -m)"
[ -x /sbin/kexec ] && . /kexec.sh
/bin/busybox poweroff -f
INIT
chmod 755 "$root/init"
if [ -n "$kimage" ]; then
	kexec=$(command -v kexec || echo /sbin/kexec)
	[ -x "$kexec" ] || { echo "mkinitramfs: no kexec here (kexec-tools)" >&2; exit 1; }
	mkdir -p "$root/sbin"
	cp "$kexec" "$root/sbin/kexec"
	# The libraries, at the paths the dynamic linker looks in.
	ldd "$kexec" | grep -o '/[^ ]*' | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	cp "$kimage" "$root/kexec-image"
	initrd_arg=""
	if [ -n "$kinitrd" ]; then
		cp "$kinitrd" "$root/kexec-initrd"
		initrd_arg="--initrd=/kexec-initrd"
	fi
	# Sourced by /init: quoted here, expanded there.
	cat > "$root/kexec.sh" <<KEXEC
echo "bzpack-initramfs: kexec${kfile:+ $kfile} -l \$(/bin/busybox stat -c %s /kexec-image)-byte image"
if /sbin/kexec $kfile -l /kexec-image $initrd_arg --command-line='$kappend'; then
	echo "bzpack-initramfs: kexec -e"
	/sbin/kexec -e
fi
echo "bzpack-initramfs: kexec failed"
/bin/busybox dmesg | /bin/busybox tail -n 5 | /bin/busybox sed 's/^/bzpack-initramfs: dmesg: /'
KEXEC
fi
if [ "$pad" -gt 0 ]; then
	head -c $((pad << 20)) /dev/urandom > "$root/padding"
fi
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
