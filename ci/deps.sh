#!/bin/sh
# deps.sh - install the Debian packages bzpack builds and tests with.
# As root it runs apt-get; otherwise it prints the exact line to run.
set -eu

PACKAGES="make gcc gcc-multilib libc6-dev-i386 binutils nasm file
qemu-system-x86 liblz4-dev lz4
zlib1g-dev libbz2-dev liblzma-dev libzstd-dev liblzo2-dev
gzip bzip2 xz-utils lzop zstd cpio
libdeflate-dev gnuplot-nox
grub-pc-bin grub-common xorriso mtools
clang-14 libclang-rt-14-dev"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
	echo "deps: installing$missing" >&2
	apt-get update -qq >&2 || echo "deps: apt-get update reported errors; installing from the lists it has" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
else
	echo "bzpack: missing Debian packages; run:" >&2
	echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
	exit 1
fi
