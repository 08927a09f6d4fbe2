#!/bin/bash
# qemu-boot.sh - boot an image under QEMU, serial output to a log, and stop
# as soon as the outcome is known.
#
#   qemu-boot.sh [options] IMAGE LOG
#     -q QEMU      qemu-system-x86_64 (default) or qemu-system-i386
#     -t SECONDS   give up after this long (default 60)
#     -a APPEND    kernel command line
#     -i INITRD    initrd
#     -m MEM       guest memory (default 256M)
#     -c CPU       -cpu model
#     -d           deterministic: -icount shift=0,sleep=off (rdtsc counts instructions)
#     -e REGEX     also stop when a serial line matches REGEX (exit 0)
#     -C           IMAGE is a bootable ISO (GRUB): boot it as a CD-ROM
#     -F           IMAGE is a floppy image: the BIOS boots its first sector
#     -D FILE      -dtb FILE: QEMU hands it over as setup_data
#     -K           KVM (-accel kvm -cpu host) instead of TCG
#     -U           UEFI: Debian's OVMF as pflash (its code read-only, a fresh
#                  copy of its variable store per boot) instead of SeaBIOS
#     -H           IMAGE is a raw disk (an ESP made with mtools): boot it
#     -N           do not stop at "bzpack: error:" (under UEFI the firmware
#                  goes on to its next boot option; -e says when to stop)
#     -M MACHINE   -machine (pc, q35); an OVMF Secure Boot build (its code
#                  file resolves to *secboot*) needs q35 with SMM and
#                  secure pflash, which -U then adds
#     -P CPUS      -smp CPUS
#     -R           a virtio-rng device (OVMF offers it as EFI_RNG_PROTOCOL)
#     -x ARG       one more QEMU argument, as is (repeatable: a NIC, a
#                  bootindex)
#
# Exit status: QEMU's own (33 = the test kernel wrote 0x10 to isa-debug-exit,
# 35 = it wrote 0x11); 0 when -e matched; 100 when the stub printed
# "bzpack: error:" and halted; 124 on timeout.
set -u

qemu=qemu-system-x86_64 timeout=60 append="" initrd="" mem=256M cpu="" icount="" stop_regex="" cdrom="" floppy="" dtb="" kvm="" uefi="" disk="" stop_on_error=1 machine="" smp="" rng="" extra=()
while getopts "q:t:a:i:m:c:de:CFD:KUHNM:P:Rx:" opt; do
	case $opt in
	q) qemu=$OPTARG ;;
	t) timeout=$OPTARG ;;
	a) append=$OPTARG ;;
	i) initrd=$OPTARG ;;
	m) mem=$OPTARG ;;
	c) cpu=$OPTARG ;;
	d) icount=1 ;;
	e) stop_regex=$OPTARG ;;
	C) cdrom=1 ;;
	F) floppy=1 ;;
	D) dtb=$OPTARG ;;
	K) kvm=1 ;;
	U) uefi=1 ;;
	H) disk=1 ;;
	N) stop_on_error="" ;;
	M) machine=$OPTARG ;;
	P) smp=$OPTARG ;;
	R) rng=1 ;;
	x) extra+=("$OPTARG") ;;
	*) echo "usage: qemu-boot.sh [-q qemu] [-t s] [-a append] [-i initrd] [-m mem] [-c cpu] [-d] [-e regex] [-C|-F|-H] [-U] [-N] [-M machine] [-P cpus] [-R] [-x arg]... IMAGE LOG" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { echo "qemu-boot.sh: need IMAGE and LOG" >&2; exit 2; }
image=$1 log=$2

args=(-nodefaults -display none -no-reboot -m "$mem" -serial "file:$log"
	-device isa-debug-exit,iobase=0xf4,iosize=4)
if [ -n "$uefi" ]; then
	. ci/fixtures/ovmf.sh
	ovmf_vars_copy "$log.vars.fd" || exit 2
	if [[ $(readlink -f "$OVMF_CODE") == *secboot* ]]; then
		[ "${machine:-q35}" = q35 ] || { echo "qemu-boot.sh: $OVMF_CODE needs -M q35 (SMM)" >&2; exit 2; }
		machine=q35,smm=on
		args+=(-global driver=cfi.pflash01,property=secure,value=on)
	fi
	args+=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF_CODE"
		-drive "if=pflash,format=raw,unit=1,file=$log.vars.fd")
fi
if [ -n "$cdrom" ]; then
	args+=(-cdrom "$image")
elif [ -n "$floppy" ]; then
	args+=(-drive "file=$image,format=raw,if=floppy")
elif [ -n "$disk" ]; then
	args+=(-drive "format=raw,file=$image")
else
	args+=(-kernel "$image")
fi
[ -n "$append" ] && args+=(-append "$append")
[ -n "$initrd" ] && args+=(-initrd "$initrd")
[ -n "$cpu" ] && args+=(-cpu "$cpu")
[ -n "$dtb" ] && args+=(-dtb "$dtb")
[ -n "$kvm" ] && args+=(-accel kvm -cpu host)
[ -n "$cdrom$disk" ] && { [ -n "$append$initrd" ] && { echo "qemu-boot.sh: -a/-i go in the ISO's or disk's own configuration" >&2; exit 2; }; }
[ -n "$icount" ] && args+=(-icount shift=0,sleep=off)
[ -n "$machine" ] && args+=(-machine "$machine")
[ -n "$smp" ] && args+=(-smp "$smp")
[ -n "$rng" ] && args+=(-device virtio-rng-pci)
args+=("${extra[@]}")

: > "$log"
"$qemu" "${args[@]}" </dev/null 2>"$log.stderr" &
pid=$!
end=$(( $(date +%s%N) / 1000000 + timeout * 1000 ))
outcome=""
while kill -0 "$pid" 2>/dev/null; do
	if [ -n "$stop_on_error" ] && grep -aEq $'^\r?bzpack: error:' "$log"; then   # GRUB ends lines with \n\r
		outcome=100
	elif [ -n "$stop_regex" ] && grep -Eq "$stop_regex" "$log"; then
		outcome=0
	elif [ $(( $(date +%s%N) / 1000000 )) -ge "$end" ]; then
		outcome=124
	fi
	if [ -n "$outcome" ]; then
		# The line that matched may still be arriving (the stub writes
		# COM1 a byte at a time): give it up to a second to end.
		for _ in $(seq 50); do
			[ "$(tail -c 1 "$log" | od -An -tx1 | tr -d ' ')" = 0a ] && break
			sleep 0.02
		done
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		exit "$outcome"
	fi
	sleep 0.02
done
wait "$pid"
