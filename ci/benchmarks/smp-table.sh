#!/bin/bash
# smp-table.sh - what decoding on several CPUs gains, per codec: a framed
# image (--frames N) at -smp N against the one-stream image at -smp 1.
# Writes the README's two tables (make bench-smp; make readme-smp puts
# them into README.md):
#
#   $B/test/smp-table.md   exact: the boot CPU's guest instructions from
#                          the stub's first instruction to the hand-off,
#                          counted per vCPU by tools/bench/vcpu_icount.c
#                          under QEMU -icount shift=0,sleep=off
#   $B/test/smp-wall.md    wall clock: the report line's total= under
#                          multi-threaded TCG (-accel tcg,thread=multi),
#                          median of WALL_RUNS runs: noisy, a shared
#                          two-core machine's figure
#
# The exact figure is built from exact parts.  Under -icount RDTSC reads
# one clock for all vCPUs (their sum), so the report line's total= at
# -smp N is no CPU's own; and QEMU's round-robin TCG runs each vCPU for
# a slice of up to milliseconds, so no vCPU's count at -smp N says how
# the CPUs of a machine would overlap either.  Instead the framed image
# boots at -smp 1 under tools/bench/vcpu_icount.c, which notes the
# instruction count at every RDTSC.  Each frame is three of them on the
# CPU that takes it (stub/frames.c: before the verify, before the decode,
# after), which gives each frame's own cost exactly, and everything else
# of the stub's total= is the serial part S (plan, move, the queue,
# relocation, hand-off).  The busiest CPU at N CPUs is then S plus the
# makespan of the frames taken in table order from the shared queue by N
# CPUs that start together, as stub/frames.c hands them out.  What this
# leaves out, and the wall-clock table has in: the other CPUs' start-up
# (INIT, 10 ms, start-up IPIs: time, not instructions), and memory
# bandwidth shared between the CPUs.
#
# The checks that make it fail closed: the frame notes' verify and decode
# parts must add up to the report line's verify= and decompress=, and the
# note at total= after the first must exist (the hand-off).
#
#   KERNELS    NAME=PATH, space-separated (default: testkern64, and
#              Debian's amd64 kernel when $B/debian/amd64/vmlinuz exists)
#   CODECS     default: lz4 gzip zstd xz
#   SMP_CPUS   CPU counts (default: 2 4 8); each image has as many frames
#   WALL_CODECS  codecs of the wall-clock table (default: zstd), at -smp 2
#   WALL_RUNS  default 5
#   SMP_OUT    where the tables (and the images, in smp-table/) go
#              (default: $B/test)
#
# Exit status 0 with every row measured; 1 if any pack, boot or count
# failed (nothing written: no table with holes).
set -uo pipefail
B=${B:-build}
BZPACK=$B/bzpack
PLUGIN=$B/tools/vcpu_icount.so
OUT=${SMP_OUT:-$B/test}
T=$OUT/smp-table
mkdir -p "$T"
CODECS=${CODECS:-lz4 gzip zstd xz}
SMP_CPUS=${SMP_CPUS:-2 4 8}
WALL_CODECS=${WALL_CODECS:-zstd}
WALL_RUNS=${WALL_RUNS:-5}
APPEND="nokaslr console=ttyS0"
if [ -z "${KERNELS:-}" ]; then
	KERNELS="testkern64=$B/images/testkern64.elf"
	[ -s "$B/debian/amd64/vmlinuz" ] && KERNELS+=" debian-amd64=$B/debian/amd64/vmlinuz"
fi
[ -f "$PLUGIN" ] || { echo "smp-table: no $PLUGIN (make all builds it)" >&2; exit 1; }

# field LOG KEY: the report line's value of KEY
field() { grep -a -m1 '^bzpack: codec=' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# pack NAME KERNEL CODEC FRAMES: the image's path, packed once (cached).
pack() {
	local img=$T/$1-$3-$4.img
	if [ ! -s "$img" ]; then
		echo "smp-table: pack $1 $3 --frames $4" >&2
		nice $BZPACK -q -c "$3" --frames "$4" --pack-cache "$B/pack-cache" -o "$img.tmp" "$2" 2> "$img.err" &&
			mv "$img.tmp" "$img" || { echo "smp-table: pack $1 $3 $4: $(head -c 300 "$img.err")" >&2; return 1; }
	fi
	echo "$img"
}

# counted IMAGE CPUS OUT: a deterministic boot with the plugin; the counts
# in OUT, the serial log in OUT.log.
counted() {
	bash ci/qemu-boot.sh -d -m 1G -t 1800 -P "$2" -a "$APPEND" -e '^bzpack: codec=' \
		-x -plugin -x "$PLUGIN,out=$3" "$1" "$3.log"
	local rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 33 ] || { echo "smp-table: boot $1 at -smp $2: status $rc" >&2; return 1; }
	[ -s "$3" ] && [ -n "$(field "$3.log" total)" ] || { echo "smp-table: $1 at -smp $2: no counts or no report line" >&2; return 1; }
}

rows=$T/rows.md
: > "$rows"
status=0
for spec in $KERNELS; do
	kname=${spec%%=*} kpath=${spec#*=}
	for codec in $CODECS; do
		one=$(pack "$kname" "$kpath" "$codec" 1) || { status=1; continue; }
		counted "$one" 1 "$T/$kname-$codec-1.cnt" || { status=1; continue; }
		ref=$(field "$T/$kname-$codec-1.cnt.log" total)
		ref_size=$(stat -c %s "$one")
		for n in $SMP_CPUS; do
			img=$(pack "$kname" "$kpath" "$codec" "$n") || { status=1; continue; }
			cnt=$T/$kname-$codec-$n.cnt
			counted "$img" 1 "$cnt" || { status=1; continue; }
			log=$cnt.log
			if ! line=$(awk -v n="$n" -v ref="$ref" -v size="$(stat -c %s "$img")" -v ref_size="$ref_size" \
				-v total="$(field "$log" total)" -v verify="$(field "$log" verify)" \
				-v decompress="$(field "$log" decompress)" -v frames="$(field "$log" frames)" \
				-v kn="$kname" -v c="$codec" '
				$1 == "rdtsc" && $2 == 0 { note[$3] = $4; if ($3 == 1) first = $4; else if ($4 == first + total) k = $3 }
				END {
					if (!k) { print "no note at total= after the first"; exit 1 }
					if (frames != n) { print "frames=" frames ", want " n; exit 1 }
					# The frames: the 3n notes before the last
					# two (the unfilter mark and the hand-off).
					lo = k - 1 - 3 * n
					if (lo < 2) { print "too few notes for " n " frames"; exit 1 }
					v = d = sum = 0
					for (i = 0; i < n; i++) {
						j = lo + 3 * i
						v += note[j + 1] - note[j]
						d += note[j + 2] - note[j + 1]
						cost[i] = note[j + 2] - note[j]
						sum += cost[i]
					}
					if (v != verify || d != decompress) {
						print "frame notes give verify=" v " decompress=" d ", the report " verify " and " decompress
						exit 1
					}
					serial = total - sum
					# Each frame goes to the CPU that is free first.
					for (p = 0; p < n; p++) free[p] = 0
					for (i = 0; i < n; i++) {
						m = 0
						for (p = 1; p < n; p++) if (free[p] < free[m]) m = p
						free[m] += cost[i]
					}
					span = worst = 0
					for (p = 0; p < n; p++) if (free[p] > span) span = free[p]
					for (i = 0; i < n; i++) if (cost[i] > worst) worst = cost[i]
					busy = serial + span
					printf "| %s | %s | %d | %+.2f %% | %.0f | %.0f | %.3f | %.2f |\n",
						kn, c, n, 100 * (size - ref_size) / ref_size, serial, busy, busy / ref, worst * n / sum
				}' "$cnt"); then
				echo "smp-table: $kname $codec $n: $line" >&2
				status=1; continue
			fi
			echo "$line" >> "$rows"
			echo "smp-table: $line" >&2
		done
	done
done

# Wall clock: the report line's total= is the guest TSC, which under TCG
# without -icount runs with the host's clock.
wall_rows=$T/wall.md
: > "$wall_rows"
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
for spec in $KERNELS; do
	kname=${spec%%=*} kpath=${spec#*=}
	for codec in $WALL_CODECS; do
		one=$(pack "$kname" "$kpath" "$codec" 1) && two=$(pack "$kname" "$kpath" "$codec" 2) || { status=1; continue; }
		rm -f "$T/wall-$kname-$codec-"*.txt.new
		for run in $(seq "$WALL_RUNS"); do
			for v in one two; do
				img=${!v} log=$T/wall-$kname-$codec-$v-$run.log cpus=1
				[ $v = two ] && cpus=2
				bash ci/qemu-boot.sh -m 1G -t 600 -P $cpus -a "$APPEND" -e '^bzpack: codec=' \
					-x -accel -x tcg,thread=multi "$img" "$log"
				t=$(field "$log" total)
				[ -n "$t" ] || { echo "smp-table: wall $kname $codec $v run $run: no report line" >&2; status=1; continue 3; }
				echo "$t" >> "$T/wall-$kname-$codec-$v.txt.new"
			done
		done
		m1=$(median < "$T/wall-$kname-$codec-one.txt.new") m2=$(median < "$T/wall-$kname-$codec-two.txt.new")
		rm -f "$T/wall-$kname-$codec-"*.txt.new
		awk -v k="$kname" -v c="$codec" -v a="$m1" -v b="$m2" -v r="$WALL_RUNS" \
			'BEGIN { printf "| %s | %s | %.0f | %.0f | %.3f | %d |\n", k, c, a, b, b / a, r }' >> "$wall_rows"
	done
done
[ $status -eq 0 ] && [ -s "$rows" ] || exit 1
{
	echo "| kernel | codec | CPUs = frames | image size vs one stream | serial part, instructions | busiest CPU, instructions | × one stream on one CPU | costliest frame × mean |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|"
	cat "$rows"
} > "$OUT/smp-table.md"
{
	echo "| kernel | codec | one stream, -smp 1: TSC cycles | 2 frames, -smp 2 | × | runs (median) |"
	echo "|---|---|---:|---:|---:|---:|"
	cat "$wall_rows"
} > "$OUT/smp-wall.md"
echo "smp-table: wrote $OUT/smp-table.md and $OUT/smp-wall.md" >&2
