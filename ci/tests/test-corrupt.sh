# test-corrupt.sh - damaged images must never boot garbage, and damage to
# anything a check covers must be caught.  Sourced by ci/test.sh (uses B,
# T, BZPACK, pass, fail from ci/lib.sh).
#
# For each codec both test kernels are packed, then damaged about 150
# times each (positions and bits from a fixed seed, COR_SEED: the same
# images on every run and every machine) and booted with
# `ci/qemu-boot.sh -d -t 20`, COR_JOBS (2) at a time.  Every offset comes
# from $B/gen/bzpack_format.sh (generated from include/bzpack_format.h).
# The damage falls in regions, each with the outcomes it allows:
#
#   payload                 bit flips anywhere in the payload: covered by
#                           payload_crc and payload_xxh3 (the stub checks
#                           one, by its CPU: ci/test-verify.sh boots both
#                           paths), so "bzpack: error:" only
#   bzpack_header           bit flips in the bzpack_header (at payload_offset
#                           - BZPACK_HEADER_SIZE in the protected-mode part);
#                           every byte is hit once per codec in
#                           COR_SETUP_CODECS, a random bit each, and a
#                           rotating sixth of them (COR_HDR_SHARE) for each
#                           other codec, so those cover every byte again
#                           between them.  header_crc covers all the bytes before it
#                           and is the last field: error only
#   setup_header covered    every byte of the setup_header once per codec, a
#                           random bit each, in the fields setup_crc covers
#                           (SETUP_CRC_<field>=1), and boot_flag, which our
#                           setup checks in the file (GRUB and kexec-tools
#                           zero it in the boot_params they build, so
#                           setup_crc cannot): error only.  Left out: the
#                           jump at 0x200 (code, see below) and the flips
#                           that make QEMU load a zImage (see cor_zimage)
#   setup_header uncovered  the same, in the fields a loader writes or may
#                           modify (SETUP_CRC_<field>=0; cor_why says why
#                           each): any outcome but a bad one
#                           (these real-mode regions only for the codecs
#                           in COR_SETUP_CODECS: see there)
#   boot sector             a few flips before the setup_header
#   kernel_version          a few flips in the version string
#   padding                 a few flips and cuts in the padding after the
#                           version string and after the payload (the ELF
#                           record, which the stub never reads, included)
#   truncation              the file cut short: inside the real-mode part,
#                           the stub (its first 512 bytes most of all:
#                           entry, GDT and error printer), the header, the
#                           payload, and exactly at each boundary: error,
#                           or QEMU's refusal of a file shorter than its
#                           real-mode part
#
# No check covers the boot sector, the version string, the padding or the
# setup_header fields loaders write; cor_uncovered prints each such range
# and why, and a flip there may boot "testkern: OK".
#
#   stub code               4 flips per image, in the stub's own bytes
#                           (ci/selfcheck-map.py map): the protected-mode
#                           stub, its prologues and CRC word, and for the
#                           codecs in COR_SETUP_CODECS the setup's code and
#                           CRC word.  Our setup checks its own CRC and then
#                           the whole stub's before anything else runs
#                           (include/bzpack_format.h, "the stub's
#                           self-check"): error only.  Also the three flips
#                           in testkern64's xz image (file offsets 7413,
#                           11125, 22163) that hung before the stub checked
#                           itself: inside the stub still, error only.
#
# Left out on purpose: the setup's self-check prologue (its first 173
# bytes, README "Integrity") and the setup_header's 2-byte "jump" at
# 0x200, which is the first instruction the loader runs.  Code cannot
# check itself: a flipped bit in the instructions that do the checking (or
# in the jump to them) is not something those instructions can notice.
# ci/tests/test-selfcheck.sh proves every other stub byte covered.

# Each boot ends one of these ways:
#   error     the stub (or our setup) printed "bzpack: error:" and halted
#             (qemu-boot.sh status 100)
#   ok        "testkern: OK", status 33: allowed only where no check covers
#             the byte (a flip in a covered byte that boots is bad, named
#             by offset and field)
#   rejected  QEMU refused the image: status 1 with its message on its
#             stderr ("qemu: invalid kernel header"), nothing on the serial
#             port (not "qemu: fatal:", which is a guest that ran wild);
#             not allowed in the payload and the covered headers
#   bad       an outcome the region does not allow, or anything else: the
#             test kernel ran and failed (35), a hang (124), a silent reset
#             or crash (QEMU status 0, nothing on serial), or output we do
#             not know
# A table per codec (outcomes by region), one check per codec; the bad
# ones are listed with their damage, and their images kept in
# $T/corrupt/.  Knobs: COR_SEED (another fixed set of damage), COR_JOBS
# (QEMUs at a time), COR_SETUP_CODECS (which codecs' images also get the
# real-mode part damaged; "$(bzpack --list-codecs)" for all), COR_ALL=1 (also the flips that make QEMU misload, see
# cor_zimage, and every bzpack_header byte for every codec).

COR_DIR=$T/corrupt
COR_GEN=$B/gen/bzpack_format.sh
COR_SEED=${COR_SEED:-1129}
COR_JOBS=${COR_JOBS:-2}         # QEMUs at a time (the CI machine has 2 cores)
# Codecs whose images also get the real-mode part damaged (the setup_header,
# boot sector, version string): that part and its checks are the same for
# every codec, and a harmless flip there boots the whole kernel, which is
# slow with the slow codecs.  The payload, our header, the padding after
# the payload and the truncations are damaged for every codec.
COR_SETUP_CODECS=${COR_SETUP_CODECS:-"none lz4"}
# The share of the bzpack_header's bytes each other codec's image gets
# flipped (COR_ALL=1: all of them, as for COR_SETUP_CODECS).
COR_HDR_SHARE=${COR_HDR_SHARE:-6}
declare -gA cor_hdr_turn=([32]=0 [64]=0)
declare -gA cor_hdr_seen=()     # BITS/OFFSET: flipped in another codec's image
COR_REGIONS=("payload" "bzpack_header" "setup_header covered" "setup_header uncovered"
	"boot sector" "kernel_version" "padding" "truncation" "stub code")
# setup_header fields setup_crc leaves out that our real-mode setup checks
# in the file before anything runs
COR_SETUP_CHECKED=" boot_flag "

# shellcheck source=/dev/null
. "$COR_GEN"

# cor_map PREFIX END ARRAY: ARRAY[byte offset] = the field of the generated
# PREFIX<field>=<offset> lines that holds it; the last field ends at END.
# COR_ORDER gets the field names in offset order.
cor_map() {
	local -n cor_m=$3
	local off name prev_off=0 prev="" b
	COR_ORDER=()
	while read -r off name; do
		for ((b = prev_off; b < off && ${#prev}; b++)); do cor_m[$b]=$prev; done
		prev_off=$off prev=$name
		COR_ORDER+=("$name")
	done < <(sed -n "s/^$1\([a-z0-9_]*\)=\([0-9]*\)$/\2 \1/p" "$COR_GEN" | sort -n)
	for ((b = prev_off; b < $2; b++)); do cor_m[$b]=$prev; done
}
declare -gA COR_SETUP_FIELD COR_BZ_FIELD
cor_map BZHDR_ "$BZPACK_HEADER_SIZE" COR_BZ_FIELD
cor_map SETUP_HDR_ "$SETUP_HEADER_END" COR_SETUP_FIELD
COR_SETUP_ORDER=("${COR_ORDER[@]}")

# cor_covered FIELD: true if a check before the kernel covers this
# setup_header field: setup_crc, or our setup (COR_SETUP_CHECKED)
cor_covered() {
	local v=SETUP_CRC_$1
	[ "${!v:-0}" = 1 ] || [[ $COR_SETUP_CHECKED == *" $1 "* ]]
}

# cor_why FIELD: why no check covers this setup_header field (boot.rst's
# field types; what loaders are known to write)
cor_why() {
	case $1 in
	root_flags) echo "modify (optional): kexec-tools writes 0xffff, LILO its read-only flag" ;;
	vid_mode) echo "modify (obligatory): QEMU and GRUB write vga=" ;;
	root_dev) echo "modify (optional): GRUB writes 0x0100 with an initrd, kexec-tools 0x0300" ;;
	realmode_swtch) echo "modify: a loader hook; our setup never calls it" ;;
	code32_start) echo "modify (reloc): a loader that moves the image writes its load address" \
		"(GRUB, kexec-tools); our setup refuses anything but 0x100000" ;;
	kernel_alignment) echo "modify (reloc): GRUB writes back the alignment it used" ;;
	type_of_loader) echo "write (obligatory): every loader" ;;
	loadflags) echo "modify: QEMU and GRUB set CAN_USE_HEAP, kexec-tools writes 0" \
		"(flips of LOADED_HIGH are left out: cor_zimage)" ;;
	setup_move_size) echo "modify: protocols 2.00-2.01 only" ;;
	ramdisk_image | ramdisk_size) echo "write: where the loader put the initrd" ;;
	heap_end_ptr) echo "write: QEMU, GRUB and kexec-tools set it" ;;
	ext_loader_ver | ext_loader_type) echo "write: the loader's id, extended" ;;
	cmd_line_ptr) echo "write (obligatory): QEMU overwrites it" ;;
	hardware_subarch | hardware_subarch_data) echo "write: paravirtualizing loaders" ;;
	setup_data) echo "write: the loader's list (QEMU -dtb); the stub checks the nodes it finds" ;;
	esac
}

# cor_uncovered: print every range no check covers, and why; fail if a
# setup_header field outside setup_crc has no reason here
cor_uncovered() {
	local f start end b missing=""
	echo "corrupt: bytes no check covers (a flip there may boot \"testkern: OK\"):"
	printf '  0x%03x-0x%03x  boot sector: never run or read on the BIOS paths (no floppy boot; loaders and our setup read the setup_header only); in 64-bit images the DOS and PE headers, read by UEFI firmware only\n' \
		0 $((SETUP_HEADER_OFFSET - 1))
	for f in "${COR_SETUP_ORDER[@]}"; do
		cor_covered "$f" && continue
		start=$((SETUP_HDR_$f)) end=$start
		for ((b = start; b < SETUP_HEADER_END; b++)); do
			[ "${COR_SETUP_FIELD[$b]}" = "$f" ] && end=$b
		done
		if [ -z "$(cor_why "$f")" ]; then
			missing="$missing $f"
		else
			[ "$end" -gt "$start" ] && b=$(printf '0x%03x-0x%03x' "$start" "$end") || b=$(printf '0x%03x' "$start")
			printf '  %-11s  %s: %s\n' "$b" "$f" "$(cor_why "$f")"
		fi
	done
	echo "  kernel_version string: shown by loaders and --info only (the stub never sees the real-mode part)"
	echo "  after the version string: the EFI entry's default command line and its CRC32C (only the EFI entry reads them, and checks the CRC), padding to a sector, in 64-bit images the .sbat sectors (shim reads them, the stub never)"
	echo "  after the payload: the ELF record (only --extract and a repack read it, and check its CRC32C) and padding (to 16 bytes, to 512 in 64-bit images): the stub never reads them"
	if [ -n "$missing" ]; then
		fail "corrupt: every uncovered setup_header field has a reason" "no cor_why for:$missing"
	else
		pass "corrupt: every setup_header field is covered or has a reason in cor_why"
	fi
}

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
# into a pre-2.00 zImage's for QEMU: the "HdrS" magic, the version's 0x0200
# bit (bit 1 of its high byte: 2.15 -> 0.15) or loadflags' LOADED_HIGH
# (bit 0).  QEMU then copies the protected-mode part to 0x10000, and 1.3-3
# MiB of it run over its own option ROM and the BIOS: the machine hangs in
# the BIOS before a byte of ours runs.  Linux's own bzImage does the same
# (Debian's 6.1 vmlinuz with "HdrS" or LOADED_HIGH flipped hangs silently
# under qemu-system-x86_64 7.2), so no image can catch it; such flips are
# left out unless COR_ALL is set.
COR_LOADED_HIGH=1               # boot.rst: loadflags bit 0
cor_zimage() {
	[ -z "${COR_ALL:-}" ] || return 1
	{ [ "$1" -ge "$SETUP_HDR_header" ] && [ "$1" -lt $((SETUP_HDR_header + 4)) ]; } ||
		{ [ "$1" -eq $((SETUP_HDR_version + 1)) ] && [ $(($2 & 0x02)) -ne 0 ]; } ||
		{ [ "$1" -eq "$SETUP_HDR_loadflags" ] && [ $(($2 & COR_LOADED_HIGH)) -ne 0 ]; }
}

# cor_plan_setup: the real-mode part's damage, inside cor_plan (its
# locals): every other setup_header byte per kernel, but for the jump (our
# setup's first instruction: code, see the top) and the flips that make
# QEMU load a zImage (see cor_zimage); the boot sector, the version string
# and the padding after it.
cor_plan_setup() {
	for ((i = SETUP_HEADER_OFFSET + (bits == 64); i < SETUP_HEADER_END; i += 2)); do
		f=${COR_SETUP_FIELD[$i]}
		[ "$f" = jump ] && continue
		[ "$f" = header ] && [ -z "${COR_ALL:-}" ] && continue
		cor_bit
		while cor_zimage "$i" "$cor_r"; do cor_bit; done
		if cor_covered "$f"; then
			cor_job flip "setup_header covered" "$(printf '%s (0x%x)' "$f" $i)" "$i" "$cor_r"
		else
			cor_job flip "setup_header uncovered" "$(printf '%s (0x%x)' "$f" $i)" "$i" "$cor_r"
		fi
	done
	for ((i = 0; i < 4; i++)); do
		cor_rand "$SETUP_HEADER_OFFSET"; off=$cor_r; cor_bit
		cor_job flip "boot sector" "$(printf 'boot sector 0x%x' "$off")" "$off" "$cor_r"
		cor_rand "$kvlen"; off=$((kv + cor_r)); cor_bit
		cor_job flip kernel_version "$(printf 'kernel_version+%d' $((off - kv)))" "$off" "$cor_r"
	done
	pad=$((so - kv - kvlen))
	for ((i = 0; i < 2 && pad > 0; i++)); do
		cor_rand "$pad"; off=$((kv + kvlen + cor_r)); cor_bit
		cor_job flip padding "$(printf 'after kernel_version 0x%x' "$off")" "$off" "$cor_r"
	done
}

# cor_plan_stub: the stub's own bytes, inside cor_plan (its locals): a
# random byte of the regions ci/selfcheck-map.py names, but the setup's
# prologue (and the setup's regions but for COR_SETUP_CODECS); and the
# three flips that once hung.
cor_plan_stub() {
	local -a rs=() rr=()
	local start end r t=0 k
	while read -r start end r; do
		[ "$r" = "setup prologue" ] && continue
		[[ $r == setup* && " $COR_SETUP_CODECS " != *" $codec "* ]] && continue
		rs+=("$start $end") rr+=("$r") t=$((t + end - start))
	done < <(python3 ci/selfcheck-map.py map "$img" "$B/stub/${codec//-/_}-$bits.elf")
	[ "$t" -gt 0 ] || { cor_job flip "stub code" "no stub regions (selfcheck-map.py failed)" 0 0; return; }
	for ((i = 0; i < 4; i++)); do
		cor_rand "$t"; off=$cor_r
		for ((k = 0; k < ${#rs[@]}; k++)); do
			read -r start end <<< "${rs[$k]}"
			if [ "$off" -lt $((end - start)) ]; then off=$((start + off)); break; fi
			off=$((off - (end - start)))
		done
		cor_bit
		cor_job flip "stub code" "$(printf '%s 0x%x' "${rr[$k]}" "$off")" "$off" "$cor_r"
	done
	if [ "$codec/$bits" = xz/64 ]; then
		for off in 7413 11125 22163; do
			cor_bit
			cor_job flip "stub code" "$(printf 'stub 0x%x, an old hang' "$off")" "$off" "$cor_r"
		done
	fi
}

# cor_plan CODEC BITS IMAGE: append this image's damage to the job list,
# "ID|CODEC|BITS|KIND|REGION|WHAT|OFFSET|ARG": KIND flip (xor byte OFFSET
# with ARG) or cut (keep the first OFFSET bytes); WHAT names the field or
# the place
cor_plan() {
	local codec=$1 bits=$2 img=$3 size so po pl kv kvlen hdr pend pad i f n=0 off
	size=$(stat -c %s "$img")
	so=$((($(cor_peek "$img" "$SETUP_HDR_setup_sects" 1) + 1) * SECTOR_SIZE)) # real-mode part
	po=$(cor_peek "$img" "$SETUP_HDR_payload_offset" 4)
	pl=$(cor_peek "$img" "$SETUP_HDR_payload_length" 4)
	# kernel_version counts from the end of the boot sector
	kv=$(($(cor_peek "$img" "$SETUP_HDR_kernel_version" 2) + SECTOR_SIZE))
	kvlen=$(tail -c +$((kv + 1)) "$img" | head -c 256 | tr '\0' '\n' | head -n 1 | wc -c) # with its NUL
	hdr=$((so + po - BZPACK_HEADER_SIZE))
	pend=$((so + po + pl))          # the payload's end; padding to 16 bytes after it
	# cor_job KIND REGION WHAT OFFSET ARG
	cor_job() { echo "$codec-$bits-$(printf %03d $n)|$codec|$bits|$1|$2|$3|$4|$5" >> "$COR_DIR/jobs"; n=$((n + 1)); }
	# cor_cut WHAT OFFSET: a cut that keeps the whole payload only loses
	# padding; so does one that loses only zero bytes of it (a payload
	# ending in an end marker of zeroes): QEMU's RAM past the loaded file
	# holds zeroes, so memory is exactly as packed and nothing can tell.
	cor_cut() {
		if [ "$2" -ge "$pend" ] || [ "$(tail -c +$(($2 + 1)) "$img" | head -c $((pend - $2)) | tr -d '\0' | wc -c)" = 0 ]; then
			cor_job cut padding "$1" "$2" 0
		else
			cor_job cut truncation "$1" "$2" 0
		fi
	}

	for ((i = 0; i < 24; i++)); do
		cor_rand "$pl"; off=$((so + po + cor_r))
		if ((i % 4 == 3)); then cor_rand 255; cor_r=$((cor_r + 1)); else cor_bit; fi
		cor_job flip payload "$(printf 'payload+0x%x' $((off - so - po)))" "$off" "$cor_r"
	done
	# Every other header byte per kernel (both kernels cover all of them)
	# for the codecs in COR_SETUP_CODECS; the header and the code that
	# checks it are the same for every codec, so each other codec's
	# kernel gets one COR_HDR_SHARE-th of those bytes, the next codec the
	# next share: the codecs in turn cover every byte once more.
	local hdr_step=2 hdr_first=$((bits == 64))
	if [ -z "${COR_ALL:-}" ] && [[ " $COR_SETUP_CODECS " != *" $codec "* ]]; then
		hdr_step=$((2 * COR_HDR_SHARE))
		hdr_first=$((hdr_first + 2 * (cor_hdr_turn[$bits] % COR_HDR_SHARE)))
		cor_hdr_turn[$bits]=$((cor_hdr_turn[$bits] + 1))
	fi
	for ((i = hdr_first; i < BZPACK_HEADER_SIZE; i += hdr_step)); do
		[[ " $COR_SETUP_CODECS " == *" $codec "* ]] || cor_hdr_seen[$bits/$i]=1
		cor_bit
		cor_job flip bzpack_header "$(printf '%s (+0x%02x)' "${COR_BZ_FIELD[$i]}" $i)" $((hdr + i)) "$cor_r"
	done
	# The real-mode part is the same for every codec (setup.bin, the
	# packer's header, the same setup_crc check in stub/main.c): its
	# regions are damaged only for the codecs in COR_SETUP_CODECS.
	if [[ " $COR_SETUP_CODECS " == *" $codec "* ]]; then
		cor_plan_setup
	fi
	cor_plan_stub
	pad=$((size - pend))
	for ((i = 0; i < 2 && pad > 0; i++)); do
		cor_rand "$pad"; off=$((pend + cor_r)); cor_bit
		cor_job flip padding "$(printf 'after the payload +%d' $((off - pend)))" "$off" "$cor_r"
	done
	cor_cut "cut: real-mode part only" "$so"
	cor_cut "cut: stub, no header" "$hdr"
	cor_cut "cut: header, no payload" $((so + po))
	cor_cut "cut: last byte" $((size - 1))
	# the stub's first 512 bytes hold its entry, its GDT and its error
	# printer: a stub cut there cannot even report its missing header
	for ((i = 0; i < 4; i++)); do
		cor_rand 512; cor_cut "cut in the stub's first 512 bytes" $((so + cor_r))
	done
	for ((i = 0; i < 3; i++)); do
		cor_rand $((so - 1)); cor_cut "cut in the real-mode part" $((cor_r + 1))
		cor_rand $((hdr - so)); cor_cut "cut in the stub" $((so + cor_r))
		cor_rand "$BZPACK_HEADER_SIZE"; cor_cut "cut in the header" $((hdr + cor_r))
		cor_rand "$pl"; cor_cut "cut in the payload" $((so + po + cor_r))
	done
}

# cor_allowed REGION CLASS: may a boot in REGION end as CLASS?
cor_allowed() {
	case $2 in
	error) return 0 ;;
	ok) case $1 in "setup_header uncovered" | "boot sector" | kernel_version | padding) return 0 ;; esac ;;
	rejected) case $1 in payload | bzpack_header | "setup_header covered" | "stub code") ;; *) return 0 ;; esac ;;
	esac
	return 1
}

# The worker: one job line in $1, run by xargs.  Makes the image, boots it,
# writes "ID|CLASS|STATUS|WHAT HAPPENED" to $COR_DIR/res/ID and keeps the
# image only when the outcome is bad whatever the region.
COR_WORKER='
IFS="|" read -r id codec bits kind region what off arg <<< "$1"
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
echo "$id|$class|$st|$what" > "$d/res/$id"
[ $class = bad ] || rm -f "$img"
'

cor_t0=$(date +%s)
rm -rf "$COR_DIR"
mkdir -p "$COR_DIR/res"
: > "$COR_DIR/jobs"
cor_uncovered
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

# The shares must add up: the codecs outside COR_SETUP_CODECS between
# them hit every other header byte in each word size's images.
cor_hdr_miss=0
for cor_bits in 32 64; do
	for ((i = (cor_bits == 64); i < BZPACK_HEADER_SIZE; i += 2)); do
		[ -n "${cor_hdr_seen[$cor_bits/$i]:-}" ] || cor_hdr_miss=$((cor_hdr_miss + 1))
	done
done
if [ "$cor_hdr_miss" = 0 ]; then
	pass "corrupt: the codecs outside COR_SETUP_CODECS share every bzpack_header byte ($BZPACK_HEADER_SIZE, half in each word size)"
else
	fail "corrupt: the codecs outside COR_SETUP_CODECS share every bzpack_header byte" \
		"$cor_hdr_miss bytes never hit (fewer codecs than COR_HDR_SHARE=$COR_HDR_SHARE?)"
fi

COR_DIR=$COR_DIR xargs -a "$COR_DIR/jobs" -d '\n' -n 1 -P "$COR_JOBS" bash -c "$COR_WORKER" cor-worker

# The tally: cor_n[codec|region|class], class one of error ok rejected bad
declare -gA cor_n=()
cor_count() { cor_n[$1]=$((${cor_n[$1]:-0} + 1)); }
cor_head() { printf '%-26s %6s %6s %6s %9s %5s\n' "$1" boots error ok rejected bad; }
cor_row() { # LABEL KEY-PREFIX
	printf '  %-24s %6d %6d %6d %9d %5d\n' "$1" \
		$((${cor_n[$2|error]:-0} + ${cor_n[$2|ok]:-0} + ${cor_n[$2|rejected]:-0} + ${cor_n[$2|bad]:-0})) \
		"${cor_n[$2|error]:-0}" "${cor_n[$2|ok]:-0}" "${cor_n[$2|rejected]:-0}" "${cor_n[$2|bad]:-0}"
}
for cor_codec in $cor_codecs; do
	cor_b=0 cor_all=0
	while IFS='|' read -r cor_id _ _ cor_kind cor_region cor_what cor_off cor_arg; do
		cor_all=$((cor_all + 1))
		cor_class="" cor_st="" cor_how="no result"
		[ -s "$COR_DIR/res/$cor_id" ] &&
			IFS='|' read -r _ cor_class cor_st cor_how < "$COR_DIR/res/$cor_id"
		if [ -n "$cor_class" ] && [ "$cor_class" != bad ] && ! cor_allowed "$cor_region" "$cor_class"; then
			case $cor_class in
			ok) cor_how="booted though a check covers this byte: $cor_how" ;;
			*) cor_how="$cor_class, but damage here must end in bzpack: error: $cor_how" ;;
			esac
			cor_class=bad
		fi
		[ -n "$cor_class" ] || cor_class=bad
		cor_count "$cor_codec|$cor_region|$cor_class"
		cor_count "$cor_codec|all|$cor_class"
		cor_count "all|$cor_region|$cor_class"
		[ "$cor_class" = bad ] || continue
		cor_b=$((cor_b + 1))
		if [ "$cor_kind" = cut ]; then
			echo "  bad $cor_id: $cor_region: $cor_what: file cut to $cor_off bytes: $cor_how"
		else
			printf '  bad %s: %s: %s: byte 0x%x ^= 0x%02x: %s\n' "$cor_id" "$cor_region" "$cor_what" \
				"$cor_off" "$cor_arg" "$cor_how"
		fi
	done < <(grep "^[^|]*|$cor_codec|" "$COR_DIR/jobs")
	cor_head "corrupt $cor_codec:"
	for cor_region in "${COR_REGIONS[@]}"; do
		cor_row "$cor_region" "$cor_codec|$cor_region"
	done
	cor_row "all" "$cor_codec|all"
	if [ "$cor_b" -eq 0 ]; then
		pass "corrupt $cor_codec: $cor_all damaged images, each ended as its region allows"
	else
		fail "corrupt $cor_codec" "$cor_b of $cor_all damaged images bad (listed above; images in $COR_DIR)"
	fi
done
cor_head "corrupt, every codec:"
for cor_region in "${COR_REGIONS[@]}"; do
	cor_row "$cor_region" "all|$cor_region"
done
echo "corrupt: $(wc -l < "$COR_DIR/jobs") boots in $(($(date +%s) - cor_t0)) s"
[ -n "${COR_ALL:-}" ] ||
	skip "corrupt: the jump at 0x200 and the flips that make QEMU load a zImage (HdrS, version 2.x, LOADED_HIGH)" \
		"QEMU then hangs in its own BIOS before a byte of ours runs (Linux's bzImage too); COR_ALL=1 boots them"
