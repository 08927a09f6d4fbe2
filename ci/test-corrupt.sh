# test-corrupt.sh - damaged images must never boot garbage.  Sourced by
# ci/test.sh (uses B, T, BZPACK, pass, fail from ci/lib.sh).
#
# For each codec both test kernels are packed, then damaged about 150
# times each (positions and bits from a fixed seed, COR_SEED: the same
# images on every run and every machine) and booted with
# `ci/qemu-boot.sh -d -t 20`, COR_JOBS (2) at a time:
#
#   payload    bit flips anywhere in the payload
#   header     bit flips in the bzpack_header (at payload_offset - 80 in the
#              protected-mode part); every one of its 80 bytes is hit once
#              per codec, a random bit each
#   setup      bit flips in the data a loader and our setup read: every
#              byte of the setup_header (0x1F1..0x26B) once per codec but
#              the jump at 0x200 (code, see below), a random bit each; a
#              few in the boot sector before it and in the kernel_version
#              string
#   truncate   the file cut short: inside the real-mode part, the stub
#              (its first 512 bytes most of all: entry, GDT and error
#              printer), the header, the payload, and exactly at each
#              boundary
#
# Left out on purpose: the real-mode setup code and the stub's code,
# including the setup_header's 2-byte "jump" at 0x200, which is the first
# instruction the loader runs.  Code cannot check itself: a flipped bit in
# the instructions that do the checking (or in the jump to them) is not
# something those instructions can notice, so damage there says nothing
# about the checks.
#
# Each boot ends one of these ways:
#   error     the stub (or our setup) printed "bzpack: error:" and halted
#             (qemu-boot.sh status 100)
#   ok        the damage missed everything that matters: "testkern: OK",
#             status 33 (a loader-written field, padding, the boot sector)
#   rejected  QEMU refused the image: status 1 with its message on its
#             stderr ("qemu: invalid kernel header"), nothing on the serial
#             port (not "qemu: fatal:", which is a guest that ran wild)
#   bad       anything else, none allowed: the test kernel ran and failed
#             (35), a hang (124), a silent reset or crash (QEMU status 0,
#             nothing on serial), or output we do not know
# One tally line and one check per codec; the bad ones are listed with
# their damage, and their images kept in $T/corrupt/.
# Knobs: COR_SEED (another fixed set of damage), COR_JOBS (QEMUs at a
# time), COR_ALL=1 (also the flips that make QEMU misload, see cor_zimage).

COR_DIR=$T/corrupt
COR_SEED=${COR_SEED:-1129}
COR_JOBS=${COR_JOBS:-2}         # QEMUs at a time (the CI machine has 2 cores)

# cor_rand N: a pseudo-random number in [0, N) in cor_r.  An LCG; each
# result takes the high bits of two steps (an LCG's low bits are poor).
cor_rand() {
	cor_x=$(((cor_x * 1103515245 + 12345) & 0x7fffffff))
	cor_r=$((cor_x >> 8))
	cor_x=$(((cor_x * 1103515245 + 12345) & 0x7fffffff))
	cor_r=$(((cor_r << 15 | cor_x >> 16) % $1))
}
cor_peek() { od -An -tu"$3" -j "$2" -N "$3" "$1" | tr -d ' \n'; }

# cor_bit: a single-bit mask in cor_r
cor_bit() { cor_rand 8; cor_r=$((1 << cor_r)); }

# cor_zimage OFFSET MASK: true if flipping MASK at OFFSET turns our header
# into a pre-2.00 zImage's for QEMU: the "HdrS" magic (0x202..0x205), the
# version's 0x0200 bit (bit 1 of 0x207: 2.15 -> 0.15) or loadflags'
# LOADED_HIGH (bit 0 of 0x211).  QEMU then copies the protected-mode part
# to 0x10000, and 1.3-3 MiB of it run over its own option ROM and the
# BIOS: the machine hangs in the BIOS before a byte of ours runs.  Linux's
# own bzImage does the same (Debian's 6.1 vmlinuz with "HdrS" or
# LOADED_HIGH flipped hangs silently under qemu-system-x86_64 7.2), so no
# image can catch it; such flips are left out unless COR_ALL is set.
cor_zimage() {
	[ -z "${COR_ALL:-}" ] || return 1
	{ [ "$1" -ge $((0x202)) ] && [ "$1" -le $((0x205)) ]; } ||
		{ [ "$1" -eq $((0x207)) ] && [ $(($2 & 0x02)) -ne 0 ]; } ||
		{ [ "$1" -eq $((0x211)) ] && [ $(($2 & 0x01)) -ne 0 ]; }
}

# cor_plan CODEC BITS IMAGE: append this image's damage to the job list,
# "ID|CODEC|BITS|KIND|REGION|OFFSET|ARG": KIND flip (xor byte OFFSET with
# ARG) or cut (keep the first OFFSET bytes)
cor_plan() {
	local codec=$1 bits=$2 img=$3 size so po pl kv kvlen hdr i n=0
	size=$(stat -c %s "$img")
	so=$((($(cor_peek "$img" $((0x1f1)) 1) + 1) * 512))   # real-mode part
	po=$(cor_peek "$img" $((0x248)) 4)                  # payload_offset
	pl=$(cor_peek "$img" $((0x24c)) 4)                  # payload_length
	kv=$(($(cor_peek "$img" $((0x20e)) 2) + 0x200))     # kernel_version
	kvlen=$(tail -c +$((kv + 1)) "$img" | head -c 256 | tr '\0' '\n' | head -n 1 | wc -c)
	hdr=$((so + po - 80))
	# cor_job REGION KIND OFFSET ARG
	cor_job() { echo "$codec-$bits-$(printf %03d $n)|$codec|$bits|$2|$1|$3|$4" >> "$COR_DIR/jobs"; n=$((n + 1)); }

	for ((i = 0; i < 24; i++)); do
		cor_rand "$pl"; local off=$((so + po + cor_r))
		if ((i % 4 == 3)); then cor_rand 255; cor_r=$((cor_r + 1)); else cor_bit; fi
		cor_job payload flip "$off" "$cor_r"
	done
	# every other header byte per kernel: both kernels cover all 80
	for ((i = (bits == 64); i < 80; i += 2)); do
		cor_bit; cor_job "header+$i" flip $((hdr + i)) "$cor_r"
	done
	# every other setup_header byte per kernel, but for the jump at 0x200
	# (our setup's first instruction: code, see the top) and the flips
	# that make QEMU load a zImage (see cor_zimage)
	for ((i = 0x1f1 + (bits == 64); i < 0x26c; i += 2)); do
		[ $i -eq $((0x200)) ] || [ $i -eq $((0x201)) ] && continue
		[ $i -ge $((0x202)) ] && [ $i -le $((0x205)) ] && [ -z "${COR_ALL:-}" ] && continue
		cor_bit
		while cor_zimage "$i" "$cor_r"; do cor_bit; done
		cor_job "$(printf 'setup_header 0x%x' "$i")" flip "$i" "$cor_r"
	done
	for ((i = 0; i < 4; i++)); do
		cor_rand $((0x1f1)); local off=$cor_r; cor_bit
		cor_job "boot-sector" flip "$off" "$cor_r"
		cor_rand "$kvlen"; off=$((kv + cor_r)); cor_bit
		cor_job "kernel_version" flip "$off" "$cor_r"
	done
	cor_job "cut: real-mode part only" cut "$so" 0
	cor_job "cut: stub, no header" cut "$hdr" 0
	cor_job "cut: header, no payload" cut $((so + po)) 0
	cor_job "cut: last byte" cut $((size - 1)) 0
	# the stub's first 512 bytes hold its entry, its GDT and its error
	# printer: a stub cut there cannot even report its missing header
	for ((i = 0; i < 4; i++)); do
		cor_rand 512; cor_job "cut in the stub's first 512 bytes" cut $((so + cor_r)) 0
	done
	for ((i = 0; i < 3; i++)); do
		cor_rand $((so - 1)); cor_job "cut in the real-mode part" cut $((cor_r + 1)) 0
		cor_rand $((hdr - so)); cor_job "cut in the stub" cut $((so + cor_r)) 0
		cor_rand 80; cor_job "cut in the header" cut $((hdr + cor_r)) 0
		cor_rand "$pl"; cor_job "cut in the payload" cut $((so + po + cor_r)) 0
	done
}

# The worker: one job line in $1, run by xargs.  Makes the image, boots it,
# writes "ID|CLASS|STATUS|REGION|KIND|OFFSET|ARG|WHAT HAPPENED" to
# $COR_DIR/res/ID and keeps the image only when it was bad.
COR_WORKER='
IFS="|" read -r id codec bits kind region off arg <<< "$1"
d=$COR_DIR base=$d/base-$bits-$codec.img img=$d/img-$id.img log=$d/log-$id.log
if [ "$kind" = cut ]; then
	head -c "$off" "$base" > "$img"
else
	cp "$base" "$img"
	v=$(od -An -tu1 -j "$off" -N 1 "$img" | tr -d " ")
	printf "$(printf "\\\\x%02x" $((v ^ arg)))" | dd of="$img" bs=1 seek="$off" conv=notrunc status=none
fi
bash ci/qemu-boot.sh -d -t 20 "$img" "$log"
st=$?
serial=$(tr -d "\r" < "$log" | grep -a -m1 -E "^(bzpack: error|testkern: (OK|FAIL))" | cut -c1-100)
other=$(tr -d "\r" < "$log" | head -c 100 | tr "\n" "|")
qemu=$(head -n 1 "$log.stderr" 2>/dev/null | cut -c1-100)
if [ $st -eq 100 ] && ! grep -q "^testkern:" "$log"; then
	class=error what=$serial
elif [ $st -eq 33 ] && grep -q "^testkern: OK" "$log"; then
	class=ok what=$serial
elif [ $st -eq 1 ] && [ ! -s "$log" ] && [ -n "$qemu" ] && ! grep -q "fatal" "$log.stderr"; then
	class=rejected what=$qemu
else
	class=bad
	case $st in
	35) what="the damaged kernel ran: $serial" ;;
	124) what="hang (20 s); serial: ${other:-nothing}" ;;
	0) what="QEMU exited 0 (reset/triple fault?); serial: ${other:-nothing}" ;;
	134) what="QEMU aborted (the guest ran wild): ${qemu:-nothing}; serial: ${other:-nothing}" ;;
	*) what="QEMU status $st; serial: ${other:-nothing}; stderr: ${qemu:-nothing}" ;;
	esac
fi
echo "$id|$class|$st|$region|$kind|$off|$arg|$what" > "$d/res/$id"
[ $class = bad ] || rm -f "$img"
'

cor_t0=$(date +%s)
rm -rf "$COR_DIR"
mkdir -p "$COR_DIR/res"
: > "$COR_DIR/jobs"
cor_x=$COR_SEED
cor_codecs=""
for cor_codec in $(codecs); do
	cor_ok=1
	for cor_bits in 32 64; do
		cor_base=$COR_DIR/base-$cor_bits-$cor_codec.img
		if ! cor_out=$($BZPACK -c $cor_codec -o "$cor_base" $B/images/testkern$cor_bits.elf 2>&1); then
			fail "corrupt $cor_codec: pack testkern$cor_bits" "$cor_out"
			cor_ok=""
			continue
		fi
		cor_plan $cor_codec $cor_bits "$cor_base"
	done
	[ -n "$cor_ok" ] && cor_codecs="$cor_codecs $cor_codec"
done

COR_DIR=$COR_DIR xargs -a "$COR_DIR/jobs" -d '\n' -n 1 -P "$COR_JOBS" bash -c "$COR_WORKER" cor-worker

for cor_codec in $cor_codecs; do
	cor_e=0 cor_o=0 cor_rj=0 cor_b=0 cor_n=0
	while IFS='|' read -r cor_id _ _ _ _ _ _; do
		cor_n=$((cor_n + 1))
		if [ ! -s "$COR_DIR/res/$cor_id" ]; then
			cor_b=$((cor_b + 1))
			echo "  bad $cor_id: no result"
			continue
		fi
		IFS='|' read -r _ cor_class cor_st cor_region cor_kind cor_off cor_arg cor_what < "$COR_DIR/res/$cor_id"
		case $cor_class in
		error) cor_e=$((cor_e + 1)) ;;
		ok) cor_o=$((cor_o + 1)) ;;
		rejected) cor_rj=$((cor_rj + 1)) ;;
		*)
			cor_b=$((cor_b + 1))
			if [ "$cor_kind" = cut ]; then
				echo "  bad $cor_id: $cor_region: file cut to $cor_off bytes: $cor_what"
			else
				printf '  bad %s: %s: byte 0x%x ^= 0x%02x: %s\n' "$cor_id" "$cor_region" \
					"$cor_off" "$cor_arg" "$cor_what"
			fi
			;;
		esac
	done < <(grep "^[^|]*|$cor_codec|" "$COR_DIR/jobs")
	echo "corrupt $cor_codec: $cor_e error, $cor_o ok, $cor_rj rejected-by-loader, $cor_b bad"
	if [ "$cor_b" -eq 0 ]; then
		pass "corrupt $cor_codec: $cor_n damaged images, none booted garbage, hung or reset silently"
	else
		fail "corrupt $cor_codec" "$cor_b of $cor_n damaged images bad (listed above; images in $COR_DIR)"
	fi
done
echo "corrupt: $(wc -l < "$COR_DIR/jobs") boots in $(($(date +%s) - cor_t0)) s"
