# test-selfcheck.sh - damage to the stub's own bytes is refused
# (include/bzpack_format.h, "the stub's self-check").  Sourced by
# ci/test.sh (uses B, T, BZPACK, pass, fail, skip, check, boot, codecs).
#
# Every codec x word size is packed (testkern32/64) and then:
#
#   1. proven on the host, every byte (ci/selfcheck-map.py prove): each
#      stub byte lies in exactly one region (setup prologue, setup code,
#      setup crc, the prologue of each entry, stub code, stub crc); both
#      stored CRCs are the CRCs of their bytes; and each of the 255
#      possible changes of every covered byte changes the CRC (computed
#      for every byte, and recomputed for real on a sample).  So any
#      single-byte damage outside the prologues is seen by the check.
#   2. booted with a spread sample of flips (sc_plan), QEMU -kernel (our
#      real-mode setup, which checks itself and then the whole
#      protected-mode stub, prologues included): every one must end in
#      "bzpack: error:" (status 100), never a hang, a kernel or silence.
#      The setup prologue is left out: it is what does the checking
#      (its size is in the README).
#   3. the other entries, for lz4: the 32-bit entry and the 64-bit entry
#      (images/testloader.c) and the PE entry under OVMF, each with flips
#      in the stub code and another entry's prologue: "bzpack: error:"
#      (under UEFI the firmware then goes on to its next boot option).
#      The EFI handover entry has the same prologue (stub/selfcheck.inc)
#      and is proven by step 1, but only GRUB enters it; test-efi boots it
#      intact.
#
# SELFCHECK_FULL=1 (make sweep-stub, not in CI) boots one flip of every
# stub byte outside the setup prologue, for every codec and word size:
# some 420,000 boots of about 1.2 s each, two at a time, so days; limit it
# with SELFCHECK_CODECS (e.g. "xz").  SELFCHECK_JOBS (2): QEMUs at a time.
SC_DIR=$T/selfcheck
SC_JOBS=${SELFCHECK_JOBS:-2}
SC_SEED=${SELFCHECK_SEED:-1129}
SC_LOADER=$B/images/testloader.elf
sc_start=$(date +%s)
rm -rf "$SC_DIR"
mkdir -p "$SC_DIR/res"
: > "$SC_DIR/jobs"

sc_x=$SC_SEED
sc_rand() { sc_x=$(((sc_x * 1103515245 + 12345) & 0x7fffffff)); sc_r=$(((sc_x >> 8) % $1)); }

# sc_plan IMAGE TAG: the flips of one image, "TAG|REGION|OFFSET|MASK"
# lines: in CI a random byte and bit of each region (three in the stub
# code's large stretches), the setup's regions only for lz4 (the setup is
# the same file in every image); with SELFCHECK_FULL every byte.
sc_plan() {
	local img=$1 tag=$2 start end region n i off
	while read -r start end region; do
		[ "$region" = "setup prologue" ] && continue
		n=$((end - start))
		if [ -n "${SELFCHECK_FULL:-}" ]; then
			for ((off = start; off < end; off++)); do
				sc_rand 8; echo "$tag|$region|$off|$((1 << sc_r))"
			done
			continue
		fi
		[[ $region == setup* && $tag != lz4-* ]] && continue
		for ((i = 0; i < (n > 4096 ? 3 : 1); i++)); do
			sc_rand "$n"; off=$((start + sc_r)); sc_rand 8
			echo "$tag|$region|$off|$((1 << sc_r))"
		done
	done < <(python3 ci/selfcheck-map.py map "$img" "$(sc_elf "$tag")")
}
sc_elf() { local c=${1%-*}; echo "$B/stub/${c//-/_}-${1##*-}.elf"; }

# The worker: one job line, the flipped image booted as QEMU -kernel;
# writes "TAG|REGION|OFFSET|MASK|STATUS|SERIAL" to res/.
SC_WORKER='
IFS="|" read -r id tag region off mask <<< "$1"
d=$SC_DIR img=$d/img-$id.img log=$d/log-$id.log
cp "$d/base-$tag.img" "$img"
byte=$(od -An -tu1 -j "$off" -N1 "$img" | tr -d " ")
printf "$(printf "\\\\x%02x" $((byte ^ mask)))" | dd of="$img" bs=1 seek="$off" conv=notrunc status=none
bash ci/qemu-boot.sh -t 20 "$img" "$log" >/dev/null 2>&1
st=$?
echo "$tag|$region|$off|$mask|$st|$(tr -d "\r" < "$log" | tr "\n" " " | cut -c1-160)" > "$d/res/$id"
[ "$st" = 100 ] && rm -f "$img" "$log" "$log.stderr"
'

sc_ok=1
for codec in ${SELFCHECK_CODECS:-$(codecs)}; do
	for bits in 32 64; do
		tag=$codec-$bits img=$SC_DIR/base-$tag.img
		if ! out=$(pack_cached "$img" "$B/images/testkern$bits.elf" -c "$codec" 2>&1); then
			fail "selfcheck: pack testkern$bits $codec" "$out"; sc_ok=; continue
		fi
		if out=$(python3 ci/selfcheck-map.py prove "$img" "$(sc_elf "$tag")" 2>&1); then
			pass "selfcheck $tag: host map: $out"
		else
			fail "selfcheck $tag: host map" "$out"
		fi
		sc_plan "$img" "$tag" >> "$SC_DIR/jobs"
	done
done

sc_n=$(wc -l < "$SC_DIR/jobs")
sc_t0=$(date +%s)
export SC_DIR
awk '{ print NR "|" $0 }' "$SC_DIR/jobs" | xargs -P "$SC_JOBS" -d '\n' -n 1 bash -c "$SC_WORKER" _
sc_bad=0 sc_done=0
for r in "$SC_DIR"/res/*; do
	[ -e "$r" ] || continue
	sc_done=$((sc_done + 1))
	IFS='|' read -r tag region off mask st serial < "$r"
	if [ "$st" != 100 ] || ! grep -q "^bzpack: error: " <<< "$serial"; then
		sc_bad=$((sc_bad + 1))
		[ "$sc_bad" -le 20 ] && printf '  bad %s: %s: byte 0x%x ^= 0x%02x: status %s, serial: %s\n' \
			"$tag" "$region" "$off" "$mask" "$st" "${serial:-nothing}"
	fi
done
sc_secs=$(($(date +%s) - sc_t0))
if [ "$sc_n" -eq 0 ] || [ "$sc_done" -ne "$sc_n" ] || [ -z "$sc_ok" ]; then
	fail "selfcheck: stub flips under QEMU -kernel" "$sc_done results for $sc_n flips (nothing to check, or a pack failed)"
elif [ "$sc_bad" -ne 0 ]; then
	fail "selfcheck: stub flips under QEMU -kernel" "$sc_bad of $sc_n did not end in bzpack: error: (images in $SC_DIR)"
else
	pass "selfcheck: $sc_n stub flips under QEMU -kernel, every region of every stub: each ended in bzpack: error: (${sc_secs}s)"
fi

# sc_flip IMAGE OFFSET MASK: one flipped copy, named on stdout
sc_flip() {
	local out=$SC_DIR/entry-$(basename "$1" .img)-$2.img byte
	cp "$1" "$out"
	byte=$(od -An -tu1 -j "$2" -N1 "$out" | tr -d ' ')
	printf "$(printf '\\x%02x' $((byte ^ $3)))" | dd of="$out" bs=1 seek="$2" conv=notrunc status=none
	echo "$out"
}
# sc_region_offset IMAGE TAG REGION: a byte in the middle of the region
sc_region_offset() {
	python3 ci/selfcheck-map.py map "$1" "$(sc_elf "$2")" |
		awk -v r="$3" '{ s = $1; e = $2; $1 = $2 = ""; sub(/^ +/, "") } $0 == r { print int((s + e) / 2); exit }'
}

# The entries the setup does not precede: the loader enters the stub.
if [ -z "${SELFCHECK_FULL:-}" ] && [ -f "$SC_LOADER" ]; then
	for bits in 32 64; do
		tag=lz4-$bits base=$SC_DIR/base-$tag.img
		[ -f "$base" ] || continue
		for entry in 32 64; do
			[ "$entry" = 64 ] && [ "$bits" = 32 ] && continue
			args=""
			[ "$entry" = 32 ] && args="testloader.entry=32"
			for region in "stub code" "stub crc" "prologue startup_64" "prologue efi_pe_entry"; do
				off=$(sc_region_offset "$base" "$tag" "$region")
				[ -n "$off" ] || continue
				img=$(sc_flip "$base" "$off" 4)
				log=$SC_DIR/entry$entry-$tag-$off.log
				name="selfcheck $tag: $entry-bit entry, $region byte $off flipped: bzpack: error:"
				if boot "$name" 100 "$SC_LOADER" "$log" -m 1G -t 30 -i "$img $args"; then
					check "$name" grep -aq "^bzpack: error: stub damaged" "$log"
				fi
			done
		done
	done
elif [ -z "${SELFCHECK_FULL:-}" ]; then
	skip "selfcheck: the 32- and 64-bit entries" "$SC_LOADER not built"
fi

# The PE entry under OVMF: the stub refuses and the firmware moves on.
if [ -z "${SELFCHECK_FULL:-}" ]; then
	. ci/fixtures/ovmf.sh
	if why=$(ovmf_missing); then
		skip "selfcheck: the PE entry under OVMF" "$why"
	else
		base=$SC_DIR/base-lz4-64.img
		for region in "stub code" "prologue startup_32"; do
			off=$(sc_region_offset "$base" lz4-64 "$region")
			img=$(sc_flip "$base" "$off" 16)
			log=$SC_DIR/efi-$off.log
			name="selfcheck lz4-64: PE entry under OVMF, $region byte $off flipped: bzpack: error:, back to the firmware"
			if boot "$name" 0 "$img" "$log" -U -N -t 90 -e "BdsDxe: (loading|starting) Boot0002"; then
				if grep -aq "^testkern:" "$log"; then
					fail "$name" "the kernel ran"
				else
					check "$name" grep -aq "bzpack: error: stub damaged" "$log"
				fi
			fi
		done
	fi
fi
echo "selfcheck: $(($(date +%s) - sc_start)) s in all"
