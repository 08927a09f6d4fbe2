#!/bin/bash
# linux-src.sh - build small Linux kernels from Debian's linux-source-6.1,
# to measure Linux's own decompressor against ours and to boot a vmlinux
# built by Kbuild (its compressed/vmlinux.relocs) through bzpack.
#
#   linux-src.sh [VARIANT...]     (default: all of them)
#
# VARIANT is ARCH-CODEC or ARCH-lz4-seed: x86_64-lz4, x86_64-zstd,
# x86_64-xz, x86_64-lz4-seed, i386-lz4, i386-lz4-seed.  Each lands in
# build/linux/out/VARIANT/ as bzImage, vmlinux, vmlinux.relocs and config.
# "lz4-seed" is lz4 with the regression of Linux's pre-boot LZ4 put back
# (LZ4_memcpy calls memcpy, and misc.c undefines the memcpy/memset
# macros, so every copy is an out-of-line call).
#
# Everything is cached under build/linux: the .deb, the unpacked tree,
# one Kbuild output directory per architecture (so switching the codec
# rebuilds only arch/x86/boot/compressed), and each variant's outputs,
# which carry a stamp of what they were built from; a second run with
# nothing changed builds nothing.
set -euo pipefail

L=${B:-build}/linux
PKG=linux-source-6.1
ALL="x86_64-lz4 x86_64-zstd x86_64-xz x86_64-lz4-seed i386-lz4 i386-lz4-seed"
variants=${*:-$ALL}
mkdir -p "$L/deb" "$L/out"
L=$(cd "$L" && pwd)
t0=$(date +%s)
log() { echo "linux-src: $*" >&2; }
# One run at a time: the seed's edits are made in the shared tree.
exec 9> "$L/lock"
flock 9

# What every kernel is built from: tinyconfig, then what a serial
# console, an initramfs with a busybox /init (ELF and #! binaries, proc
# and sysfs for its lines, kallsyms for the KASLR check), relocation and
# KASLR, and the decompressor's own messages need.
FRAGMENT="SERIAL_8250 SERIAL_8250_CONSOLE PRINTK TTY X86_VERBOSE_BOOTUP
EARLY_PRINTK BLK_DEV_INITRD RD_GZIP RELOCATABLE RANDOMIZE_BASE BINFMT_ELF
BINFMT_SCRIPT PROC_FS SYSFS KALLSYMS DEVTMPFS"
# The seed's regression, as two edits of the fixed tree.
SEED_FILES="lib/lz4/lz4defs.h arch/x86/boot/compressed/misc.c"
seed_edit() {
	sed -i 's/#define LZ4_memcpy(dst, src, size) __builtin_memcpy(dst, src, size)/#define LZ4_memcpy(dst, src, size) memcpy(dst, src, size)/' \
		"$SRC/lib/lz4/lz4defs.h"
	sed -i '0,/^#ifdef CONFIG_KERNEL_GZIP/s//#undef memcpy\n#undef memset\n&/' \
		"$SRC/arch/x86/boot/compressed/misc.c"
	! cmp -s "$SRC/lib/lz4/lz4defs.h" "$L/orig/lz4defs.h" &&
	! cmp -s "$SRC/arch/x86/boot/compressed/misc.c" "$L/orig/misc.c" || {
		log "the seed's edits no longer apply to $PKG"; return 1; }
}
# Put the fixed files back.  A plain cp gives them a new mtime, so the
# next fixed build recompiles what the edited ones built.
seed_undo() {
	cmp -s "$SRC/lib/lz4/lz4defs.h" "$L/orig/lz4defs.h" || cp "$L/orig/lz4defs.h" "$SRC/lib/lz4/lz4defs.h"
	cmp -s "$SRC/arch/x86/boot/compressed/misc.c" "$L/orig/misc.c" || cp "$L/orig/misc.c" "$SRC/arch/x86/boot/compressed/misc.c"
}

# The source package and its unpacked tree.
deb=$(ls "$L"/deb/${PKG}_*.deb 2>/dev/null | tail -1 || true)
if [ -z "$deb" ]; then
	log "apt-get download $PKG"
	(cd "$L/deb" && apt-get download "$PKG" >&2)
	deb=$(ls "$L"/deb/${PKG}_*.deb | tail -1)
fi
version=$(dpkg-deb -f "$deb" Version)
SRC=$L/src/$PKG
if [ "$(cat "$L/src/stamp" 2>/dev/null)" != "$version" ]; then
	log "unpacking $PKG $version"
	rm -rf "$L/src" "$L/orig" "$L/obj"
	mkdir -p "$L/src"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards "./usr/src/$PKG.tar.xz" | xz -dc | tar -x -C "$L/src"
	mkdir -p "$L/orig"
	cp -p "$SRC/lib/lz4/lz4defs.h" "$SRC/arch/x86/boot/compressed/misc.c" "$L/orig/"
	echo "$version" > "$L/src/stamp"
fi
# A run stopped between seed_edit and seed_undo left the edits in.
seed_undo
trap seed_undo EXIT

key() { # what a variant's outputs depend on
	printf '%s\n' "$version" "$FRAGMENT" "$1" "$(declare -f seed_edit)"
}

for v in $variants; do
	arch=${v%%-*} codec=${v#*-} seed=""
	case $codec in *-seed) seed=1; codec=${codec%-seed} ;; esac
	case $arch in x86_64|i386) ;; *) log "unknown variant $v"; exit 2 ;; esac
	case $codec in lz4|zstd|xz|gzip|lzo|lzma|bzip2) ;; *) log "unknown variant $v"; exit 2 ;; esac
	out=$L/out/$v
	if [ "$(cat "$out/stamp" 2>/dev/null)" = "$(key "$v")" ] && [ -s "$out/bzImage" ]; then
		continue
	fi
	obj=$L/obj/$arch
	mkdir -p "$obj"
	kmake() { nice -n 10 make -s -C "$SRC" O="$obj" ARCH="$arch" "$@"; }
	if [ ! -f "$obj/.tinyconfig" ]; then
		log "$arch: tinyconfig"
		kmake tinyconfig >&2
		touch "$obj/.tinyconfig"
	fi
	log "$arch: building $v"
	opts=()
	for o in $FRAGMENT; do opts+=(-e "$o"); done
	for c in GZIP BZIP2 LZMA XZ LZO LZ4 ZSTD; do opts+=(-d "KERNEL_$c"); done
	opts+=(-e "KERNEL_$(echo "$codec" | tr a-z A-Z)")
	[ "$arch" = x86_64 ] && opts+=(-e 64BIT)
	"$SRC/scripts/config" --file "$obj/.config" "${opts[@]}"
	kmake olddefconfig >&2
	grep -qx "CONFIG_KERNEL_$(echo "$codec" | tr a-z A-Z)=y" "$obj/.config" || {
		log "$v: CONFIG_KERNEL_${codec^^} did not stick"; exit 1; }
	if [ -n "$seed" ]; then seed_edit; fi
	kmake -j2 bzImage >&2
	seed_undo
	rm -rf "$out"
	mkdir -p "$out"
	cp "$obj/arch/x86/boot/bzImage" "$obj/vmlinux" \
		"$obj/arch/x86/boot/compressed/vmlinux.relocs" "$out/"
	cp "$obj/.config" "$out/config"
	key "$v" > "$out/stamp"
	log "$v: $(stat -c %s "$out/bzImage")-byte bzImage ($(( $(date +%s) - t0 )) s so far)"
done
log "done in $(( $(date +%s) - t0 )) s"
