#!/bin/bash
# initrd-table.sh - the time to /init of Debian's amd64 kernel with the
# kernel decompressing its initrd (--initrd-decompress off) and with the
# stub decompressing it (always), on Debian's installer initrd (gzip, from
# the debian-installer-12-netboot-amd64 package, cached under $B/d-i/) and
# on the same archive recompressed with xz -3 and zstd -3 (distro levels:
# initramfs-tools' zstd is -1, its xz -6).  Measured in exact
# instructions under -icount shift=0,sleep=off: the stub's total= (from its
# first instruction to its jump into the kernel, the initrd's decoding
# included when the stub does it) plus the kernel's printk time of its
# "Run /init as init process" line (its clock, the TSC, counts one per
# instruction there; what the kernel runs before its clock starts is the
# same both ways and not counted).  Writes the markdown table to
# $B/test/initrd-table.md (make readme-initrd puts it into README.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
# shellcheck source=ci/pack-cache.sh
. ci/pack-cache.sh
DI=$B/d-i DEB=$B/debian/amd64 OUT=$B/test/initrd-table.md
T=$B/test/initrd-table
mkdir -p "$DI" "$T"
CMDLINE="console=ttyS0 panic=-1 no_timer_check"

bash ci/fixtures/fetch-debian.sh > "$T/fetch-debian.log" 2>&1 ||
	{ echo "skip: initrd-table: no Debian kernel (ci/fixtures/fetch-debian.sh)"; exit 0; }
if ! ls "$DI"/debian-installer-12-netboot-amd64_*.deb > /dev/null 2>&1; then
	(cd "$DI" && apt-get download debian-installer-12-netboot-amd64 > download.log 2>&1) ||
		{ echo "skip: initrd-table: debian-installer-12-netboot-amd64 not available (apt-get download)"; exit 0; }
fi
deb=$(ls "$DI"/debian-installer-12-netboot-amd64_*.deb | tail -n 1)
gz=$DI/initrd.gz
if [ ! -s "$gz" ]; then
	rm -rf "$DI/x" && mkdir "$DI/x" && dpkg-deb -x "$deb" "$DI/x" &&
		cp "$DI/x/usr/lib/debian-installer/images/12/amd64/text/debian-installer/amd64/initrd.gz" "$gz" &&
		rm -rf "$DI/x" || { echo "initrd-table: $deb: no text initrd.gz in it" >&2; exit 1; }
fi
# cached FILE COMMAND...: FILE from COMMAND's output, whole or not at all.
cached() {
	local file=$1
	shift
	[ -s "$file" ] || { "$@" > "$file.tmp" && mv "$file.tmp" "$file"; }
}
cached "$DI/initrd.cpio" gzip -dc "$gz" || exit 1
# The kernel's xz decoder takes CRC32 checks; zstd from a file records
# the content size, which the stub needs.
cached "$DI/initrd.xz" xz --check=crc32 -3 -T2 -c "$DI/initrd.cpio" || exit 1
cached "$DI/initrd.zst" zstd -q -3 -T2 -c "$DI/initrd.cpio" || exit 1

off=$T/debian-off.img always=$T/debian-always.img
pack_cached "$off" "$DEB/vmlinuz" -c lz4 2> "$T/pack.log" &&
	pack_cached "$always" "$DEB/vmlinuz" -c lz4 --initrd-decompress=always 2>> "$T/pack.log" ||
	{ echo "initrd-table: pack failed: $(tail -n 1 "$T/pack.log")" >&2; exit 1; }

# to_init IMAGE INITRD LOG: prints "stub-total kernel-ns unpacked-field".
to_init() {
	bash ci/qemu-boot.sh -d -m 1G -t 1800 -a "$CMDLINE" -i "$2" -e "Run /init as init process" "$1" "$3" ||
		return 1
	local total ns field
	total=$(grep -a -m1 '^bzpack: codec=' "$3" | tr ' ' '\n' | sed -n 's/^total=//p')
	ns=$(grep -a -m1 'Run /init as init process' "$3" | sed -n 's/^\[ *\([0-9]*\)\.\([0-9]*\)\].*/\1\2/p')
	field=$(grep -a -m1 '^bzpack: codec=' "$3" | tr -d '\r' | grep -o 'unpacked=[^ ]*' || echo "-")
	[ -n "$total" ] && [ -n "$ns" ] || return 1
	# printk time is seconds.microseconds: to nanoseconds.
	echo "$total $((10#$ns * 1000)) $field"
}

rows=""
for f in "gzip $gz" "xz $DI/initrd.xz" "zstd $DI/initrd.zst"; do
	set -- $f
	fmt=$1 file=$2
	k=$(to_init "$off" "$file" "$T/$fmt-off.log") || { echo "initrd-table: $fmt, kernel decompressing: no Run /init (see $T/$fmt-off.log)" >&2; exit 1; }
	s=$(to_init "$always" "$file" "$T/$fmt-always.log") || { echo "initrd-table: $fmt, stub decompressing: no Run /init (see $T/$fmt-always.log)" >&2; exit 1; }
	read -r k_total k_ns _ <<<"$k"
	read -r s_total s_ns s_field <<<"$s"
	case $s_field in unpacked="$fmt":*) ;; *) echo "initrd-table: $fmt: the stub did not unpack it ($s_field)" >&2; exit 1 ;; esac
	k_all=$((k_total + k_ns)) s_all=$((s_total + s_ns))
	rows+=$(awk -v f="$fmt" -v c="$(stat -c %s "$file")" -v u="$(stat -c %s "$DI/initrd.cpio")" \
		-v kt="$k_total" -v kn="$k_ns" -v st="$s_total" -v sn="$s_ns" -v ka="$k_all" -v sa="$s_all" 'BEGIN {
		printf "| %s | %.1f -> %.1f | %.1f + %.1f = **%.1f** | %.1f + %.1f = **%.1f** | %.2fx |\n",
			f, c / 1048576, u / 1048576, kt / 1e6, kn / 1e6, ka / 1e6, st / 1e6, sn / 1e6, sa / 1e6, ka / sa }')$'\n'
done
{
	echo "| initrd | MiB, compressed -> cpio | kernel decompresses: stub + kernel to /init (M instructions) | stub decompresses: stub + kernel to /init (M instructions) | speed-up |"
	echo "|---|---|---|---|---|"
	printf '%s' "$rows"
	echo
	echo "Debian's amd64 kernel $(cat "$DEB/kernel-package"), packed with lz4; $(basename "$deb"); \`make bench-initrd\`."
} > "$OUT"
cat "$OUT"
