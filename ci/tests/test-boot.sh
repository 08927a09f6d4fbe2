# test-boot.sh - pack the test kernels with every codec, boot them under
# QEMU and read what the stub and the kernel print.
CMDLINE="bzpack-test console=ttyS0 marker=42"

for bits in 32 64; do
	for codec in $(codecs); do
		img=$T/testkern$bits-$codec.img
		name="pack testkern$bits $codec"
		rm -f "$img"
		if ! out=$($BZPACK -c $codec -o "$img" $B/images/testkern$bits.elf 2>&1); then
			fail "$name" "$out"; continue
		fi
		check "$name: file(1) sees a bzImage" \
			grep -q "Linux kernel x86 boot executable bzImage" <(file "$img")

		qemus=qemu-system-x86_64
		[ $bits = 32 ] && qemus="qemu-system-x86_64 qemu-system-i386"
		for q in $qemus; do
			log=$T/testkern$bits-$codec-${q#qemu-system-}.log
			name="boot testkern$bits $codec under $q"
			boot "$name" 33 "$img" "$log" -q $q -d -a "$CMDLINE" || continue
			testkern_booted "$name" "$log" "^bzpack: codec=$codec in=[0-9]+ out=[0-9]+ cycles=[0-9]+ " $bits ||
				continue
			if grep -qxF "testkern: cmdline=$CMDLINE" "$log"; then
				pass "$name"
			else
				fail "$name" "command line did not arrive through boot_params"
			fi
		done
	done
done

# rdtsc under -icount counts instructions: the same image reports the same
# cycles every time.
for bits in 32 64; do
	img=$T/testkern$bits-lz4.img
	log=$T/again-$bits.log
	if boot "icount cycles repeat ($bits)" 33 "$img" "$log" -d -a "$CMDLINE"; then
		a=$(report_field "$T/testkern$bits-lz4-x86_64.log" cycles)
		b=$(report_field "$log" cycles)
		check "icount cycles repeat ($bits-bit lz4: $a, $b)" test -n "$a" -a "$a" = "$b"
	fi
done

# Same input and flags, same bytes.
$BZPACK -o "$T/again.img" $B/images/testkern64.elf
check "packing is reproducible" cmp -s "$T/again.img" "$T/testkern64-lz4.img"

# A damaged payload must stop the stub, not reach the kernel.
for bits in 32 64; do
	img=$T/damaged$bits.img
	cp "$T/testkern$bits-lz4.img" "$img"
	log=$T/damaged$bits.log
	name="damaged payload ($bits-bit) stops with bzpack: error"
	if ! offset=$(payload_middle "$img"); then
		fail "$name" "bzpack --info gave no real-mode size or payload offset"
		continue
	fi
	printf '\xff\x00\x55' | dd of="$img" bs=1 seek="$offset" conv=notrunc status=none
	boot "$name" 100 "$img" "$log" -d -t 30 || continue
	if grep -q "^testkern:" "$log"; then
		fail "$name" "the kernel ran"
	else
		pass "$name ($(grep -m1 '^bzpack: error:' "$log"))"
	fi
done

# A 64-bit kernel on a CPU without long mode: a message, not a crash.
log=$T/no-long-mode.log
name="64-bit image on a 32-bit CPU stops with bzpack: error"
if boot "$name" 100 "$T/testkern64-lz4.img" "$log" -q qemu-system-i386 -t 30; then
	check "$name" grep -q "^bzpack: error: .*long mode" "$log"
fi

# A kernel linked at 1 MiB, where QEMU loads the image: the stub runs on
# from a copy of itself high in init_size and decompresses in place, the
# payload moved to the offset the packer simulated (move= counts the
# move; under -icount it is exact, and a real move of a whole payload
# costs far more than the 1000 cycles two rdtsc reads do).
for codec in $(codecs); do
	img=$T/testkern64-low-$codec.img
	log=$T/testkern64-low-$codec.log
	name="kernel linked over the stub at 1 MiB ($codec): in place, boots"
	$BZPACK -v -c $codec -o "$img" $B/images/testkern64-low.elf > "$log.layout" ||
		{ fail "$name" "pack failed"; continue; }
	boot "$name" 33 "$img" "$log" -d -a "$CMDLINE" || continue
	move=$(report_field "$log" move)
	if [ "${move:-0}" -lt 1000 ]; then
		fail "$name" "move=$move: the payload was not moved"
	else
		check "$name (move=$move)" grep -q "^testkern: OK bits=64$" "$log"
	fi
done

# On a CPU with SSE4.2 the payload check is the CRC32C with the crc32
# instruction: the same image boots, and verify= drops well below the
# XXH3 path's (ci/test-verify.sh checks both paths refuse damage).
for bits in 32 64; do
	log=$T/testkern$bits-lz4-cpumax.log
	name="boot testkern$bits lz4 with -cpu max (crc32 instruction)"
	boot "$name" 33 "$T/testkern$bits-lz4.img" "$log" -d -c max -a "$CMDLINE" || continue
	hw=$(report_field "$log" verify) sw=$(report_field "$T/testkern$bits-lz4-x86_64.log" verify)
	check "$name: verify=$hw vs $sw without SSE4.2" test "$hw" -lt $((sw / 2))
done

# Too little memory for the kernel's range: our setup reads E820 and says
# so before the stub puts its stack where there is no RAM.
log=$T/too-little-ram.log
name="kernel range beyond RAM (-m 18M) stops with bzpack: error"
if boot "$name" 100 "$T/testkern64-lz4.img" "$log" -d -m 18M -t 30; then
	check "$name" grep -q "^bzpack: error: not enough memory: E820 RAM does not cover" "$log"
fi

# setup_data must survive: QEMU puts a -dtb file right after the loaded
# image (init_size or not), which for testkern64-low is inside the kernel's
# range, and for the others next to the stub's scratch.  The stub copies
# such nodes clear and relinks them; the kernel prints their byte sums.
dtb=$T/fake.dtb
head -c 4000 /dev/urandom > "$dtb"
want="0x2:0xfa0:0x$(printf '%x' "$(od -An -v -tu1 "$dtb" | awk '{ for (i = 1; i <= NF; i++) s += $i } END { print s }')")"
for k in testkern32 testkern64 testkern64-low; do
	img=$T/$k-lz4.img
	[ -s "$img" ] || $BZPACK -o "$img" $B/images/$k.elf
	log=$T/$k-dtb.log
	name="setup_data (QEMU -dtb) survives: $k"
	boot "$name" 33 "$img" "$log" -d -a "$CMDLINE" -D "$dtb" || continue
	check "$name" grep -qx "testkern: setup_data=$want" "$log"
done
