#!/bin/bash
# fetch-debian.sh - Debian's own kernels and busybox, for the real-kernel
# tests: the kernel packages behind linux-image-amd64 and
# linux-image-686:i386, and busybox-static of both architectures.
# Downloaded with apt-get download, unpacked and cached under build/debian/
# (never committed).  Prints nothing but progress on stderr; exits 0 when
# build/debian/{amd64,i386}/{vmlinuz,busybox} are in place.
set -euo pipefail
cd "$(dirname "$0")/.."
D=${B:-build}/debian
mkdir -p "$D"

have_all() {
	for a in amd64 i386; do
		[ -s "$D/$a/vmlinuz" ] && [ -s "$D/$a/busybox" ] || return 1
	done
}
have_all && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "fetch-debian: needs root for 'dpkg --add-architecture i386; apt-get update'" >&2
	exit 1
fi
if ! dpkg --print-foreign-architectures | grep -qx i386; then
	dpkg --add-architecture i386
	apt-get update -qq >&2 || echo "fetch-debian: apt-get update reported errors; going on with the lists it has" >&2
elif [ -z "$(apt-cache policy linux-image-686:i386 2>/dev/null | sed -n 's/ *Candidate: //p' | grep -v none)" ]; then
	apt-get update -qq >&2 || echo "fetch-debian: apt-get update reported errors; going on with the lists it has" >&2
fi

# The real package behind a metapackage: "linux-image-6.1.0-28-amd64".
kernel_package() {
	apt-cache depends "$1" | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1
}

fetch() {   # fetch ARCH PACKAGE: unpack PACKAGE into $D/ARCH/root
	local arch=$1 pkg=$2 dir=$D/$1
	mkdir -p "$dir/deb" "$dir/root"
	echo "fetch-debian: $pkg" >&2
	local try
	for try in 1 2 3; do    # mirrors have bad minutes
		(cd "$dir/deb" && apt-get download -q "$pkg" >&2) && break
		[ $try = 3 ] && return 1
		sleep 5
	done
	dpkg-deb -x "$(ls -t "$dir"/deb/*.deb | head -n 1)" "$dir/root"
	rm -f "$dir"/deb/*.deb
}

for arch in amd64 i386; do
	dir=$D/$arch
	if [ ! -s "$dir/vmlinuz" ]; then
		meta=linux-image-amd64
		[ $arch = i386 ] && meta=linux-image-686:i386
		pkg=$(kernel_package "$meta")
		[ -n "$pkg" ] || { echo "fetch-debian: cannot resolve $meta" >&2; exit 1; }
		[ $arch = i386 ] && pkg=${pkg%:i386}:i386
		fetch $arch "$pkg"
		cp "$(ls "$dir"/root/boot/vmlinuz-* | head -n 1)" "$dir/vmlinuz"
		echo "${pkg%:i386}" > "$dir/kernel-package"
		rm -rf "$dir/root"
	fi
	if [ ! -s "$dir/busybox" ]; then
		pkg=busybox-static
		[ $arch = i386 ] && pkg=busybox-static:i386
		fetch $arch $pkg
		cp "$dir/root/bin/busybox" "$dir/busybox"
		rm -rf "$dir/root"
	fi
done
have_all
