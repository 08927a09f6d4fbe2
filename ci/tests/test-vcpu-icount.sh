# test-vcpu-icount.sh - the per-vCPU instruction counter
# (tools/bench/vcpu_icount.c, a QEMU plugin) against the stub's own report.
# Sourced by ci/test.sh (uses B, T, BZPACK, pass, fail, boot, report_field).
#
# Under -icount shift=0 the stub's phase figures are differences of RDTSC
# readings, and the plugin notes each vCPU's instruction count at each
# RDTSC.  On one vCPU the two must agree exactly, phase by phase: the
# stub's first RDTSC starts total=, another ends it, and verify= and
# decompress= are the differences of the notes around them.  The notes are
# the same on a second run, and at -smp 2 the second vCPU executes only
# the few instructions of SeaBIOS's CPU census (it wakes each AP to count
# it, then leaves it halted), as the stub starts no AP.

VCI_SO=$B/tools/vcpu_icount.so
VCI_DIR=$T/vcpu-icount
mkdir -p "$VCI_DIR"

# vci_boot IMAGE SMP OUT: a deterministic boot of IMAGE with the plugin,
# its counts in OUT, its serial log in OUT.log.
vci_boot() {
	bash ci/qemu-boot.sh -d -t 60 -P "$2" -x -plugin -x "$VCI_SO,out=$3" "$1" "$3.log"
}

# vci_note FILE VCPU N: the count at VCPU's N-th RDTSC.
vci_note() {
	awk -v c="$2" -v k="$3" '$1 == "rdtsc" && $2 == c && $3 == k { print $4 }' "$1"
}

if [ ! -f "$VCI_SO" ]; then
	fail "vcpu-icount: the plugin" "no $VCI_SO (make all builds it)"
else
	for vci_bits in 32 64; do
		vci_img=$VCI_DIR/lz4-$vci_bits.img
		vci_name="vcpu-icount: lz4 testkern$vci_bits"
		if ! out=$($BZPACK -c lz4 -o "$vci_img" "$B/images/testkern$vci_bits.elf" 2>&1); then
			fail "$vci_name" "bzpack: $out"
			continue
		fi
		vci_boot "$vci_img" 1 "$VCI_DIR/a-$vci_bits.txt"
		vci_boot "$vci_img" 1 "$VCI_DIR/b-$vci_bits.txt"
		vci_boot "$vci_img" 2 "$VCI_DIR/smp-$vci_bits.txt"
		log=$VCI_DIR/a-$vci_bits.txt.log
		counts=$VCI_DIR/a-$vci_bits.txt
		if ! grep -q '^bzpack: codec=' "$log" || [ ! -s "$counts" ]; then
			fail "$vci_name: counts" "no report line or no counts; serial: $(tr '\n' '|' < "$log" | cut -c1-200)"
			continue
		fi
		# The stub's RDTSCs: 1 at its start, then move, verify and
		# decompress each between two, and the last at the hand-off.
		# (The kernel may read the TSC after the hand-off: the
		# stub's last note is the one total= after its first.)
		first=$(vci_note "$counts" 0 1)
		want_total=$(report_field "$log" total)
		if [ -n "$first" ] && [ -n "$want_total" ] &&
			awk -v w=$((first + want_total)) '$1 == "rdtsc" && $2 == 0 && $4 == w { f = 1 } END { exit !f }' "$counts"; then
			pass "$vci_name: the note total= after the first RDTSC's exists (total=$want_total)"
		else
			fail "$vci_name: total" "no note at ${first:-?} + total=${want_total:-?}: $(tr '\n' ' ' < "$counts" | cut -c1-200)"
		fi
		for field in verify decompress; do
			want=$(report_field "$log" $field)
			# the phase is the difference of two consecutive notes
			found=$(awk -v w="$want" '$1 == "rdtsc" && $2 == 0 { if (have && $4 - prev == w) f = 1; prev = $4; have = 1 }
				END { print f ? "yes" : "no" }' "$counts")
			if [ -n "$want" ] && [ "$found" = yes ]; then
				pass "$vci_name: two consecutive RDTSC notes differ by the report's $field= ($want)"
			else
				fail "$vci_name: $field" "no consecutive notes differ by $field=${want:-?}: $(tr '\n' ' ' < "$counts" | cut -c1-200)"
			fi
		done
		if cmp -s "$counts" "$VCI_DIR/b-$vci_bits.txt"; then
			pass "$vci_name: a second run gives the same counts"
		else
			fail "$vci_name: repeat" "$(diff "$counts" "$VCI_DIR/b-$vci_bits.txt" | head -4 | tr '\n' ' ')"
		fi
		smp=$VCI_DIR/smp-$vci_bits.txt
		ap=$(awk '$1 == "total" && $2 == 1 { print $3 }' "$smp")
		if grep -q '^total 0 [1-9]' "$smp" && [ -n "$ap" ] && [ "$ap" -gt 0 ] && [ "$ap" -lt 10000 ]; then
			pass "$vci_name: at -smp 2 each vCPU has its own count (the second only SeaBIOS's CPU census: $ap)"
		else
			fail "$vci_name: -smp 2" "$(grep '^total' "$smp" 2>/dev/null | tr '\n' ' ')"
		fi
	done
fi

# Frames cut by cost (tools/packer/frames_pack.c, balance()): Debian's
# amd64 kernel in 4 lz4 frames, each frame's exact instructions from the
# plugin's notes (ci/benchmarks/smp-table.sh, which fails a row whose
# notes do not add up to the report line's verify= and decompress=).
# Cut into equal bytes instead, the costliest of these frames costs 1.80x
# the mean, and the busiest of 4 CPUs 0.51x one stream on one CPU.
name="vcpu-icount: Debian amd64 in 4 lz4 frames cut by cost"
if [ ! -f "$VCI_SO" ]; then
	fail "$name" "no $VCI_SO"
elif [ ! -s "$B/debian/amd64/vmlinuz" ]; then
	skip "$name" "no Debian amd64 kernel (ci/fixtures/fetch-debian.sh)"
elif ! SMP_OUT=$VCI_DIR/smp KERNELS="debian-amd64=$B/debian/amd64/vmlinuz" CODECS=lz4 SMP_CPUS=4 WALL_CODECS= \
	B=$B bash ci/benchmarks/smp-table.sh 2> "$VCI_DIR/smp.err"; then
	fail "$name" "smp-table.sh: $(grep -v ': pack ' "$VCI_DIR/smp.err" | tail -n 2 | tr '\n' ' ')"
else
	row=$(grep '^| debian-amd64 | lz4 | 4 |' "$VCI_DIR/smp/smp-table.md")
	worst=$(awk -F'|' '{ gsub(/ /, "", $9); print $9 }' <<<"$row")
	busiest=$(awk -F'|' '{ gsub(/ /, "", $8); print $8 }' <<<"$row")
	if [ -n "$worst" ] && awk -v w="$worst" -v b="$busiest" 'BEGIN { exit !(w > 0 && w <= 1.25 && b > 0 && b <= 0.40) }'; then
		pass "$name: costliest frame ${worst}x the mean, busiest of 4 CPUs ${busiest}x one stream"
	else
		fail "$name" "costliest frame ${worst:-?}x the mean (want <= 1.25), busiest ${busiest:-?}x (want <= 0.40): $row"
	fi
fi
