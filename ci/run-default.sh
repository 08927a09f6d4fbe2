#!/bin/sh
# run-default.sh - `make run`: pack the default image (the 64-bit test
# kernel, lz4) showing its layout, then boot it under QEMU and show what it
# prints on the serial port.
set -eu
B=${B:-build}
img=$B/testkern64.bzimage
log=$B/run.log

$B/bzpack -v -o "$img" $B/images/testkern64.elf
echo "--- booting $img under qemu-system-x86_64 (serial output follows)"
status=0
bash ci/qemu-boot.sh -a "console=ttyS0 hello from make run" "$img" "$log" || status=$?
cat "$log"
if [ "$status" -eq 33 ]; then
	echo "--- booted: the test kernel checked itself and said OK"
else
	echo "--- boot failed (QEMU status $status)"
	exit 1
fi
