#!/bin/sh
# deps.sh - install the Debian packages bzpack builds and tests with.
# As root it runs apt-get; otherwise it prints the exact line to run.
set -eu

PACKAGES="make gcc gcc-multilib libc6-dev-i386 binutils nasm file
qemu-system-x86 liblz4-dev lz4
zlib1g-dev libbz2-dev liblzma-dev libzstd-dev liblzo2-dev
gzip bzip2 xz-utils lzop zstd cpio
libdeflate-dev gnuplot-nox
man-db strace python3-yaml
grub-pc-bin grub-common xorriso mtools kexec-tools
ovmf sbsigntool grub-efi-amd64-bin openssl libssl-dev
systemd-boot-efi ipxe syslinux syslinux-common dosfstools
clang-14 libclang-rt-14-dev
liblz4-dev:i386 liblzo2-dev:i386 libdeflate-dev:i386
lib32stdc++-12-dev
flex bison bc libelf-dev gdb
libxxhash-dev"
# libxxhash-dev is the reference tests/test_xxh64.c checks decode/xxh64.h
# against (the stub's payload check without SSE4.2).
# flex, bison, bc and libelf-dev build Linux from Debian's linux-source-6.1
# (ci/fixtures/linux-src.sh, for ci/tests/test-linux.sh); gdb checks the instruction
# counting method there against our report line.
# man-db, strace and python3-yaml check what make install installs
# (ci/tests/test-install.sh: the man page renders without warnings, the binary
# opens no file of this tree, docs/kernel-ci.yml parses).
# ovmf, sbsigntool and grub-efi-amd64-bin are for ci/tests/test-efi.sh: UEFI
# firmware for QEMU, sbverify/sbsign, and GRUB for x86_64-efi; libssl-dev
# gives the packer libcrypto, which signs images (tools/packer/sign.c).
# systemd-boot-efi, ipxe, syslinux and syslinux-common are the loaders
# ci/tests/test-loaders.sh boots through (systemd-boot and systemd-stub, iPXE
# for BIOS and UEFI, syslinux and its BIOS modules); mtools makes their
# FAT disks, dosfstools (mkfs.vfat) the one syslinux installs on.
# The last two lines are for the -m32 host tests and fuzzers
# (tests/tests.mk, tests/fuzz.mk): the reference libraries for i386 where
# Debian's i386 build installs beside the amd64 one without libc6-dev:i386
# (liblzma and libzstd get security updates at different times on the two
# architectures, and Multi-Arch wants equal versions; libbz2-dev and
# zlib1g-dev pull in libc6-dev:i386, whose linux-libc-dev:i386 lags the
# same way), gcc-multilib above for the 32-bit
# libc, libasan and libubsan, and the 32-bit libstdc++ that clang's
# libFuzzer runtime links with.  Packages named ...:i386 need the i386
# architecture in dpkg, which is added below when it is missing.

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

# Is a package of a foreign architecture missing while dpkg does not know
# that architecture yet?  Then apt has no lists for it either.
add_arch=""
for p in $missing; do
	case $p in
	*:*) a=${p##*:}
	     dpkg --print-foreign-architectures | grep -qx "$a" || add_arch="$add_arch $a" ;;
	esac
done
add_arch=$(printf '%s\n' $add_arch | sort -u | tr '\n' ' ')

if [ "$(id -u)" -eq 0 ]; then
	for a in $add_arch; do
		echo "deps: adding the $a architecture to dpkg" >&2
		dpkg --add-architecture "$a"
	done
	echo "deps: installing$missing" >&2
	apt-get update -qq >&2 || echo "deps: apt-get update reported errors; installing from the lists it has" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
else
	echo "bzpack: missing Debian packages; run:" >&2
	for a in $add_arch; do
		echo "  sudo dpkg --add-architecture $a && sudo apt-get update" >&2
	done
	echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi
