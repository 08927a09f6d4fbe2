# test-linux.sh - kernels built from Debian's linux-source-6.1
# (ci/fixtures/linux-src.sh, cached under build/linux), checked four ways:
#   against us   per codec, Linux's own decompressor and ours on the same
#                kernel, in exact instructions from the entry to the
#                kernel's entry (bzpack bench); the table goes to
#                $T/linux/readme.md (make readme-linux puts it in README)
#   the seed     the lz4 kernels rebuilt with the regression of Linux's
#                pre-boot LZ4 put back: bzpack bench --check against the
#                fixed tree's baseline fails and names Linux's lz4 cell,
#                for x86_64 and i386
#   Kbuild       bzpack --relocs compressed/vmlinux.relocs vmlinux boots
#                to the initramfs marker with KASLR, both word sizes; and
#                the table derived from the vmlinux's --emit-relocs
#                sections gives the same image
#   repeatable   two bzpack bench --runs 0 give identical Linux counts
# Sourced by ci/test.sh (variables tl_*).
tl_dir=$T/linux
rm -rf "$tl_dir"
mkdir -p "$tl_dir/fixed" "$tl_dir/seed"
tl_out=$B/linux/out
tl_t0=$(date +%s)

# --- The method, checked against our own report line: QEMU under
# -icount shift=0,rr=record, gdb's hardware breakpoints and `monitor info
# replay`.  Between the rdtsc before our decoder and the one after it the
# count must be cycles= exactly; from the rdtsc at our setup's first
# instructions to just after the one total= reads, total= plus that
# rdtsc.  Two stops per boot, as bzpack bench makes: a stop moves the
# guest's virtual clock, and code that waits on it (the UART's transmit
# time) then runs differently.
tl_gdb_counts() {   # IMAGE ADDR1 ADDR2: the two instruction counts
	local img=$1 port=$((20000 + RANDOM % 20000)) rr=$tl_dir/method.rr
	rm -f "$rr"
	qemu-system-x86_64 -nodefaults -display none -no-reboot -m 512M -serial null -kernel "$img" \
		-append nokaslr -icount "shift=0,sleep=off,rr=record,rrfile=$rr" -gdb "tcp:127.0.0.1:$port" -S 2> "$tl_dir/method-qemu.err" &
	local qpid=$!
	sleep 0.5
	timeout 120 gdb -nx -batch -ex "target remote 127.0.0.1:$port" -ex "hbreak *$2" -ex continue \
		-ex "monitor info replay" -ex delete -ex "hbreak *$3" -ex continue -ex "monitor info replay" -ex kill \
		2>&1 | sed -n 's/.*instruction count = \([0-9]*\).*/\1/p'
	kill "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	rm -f "$rr"
}
tl_method() {
	local img=$tl_dir/method-lz4-64.img elf=$B/stub/lz4-64.elf dis c d b a counts log=$tl_dir/method.log
	command -v gdb > /dev/null || { skip "linux: the counting method" "no gdb (ci/deps.sh)"; return; }
	"$BZPACK" -c lz4 -o "$img" "$B/images/testkern64.elf" > /dev/null 2>&1 &&
		boot "linux: the counting method" 33 "$img" "$log" -d -a nokaslr || return
	dis=$(objdump -d --no-show-raw-insn "$elf")
	# The decoder's rdtsc pair, and the instruction after stub_report's rdtsc.
	c=$(grep -B40 'call.*<stub_decode>' <<<"$dis" | grep rdtsc | tail -n 1 | awk '{print $1}' | tr -d :)
	d=$(grep -A4 'call.*<stub_decode>' <<<"$dis" | grep rdtsc | head -n 1 | awk '{print $1}' | tr -d :)
	b=$(awk '/<stub_report>:/ { f = 1 } f && /rdtsc/ { getline; print $1; exit }' <<<"$dis" | tr -d :)
	# Our setup: the jump at 0x200 lands on cli; cld; rdtsc.  QEMU loads
	# the real-mode part at 0x10000.
	a=$(python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); e = 0x202 + d[0x201] + 2
assert d[e:e + 2] == b"\x0f\x31", "no rdtsc at the setup entry"
print("%x" % (0x10000 + e))' "$img") || { fail "linux: the counting method" "setup rdtsc: $a"; return; }
	if [ -z "$c" ] || [ -z "$d" ] || [ -z "$b" ]; then
		fail "linux: the counting method" "no rdtsc addresses in $elf ($c/$d/$b)"
		return
	fi
	local cycles total n1 n2
	cycles=$(report_field "$log" cycles) total=$(report_field "$log" total)
	counts=($(tl_gdb_counts "$img" "0x$c" "0x$d"))
	n1=$(( ${counts[1]:-0} - ${counts[0]:-0} ))
	counts=($(tl_gdb_counts "$img" "0x$a" "0x$b"))
	n2=$(( ${counts[1]:-0} - ${counts[0]:-0} ))
	if [ "$n1" -eq "$cycles" ] && [ "$n2" -eq $((total + 1)) ]; then
		pass "linux: the counting method recovers our report line exactly: cycles=$cycles (rdtsc 0x$c to 0x$d), total=$total (+1: the rdtsc itself; 0x$a to 0x$b)"
	else
		fail "linux: the counting method" "counted $n1 for cycles=$cycles, $n2 for total=$total + 1"
	fi
}
tl_method

if ! bash ci/fixtures/linux-src.sh > "$tl_dir/build.log" 2>&1; then
	fail "linux: build the kernels from linux-source-6.1" "$(tail -n 5 "$tl_dir/build.log" | tr '\n' '|')"
	return 0 2>/dev/null || exit 0
fi
pass "linux: kernels built from linux-source-6.1 ($(grep -o 'done in [0-9]* s' "$tl_dir/build.log"))"

# Fixed and seed-regressed images under the same names, so that the
# seed's run is checked cell by cell against the fixed tree's baseline.
for tl_v in x86_64-lz4 x86_64-zstd x86_64-xz i386-lz4; do
	cp "$tl_out/$tl_v/bzImage" "$tl_dir/fixed/$tl_v.bzImage"
done
for tl_v in x86_64-lz4 i386-lz4; do
	cp "$tl_out/$tl_v-seed/bzImage" "$tl_dir/seed/$tl_v.bzImage"
done

# tl_bench NAME OUT WANT-STATUS BENCH-ARGS...: run bzpack bench, check its status.
tl_bench() {
	local name=$1 out=$2 want=$3
	shift 3
	"$BZPACK" bench --runs 0 "$@" > "$out" 2>&1
	tl_status=$?
	[ "$tl_status" -eq "$want" ] && return 0
	fail "$name" "bzpack bench exit $tl_status, expected $want: $(grep '^bzpack:' "$out" | head -n 4 | tr '\n' '|')"
	return 1
}

# --- Linux against us, and the baseline of the fixed lz4 kernels.
tl_lz4=("$tl_dir/fixed/x86_64-lz4.bzImage" "$tl_dir/fixed/i386-lz4.bzImage")
tl_ok=1
tl_bench "linux: bench the lz4 kernels" "$tl_dir/lz4.out" 0 -c lz4 --json "$tl_dir/lz4.json" \
	--save "$tl_dir/baseline.json" "${tl_lz4[@]}" || tl_ok=""
for tl_c in zstd xz; do
	tl_bench "linux: bench the $tl_c kernel" "$tl_dir/$tl_c.out" 0 -c "$tl_c" --json "$tl_dir/$tl_c.json" \
		"$tl_dir/fixed/x86_64-$tl_c.bzImage" || tl_ok=""
done
if [ -n "$tl_ok" ]; then
	if tl_msg=$(python3 ci/tests/linux-table.py versus "$tl_dir/lz4.json" "$tl_dir/zstd.json" "$tl_dir/xz.json" \
		> "$tl_dir/versus.md" 2>&1); then
		pass "linux: Linux's decompressor and ours, exact instructions, per codec ($(grep -c "bit) |" "$tl_dir/versus.md") rows)"
	else
		fail "linux: Linux's decompressor and ours" "$tl_msg $(cat "$tl_dir/versus.md")"
	fi
fi

# --- Repeatable: the same bench again gives the same Linux counts, and
# --check against the first run's baseline passes, every cell checked.
if tl_bench "linux: bench the lz4 kernels again" "$tl_dir/lz4-again.out" 0 -c lz4 --json "$tl_dir/lz4-again.json" \
	--check "$tl_dir/baseline.json" "${tl_lz4[@]}"; then
	if tl_msg=$(python3 ci/tests/linux-table.py same "$tl_dir/lz4.json" "$tl_dir/lz4-again.json" 2>&1) &&
		grep -q "checked 4 of 4 baseline cells .*: ok" "$tl_dir/lz4-again.out"; then
		pass "linux: two bench --runs 0 give identical Linux counts ($tl_msg), --check passes 4 of 4"
	else
		fail "linux: repeatable counts" "$tl_msg $(grep 'checked' "$tl_dir/lz4-again.out")"
	fi
fi

# --- The seed: the regressed build fails --check on Linux's lz4 cell, by
# name, for both word sizes; our cells (the same vmlinux) still pass.
if tl_bench "linux: the seed's regression" "$tl_dir/seed.out" 1 -c lz4 --json "$tl_dir/seed.json" \
	--check "$tl_dir/baseline.json" "$tl_dir/seed/x86_64-lz4.bzImage" "$tl_dir/seed/i386-lz4.bzImage"; then
	tl_miss=""
	for tl_k in x86_64-lz4.bzImage/lz4/64/linux i386-lz4.bzImage/lz4/32/linux; do
		grep -Eq "^bzpack: .*: $tl_k: instructions [0-9]+, baseline [0-9]+ \(\+" "$tl_dir/seed.out" || tl_miss="$tl_miss $tl_k"
	done
	tl_others=$(grep -E '^bzpack: .*baseline.json: ' "$tl_dir/seed.out" | grep -v '/linux: instructions' || true)
	if [ -n "$tl_miss" ]; then
		fail "linux: the seed's regression" "not named:$tl_miss: $(grep '^bzpack:' "$tl_dir/seed.out" | tr '\n' '|')"
	elif [ -n "$tl_others" ]; then
		fail "linux: the seed's regression" "other cells failed too: $tl_others"
	elif tl_msg=$(python3 ci/tests/linux-table.py seed "$tl_dir/lz4.json" "$tl_dir/seed.json" > "$tl_dir/seed.md" 2>&1); then
		pass "linux: --check catches the seed's regression on Linux's lz4 cell, x86_64 and i386 ($(grep -o '[0-9]*\.[0-9]*x' "$tl_dir/seed.md" | tr '\n' ' '))"
	else
		fail "linux: the seed's table" "$tl_msg"
	fi
fi
{
	cat "$tl_dir/versus.md" 2>/dev/null
	echo
	cat "$tl_dir/seed.md" 2>/dev/null
} > "$tl_dir/readme.md"

# --- The Kbuild route: vmlinux with compressed/vmlinux.relocs, KASLR on.
tl_boot() {   # NAME ARCH IMAGE
	local name=$1 arch=$2 img=$3 deb=amd64 qemu=qemu-system-x86_64 log
	[ "$arch" = i386 ] && deb=i386 qemu=qemu-system-i386
	log=$tl_dir/$(basename "$img").log
	if [ ! -x "$B/debian/$deb/busybox" ]; then
		skip "$name" "no $B/debian/$deb/busybox (ci/fixtures/fetch-debian.sh)"
		return 1
	fi
	[ -s "$tl_dir/initrd-$deb" ] || bash ci/fixtures/mkinitramfs.sh "$B/debian/$deb/busybox" "$tl_dir/initrd-$deb"
	boot "$name" 0 "$img" "$log" -q "$qemu" -t 120 -i "$tl_dir/initrd-$deb" -a "console=ttyS0" \
		-e 'bzpack-initramfs: userspace reached' || return 1
	if ! grep -q 'kaslr=phys:' "$log"; then
		fail "$name" "not randomised: $(grep -m1 '^bzpack: codec=' "$log")"
		return 1
	fi
	pass "$name ($(grep -o 'kaslr=[^ ]*' "$log"), $(grep -o 'kernel [^ ]* [^ ]*$' "$log" | head -n 1))"
}
for tl_arch in x86_64 i386; do
	tl_k=$tl_out/$tl_arch-lz4
	tl_img=$tl_dir/kbuild-$tl_arch.img
	if ! tl_msg=$("$BZPACK" -c lz4 --relocs "$tl_k/vmlinux.relocs" -o "$tl_img" "$tl_k/vmlinux" 2>&1); then
		fail "linux: bzpack --relocs vmlinux.relocs vmlinux ($tl_arch)" "$tl_msg"
		continue
	fi
	tl_boot "linux: bzpack --relocs vmlinux.relocs vmlinux boots to the initramfs with KASLR ($tl_arch)" \
		"$tl_arch" "$tl_img"
	# --emit-relocs: X86_NEED_RELOCS links vmlinux with its relocation
	# sections; the table bzpack derives from them must be Kbuild's.
	if ! tl_msg=$("$BZPACK" -c lz4 -o "$tl_dir/emit-$tl_arch.img" "$tl_k/vmlinux" 2>&1); then
		fail "linux: bzpack vmlinux, its --emit-relocs sections ($tl_arch)" "$tl_msg"
	elif cmp -s "$tl_img" "$tl_dir/emit-$tl_arch.img"; then
		pass "linux: the table from vmlinux's --emit-relocs sections is Kbuild's vmlinux.relocs ($tl_arch): the same image"
	else
		fail "linux: bzpack vmlinux, its --emit-relocs sections ($tl_arch)" \
			"image differs from the --relocs one: $("$BZPACK" --info "$tl_dir/emit-$tl_arch.img" 2>&1 | grep -i reloc | tr '\n' '|')"
	fi
done
echo "linux: $(( $(date +%s) - tl_t0 )) s"
