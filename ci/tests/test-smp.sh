# test-smp.sh - a framed image's stub decodes its frames on every CPU
# (stub/frames.c, stub/smp.c) and hands over a machine whose kernel still
# brings every CPU up.  Every image here is packed in 4 frames (--frames
# 4), so up to 4 CPUs decode:
#   - the test kernels (32- and 64-bit, QEMU -kernel under SeaBIOS) at
#     -smp 1, 2, 4: the report line's cpus= is the machine's count
#     (cpus=1(one-cpu) alone), and the kernel runs; at -smp 8 it is 4,
#     one CPU per frame; xz and zstd (a decoder workspace per CPU, the
#     deepest stacks) at -smp 4;
#   - a one-stream image at -smp 2 reports cpus=1 and no reason: stubs
#     without frames wake no CPU;
#   - the fallbacks to one CPU, each with its reason on the report line
#     and the kernel reached: nosmp, maxcpus=1, bzpack.cpus=1; and a cap
#     above one, bzpack.cpus=3 at -smp 4;
#   - Debian's amd64 kernel with the busybox initramfs at -smp 1, 2, 4:
#     cpus= in the stub and as many processors in the kernel's
#     /proc/cpuinfo (the CPUs we parked came up under the kernel's own
#     INIT-SIPI-SIPI);
#   - under OVMF (-smp 4), where the firmware's MP services run the work:
#     testkern64 with cpus=4, and with bzpack.cpus=1 on one; Debian's
#     amd64 kernel with cpus=4, and the kernel sees four;
#   - kexec -l from Debian amd64 at -smp 2 into a bzpack image of
#     testkern64: the stub wakes the CPUs the first kernel left halted.
# Sourced by ci/test.sh (B, T, BZPACK, pass, fail, skip, boot, report_field).
. ci/fixtures/ovmf.sh
SMP_CMDLINE="console=ttyS0"
DEB=$B/debian
SMP_MARKER="^bzpack-initramfs: userspace reached"
SMP_FRAMES="--frames 4"

# smp_check NAME LOG WANT: the report line says cpus=WANT
smp_check() {
	local got
	got=$(report_field "$2" cpus)
	if [ "$got" = "$3" ]; then
		pass "$1 (cpus=$got)"
	else
		fail "$1" "cpus=${got:-none on the report line}, want $3"
	fi
}

for bits in 32 64; do
	img=$T/smp-testkern$bits.img
	if ! out=$($BZPACK -c lz4 $SMP_FRAMES -o "$img" "$B/images/testkern$bits.elf" 2>&1); then
		fail "smp: pack testkern$bits" "$out"
		continue
	fi
	for n in 1 2 4 8; do
		want=$n
		[ $n = 1 ] && want="1(one-cpu)"
		[ $n = 8 ] && want=4
		log=$T/smp-testkern$bits-$n.log
		name="smp: testkern$bits at -smp $n"
		boot "$name" 33 "$img" "$log" -P $n -t 120 -a "$SMP_CMDLINE" || continue
		if ! grep -q "^testkern: OK bits=$bits$" "$log"; then
			fail "$name" "no 'testkern: OK bits=$bits'"
		else
			smp_check "$name" "$log" "$want"
		fi
	done
done

# The codecs with a decoder workspace each CPU takes its own of, and
# the deepest stacks (xz, zstd), at -smp 4.
for bits in 32 64; do
	for codec in xz zstd; do
		img=$T/smp-testkern$bits-$codec.img log=$T/smp-testkern$bits-$codec.log
		name="smp: testkern$bits $codec at -smp 4"
		if ! out=$($BZPACK -c $codec $SMP_FRAMES -o "$img" "$B/images/testkern$bits.elf" 2>&1); then
			fail "$name" "$out"
		elif boot "$name" 33 "$img" "$log" -P 4 -t 240 -a "$SMP_CMDLINE"; then
			if ! grep -q "^testkern: OK bits=$bits$" "$log"; then
				fail "$name" "no 'testkern: OK bits=$bits'"
			else
				smp_check "$name" "$log" 4
			fi
		fi
	done
done

# A one-stream image: no CPU but the boot CPU, and no reason given.
img=$T/smp-one-stream.img log=$T/smp-one-stream.log
name="smp: one-stream testkern64 at -smp 2"
if ! out=$($BZPACK -c lz4 -o "$img" "$B/images/testkern64.elf" 2>&1); then
	fail "$name" "$out"
elif boot "$name" 33 "$img" "$log" -P 2 -t 120 -a "$SMP_CMDLINE"; then
	smp_check "$name" "$log" 1
fi

# The fallbacks, and a cap, on the 64-bit test kernel.
img=$T/smp-testkern64.img
for spec in "2 nosmp 1(nosmp)" "2 maxcpus=1 1(maxcpus)" "2 bzpack.cpus=1 1(bzpack.cpus)" \
	"4 bzpack.cpus=3 3" "4 maxcpus=2 2"; do
	set -- $spec
	log=$T/smp-option-$2.log
	name="smp: testkern64 at -smp $1 with $2"
	[ -s "$img" ] || { fail "$name" "no image"; continue; }
	boot "$name" 33 "$img" "$log" -P "$1" -t 120 -a "$SMP_CMDLINE $2" || continue
	if ! grep -q "^testkern: OK bits=64$" "$log"; then
		fail "$name" "no 'testkern: OK bits=64'"
	else
		smp_check "$name" "$log" "$3"
	fi
done

# UEFI: the firmware's MP services.
for spec in "- 4" "bzpack.cpus=1 1(bzpack.cpus)"; do
	set -- $spec
	opt=${1#-}
	name="smp: testkern64 under OVMF at -smp 4${opt:+ with $opt}"
	log=$T/smp-ovmf-testkern64-${1}.log
	if why=$(ovmf_missing); then
		skip "$name" "$why"
	elif [ ! -s "$T/smp-testkern64.img" ]; then
		fail "$name" "no image"
	elif boot "$name" 33 "$T/smp-testkern64.img" "$log" -U -P 4 -t 240 -a "$SMP_CMDLINE $opt"; then
		if ! grep -aq "^testkern: OK bits=64" "$log"; then
			fail "$name" "no 'testkern: OK bits=64'"
		else
			smp_check "$name" "$log" "$2"
		fi
	fi
done

# smp_kernel_cpus NAME LOG WANT: the kernel's /proc/cpuinfo listed WANT
smp_kernel_cpus() {
	local got
	got=$(grep -a -m1 -o '^bzpack-initramfs: cpus=[0-9]*' "$2" | cut -d= -f2)
	check "$1: the kernel brought up ${got:-no} CPUs, want $3" test "$got" = "$3"
}

if [ ! -s "$DEB/amd64/vmlinuz" ] || [ ! -s "$DEB/amd64/busybox" ]; then
	skip "smp: Debian amd64" "no Debian kernel in $DEB (ci/fixtures/fetch-debian.sh)"
else
	initrd=$T/smp-initrd-amd64.gz
	img=$T/smp-debian-amd64.img
	if ! out=$(bash ci/fixtures/mkinitramfs.sh "$DEB/amd64/busybox" "$initrd" 2>&1) ||
		! out=$($BZPACK -c lz4 -b 64 $SMP_FRAMES -o "$img" "$DEB/amd64/vmlinuz" 2>&1); then
		fail "smp: Debian amd64" "$out"
	else
		for n in 1 2 4; do
			want=$n
			[ $n = 1 ] && want="1(one-cpu)"
			log=$T/smp-debian-$n.log
			name="smp: Debian amd64 at -smp $n"
			if boot "$name" 0 "$img" "$log" -P $n -m 512M -t 300 -i "$initrd" \
				-a "console=ttyS0 panic=-1" -e "$SMP_MARKER"; then
				smp_check "$name" "$log" "$want"
				smp_kernel_cpus "$name" "$log" $n
			fi
		done
		name="smp: Debian amd64 under OVMF at -smp 4"
		if why=$(ovmf_missing); then
			skip "$name" "$why"
		else
			log=$T/smp-debian-ovmf-4.log
			if boot "$name" 0 "$img" "$log" -U -P 4 -m 512M -t 300 -i "$initrd" \
				-a "console=ttyS0 panic=-1" -e "$SMP_MARKER"; then
				smp_check "$name" "$log" 4
				smp_kernel_cpus "$name" "$log" 4
			fi
		fi
	fi
fi

name="smp: kexec -l from Debian amd64 at -smp 2 into testkern64"
KEXEC=$(command -v kexec || echo /sbin/kexec)
if [ ! -x "$KEXEC" ]; then
	skip "$name" "no kexec on this machine (kexec-tools)"
elif [ ! -s "$DEB/amd64/vmlinuz" ] || [ ! -s "$T/smp-testkern64.img" ]; then
	skip "$name" "no Debian kernel in $DEB, or no testkern64 image"
else
	initrd=$T/smp-kexec-initrd.gz
	log=$T/smp-kexec.log
	if ! out=$(bash ci/fixtures/mkinitramfs.sh -k "$T/smp-testkern64.img" -a "console=ttyS0" \
			"$DEB/amd64/busybox" "$initrd" 2>&1); then
		fail "$name" "$out"
	elif boot "$name" 33 "$DEB/amd64/vmlinuz" "$log" -P 2 -m 1G -t 300 -i "$initrd" \
		-a "console=ttyS0 panic=-1 no_timer_check"; then
		if ! grep -q "^testkern: OK bits=64$" "$log"; then
			fail "$name" "no 'testkern: OK bits=64'"
		else
			smp_check "$name" "$log" 2
		fi
	fi
fi
